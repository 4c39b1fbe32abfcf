'use strict';
// Options of garbage collection (plan, apply, verify), made for one call.
const native = require('./native');
const { CallbackErrors, Registered } = require('./callbacks');
const { Handle } = require('./handle');
const { check } = require('./errors');

const lib = () => native.lib();

class GcOptions extends Handle {
  constructor({ cutoffSeconds = null, allowShortCutoff = false, memoryBudget = null,
    tempDir = null, progress = null, cancel = null, maxDeletesPerSecond = null } = {}) {
    super();
    this.initHandle(lib().lake_gc_options_new(), (p) => lib().lake_gc_options_free(p), cancel,
      'gc options');
    this.errors = new CallbackErrors();
    this._progress = null;
    try {
      const ptr = this.ptr();
      if (cutoffSeconds !== null) lib().lake_gc_options_set_cutoff_seconds(ptr, cutoffSeconds);
      lib().lake_gc_options_set_allow_short_cutoff(ptr, allowShortCutoff ? 1 : 0);
      if (memoryBudget !== null) check(lib().lake_gc_options_set_memory_budget, ptr, memoryBudget);
      if (tempDir !== null) check(lib().lake_gc_options_set_temp_dir, ptr, String(tempDir));
      if (cancel !== null) lib().lake_gc_options_set_cancel_token(ptr, cancel.ptr());
      if (maxDeletesPerSecond !== null) {
        lib().lake_gc_options_set_max_deletes_per_second(ptr, maxDeletesPerSecond);
      }
      if (progress !== null) {
        this._progress = new Registered(this.errors.wrap(
          (_ctx, phase, done, total) => progress(phase, Number(done), Number(total)), undefined),
        native.types.gcProgress);
        lib().lake_gc_options_set_progress(ptr, this._progress.pointer, null);
      }
    } catch (error) {
      this.close();
      throw error;
    }
  }

  closeNative(ptr) {
    super.closeNative(ptr);
    if (this._progress) this._progress.unregister();
  }
}

// Sets the process-wide buffer budget (lake_set_buffer_budget).
function setBufferBudget(bytes) {
  check(lib().lake_set_buffer_budget, bytes);
}

module.exports = { GcOptions, setBufferBudget };
