'use strict';
// A stage: where managed objects live. Uploads (put, writers), verified
// and range reads, batched ranges, listing, deletion, presigning.
const native = require('./native');
const { CallbackErrors, Registered, callAsync, readSource } = require('./callbacks');
const { Handle } = require('./handle');
const { Status, UnsupportedError, check, errorFromNative } = require('./errors');
const { Location } = require('./location');
const { UploadOptions, withOptions, withOptionsAsync } = require('./upload_options');
const { configureS3 } = require('./stage_options');
const { Reader } = require('./reader');
const { Writer } = require('./writer');
const { stringCall } = require('./strings');

const { koffi, types } = native;
const lib = () => native.lib();

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

  // put() on a thread of koffi's, the event loop staying free meanwhile (for
  // callbacks lake makes from its upload threads: an S3 upload's notices):
  // a promise of the Location. The stage and the options are in use until
  // it returns.
  putAsync(source, options = {}) {
    const out = [null];
    const sourceErrors = new CallbackErrors();
    const read = typeof source === 'string' ? null
      : new Registered(sourceErrors.wrap(readSource(source), -1), types.read);
    const upload = withOptionsAsync(options, (opts, optionErrors) => this.busy((ptr) => callAsync(
      read === null ? lib().lake_stage_upload_path : lib().lake_stage_upload_reader,
      read === null ? [ptr, source, opts, out] : [ptr, read.pointer, null, opts, out],
      [sourceErrors, optionErrors, this._hostErrors()])));
    return upload.then(() => new Location(out[0])).finally(() => {
      if (read !== null) read.unregister();
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

module.exports = { Stage };
