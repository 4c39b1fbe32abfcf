'use strict';
// Stages and their objects: DataLocation, cancellation, upload options,
// readers (stream.Readable) and writers (stream.Writable), and host stores.
const stream = require('node:stream');
const native = require('./native');
const { CallbackErrors, Registered, callAsync, readSource } = require('./callbacks');
const { Handle } = require('./handle');
const { Status, UnsupportedError, check, errorFromNative } = require('./errors');

const { koffi, types } = native;
const lib = () => native.lib();

// A string lake returned as char* (freed here with lake_string_free).
function takeString(pointer) {
  if (!pointer) return null;
  try {
    return koffi.decode(pointer, 'char', -1);
  } finally {
    lib().lake_string_free(pointer);
  }
}

// Calls `fn(...args, &text, &err)`; the text lake returns (null for none).
function stringCall(fn, ...args) {
  const out = [null];
  check(fn, ...args, out);
  return takeString(out[0]);
}

// Calls `fn(...args, &json, &err)`; the JSON text lake returns, parsed.
function jsonCall(fn, ...args) {
  const text = stringCall(fn, ...args);
  return text === null ? null : JSON.parse(text);
}

class Location extends Handle {
  // Wraps an owned lake_location*.
  constructor(ptr, parent = null) {
    super();
    this.initHandle(ptr, (p) => lib().lake_location_free(p), parent, 'location');
  }

  static fromJson(text) {
    const bytes = Buffer.from(text, 'utf8');
    const out = [null];
    check(lib().lake_location_from_json, bytes, bytes.length, out);
    return new Location(out[0]);
  }

  static create(uri, contentType, sizeBytes, sha256) {
    const out = [null];
    check(lib().lake_location_new, uri, contentType, sizeBytes, sha256, out);
    return new Location(out[0]);
  }

  get json() { return lib().lake_location_json(this.ptr()); }
  get uri() { return lib().lake_location_uri(this.ptr()); }
  get contentType() { return lib().lake_location_content_type(this.ptr()); }
  get sizeBytes() { return Number(lib().lake_location_size_bytes(this.ptr())); }
  get sha256() { return lib().lake_location_sha256(this.ptr()); }
  toJSON() { return JSON.parse(this.json); }
}

class CancelToken extends Handle {
  constructor() {
    super();
    this.initHandle(lib().lake_cancel_token_new(), (p) => lib().lake_cancel_token_free(p),
      null, 'cancel token');
  }

  cancel() { lib().lake_cancel_token_cancel(this.ptr()); }
  get cancelled() { return lib().lake_cancel_token_is_cancelled(this.ptr()) !== 0; }
}

// Options of uploads: content type, cancel token, progress and notice
// callbacks. Borrows its token (closing the token closes these options
// first); its callbacks are registered until it closes.
class UploadOptions extends Handle {
  constructor({ contentType = null, cancel = null, progress = null, notice = null } = {}) {
    super();
    this.initHandle(lib().lake_upload_options_new(), (p) => lib().lake_upload_options_free(p),
      cancel, 'upload options');
    this.errors = new CallbackErrors();
    this._callbacks = [];
    try {
      if (contentType !== null) {
        check(lib().lake_upload_options_set_content_type, this.ptr(), contentType);
      }
      if (cancel !== null) lib().lake_upload_options_set_cancel_token(this.ptr(), cancel.ptr());
      if (progress !== null) {
        const cb = this._register((_ctx, done, total) => progress(Number(done), Number(total)),
          types.progress, undefined);
        lib().lake_upload_options_set_progress(this.ptr(), cb.pointer, null);
      }
      if (notice !== null) {
        const cb = this._register((_ctx, line) => notice(line), types.notice, undefined);
        lib().lake_upload_options_set_notice(this.ptr(), cb.pointer, null);
      }
    } catch (error) {
      this.close();
      throw error;
    }
  }

  _register(fn, proto, failure) {
    const cb = new Registered(this.errors.wrap(fn, failure), proto);
    this._callbacks.push(cb);
    return cb;
  }

  released() {
    this._pendingUnregister = this._callbacks.splice(0);
  }

  closeNative(ptr) {
    super.closeNative(ptr);
    for (const cb of this._pendingUnregister || []) cb.unregister();
  }
}

