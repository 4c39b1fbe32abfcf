'use strict';
// Event logs of data-generation pipelines: the log, its item writers, and
// folded items (whose blobs read through a Reader).
const native = require('./native');
const { Handle } = require('./handle');
const { check } = require('./errors');
const { Reader } = require('./reader');
const { jsonCall, stringCall } = require('./strings');

const { koffi } = native;
const lib = () => native.lib();

const ValueKind = Object.freeze({ INT: 1, FLOAT: 2, BOOL: 3, STR: 4, JSON: 5, BLOB: 6 });

// A lake_value for a JS value (and the Buffer its bytes live in, kept by
// the caller for the call): integer Number/BigInt → INT, other Number →
// FLOAT, boolean → BOOL, string → STR, Buffer → BLOB, {json} → JSON text.
function toValue(value) {
  const v = { kind: 0, i64: 0, f64: 0, boolean: 0, bytes: null, len: 0 };
  let keep = null;
  const bytes = (buffer) => {
    keep = koffi.alloc('uint8_t', Math.max(buffer.length, 1));
    if (buffer.length) Buffer.from(koffi.view(keep, buffer.length)).set(buffer);
    v.bytes = keep;
    v.len = buffer.length;
  };
  if (typeof value === 'bigint' || (typeof value === 'number' && Number.isInteger(value))) {
    v.kind = ValueKind.INT; v.i64 = value;
  } else if (typeof value === 'number') {
    v.kind = ValueKind.FLOAT; v.f64 = value;
  } else if (typeof value === 'boolean') {
    v.kind = ValueKind.BOOL; v.boolean = value ? 1 : 0;
  } else if (typeof value === 'string') {
    v.kind = ValueKind.STR; bytes(Buffer.from(value, 'utf8'));
  } else if (value instanceof Uint8Array) {
    v.kind = ValueKind.BLOB; bytes(Buffer.from(value));
  } else if (value && typeof value === 'object' && 'json' in value) {
    v.kind = ValueKind.JSON; bytes(Buffer.from(JSON.stringify(value.json), 'utf8'));
  } else {
    throw new TypeError(`no lake value for ${typeof value}`);
  }
  return { value: v, free: () => { if (keep) koffi.free(keep); } };
}

function toStep(step) {
  if (!step) return null;
  return { name: step.name || null, index: step.index === undefined ? -1 : step.index,
    kind: step.kind || null, enclosing_step: step.enclosingStep || null,
    selector_step: step.selectorStep || null };
}

class EventLog extends Handle {
  constructor(ptr, db) {
    super();
    this.initHandle(ptr, (p) => lib().lake_event_log_free(p), db, 'event log');
  }

  static open(db, pipeline, experiment, writable) {
    const out = [null];
    check(lib().lake_event_log_open, db.ptr(), pipeline, experiment, writable ? 1 : 0, out);
    return new EventLog(out[0], db);
  }

  refresh() { check(lib().lake_event_log_refresh, this.ptr()); }

  // Appends JSONL events: {appended, duplicates}.
  appendJsonl(text) {
    const bytes = Buffer.from(text, 'utf8');
    const appended = [0];
    const duplicates = [0];
    check(lib().lake_event_log_append_jsonl, this.ptr(), bytes, bytes.length, appended, duplicates);
    return { appended: Number(appended[0]), duplicates: Number(duplicates[0]) };
  }

  writer(itemId, writerEpoch, createdBy = null) {
    const out = [null];
    check(lib().lake_event_writer_open, this.ptr(), itemId, writerEpoch, toStep(createdBy), out);
    return new EventWriter(out[0], this);
  }

  resume(itemId, writerEpoch) {
    const out = [null];
    check(lib().lake_event_writer_resume, this.ptr(), itemId, writerEpoch, out);
    return new EventWriter(out[0], this);
  }

