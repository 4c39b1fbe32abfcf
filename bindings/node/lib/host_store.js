'use strict';
// A lake_host_store over a JS object with the methods
//   upload(uri, contentType, read)   read(n) → a Buffer (empty at the end)
//   open(uri, start) → a stream with read(n) → Buffer and close()
//   list(prefixUri) → iterable of {uri, sizeBytes, modifiedUnixMicros}
//   remove(uri)
// and the property rootUri. Every method is synchronous (lake calls them
// on the thread of the call that needs them). A method answers with a
// status by throwing a LakeError (open of an absent object: NotFoundError,
// which a root's first open expects for its owner marker); any other
// exception fails lake's call (LAKE_IO, its text as the message) and is
// thrown after it.
// The table's callbacks are registered while a stage or root holds the
// table, and unregistered once lake has freed it (destroyed()).
const native = require('./native');
const { CallbackErrors, Registered } = require('./callbacks');
const { LakeError, check } = require('./errors');

const { koffi, types } = native;
const IO_ERROR = 4;

class HostStore {
  constructor(store) {
    this.store = store;
    this.errors = new CallbackErrors();
    this.streams = new Map();
    this.nextStream = 1;
    this.callbacks = null;
  }

  // `method` returning LAKE_OK, or LAKE_IO with the exception's text as message.
  _guard(method) {
    return (...args) => {
      const [message, cap] = args.slice(-2);
      try {
        method(...args.slice(0, -2));
        return 0;
      } catch (error) {
        // A LakeError is the store's answer (an absent object: NotFoundError),
        // given to lake as its status; anything else is a failure thrown
        // after the call.
        const answer = error instanceof LakeError && error.status !== null;
        if (!answer && this.errors.error === null) this.errors.error = error;
        const capacity = Number(cap);
        if (message && capacity > 0) {
          const text = Buffer.from(`${error && error.name}: ${error && error.message}`)
            .subarray(0, capacity - 1);
          const view = Buffer.from(koffi.view(message, text.length + 1));
          text.copy(view);
          view[text.length] = 0;
        }
        return answer ? error.status : IO_ERROR;
      }
    };
  }

  _upload(_ctx, uri, contentType, read, readCtx) {
    const pull = (n) => {
      const buffer = Buffer.alloc(n);
      const got = Number(koffi.call(read, types.read, readCtx, buffer, n));
      if (got < 0) throw new Error("lake's upload source failed");
      return buffer.subarray(0, got);
    };
    this.store.upload(uri, contentType, pull);
  }

  _openStream(_ctx, uri, start, streamOut) {
    const id = this.nextStream;
    this.nextStream += 1;
    this.streams.set(id, this.store.open(uri, Number(start)));
    koffi.encode(streamOut, 'uint64_t', BigInt(id));
  }

  _readStream(_ctx, stream, buf, cap, nOut) {
    const data = this.streams.get(Number(stream)).read(Number(cap));
    if (data.length) Buffer.from(koffi.view(buf, data.length)).set(data);
    koffi.encode(nOut, 'size_t', data.length);
  }

  _closeStream(_ctx, stream) {
    const id = Number(stream);
    const open = this.streams.get(id);
    this.streams.delete(id);
    if (open) open.close();
  }

  _list(_ctx, prefixUri, emit, emitCtx) {
    for (const entry of this.store.list(prefixUri)) {
      const stop = koffi.call(emit, types.list, emitCtx, {
        uri: entry.uri, size_bytes: entry.sizeBytes, modified_unix_micros: entry.modifiedUnixMicros,
      });
      if (stop !== 0) return;
    }
  }

  _remove(_ctx, uri) {
    this.store.remove(uri);
  }

  // Registers the table's callbacks and gives it to stage options `opts`.
  configure(opts, hostId) {
    if (this.callbacks !== null) throw new Error('a HostStore serves one stage or root at a time');
    const register = (fn, proto) => new Registered(fn, proto);
    this.callbacks = {
      upload: register(this._guard(this._upload.bind(this)), types.hostUpload),
      open_stream: register(this._guard(this._openStream.bind(this)), types.hostOpenStream),
      read_stream: register(this._guard(this._readStream.bind(this)), types.hostReadStream),
      close_stream: register(this.errors.wrap(this._closeStream.bind(this), undefined),
        types.hostCloseStream),
      list: register(this._guard(this._list.bind(this)), types.hostList),
      remove: register(this._guard(this._remove.bind(this)), types.hostRemove),
    };
    const table = { version: 1, ctx: null, root_uri: this.store.rootUri, destroy: null };
    for (const [name, cb] of Object.entries(this.callbacks)) table[name] = cb.pointer;
    check(native.lib().lake_stage_options_set_host_store, opts, table);
    if (hostId !== null) check(native.lib().lake_stage_options_set_host_id, opts, hostId);
  }

  // lake no longer holds the table: its callbacks are unregistered.
  destroyed() {
    if (this.callbacks === null) return;
    for (const cb of Object.values(this.callbacks)) cb.unregister();
    this.callbacks = null;
    for (const stream of this.streams.values()) stream.close();
    this.streams.clear();
  }
}

module.exports = { HostStore };
