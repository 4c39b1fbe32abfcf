'use strict';
// A lake root (Db): tables, statements run in one call, recovery, pins,
// resumable uploads, garbage collection and event logs.
const native = require('./native');
const { CallbackErrors } = require('./callbacks');
const { Handle } = require('./handle');
const { check } = require('./errors');
const { Location } = require('./location');
const { Stage } = require('./stage');
const { configureS3 } = require('./stage_options');
const { Statement } = require('./statement');
const { jsonCall, stringCall } = require('./strings');
const { withOptions } = require('./upload_options');

const { koffi, types } = native;
const lib = () => native.lib();

class Db extends Handle {
  constructor(ptr, hostStore = null) {
    super();
    this.initHandle(ptr, (p) => lib().lake_db_free(p), null, 'root');
    this._stage = null;
    this._hostStore = hostStore;
  }

  // Opens (creating if needed) the root at `directory`; `s3` names an S3
  // stage ({stageUri, endpoint, region, pathStyle}); `hostStore` a host store.
  static open(directory, { s3 = null, tenant = null, hostStore = null, hostId = null } = {}) {
    const opts = lib().lake_stage_options_new();
    let host = null;
    try {
      if (s3) configureS3(opts, s3);
      if (tenant) check(lib().lake_stage_options_set_tenant, opts, tenant);
      if (hostStore) {
        const { HostStore } = require('./host_store');
        host = hostStore instanceof HostStore ? hostStore : new HostStore(hostStore);
        host.configure(opts, hostId);
      }
      const out = [null];
      const errors = host ? host.errors : new CallbackErrors();
      errors.run(() => check(lib().lake_db_open, String(directory), opts, out));
      return new Db(out[0], host);
    } catch (error) {
      if (host) host.destroyed();
      throw error;
    } finally {
      lib().lake_stage_options_free(opts);
    }
  }

  static openFollower(directory, { maxStalenessMs = 0 } = {}) {
    const out = [null];
    check(lib().lake_db_open_follower, String(directory), maxStalenessMs, out);
    return new Db(out[0]);
  }

  // The root's stage (owned by the root: closing the root closes it).
  get stage() {
    const ptr = this.ptr();
    if (this._stage === null || this._stage.closed) {
      this._stage = new Stage(lib().lake_db_stage(ptr), this, false, this._hostStore);
    }
    return this._stage;
  }

  get viewAgeMicros() { return Number(lib().lake_db_view_age_micros(this.ptr())); }

  setBusyTimeout(milliseconds) { check(lib().lake_db_set_busy_timeout, this.ptr(), milliseconds); }

  createTable(name, columns) {
    check(lib().lake_table_create, this.ptr(), name, columns, columns.length);
  }

  tables() { return jsonCall(lib().lake_table_list, this.ptr()); }
  describeTable(name) { return jsonCall(lib().lake_table_describe, this.ptr(), name); }
  tableVersions(name) { return jsonCall(lib().lake_table_versions, this.ptr(), name); }
  dropTable(name) { check(lib().lake_table_drop, this.ptr(), name); }
  tagTable(name, tag, version) { check(lib().lake_table_tag, this.ptr(), name, tag, version); }
  untagTable(name, tag) { check(lib().lake_table_untag, this.ptr(), name, tag); }

  compactTable(name) {
    const version = [0];
    check(lib().lake_table_compact, this.ptr(), name, version);
    return Number(version[0]);
  }

  // Rewrites the table log's mostly-dead segments (lake_table_compact_segments).
  compactTableSegments(name) {
    return jsonCall(lib().lake_table_compact_segments, this.ptr(), name);
  }

  expireTable(name, { keepLast = 0, olderThanSeconds = -1 } = {}) {
    return jsonCall(lib().lake_table_expire, this.ptr(), name, keepLast, olderThanSeconds);
  }

  prepare(sql) {
    const out = [null];
    check(lib().lake_db_prepare, this.ptr(), sql, out);
    return new Statement(out[0], this);
  }

  // Prepares `sql`, binds `params` in order and returns `run(statement)`;
  // the statement is closed after.
  _once(sql, params, run) {
    const statement = this.prepare(sql);
    try {
      statement.bindAll(params);
      return run(statement);
    } finally {
      statement.close();
    }
  }

  // Runs an INSERT with `params` bound in order; the new table version.
  insert(sql, params = [], options = {}) {
    return this._once(sql, params, (statement) => statement.insert(options));
  }

  // Runs a SELECT; its QueryResult (close it, or read it to the end).
  query(sql, params = []) {
    return this._once(sql, params, (statement) => statement.query());
  }

  // Runs a DELETE, replace-where, DROP or ALTER: {version, rows}.
  execute(sql, params = []) {
    return this._once(sql, params, (statement) => statement.execute());
  }

  pendingAppends() { return jsonCall(lib().lake_db_pending_appends, this.ptr()); }
  recover() { return jsonCall(lib().lake_db_recover, this.ptr()); }