// Options given as an UploadOptions or as its constructor's fields: calls
// `fn(optionsPtr, errors)` with the options (made for the call and closed
// after it, when given as fields).
function withOptions(options, fn) {
  if (options instanceof UploadOptions) return fn(options.ptr(), options.errors);
  if (options === null || options === undefined || Object.keys(options).length === 0) {
    return fn(null, new CallbackErrors());
  }
  const made = new UploadOptions(options);
  try {
    return fn(made.ptr(), made.errors);
  } finally {
    made.close();
  }
}

class Stage extends Handle {
  // Wraps a lake_stage* (`owned` false: the db's stage, freed with the db).
  constructor(ptr, parent, owned, hostStore = null) {
    super();
    this.initHandle(ptr, owned ? (p) => lib().lake_stage_free(p) : null, parent, 'stage');
    this._hostStore = hostStore;
  }

  // Opens a stage from options set by `configure(optsPtr)`.
  static _open(configure, hostStore = null) {
    const opts = lib().lake_stage_options_new();
    try {
      configure(opts);
      const out = [null];
      check(lib().lake_stage_open, opts, out);
      return new Stage(out[0], null, true, hostStore);
    } finally {
      lib().lake_stage_options_free(opts);
    }
  }

  static openLocal(directory, { tenant = null } = {}) {
    return Stage._open((opts) => {
      check(lib().lake_stage_options_set_local_root, opts, String(directory));
      if (tenant !== null) check(lib().lake_stage_options_set_tenant, opts, tenant);
    });
  }

  // An S3 stage; `options` as configureS3's (endpoint, region, pathStyle, …).
  static openS3(stageUri, options = {}) {
    return Stage._open((opts) => configureS3(opts, { ...options, stageUri }));
  }

  // A stage served by `store` (see HostStore), with an optional host id.
  static openHost(store, { hostId = null } = {}) {
    const { HostStore } = require('./host_store');
    const host = store instanceof HostStore ? store : new HostStore(store);
    try {
      return Stage._open((opts) => host.configure(opts, hostId), host);
    } catch (error) {
      host.destroyed();
      throw error;
    }
  }

  get descriptor() { return lib().lake_stage_descriptor(this.ptr()); }
  get ioBackend() { return lib().lake_stage_io_backend(this.ptr()); }

  _hostErrors() {
    return this._hostStore ? this._hostStore.errors : new CallbackErrors();
  }

  // Uploads a file path (a string) or a byte source (a Buffer or a
  // synchronous iterable of Buffers); the new object's Location.
  put(source, options = {}) {
    const ptr = this.ptr();
    return withOptions(options, (opts, errors) => {
      const out = [null];
      const host = this._hostErrors();
      if (typeof source === 'string') {
        host.run(() => errors.run(() => check(lib().lake_stage_upload_path, ptr, source, opts, out)));
      } else {
        const read = readSource(source);
        const sourceErrors = new CallbackErrors();
        sourceErrors.run(() => host.run(() => errors.run(() => check(
          lib().lake_stage_upload_reader, ptr, sourceErrors.wrap(read, -1), null, opts, out))));
      }
      return new Location(out[0]);
    });
  }

  // A push upload: a stream.Writable publishing at end(). Refused on a stage
  // served by a JS host store: lake runs the store's upload callback on its
  // own thread while the caller writes, the callback waits for this
  // thread's event loop, and it would hold that loop for the whole upload,
  // never letting the caller's next write in (use put() there).
  writer(options = {}) {
    const ptr = this.ptr();
    if (this._hostStore) {
      throw new UnsupportedError('a writer on a stage served by a JS host store would deadlock; use put()');
    }
    const owned = !(options instanceof UploadOptions) && Object.keys(options).length > 0
      ? new UploadOptions(options) : null;
    const used = owned || (options instanceof UploadOptions ? options : null);
    try {
      const out = [null];
      check(lib().lake_writer_open, ptr, used ? used.ptr() : null, out);
      return new Writer(out[0], this, used, owned);
    } catch (error) {
      if (owned) owned.close();
      throw error;
    }
  }

  // A verified full read of `location`: a stream.Readable.
  open(location) {
    const out = [null];
    this._hostErrors().run(() => check(lib().lake_reader_open, this.ptr(), location.ptr(), out));
    return new Reader(out[0], this, { errors: this._hostErrors() });
  }

