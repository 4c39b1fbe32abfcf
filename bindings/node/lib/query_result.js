'use strict';
// A SELECT's result: its Arrow C stream read as Batch handles, or moved
// out whole (ArrowStream) for another consumer of the Arrow C stream
// interface.
const native = require('./native');
const arrow = require('./arrow');
const { Handle } = require('./handle');
const { ERROR_CLASSES, Status, check, LakeError } = require('./errors');
const { Location } = require('./location');

const { koffi, types } = native;
const lib = () => native.lib();

// An Arrow C stream of a SELECT's batches; iterate it for Batch handles.
class QueryResult extends Handle {
  constructor(stream, db) {
    super();
    this.initHandle(stream, (p) => arrow.releaseAndFree(p, types.ArrowArrayStream), db, 'query result');
    this._schema = null;
  }

  _fail(ptr, code) {
    const stream = koffi.decode(ptr, types.ArrowArrayStream);
    const message = koffi.call(stream.get_last_error, types.arrowGetLastError, ptr);
    return arrowError(code, message);
  }

  // Calls the stream's `member` callback (of prototype `proto`) into a new
  // zeroed struct of `type`: its pointer (freed here when the call fails).
  _pull(member, proto, type) {
    const ptr = this.ptr();
    const out = arrow.allocZeroed(type);
    const stream = koffi.decode(ptr, types.ArrowArrayStream);
    const code = koffi.call(stream[member], proto, ptr, out);
    if (code !== 0) {
      koffi.free(out);
      throw this._fail(ptr, code);
    }
    return out;
  }

  // The result's ArrowSchema (a pointer owned by the result).
  schemaPointer() {
    this.ptr();
    if (this._schema === null) {
      this._schema = this._pull('get_schema', types.arrowGetSchema, types.ArrowSchema);
    }
    return this._schema;
  }

  get columnNames() {
    const schema = koffi.decode(this.schemaPointer(), types.ArrowSchema);
    return arrow.pointers(schema.children, Number(schema.n_children))
      .map((p) => koffi.decode(p, types.ArrowSchema).name);
  }

  // The next Batch, or null at the end.
  next() {
    const schema = this.schemaPointer();
    const array = this._pull('get_next', types.arrowGetNext, types.ArrowArray);
    if (!koffi.decode(array, types.ArrowArray).release) {
      koffi.free(array);
      return null;
    }
    return new Batch(array, schema, this);
  }

  * [Symbol.iterator]() {
    for (let batch = this.next(); batch !== null; batch = this.next()) yield batch;
  }

  // Every row as an object of column values (FILE cells as {uri, …}); closes the result.
  rows() {
    try {
      const rows = [];
      for (const batch of this) {
        try {
          rows.push(...batch.rows());
        } finally {
          batch.close();
        }
      }
      return rows;
    } finally {
      this.close();
    }
  }

  // Moves the result's Arrow C stream out, for any consumer of the Arrow C
  // stream interface (DuckDB's duckdb_arrow_scan, …): an ArrowStream whose
  // `address` points at the struct. The result closes; the root must
  // outlive the stream.
  exportArrowStream() {
    const ptr = this.ptr();
    const size = koffi.sizeof(types.ArrowArrayStream);
    const moved = arrow.allocZeroed(types.ArrowArrayStream);
    const source = Buffer.from(koffi.view(ptr, size));
    Buffer.from(koffi.view(moved, size)).set(source);
    source.fill(0);  // released here: the struct now lives at `moved`
    const db = this._parent;
    this.close();
    return new ArrowStream(moved, db);
  }

  closeNative(ptr) {
    super.closeNative(ptr);
    if (this._schema !== null) arrow.releaseAndFree(this._schema, types.ArrowSchema);
  }
}

// An ArrowArrayStream moved out of a QueryResult, at `address`. A consumer
// may take it (copy it and set its release to NULL); close() releases what
// is left and frees the struct's memory.
class ArrowStream extends Handle {
  constructor(stream, db) {
    super();
    this.initHandle(stream, (p) => arrow.releaseAndFree(p, types.ArrowArrayStream), db,
      'Arrow stream');
  }

  get address() { return this.ptr(); }
}

// The stream's errno as lake's error: EBADMSG (damaged data) is INTEGRITY,
// EINVAL INVALID_ARGUMENT, ENOMEM INTERNAL, anything else IO.
function arrowError(code, message) {
  const status = { 74: Status.INTEGRITY, 22: Status.INVALID_ARGUMENT, 12: Status.INTERNAL }[code]
    || Status.IO;
  const ErrorClass = ERROR_CLASSES.get(status);
  return new ErrorClass(message || `Arrow stream error ${code}`);
}

// One ArrowArray of a result.
class Batch extends Handle {
  constructor(array, schema, result) {
    super();
    this.initHandle(array, (p) => arrow.releaseAndFree(p, types.ArrowArray), result, 'batch');
    this._schemaPtr = schema;
  }

  get numRows() { return Number(koffi.decode(this.ptr(), types.ArrowArray).length); }

  _columnIndex(column) {
    this.ptr();
    if (typeof column === 'number') return column;
    const schema = koffi.decode(this._schemaPtr, types.ArrowSchema);
    const index = arrow.pointers(schema.children, Number(schema.n_children))
      .findIndex((p) => koffi.decode(p, types.ArrowSchema).name === column);
    if (index < 0) throw new LakeError(`no column ${column}`);
    return index;
  }

  // The values of one column (by name or index).
  column(column) {
    const ptr = this.ptr();
    const index = this._columnIndex(column);
    const schema = koffi.decode(this._schemaPtr, types.ArrowSchema);
    const array = koffi.decode(ptr, types.ArrowArray);
    const childSchema = koffi.decode(arrow.pointers(schema.children, Number(schema.n_children))[index], types.ArrowSchema);
    const childArray = koffi.decode(arrow.pointers(array.children, Number(array.n_children))[index], types.ArrowArray);
    return arrow.columnValues(childSchema, childArray);
  }

  rows() {
    this.ptr();
    const schema = koffi.decode(this._schemaPtr, types.ArrowSchema);
    const names = arrow.pointers(schema.children, Number(schema.n_children))
      .map((p) => koffi.decode(p, types.ArrowSchema).name);
    const columns = names.map((_, i) => this.column(i));
    const rows = [];
    for (let r = 0; r < this.numRows; r += 1) {
      rows.push(Object.fromEntries(names.map((name, c) => [name, columns[c][r]])));
    }
    return rows;
  }

  // The DataLocation of a FILE cell (lake_location_from_arrow); a null cell
  // is the NOT_FOUND error.
  location(column, row) {
    const out = [null];
    check(lib().lake_location_from_arrow, this._schemaPtr, this.ptr(), this._columnIndex(column),
      row, out);
    return new Location(out[0]);
  }
}

module.exports = { QueryResult, Batch, ArrowStream };
