'use strict';
// Verified and range readers as stream.Readable.
const stream = require('node:stream');
const native = require('./native');
const { CallbackErrors } = require('./callbacks');
const { StreamHandle } = require('./stream_handle');
const { Status, check, errorFromNative } = require('./errors');

const { koffi } = native;
const lib = () => native.lib();

// A reader as a stream.Readable of Buffers; the stream ends only at lake's
// verified (full read) or complete (range) end, and fails with lake's error
// otherwise. readSync/readAllSync read without the stream machinery. The
// reader is one-thread-at-a-time: asynchronous reads (readAsync) are
// serialised, and close() waits for one in flight.
class Reader extends stream.Readable {
  constructor(ptr, parent, { chunkSize = 1 << 20, errors = null } = {}) {
    super({ highWaterMark: chunkSize });
    this._chunkSize = chunkSize;
    this._errors = errors || new CallbackErrors();  // a host store's, when it serves the reads
    this.handle = new StreamHandle(ptr, (p) => lib().lake_reader_free(p), parent, 'reader', this);
    this._tail = null;  // the last asynchronous read queued
  }

  // The pointer for a synchronous call: refused while an asynchronous read
  // is in flight (one call at a time).
  _syncPtr() {
    const ptr = this.handle.ptr();
    if (this.handle._busy > 0) {
      throw new Error('the reader is in use by an asynchronous read (one call at a time)');
    }
    return ptr;
  }

  // Reads into `buffer`; the count, 0 at the (verified) end.
  readSync(buffer) {
    const ptr = this._syncPtr();
    const n = [0];
    this._errors.run(() => check(lib().lake_reader_read, ptr, buffer, buffer.length, n));
    return Number(n[0]);
  }

  // readSync without the copy (lake_reader_read_view): a Buffer over up to
  // `maxLength` bytes of the reader's own memory, valid only until the next
  // call on this reader (copy what must outlive it); empty at the end.
  readViewSync(maxLength) {
    const ptr = this._syncPtr();
    const data = [null];
    const n = [0];
    this._errors.run(() => check(lib().lake_reader_read_view, ptr, data, maxLength, n));
    const length = Number(n[0]);
    return length === 0 ? Buffer.alloc(0) : Buffer.from(koffi.view(data[0], length));
  }

  // The rest of the object as one Buffer.
  readAllSync() {
    const chunks = [];
    for (;;) {
      const buffer = Buffer.allocUnsafe(this._chunkSize);
      const n = this.readSync(buffer);
      if (n === 0) return Buffer.concat(chunks);
      chunks.push(n === buffer.length ? buffer : buffer.subarray(0, n));
    }
  }

  // readSync on a thread of koffi's, one call at a time per reader (a call
  // starts when the one before it returned): a promise of the count.
  readAsync(buffer) {
    const start = () => this.handle.busy((ptr) => new Promise((resolve, reject) => {
      const n = [0];
      const err = [null];
      lib().lake_reader_read.async(ptr, buffer, buffer.length, n, err, (error, status) => {
        if (error) reject(error);
        else if (status !== Status.OK) reject(errorFromNative(status, err[0]));
        else resolve(Number(n[0]));
      });
    }));
    const result = this._tail === null ? start() : this._tail.then(start, start);
    const tail = result.then(() => {}, () => {}).then(() => {
      if (this._tail === tail) this._tail = null;
    });
    this._tail = tail;
    return result;
  }

  get verified() {
    return lib().lake_reader_verified(this.handle.ptr()) !== 0;
  }

  _read(size) {
    try {
      const buffer = Buffer.allocUnsafe(Math.max(size, this._chunkSize));
      const n = this.readSync(buffer);
      this.push(n === 0 ? null : buffer.subarray(0, n));
    } catch (error) {
      this.destroy(error);
    }
  }

  // Closes the reader: lake_reader_close (an early close claims nothing).
  // With an asynchronous read in flight, the reader is freed once it returns.
  close() {
    if (!this.handle.closed && this.handle._busy > 0) {
      this.handle.close();
      if (!this.destroyed) this.destroy();
    } else if (!this.handle.closed) {
      const ptr = this.handle.ptr();
      const err = [null];
      const status = lib().lake_reader_close(ptr, err);
      this.handle.close();
      if (!this.destroyed) this.destroy();
      if (status !== Status.OK) throw errorFromNative(status, err[0]);
    }
  }

  _destroy(error, callback) {
    if (!this.handle.closed) this.handle.close();
    callback(error);
  }
}

module.exports = { Reader };