  // The bytes [start, end) of `location`: a stream.Readable.
  openRange(location, start, end) {
    const out = [null];
    this._hostErrors().run(() => check(lib().lake_reader_open_range, this.ptr(), location.ptr(),
      start, end, out));
    return new Reader(out[0], this, { errors: this._hostErrors() });
  }

  // The whole object, verified, as a Buffer.
  cat(location) {
    const reader = this.open(location);
    try {
      return reader.readAllSync();
    } finally {
      reader.close();
    }
  }

  // Reads [{location, start, end}, …] in one batch: a Buffer per range.
  // The first failed range's error is thrown, with `ranges` (each one's
  // status, bytes read and error) attached as `error.ranges`.
  readRanges(ranges) {
    const ptr = this.ptr();
    const size = koffi.sizeof(types.Range);
    const array = koffi.alloc(types.Range, Math.max(ranges.length, 1));
    const buffers = ranges.map((r) => koffi.alloc('uint8_t', Math.max(Number(r.end) - Number(r.start), 1)));
    try {
      ranges.forEach((r, i) => koffi.encode(array, i * size, types.Range, {
        location: r.location.ptr(), start: r.start, end: r.end, buffer: buffers[i],
        status: 0, bytes_read: 0, error: null,
      }));
      const err = [null];
      const status = this._hostErrors().run(() => lib().lake_stage_read_ranges(ptr, array, ranges.length, err));
      const results = ranges.map((r, i) => {
        const out = koffi.decode(array, i * size, types.Range);
        const error = out.status === Status.OK ? null : errorFromNative(out.status, out.error);
        const length = Number(out.bytes_read);
        return { status: out.status, error,
          data: error ? null : Buffer.from(Buffer.from(koffi.view(buffers[i], Math.max(length, 1))).subarray(0, length)) };
      });
      if (status !== Status.OK) {
        const first = results.find((r) => r.error) || { error: errorFromNative(status, err[0]) };
        if (err[0] && first.error !== undefined) lib().lake_error_free(err[0]);
        first.error.ranges = results;
        throw first.error;
      }
      return results.map((r) => r.data);
    } finally {
      for (const b of buffers) koffi.free(b);
      koffi.free(array);
    }
  }

  // Every published object: [{uri, sizeBytes, modifiedUnixMicros}].
  list() {
    const entries = [];
    const errors = new CallbackErrors();
    const emit = errors.wrap((_ctx, pointer) => {
      const entry = koffi.decode(pointer, types.ListEntry);
      entries.push({ uri: entry.uri, sizeBytes: Number(entry.size_bytes),
        modifiedUnixMicros: Number(entry.modified_unix_micros) });
      return 0;
    }, 1);
    this._hostErrors().run(() => errors.run(() => check(lib().lake_stage_list, this.ptr(),
      emit, null)));
    return entries;
  }

  delete(location) {
    this._hostErrors().run(() => check(lib().lake_stage_delete, this.ptr(), location.ptr()));
  }

  presign(location, ttlSeconds) {
    return stringCall(lib().lake_stage_presign, this.ptr(), location.ptr(), ttlSeconds);
  }

  cleanStaging() {
    const removed = [0];
    check(lib().lake_stage_clean_staging, this.ptr(), removed);
    return Number(removed[0]);
  }

  closeNative(ptr) {
    super.closeNative(ptr);
    if (this._free && this._hostStore) this._hostStore.destroyed();
  }
}

// Sets stage options `opts` from {stageUri, endpoint, region, pathStyle,
// tenant, concurrency, partSize, uploadCheckpointDir, downloadStreams,
// downloadRangeSize, descriptor} (each optional).
function configureS3(opts, { stageUri, endpoint, region, pathStyle, tenant, concurrency,
  partSize, uploadCheckpointDir, downloadStreams, downloadRangeSize, descriptor }) {
  const set = (fn, value) => check(fn, opts, value);
  const f = lib();
  if (descriptor) {
    const bytes = Buffer.from(descriptor, 'utf8');
    check(f.lake_stage_options_set_descriptor, opts, bytes, bytes.length);
  }
  if (stageUri) set(f.lake_stage_options_set_s3, stageUri);
  if (endpoint) set(f.lake_stage_options_set_s3_endpoint, endpoint);
  if (region) set(f.lake_stage_options_set_s3_region, region);
  if (pathStyle) f.lake_stage_options_set_s3_path_style(opts, 1);
  if (tenant) set(f.lake_stage_options_set_tenant, tenant);
  if (concurrency) set(f.lake_stage_options_set_s3_concurrency, concurrency);
  if (partSize) set(f.lake_stage_options_set_s3_part_size, partSize);
  if (uploadCheckpointDir !== undefined && uploadCheckpointDir !== null) {
    set(f.lake_stage_options_set_upload_checkpoint_dir, String(uploadCheckpointDir));
  }
  if (downloadStreams) set(f.lake_stage_options_set_s3_download_streams, downloadStreams);
  if (downloadRangeSize) set(f.lake_stage_options_set_s3_download_range_size, downloadRangeSize);
}

