'use strict';
// A lake root (Db), its statements, and query results as Arrow batches.
const native = require('./native');
const arrow = require('./arrow');
const { CallbackErrors, Registered, callAsync, readSource } = require('./callbacks');
const { Handle } = require('./handle');
const { check, errorFromNative, LakeError } = require('./errors');
const { Location } = require('./location');
const { Stage } = require('./stage');
const { configureS3 } = require('./stage_options');
const { jsonCall, stringCall } = require('./strings');
const { UploadOptions, withOptions } = require('./upload_options');

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

// A prepared statement. Not thread-safe. Read sources bound to FILE
// parameters are registered callbacks kept until rebound or closed.
class Statement extends Handle {
  constructor(ptr, db) {
    super();
    this.initHandle(ptr, (p) => lib().lake_statement_free(p), db, 'statement');
    this._db = db;
    this._sources = new Map();  // parameter index → Registered read source
    this.errors = new CallbackErrors();
  }

  get parameterCount() { return Number(lib().lake_statement_parameter_count(this.ptr())); }

  bindAll(params) {
    params.forEach((value, i) => this.bind(i + 1, value));
  }

  // Binds by the value's JS type: null, boolean, integer Number or BigInt
  // (int64), other Number (float64), string (utf8 text), Buffer (binary),
  // Date (timestamp), Location (an existing object), {path, contentType}
  // or {source, contentType} (a FILE uploaded when the INSERT runs).
  bind(index, value) {
    const ptr = this.ptr();
    this._dropSource(index);
    if (value === null || value === undefined) {
      check(lib().lake_statement_bind_null, ptr, index);
    } else if (typeof value === 'boolean') {
      check(lib().lake_statement_bind_bool, ptr, index, value ? 1 : 0);
    } else if (typeof value === 'bigint' || (typeof value === 'number' && Number.isInteger(value))) {
      check(lib().lake_statement_bind_int64, ptr, index, value);
    } else if (typeof value === 'number') {
      check(lib().lake_statement_bind_float64, ptr, index, value);
    } else if (typeof value === 'string') {
      const bytes = Buffer.from(value, 'utf8');
      check(lib().lake_statement_bind_utf8, ptr, index, bytes, bytes.length);
    } else if (value instanceof Date) {
      check(lib().lake_statement_bind_timestamp_micros, ptr, index, BigInt(value.getTime()) * 1000n);
    } else if (value instanceof Location) {
      check(lib().lake_statement_bind_location, ptr, index, value.ptr());
    } else if (value instanceof Uint8Array) {
      check(lib().lake_statement_bind_binary, ptr, index, value, value.length);
    } else if (typeof value === 'object' && 'path' in value) {
      check(lib().lake_statement_bind_file_path, ptr, index, String(value.path),
        value.contentType || null);
    } else if (typeof value === 'object' && 'source' in value) {
      this.bindFile(index, value.source, value.contentType || null);
    } else {
      throw new TypeError(`cannot bind ${typeof value} to parameter ${index}`);
    }
  }

  // Binds a FILE uploaded from a byte source (a Buffer or a synchronous
  // iterable of Buffers) when the INSERT runs.
  bindFile(index, source, contentType = null) {
    const ptr = this.ptr();
    this._dropSource(index);
    const read = new Registered(this.errors.wrap(readSource(source), -1), types.read);
    try {
      check(lib().lake_statement_bind_file_reader, ptr, index, read.pointer, null, contentType);
    } catch (error) {
      read.unregister();
      throw error;
    }
    this._sources.set(index, read);
  }

  // Text parsed by the column's type, as the CLI's --param.
  bindText(index, text) { check(lib().lake_statement_bind_text, this.ptr(), index, text); }

  bindTimestampMicros(index, micros) {
    check(lib().lake_statement_bind_timestamp_micros, this.ptr(), index, micros);
  }

  _dropSource(index) {
    const source = this._sources.get(index);
    if (source) {
      source.unregister();
      this._sources.delete(index);
    }
  }

  // Runs the INSERT: the new table version.
  insert(options = {}) {
    const ptr = this.ptr();
    return withOptions(options, (opts, optionErrors) => {
      const version = [0];
      this.errors.run(() => optionErrors.run(() => this._hostErrors().run(() => check(
        lib().lake_statement_insert, ptr, opts, version))));
      return Number(version[0]);
    });
  }