  // Moves a pending append's checkpoint aside: the path it went to.
  discardAppend(operationId) {
    return stringCall(lib().lake_db_discard_append, this.ptr(), operationId);
  }

  pin(location) { check(lib().lake_db_pin, this.ptr(), location.ptr()); }
  unpin(location) { check(lib().lake_db_unpin, this.ptr(), location.ptr()); }

  // Resumable uploads: [{id, sourcePath, uri, …}].
  uploads() {
    const infos = [];
    const errors = new CallbackErrors();
    const emit = errors.wrap((_ctx, pointer) => {
      const info = koffi.decode(pointer, types.UploadInfo);
      infos.push({ id: info.id, sourcePath: info.source_path, uri: info.uri,
        partsDone: Number(info.parts_done), bytesDone: Number(info.bytes_done),
        sizeBytes: Number(info.size_bytes), partBytes: Number(info.part_bytes),
        updatedUnixMicros: Number(info.updated_unix_micros), stale: info.stale !== 0,
        locked: info.locked !== 0, error: info.error });
      return 0;
    }, 1);
    errors.run(() => check(lib().lake_db_uploads_list, this.ptr(), emit, null));
    return infos;
  }

  resumeUpload(id, options = {}) {
    return withOptions(options, (opts, errors) => {
      const out = [null];
      errors.run(() => check(lib().lake_db_uploads_resume, this.ptr(), id, opts, out));
      return new Location(out[0]);
    });
  }

  abortUpload(id) { check(lib().lake_db_uploads_abort, this.ptr(), id); }

  // ---- garbage collection ----
  _gc(options, fn) {
    const { GcOptions } = require('./gc');
    const opts = new GcOptions(options);
    try {
      return opts.errors.run(() => fn(opts.ptr()));
    } finally {
      opts.close();
    }
  }

  gcPlan(options = {}) {
    return this._gc(options, (opts) => jsonCall(lib().lake_gc_plan, this.ptr(), opts));
  }

  gcApply(planId, options = {}) {
    return this._gc(options, (opts) => jsonCall(lib().lake_gc_apply, this.ptr(), planId, opts));
  }

  // {candidates: [{uri, kind, sizeBytes, modifiedUnixMicros, tenant}], status}
  gcShow(planId) {
    const candidates = [];
    const errors = new CallbackErrors();
    const emit = errors.wrap((_ctx, pointer) => {
      const c = koffi.decode(pointer, types.GcCandidate);
      candidates.push({ uri: c.uri, kind: c.kind, sizeBytes: Number(c.size_bytes),
        modifiedUnixMicros: Number(c.modified_unix_micros), tenant: c.tenant });
      return 0;
    }, 1);
    const status = errors.run(() => jsonCall(lib().lake_gc_show, this.ptr(), planId, emit, null));
    return { candidates, status };
  }

  gcStatus(planId = null) { return jsonCall(lib().lake_gc_status, this.ptr(), planId); }

  // {problems: [...], summary}
  gcVerify({ deep = false, ...options } = {}) {
    const problems = [];
    const errors = new CallbackErrors();
    const emit = errors.wrap((_ctx, pointer) => {
      const p = koffi.decode(pointer, types.GcProblem);
      const count = Number(p.referrer_count);
      problems.push({ uri: p.uri, problem: p.problem, expectedSize: Number(p.expected_size),
        observedSize: Number(p.observed_size), message: p.message,
        referrers: count ? [].concat(koffi.decode(p.referrers, 'const char*', count)) : [],
        moreReferrers: Number(p.more_referrers) });
      return 0;
    }, 1);
    const summary = this._gc(options, (opts) => errors.run(() => jsonCall(
      lib().lake_gc_verify, this.ptr(), deep ? 1 : 0, opts, emit, null)));
    return { problems, summary };
  }

  // ---- event logs ----
  createExperiment(pipeline, experiment) {
    check(lib().lake_experiment_create, this.ptr(), pipeline, experiment);
  }

  deleteExperiment(pipeline, experiment) {
    check(lib().lake_experiment_delete, this.ptr(), pipeline, experiment);
  }

  experiments(pipeline = null) { return jsonCall(lib().lake_experiment_list, this.ptr(), pipeline); }

  describeExperiment(pipeline, experiment) {
    return jsonCall(lib().lake_experiment_describe, this.ptr(), pipeline, experiment);
  }

  compactExperiment(pipeline, experiment) {
    return jsonCall(lib().lake_experiment_compact, this.ptr(), pipeline, experiment);
  }

  eventLog(pipeline, experiment, { writable = false } = {}) {
    const { EventLog } = require('./events');
    return EventLog.open(this, pipeline, experiment, writable);
  }

  closeNative(ptr) {
    super.closeNative(ptr);
    if (this._hostStore) this._hostStore.destroyed();
  }
}

module.exports = { Db };
