'use strict';
// A prepared statement: binding, INSERT, SELECT and the other statements.
const native = require('./native');
const arrow = require('./arrow');
const { CallbackErrors, Registered, callAsync, readSource } = require('./callbacks');
const { Handle } = require('./handle');
const { check } = require('./errors');
const { Location } = require('./location');
const { QueryResult } = require('./query_result');
const { withOptions, withOptionsAsync } = require('./upload_options');

const { koffi, types } = native;
const lib = () => native.lib();

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
    const version = [0];
    return withOptionsAsync(options, (opts, optionErrors) => this.busy((ptr) => callAsync(
      lib().lake_statement_insert, [ptr, opts, version],
      [this.errors, optionErrors, this._hostErrors()]))).then(() => Number(version[0]));
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

module.exports = { Statement };