  // The folded item, or null when it has no ITEM_CREATED.
  fold(itemId) {
    const out = [null];
    check(lib().lake_event_log_fold, this.ptr(), itemId, out);
    return out[0] ? new FoldedItem(out[0], this) : null;
  }

  tree(rootItemId) { return jsonCall(lib().lake_event_log_tree, this.ptr(), rootItemId); }
  roots() { return jsonCall(lib().lake_event_log_roots, this.ptr()); }
  failures() { return jsonCall(lib().lake_event_log_failures, this.ptr()); }

  // The raw events of a root and its descendants, JSONL text.
  events(rootItemId) {
    return stringCall(lib().lake_event_log_events, this.ptr(), rootItemId);
  }
}

// A stream writer for one item. One thread at a time.
class EventWriter extends Handle {
  constructor(ptr, log) {
    super();
    this.initHandle(ptr, (p) => lib().lake_event_writer_free(p), log, 'event writer');
  }

  _field(fn, field, value, step) {
    const ptr = this.ptr();
    const { value: v, free } = toValue(value);
    try {
      check(fn, ptr, field, v, toStep(step));
    } finally {
      free();
    }
  }

  set(field, value, step = null) { this._field(lib().lake_event_writer_field_set, field, value, step); }
  append(field, value, step = null) { this._field(lib().lake_event_writer_field_append, field, value, step); }
  stepStarted(step) { check(lib().lake_event_writer_step_started, this.ptr(), toStep(step)); }
  stepCompleted(step) { check(lib().lake_event_writer_step_completed, this.ptr(), toStep(step)); }

  terminal({ filtered = false, step = null } = {}) {
    check(lib().lake_event_writer_terminal, this.ptr(), filtered ? 1 : 0, toStep(step));
  }

  failed(errorType, { errorDump = '', traceback = '', step = null } = {}) {
    check(lib().lake_event_writer_failed, this.ptr(), errorType, errorDump, traceback, toStep(step));
  }

  commit() { check(lib().lake_event_writer_commit, this.ptr()); }
  get attempt() { return lib().lake_event_writer_attempt(this.ptr()); }
}

// An item folded from its events. Immutable.
class FoldedItem extends Handle {
  constructor(ptr, log) {
    super();
    this.initHandle(ptr, (p) => lib().lake_folded_item_free(p), log, 'folded item');
    this._log = log;
  }

  get json() { return JSON.parse(lib().lake_folded_item_json(this.ptr())); }
  get status() { return lib().lake_folded_item_status(this.ptr()); }
  get lastAttempt() { return lib().lake_folded_item_last_attempt(this.ptr()); }
  get nextItemSeq() { return Number(lib().lake_folded_item_next_item_seq(this.ptr())); }
  valueCount(field) { return Number(lib().lake_folded_item_value_count(this.ptr(), field)); }

  // Value `index` of `field` as JS; an offloaded blob is {offloaded: true, size}.
  value(field, index = 0) {
    const out = {};
    check(lib().lake_folded_item_value, this.ptr(), field, index, out);
    const len = Number(out.len);
    const data = () => (len ? Buffer.from(Buffer.from(koffi.view(out.bytes, len))) : Buffer.alloc(0));
    switch (out.kind) {
      case ValueKind.INT: return out.i64;
      case ValueKind.FLOAT: return out.f64;
      case ValueKind.BOOL: return out.boolean !== 0;
      case ValueKind.STR: return data().toString('utf8');
      case ValueKind.JSON: return JSON.parse(data().toString('utf8'));
      default: return out.bytes ? data() : { offloaded: true, size: len };
    }
  }

  // A verified Reader of blob value `index` of `field` (a child of the log).
  openBlob(field, index = 0) {
    const out = [null];
    check(lib().lake_folded_item_open_blob, this._log.ptr(), this.ptr(), field, index, out);
    return new Reader(out[0], this._log);
  }
}

module.exports = { EventLog, EventWriter, FoldedItem, ValueKind };
