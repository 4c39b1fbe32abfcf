'use strict';
// JS functions behind lake's C callbacks.
//
// An exception must never unwind through lake's C frames: each trampoline
// catches everything, stores the first exception in its CallbackErrors, and
// returns the failure value the C signature defines. After the call, the
// binding throws the stored exception (with lake's error as its `lakeError`
// when the call failed too). A callback lake keeps after the call returns
// (a statement's read source, upload options' progress, a host store) is
// registered with koffi by its owner and unregistered when the owner closes
// or replaces it; koffi holds the JS function while it is registered, so a
// collection cannot free it while lake may call it.
const native = require('./native');
const { LakeError } = require('./errors');

const { koffi } = native;

class CallbackErrors {
  constructor() {
    this.error = null;
  }

  // `fn` with any exception stored and `failure` returned instead.
  wrap(fn, failure) {
    return (...args) => {
      try {
        return fn(...args);
      } catch (error) {
        if (this.error === null) this.error = error;
        return failure;
      }
    };
  }

  take() {
    const error = this.error;
    this.error = null;
    return error;
  }

  // Runs `call` (a lake call); a callback's exception wins over its result.
  run(call) {
    let result;
    try {
      result = call();
    } catch (error) {
      if (this.error !== null && error instanceof LakeError) {
        const original = this.take();
        if (original !== null && typeof original === 'object') original.lakeError = error;
        throw original;
      }
      throw error;
    }
    if (this.error !== null) throw this.take();
    return result;
  }
}

// Calls `fn.async(...args, &err)` on a thread of koffi's: a promise of
// nothing, rejected with the first exception a callback stored in any of
// `errorSets` (with lake's error as its `lakeError`), else with lake's
// error. JS callbacks lake makes on that thread run on the event loop,
// which stays free meanwhile. `args` (and the memory they point at) stay
// referenced by the closure until the call returns.
function callAsync(fn, args, errorSets) {
  const { errorFromNative } = require('./errors');
  return new Promise((resolve, reject) => {
    const err = [null];
    fn.async(...args, err, (failure, status) => {
      const lakeError = failure || (status !== 0 ? errorFromNative(status, err[0]) : null);
      for (const errors of errorSets) {
        if (errors.error !== null) {
          const original = errors.take();
          if (lakeError && original !== null && typeof original === 'object') {
            original.lakeError = lakeError;
          }
          reject(original);
          return;
        }
      }
      if (lakeError) reject(lakeError);
      else resolve();
    });
  });
}

// A registered callback of `proto`, released by unregister().
class Registered {
  constructor(fn, proto) {
    this.fn = fn;
    this.pointer = koffi.register(fn, koffi.pointer(proto));
  }

  unregister() {
    if (this.pointer !== null) {
      koffi.unregister(this.pointer);
      this.pointer = null;
      this.fn = null;
    }
  }
}

// A pull function over a source of bytes: a Buffer/Uint8Array, or a
// synchronous iterable of them (a generator, an array of chunks). lake pulls
// synchronously on the calling thread, so the source must be synchronous.
function chunkPuller(source) {
  if (source instanceof Uint8Array) source = [source];
  if (source === null || typeof source[Symbol.iterator] !== 'function') {
    throw new TypeError('a byte source is a Buffer or a synchronous iterable of Buffers');
  }
  const iterator = source[Symbol.iterator]();
  let pending = null;
  let offset = 0;
  let done = false;
  return (cap) => {
    while (!done && (pending === null || offset >= pending.length)) {
      const next = iterator.next();
      if (next.done) {
        done = true;
        break;
      }
      const chunk = next.value;
      pending = typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(
        chunk.buffer, chunk.byteOffset, chunk.byteLength);
      offset = 0;
    }
    if (done) return null;
    const n = Math.min(cap, pending.length - offset);
    const part = pending.subarray(offset, offset + n);
    offset += n;
    return part;
  };
}

// A lake_read_fn body pulling from `source` (see chunkPuller).
function readSource(source) {
  const pull = chunkPuller(source);
  return (_ctx, buf, cap) => {
    cap = Number(cap);
    if (cap === 0) return 0;
    const part = pull(cap);
    if (part === null) return 0;
    Buffer.from(koffi.view(buf, part.length)).set(part);
    return part.length;
  };
}

module.exports = { CallbackErrors, Registered, callAsync, chunkPuller, readSource };
