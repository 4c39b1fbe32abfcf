'use strict';
// Cancellation tokens and the options of one upload.
const native = require('./native');
const { CallbackErrors, Registered } = require('./callbacks');
const { Handle } = require('./handle');
const { check } = require('./errors');

const { types } = native;
const lib = () => native.lib();

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

// withOptions for an asynchronous call: `fn(optionsPtr, errors)` returns a
// promise, and runs with the options in use (closed meanwhile, they are
// freed once it settles); options made from fields are closed then.
function withOptionsAsync(options, fn) {
  const owned = options instanceof UploadOptions || Object.keys(options).length === 0
    ? null : new UploadOptions(options);
  const used = owned || (options instanceof UploadOptions ? options : null);
  const run = used ? used.busy((ptr) => fn(ptr, used.errors)) : fn(null, new CallbackErrors());
  return run.finally(() => { if (owned) owned.close(); });
}

module.exports = { CancelToken, UploadOptions, withOptions, withOptionsAsync };
