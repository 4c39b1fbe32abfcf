'use strict';
// Push uploads as stream.Writable.
const stream = require('node:stream');
const native = require('./native');
const { CallbackErrors, callAsync } = require('./callbacks');
const { StreamHandle } = require('./stream_handle');
const { UnsupportedError, check } = require('./errors');
const { Location } = require('./location');

const lib = () => native.lib();

// A push upload as a stream.Writable: end() publishes the object (its
// Location is then `location`, and 'finish' is emitted); destroy() or
// close() before that publishes nothing. writeSync/publish do the same
// without the stream machinery.
class Writer extends stream.Writable {
  constructor(ptr, stage, options, ownedOptions) {
    super({ decodeStrings: true });
    this._hostErrors = stage._hostErrors();
    this.handle = new StreamHandle(ptr, (p) => lib().lake_writer_free(p), stage, 'writer', this);
    if (options) this.handle.borrow(options);  // its token and callbacks outlive the writer
    this._options = options;
    this._ownedOptions = ownedOptions;
    this.location = null;
    // On an S3 stage lake calls the options' JS callbacks from its upload
    // thread while a write is under way; they wait for the event loop, which
    // a synchronous write blocks: writeSync/publish would never return.
    this._syncRefused = Boolean(options && options._callbacks.length > 0
      && stage.ioBackend === 's3');
  }

  // The writer's pointer for a synchronous call (see _syncRefused).
  _syncPtr() {
    const ptr = this.handle.ptr();
    if (this._syncRefused) {
      throw new UnsupportedError('writeSync/publish on an S3 stage with JS callbacks would '
        + 'deadlock: write through the stream (write/end, pipeline)');
    }
    return ptr;
  }

  _errors() {
    return this._options ? this._options.errors : new CallbackErrors();
  }

  // A synchronous write (refused where it would deadlock: _syncRefused).
  writeSync(data) {
    const ptr = this._syncPtr();
    const bytes = typeof data === 'string' ? Buffer.from(data) : data;
    this._errors().run(() => check(lib().lake_writer_write, ptr, bytes, bytes.length));
  }

  // Publishes the object: its Location.
  publish() {
    const ptr = this._syncPtr();
    const out = [null];
    this._errors().run(() => check(lib().lake_writer_close, ptr, out));
    this.location = new Location(out[0]);
    this.close();
    return this.location;
  }

  // The stream's writes and publication run on koffi's threads: on an S3 or
  // host-store stage lake calls progress and host callbacks from its upload
  // thread while a write is under way, and they need the event loop free.
  _write(chunk, _encoding, callback) {
    const bytes = chunk;  // a Buffer (decodeStrings), kept by the closure until the call returns
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
    this._closing = true;
    this.handle.close();
    if (this._ownedOptions) this._ownedOptions.close();
  }

  _destroy(error, callback) {
    this.close();
    callback(error);
  }
}

module.exports = { Writer };