  // insert() on a thread of koffi's, the event loop staying free (so read
  // sources and progress callbacks run on it meanwhile): a promise of the
  // new version. The statement is busy until it returns.
  insertAsync(options = {}) {
    const owned = options instanceof UploadOptions || Object.keys(options).length === 0
      ? null : new UploadOptions(options);
    const used = owned || (options instanceof UploadOptions ? options : null);
    const version = [0];
    // The options are in use too: closed meanwhile, they are freed after the call.
    const withOptionsInUse = used ? (fn) => used.busy(fn) : (fn) => fn(null);
    const run = withOptionsInUse((opts) => this.busy((ptr) => callAsync(
      lib().lake_statement_insert, [ptr, opts, version],
      [this.errors, used ? used.errors : new CallbackErrors(), this._hostErrors()])));
    return run.then(() => Number(version[0])).finally(() => { if (owned) owned.close(); });
  }

  _hostErrors() {
    return this._db._hostStore ? this._db._hostStore.errors : new CallbackErrors();
  }

  // Runs the SELECT: a QueryResult (a child of the root, not of the statement).
  query() {
    const stream = arrow.allocZeroed(types.ArrowArrayStream);
    try {
      check(lib().lake_statement_query, this.ptr(), stream);
    } catch (error) {
      koffi.free(stream);
      throw error;
    }
    return new QueryResult(stream, this._db);
  }

  // Runs a DELETE, replace-where, DROP TABLE or ALTER TABLE: {version, rows}.
  execute() {
    const version = [0];
    const rows = [0];
    this.errors.run(() => check(lib().lake_statement_execute, this.ptr(), version, rows));
    return { version: Number(version[0]), rows: Number(rows[0]) };
  }

  // The last successful run's {deleted, inserted} rows.
  changes() {
    const deleted = [0];
    const inserted = [0];
    lib().lake_statement_changes(this.ptr(), deleted, inserted);
    return { deleted: Number(deleted[0]), inserted: Number(inserted[0]) };
  }

  // The read sources are unregistered once lake is done with the statement
  // (after an asynchronous INSERT in flight returned).
  closeNative(ptr) {
    super.closeNative(ptr);
    for (const index of [...this._sources.keys()]) this._dropSource(index);
  }
}

// An Arrow C stream of a SELECT's batches; iterate it for Batch handles.
class QueryResult extends Handle {
  constructor(stream, db) {
    super();
    this.initHandle(stream, (p) => arrow.releaseAndFree(p, types.ArrowArrayStream), db, 'query result');
    this._schema = null;
  }

  _fail(ptr, code) {
    const stream = koffi.decode(ptr, types.ArrowArrayStream);
    const message = koffi.call(stream.get_last_error, types.arrowGetLastError, ptr);
    return arrowError(code, message);
  }

  // Calls the stream's `member` callback (of prototype `proto`) into a new
  // zeroed struct of `type`: its pointer (freed here when the call fails).
  _pull(member, proto, type) {
    const ptr = this.ptr();
    const out = arrow.allocZeroed(type);
    const stream = koffi.decode(ptr, types.ArrowArrayStream);
    const code = koffi.call(stream[member], proto, ptr, out);
    if (code !== 0) {
      koffi.free(out);
      throw this._fail(ptr, code);
    }
    return out;
  }

  // The result's ArrowSchema (a pointer owned by the result).
  schemaPointer() {
    this.ptr();
    if (this._schema === null) {
      this._schema = this._pull('get_schema', types.arrowGetSchema, types.ArrowSchema);
    }
    return this._schema;
  }

  get columnNames() {
    const schema = koffi.decode(this.schemaPointer(), types.ArrowSchema);
    return arrow.pointers(schema.children, Number(schema.n_children))
      .map((p) => koffi.decode(p, types.ArrowSchema).name);
  }

  // The next Batch, or null at the end.
  next() {
    const schema = this.schemaPointer();
    const array = this._pull('get_next', types.arrowGetNext, types.ArrowArray);
    if (!koffi.decode(array, types.ArrowArray).release) {
      koffi.free(array);
      return null;
    }
    return new Batch(array, schema, this);
  }

  * [Symbol.iterator]() {
    for (let batch = this.next(); batch !== null; batch = this.next()) yield batch;
  }

