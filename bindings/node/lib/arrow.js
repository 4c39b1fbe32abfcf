'use strict';
// Query results as Arrow: the C stream lake_statement_query fills, read
// batch by batch, and a small decoder of the column types lake produces.
//
// Memory: the ArrowArrayStream, each ArrowSchema and ArrowArray live in
// koffi.alloc'd memory owned by the handle that holds them (QueryResult,
// Batch); each is released through its own `release` exactly once (the
// Arrow C data interface's rule), then the memory is freed.
const native = require('./native');

const { koffi, types } = native;

function allocZeroed(type) {
  const pointer = koffi.alloc(type, 1);
  Buffer.from(koffi.view(pointer, koffi.sizeof(type))).fill(0);
  return pointer;
}

// Releases the Arrow struct at `pointer` (unless it was released or moved
// out) and frees its memory.
function releaseAndFree(pointer, type) {
  const struct = koffi.decode(pointer, type);
  if (struct.release) koffi.call(struct.release, types.arrowRelease, pointer);
  koffi.free(pointer);
}

function pointers(address, count) {
  if (!address || count === 0) return [];
  return [].concat(koffi.decode(address, 'void*', count));
}

function bytesAt(address, length) {
  if (length === 0) return Buffer.alloc(0);
  return Buffer.from(koffi.view(address, length));
}

function bit(address, index) {
  return (koffi.decode(address, Math.floor(index / 8), 'uint8_t') >> (index % 8)) & 1;
}

// The JS values of one column: `schema` and `array` are decoded structs.
function columnValues(schema, array) {
  const length = Number(array.length);
  const offset = Number(array.offset);
  const buffers = pointers(array.buffers, Number(array.n_buffers));
  const valid = (i) => !buffers[0] || Number(array.null_count) === 0 || bit(buffers[0], offset + i);
  let decode;
  switch (schema.format) {
    case 'l': case 'tsu:UTC':
      decode = (i) => koffi.decode(buffers[1], (offset + i) * 8, 'int64_t');
      break;
    case 'g':
      decode = (i) => koffi.decode(buffers[1], (offset + i) * 8, 'double');
      break;
    case 'b':
      decode = (i) => bit(buffers[1], offset + i) === 1;
      break;
    case 'u': case 'z': {
      decode = (i) => {
        const [start, end] = koffi.decode(buffers[1], (offset + i) * 4, 'int32_t', 2);
        const data = bytesAt(BigInt(buffers[2]) + BigInt(start), end - start);
        return schema.format === 'u' ? data.toString('utf8') : data;
      };
      break;
    }
    case '+s': {
      const childSchemas = pointers(schema.children, Number(schema.n_children))
        .map((p) => koffi.decode(p, types.ArrowSchema));
      const childArrays = pointers(array.children, Number(array.n_children))
        .map((p) => koffi.decode(p, types.ArrowArray));
      const columns = childSchemas.map((s, c) => {
        const shifted = { ...childArrays[c], offset: Number(childArrays[c].offset) + offset };
        return [s.name, columnValues(s, { ...shifted, length: length })];
      });
      decode = (i) => Object.fromEntries(columns.map(([name, values]) => [name, values[i]]));
      break;
    }
    default:
      throw new Error(`Arrow format ${JSON.stringify(schema.format)}: use exportArrowStream()`);
  }
  const values = [];
  for (let i = 0; i < length; i += 1) values.push(valid(i) ? decode(i) : null);
  return values;
}

module.exports = { allocZeroed, releaseAndFree, pointers, columnValues };
