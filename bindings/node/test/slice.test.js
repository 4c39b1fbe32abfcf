'use strict';
// The vertical slice (CONFORMANCE.md, S-001 … S-012).
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { test } = require('node:test');
const { lake, OBJECT_SIZE, scratch, sha256 } = require('./support');

test('S001 opening a root creates it and a reopen sees its tables', (t) => {
  const s = scratch(t);
  const root = path.join(s.dir, 'root');
  const db = lake.Db.open(root);
  db.createTable('media.clips', ['name:utf8']);
  db.close();
  assert.ok(fs.existsSync(root));
  const again = lake.Db.open(root);
  try {
    assert.deepEqual(again.tables().map((table) => table.name), ['media.clips']);
  } finally {
    again.close();
  }
});

test('S002 creating an existing table is the CONFLICT error', (t) => {
  const db = scratch(t).openRoot();
  db.createTable('media.clips', ['name:utf8', 'video:file']);
  assert.throws(() => db.createTable('media.clips', ['name:utf8', 'video:file']),
    (e) => e instanceof lake.ConflictError && e.code === 'LAKE_CONFLICT');
});

test('S003 an INSERT binding a file path returns version 1 and stores one row', (t) => {
  const s = scratch(t);
  const db = s.openRoot();
  db.createTable('media.clips', ['name:utf8', 'video:file']);
  assert.equal(db.insert('INSERT INTO media.clips (name, video) VALUES (?, ?)',
    ['a', { path: s.episode }]), 1);
  assert.equal(db.describeTable('media.clips').total_rows, 1);
});

test('S004 an INSERT binding a stream stores exactly the bytes it yielded', (t) => {
  const s = scratch(t);
  const db = s.openRoot();
  db.createTable('media.clips', ['name:utf8', 'video:file']);
  let pulls = 0;
  function* chunks() {
    for (let at = 0; at < s.data.length; at += 70000) {
      pulls += 1;
      yield s.data.subarray(at, at + 70000);
    }
  }
  db.insert('INSERT INTO media.clips (name, video) VALUES (?, ?)', ['s', { source: chunks() }]);
  const location = s.locationOf(db, 's');
  assert.ok(pulls > 1);
  assert.equal(location.sizeBytes, OBJECT_SIZE);
  assert.equal(location.sha256, sha256(s.data));
});

test('S005 a SELECT gives names in order and one FILE cell per row', (t) => {
  const s = scratch(t);
  const db = s.clipsRoot();
  db.insert('INSERT INTO media.clips (name, video) VALUES (?, ?)', ['b', { path: s.episode }]);
  const rows = db.query('SELECT name, video FROM media.clips ORDER BY name').rows();
  assert.deepEqual(rows.map((row) => row.name), ['a', 'b']);
  for (const row of rows) assert.equal(row.video.size_bytes, OBJECT_SIZE);
});