// The native half of a Reader or Writer stream: a Handle, a child of its
// stage (or event log). Closed by a parent, it destroys its stream, which
// fails from then on (unless the stream itself is closing it).
class StreamHandle extends Handle {
  constructor(ptr, free, parent, kind, stream) {
    super();
    this.initHandle(ptr, free, parent, kind);
    this.stream = stream;
  }

  released() {
    if (!this.stream._closing && !this.stream.destroyed) this.stream.destroy();
  }
}

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

  // Reads into `buffer`; the count, 0 at the (verified) end.
  readSync(buffer) {
    const ptr = this.handle.ptr();
    if (this.handle._busy > 0) {
      throw new Error('the reader is in use by an asynchronous read (one call at a time)');
    }
    const n = [0];
    this._errors.run(() => check(lib().lake_reader_read, ptr, buffer, buffer.length, n));
    return Number(n[0]);
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

// A push upload as a stream.Writable: end() publishes the object (its
// Location is then `location`, and 'finish' is emitted); destroy() or
// close() before that publishes nothing. writeSync/publish do the same
// without the stream machinery.
class Writer extends stream.Writable {
  constructor(ptr, stage, options, ownedOptions) {
    super({ decodeStrings: true });
    this._hostErrors = stage._hostErrors();
    this.handle = new StreamHandle(ptr, (p) => lib().lake_writer_free(p), stage, 'writer', this);
    if (options) options._children.add(this.handle);  // the token it borrows outlives it
    this._options = options;
    this._ownedOptions = ownedOptions;
    this.location = null;
  }

  _errors() {
    return this._options ? this._options.errors : new CallbackErrors();
  }

  // Synchronous writes: on a local stage. (On an S3 or host-store stage with
  // JS callbacks, lake calls them from its own thread during the write, and
  // they wait for the event loop this call blocks: use the stream there.)
  writeSync(data) {
    const bytes = typeof data === 'string' ? Buffer.from(data) : data;
    this._errors().run(() => check(lib().lake_writer_write, this.handle.ptr(), bytes, bytes.length));
  }

  // Publishes the object: its Location.
  publish() {
    const out = [null];
    this._errors().run(() => check(lib().lake_writer_close, this.handle.ptr(), out));
    this.location = new Location(out[0]);
    this.close();
    return this.location;
  }

  // The stream's writes and publication run on koffi's threads: on an S3 or
  // host-store stage lake calls progress and host callbacks from its upload
  // thread while a write is under way, and they need the event loop free.
  _write(chunk, _encoding, callback) {
    const bytes = Buffer.from(chunk);
    this.handle.busy((ptr) => callAsync(lib().lake_writer_write, [ptr, bytes, bytes.length],
      this._errorSets())).then(() => callback(), callback);
  }

  _final(callback) {
    const out = [null];
    this.handle.busy((ptr) => callAsync(lib().lake_writer_close, [ptr, out], this._errorSets()))
      .then(() => {
        this.location = new Location(out[0]);
        this.close();
        callback();
      }, callback);
  }

  _errorSets() {
    return [this._errors(), this._hostErrors];
  }

  // Discards an unpublished upload; closes the writer.
  close() {
    if (this._options) this._options._children.delete(this.handle);
    this._closing = true;
    this.handle.close();
    if (this._ownedOptions) this._ownedOptions.close();
  }

  _destroy(error, callback) {
    this.close();
    callback(error);
  }
}

module.exports = {
  Location, CancelToken, UploadOptions, Stage, Reader, Writer, withOptions, takeString,
  stringCall, jsonCall, configureS3,
};