  // Every row as an object of column values (FILE cells as {uri, …}); closes the result.
  rows() {
    try {
      const rows = [];
      for (const batch of this) {
        try {
          rows.push(...batch.rows());
        } finally {
          batch.close();
        }
      }
      return rows;
    } finally {
      this.close();
    }
  }

  // Moves the result's Arrow C stream out, for any consumer of the Arrow C
  // stream interface (DuckDB's duckdb_arrow_scan, …): an ArrowStream whose
  // `address` points at the struct. The result closes; the root must
  // outlive the stream.
  exportArrowStream() {
    const ptr = this.ptr();
    const size = koffi.sizeof(types.ArrowArrayStream);
    const moved = arrow.allocZeroed(types.ArrowArrayStream);
    const source = Buffer.from(koffi.view(ptr, size));
    Buffer.from(koffi.view(moved, size)).set(source);
    source.fill(0);  // released here: the struct now lives at `moved`
    const db = this._parent;
    this.close();
    return new ArrowStream(moved, db);
  }

  closeNative(ptr) {
    super.closeNative(ptr);
    if (this._schema !== null) arrow.releaseAndFree(this._schema, types.ArrowSchema);
  }
}

// An ArrowArrayStream moved out of a QueryResult, at `address`. A consumer
// may take it (copy it and set its release to NULL); close() releases what
// is left and frees the struct's memory.
class ArrowStream extends Handle {
  constructor(stream, db) {
    super();
    this.initHandle(stream, (p) => arrow.releaseAndFree(p, types.ArrowArrayStream), db,
      'Arrow stream');
  }

  get address() { return this.ptr(); }
}

// The stream's errno as lake's error: EBADMSG (damaged data) is INTEGRITY,
// EINVAL INVALID_ARGUMENT, ENOMEM INTERNAL, anything else IO.
function arrowError(code, message) {
  const { Status } = require('./errors');
  const status = { 74: Status.INTEGRITY, 22: Status.INVALID_ARGUMENT, 12: Status.INTERNAL }[code]
    || Status.IO;
  const error = errorFromNative(status, null);
  const text = message || `Arrow stream error ${code}`;
  return new error.constructor(text, {});
}

// One ArrowArray of a result.
class Batch extends Handle {
  constructor(array, schema, result) {
    super();
    this.initHandle(array, (p) => arrow.releaseAndFree(p, types.ArrowArray), result, 'batch');
    this._schemaPtr = schema;
  }

  get numRows() { return Number(koffi.decode(this.ptr(), types.ArrowArray).length); }

  _columnIndex(column) {
    this.ptr();
    if (typeof column === 'number') return column;
    const schema = koffi.decode(this._schemaPtr, types.ArrowSchema);
    const index = arrow.pointers(schema.children, Number(schema.n_children))
      .findIndex((p) => koffi.decode(p, types.ArrowSchema).name === column);
    if (index < 0) throw new LakeError(`no column ${column}`);
    return index;
  }

  // The values of one column (by name or index).
  column(column) {
    const ptr = this.ptr();
    const index = this._columnIndex(column);
    const schema = koffi.decode(this._schemaPtr, types.ArrowSchema);
    const array = koffi.decode(ptr, types.ArrowArray);
    const childSchema = koffi.decode(arrow.pointers(schema.children, Number(schema.n_children))[index], types.ArrowSchema);
    const childArray = koffi.decode(arrow.pointers(array.children, Number(array.n_children))[index], types.ArrowArray);
    return arrow.columnValues(childSchema, childArray);
  }

  rows() {
    this.ptr();
    const schema = koffi.decode(this._schemaPtr, types.ArrowSchema);
    const names = arrow.pointers(schema.children, Number(schema.n_children))
      .map((p) => koffi.decode(p, types.ArrowSchema).name);
    const columns = names.map((_, i) => this.column(i));
    const rows = [];
    for (let r = 0; r < this.numRows; r += 1) {
      rows.push(Object.fromEntries(names.map((name, c) => [name, columns[c][r]])));
    }
    return rows;
  }

  // The DataLocation of a FILE cell (lake_location_from_arrow); a null cell
  // is the NOT_FOUND error.
  location(column, row) {
    const out = [null];
    check(lib().lake_location_from_arrow, this._schemaPtr, this.ptr(), this._columnIndex(column),
      row, out);
    return new Location(out[0]);
  }
}

module.exports = { Db, Statement, QueryResult, Batch, ArrowStream, UploadOptions };
