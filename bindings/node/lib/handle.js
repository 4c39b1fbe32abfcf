'use strict';
// The lifetime rules every handle of the binding follows.
//
// Invariants:
//  - close() is idempotent; after it, every method throws ClosedHandleError
//    before any call into lake.
//  - A handle holds its parent (and any lender: borrow()); a parent holds
//    its open children and closes them before itself, so lake never sees a
//    child outlive the handle it depends on. A closed child leaves its
//    parent's set.
//  - A handle in use (an asynchronous call in flight on it) is freed only
//    once that call has returned: close() marks it closed at once and defers
//    the native free until then; a parent's free waits for its children's.
//  - Native memory is freed by close() alone; there are no finalizers (a
//    finalizer could free a child after its parent). Code that drops a
//    handle without closing it leaks it until its parent closes.
const { ClosedHandleError } = require('./errors');

let openHandles = 0;

// How many handles of the binding are open now (for leak tests).
function openHandleCount() {
  return openHandles;
}

class Handle {
  // `free(ptr)` releases the native handle (null: borrowed, nothing to free).
  initHandle(ptr, free, parent = null, kind = 'handle') {
    this._ptr = ptr;
    this._free = free;
    this._parent = parent;
    this._kind = kind;
    this._children = new Set();
    this._busy = 0;  // asynchronous calls in flight
    this._blocking = 0;  // closed children and borrowers whose native free waits
    this._blocked = [];  // the parent and lenders whose free waits for this one's
    this._lenders = [];
    this._pendingFree = null;
    this._closeWaiters = [];
    if (parent !== null) {
      if (parent._ptr === null) {
        if (free) free(ptr);
        this._ptr = null;
        throw new ClosedHandleError(`the ${parent._kind} is closed`);
      }
      parent._children.add(this);
    }
    openHandles += 1;
  }

  get closed() {
    return this._ptr === null;
  }

  // The native pointer, or ClosedHandleError without calling lake.
  ptr() {
    if (this._ptr === null) {
      throw new ClosedHandleError(`the ${this._kind} is closed`);
    }
    return this._ptr;
  }

  // Runs an asynchronous call on the handle: its native free waits for it.
  async busy(fn) {
    const ptr = this.ptr();
    this._busy += 1;
    try {
      return await fn(ptr);
    } finally {
      this._busy -= 1;
      this._tryFree();
    }
  }

  // Releases `ptr`; a subclass whose close can fail reports it here.
  closeNative(ptr) {
    if (this._free) this._free(ptr);
  }

  // Makes `lender` (besides the parent) a handle this one borrows, which
  // lake requires to outlive it (a cancel token, upload options): closing
  // the lender closes this handle first, and its free waits for this one's.
  borrow(lender) {
    lender.ptr();
    lender._children.add(this);
    this._lenders.push(lender);
  }

  // Closes the children, then the handle. The native free runs at once, or
  // (a call in flight on the handle or on a descendant) once they returned;
  // the parent's and lenders' frees wait for it.
  close() {
    if (this._ptr === null) return;
    for (const child of [...this._children]) child.close();
    this._pendingFree = this._ptr;
    this._ptr = null;
    openHandles -= 1;
    this.released();
    const holders = this._parent === null ? this._lenders : [this._parent, ...this._lenders];
    for (const holder of holders) holder._children.delete(this);
    if (this._busy > 0 || this._blocking > 0) {
      for (const holder of holders) holder._blocking += 1;
      this._blocked = holders;
    }
    this._tryFree();
  }

  _tryFree() {
    if (this._pendingFree === null || this._busy > 0 || this._blocking > 0) return;
    const ptr = this._pendingFree;
    this._pendingFree = null;
    this.closeNative(ptr);
    for (const waiter of this._closeWaiters.splice(0)) waiter();
    const blocked = this._blocked;
    this._blocked = [];
    for (const holder of blocked) {
      holder._blocking -= 1;
      holder._tryFree();
    }
  }

  // Called once at close, before the native free: drops what the handle lends lake.
  released() {}

  // Resolves once the handle is closed and its native free has run.
  async closeAsync() {
    this.close();
    if (this._pendingFree !== null) {
      await new Promise((resolve) => this._closeWaiters.push(resolve));
    }
  }

  [Symbol.for('nodejs.dispose')]() {
    this.close();
  }
}

module.exports = { Handle, openHandleCount };