test('S006 a DataLocation has the inserted object\'s fields; a null cell is NOT_FOUND', (t) => {
  const s = scratch(t);
  const db = s.clipsRoot();
  db.insert('INSERT INTO media.clips (name, video) VALUES (?, ?)', ['n', null]);
  const location = s.locationOf(db);
  assert.match(location.uri, /^file:\/\//);
  assert.equal(location.contentType, 'application/octet-stream');
  assert.equal(location.sizeBytes, OBJECT_SIZE);
  assert.equal(location.sha256, sha256(s.data));
  assert.throws(() => s.locationOf(db, 'n'), lake.NotFoundError);
});

test('S007 a verified full read through a Readable returns the object and ends verified', async (t) => {
  const s = scratch(t);
  const db = s.clipsRoot();
  const reader = db.stage.open(s.locationOf(db));
  const chunks = [];
  for await (const chunk of reader) chunks.push(chunk);
  assert.ok(Buffer.concat(chunks).equals(s.data));
  const again = db.stage.open(s.locationOf(db));
  assert.ok(again.readAllSync().equals(s.data));
  assert.equal(again.verified, true);
  again.close();
});

test('S008 a range read returns those bytes; bad ranges are INVALID_ARGUMENT', (t) => {
  const s = scratch(t);
  const db = s.clipsRoot();
  const location = s.locationOf(db);
  const reader = db.stage.openRange(location, 1000, 2000);
  assert.ok(reader.readAllSync().equals(s.data.subarray(1000, 2000)));
  reader.close();
  for (const [start, end] of [[5, 5], [10, 5], [0, OBJECT_SIZE + 1]]) {
    assert.throws(() => db.stage.openRange(location, start, end), lake.InvalidArgumentError);
  }
});

test('S009 a batch of ranges over two locations; an out-of-bounds one fails alone', (t) => {
  const s = scratch(t);
  const db = s.clipsRoot();
  const other = Buffer.from('second object bytes');
  const second = db.stage.put(other);
  const first = s.locationOf(db);
  const [a, b, c] = db.stage.readRanges([{ location: first, start: 0, end: 10 },
    { location: second, start: 7, end: 13 }, { location: first, start: 299990, end: 300000 }]);
  assert.ok(a.equals(s.data.subarray(0, 10)));
  assert.equal(b.toString(), 'object');
  assert.ok(c.equals(s.data.subarray(299990)));
  assert.throws(() => db.stage.readRanges([{ location: first, start: 0, end: 10 },
    { location: second, start: 0, end: 1000 }]), (e) => e instanceof lake.InvalidArgumentError
    && e.ranges[0].error === null && e.ranges[1].error instanceof lake.InvalidArgumentError);
});

test('S010 put and a Writable come back verified by cat; an unpublished writer publishes nothing', async (t) => {
  const s = scratch(t);
  const db = s.openRoot();
  const put = db.stage.put(s.episode, { contentType: 'video/mp4' });
  assert.equal(put.contentType, 'video/mp4');
  assert.ok(db.stage.cat(put).equals(s.data));
  const writer = db.stage.writer({ contentType: 'video/mp4' });
  const finished = new Promise((resolve, reject) => writer.on('finish', resolve).on('error', reject));
  for (let at = 0; at < s.data.length; at += 100000) writer.write(s.data.subarray(at, at + 100000));
  writer.end();
  await finished;
  assert.equal(writer.location.contentType, 'video/mp4');
  assert.ok(db.stage.cat(writer.location).equals(s.data));
  const listed = db.stage.list();
  const abandoned = db.stage.writer();
  abandoned.writeSync(Buffer.from('never published'));
  abandoned.close();
  assert.deepEqual(db.stage.list(), listed);
});

test('S011 an event log item commits, folds, forms a tree and reads its blob verified', (t) => {
  const s = scratch(t);
  const db = s.openRoot();
  db.createExperiment('demo', 'run-1');
  const log = db.eventLog('demo', 'run-1', { writable: true });
  const blob = s.data.subarray(0, 100000);
  const writer = log.writer('p1', 'w1');
  writer.set('caption', 'a clip');
  writer.set('frames', blob);
  writer.terminal();
  writer.commit();
  const item = log.fold('p1');
  assert.equal(item.status, 'completed');
  assert.equal(item.value('caption'), 'a clip');
  assert.equal(log.tree('p1').root.item.item_id, 'p1');
  const reader = item.openBlob('frames');
  assert.ok(reader.readAllSync().equals(blob));
  assert.equal(reader.verified, true);
});

test('S012 a GC dry run counts an unreferenced object and deletes nothing', (t) => {
  const s = scratch(t);
  const db = s.openRoot();
  const location = db.stage.put(s.episode);
  const plan = db.gcPlan({ cutoffSeconds: 0, allowShortCutoff: true });
  assert.ok(plan.objects >= 1);
  const { candidates } = db.gcShow(plan.plan_id);
  assert.ok(candidates.some((c) => c.uri === location.uri));
  assert.ok(db.stage.cat(location).equals(s.data));
});

// The part of DuckDB's C API (duckdb.h, 1.x) S-013 calls, through koffi.
function openDuckDb(path) {
  const { koffi } = require('../lib/native');
  const duck = koffi.load(path);
  const f = {
    open: duck.func('int duckdb_open(const char* path, _Out_ void** out)'),
    close: duck.func('void duckdb_close(_Inout_ void** db)'),
    connect: duck.func('int duckdb_connect(void* db, _Out_ void** out)'),
    disconnect: duck.func('void duckdb_disconnect(_Inout_ void** connection)'),
    query: duck.func('int duckdb_query(void* connection, const char* sql, void* result)'),
    destroyResult: duck.func('void duckdb_destroy_result(void* result)'),
    resultError: duck.func('const char* duckdb_result_error(void* result)'),
    rowCount: duck.func('uint64_t duckdb_row_count(void* result)'),
    valueVarchar: duck.func('void* duckdb_value_varchar(void* result, uint64_t col, uint64_t row)'),
    free: duck.func('void duckdb_free(void* p)'),
    arrowScan: duck.func('int duckdb_arrow_scan(void* connection, const char* name, void* stream)'),
  };
  const db = [null];
  const connection = [null];
  assert.equal(f.open(null, db), 0);
  assert.equal(f.connect(db[0], connection), 0);
  return {
    scan: (name, address) => assert.equal(f.arrowScan(connection[0], name, address), 0),
    one(sql) {
      const result = koffi.alloc('uint8_t', 64);  // duckdb_result: 48 bytes
      try {
        if (f.query(connection[0], sql, result) !== 0) throw new Error(f.resultError(result));
        if (Number(f.rowCount(result)) !== 1) return null;
        const value = f.valueVarchar(result, 0, 0);
        if (!value) return null;
        const text = koffi.decode(value, 'char', -1);
        f.free(value);
        return text;
      } finally {
        f.destroyResult(result);
        koffi.free(result);
      }
    },
    close() {
      f.disconnect(connection);
      f.close(db);
    },
  };
}

test('S013 DuckDB scans the exported Arrow C stream of a query result', (t) => {
  const duckdb = process.env.LAKE_DUCKDB_LIB;
  if (!duckdb) {
    assert.notEqual(process.env.LAKE_REQUIRE_DUCKDB, '1', 'LAKE_REQUIRE_DUCKDB=1 and LAKE_DUCKDB_LIB is not set');
    t.skip('LAKE_DUCKDB_LIB is not set (scripts/fetch-duckdb)');
    return;
  }
  const s = scratch(t);
  const db = s.clipsRoot();
  db.insert('INSERT INTO media.clips (name, video) VALUES (?, ?)', ['b', { path: s.episode }]);
  const result = db.query('SELECT name, video FROM media.clips');
  const stream = result.exportArrowStream();
  assert.equal(result.closed, true);
  const duck = openDuckDb(duckdb);
  try {
    duck.scan('clips_stream', stream.address);  // a stream is read once: copy it
    duck.one('CREATE TABLE clips AS SELECT * FROM clips_stream');
    assert.equal(duck.one('SELECT count(*) FROM clips'), '2');
    assert.equal(duck.one("SELECT string_agg(name, ',' ORDER BY name) FROM clips"), 'a,b');
    assert.equal(duck.one('SELECT sum(video.size_bytes) FROM clips'), String(2 * OBJECT_SIZE));
  } finally {
    duck.close();
    stream.close();
  }
});
