'use strict';
// Errors and integrity (CONFORMANCE.md, E-001 … E-005, I-001 … I-004).
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { test } = require('node:test');
const { lake, OBJECT_SIZE, scratch, runNode, storedPath } = require('./support');

test('E001 each status has its own LakeError subclass with its code; an unknown one is INTERNAL', () => {
  const classes = Object.entries(lake.Status).filter(([name]) => name !== 'OK')
    .map(([name, status]) => [name, status, lake.ERROR_CLASSES.get(status)]);
  assert.equal(new Set(classes.map(([, , cls]) => cls)).size, 8);
  for (const [name, status, cls] of classes) {
    const error = lake.errorFromNative(status, null);
    assert.ok(error instanceof cls && error instanceof lake.LakeError && error instanceof Error);
    assert.equal(error.status, status);
    assert.equal(error.code, `LAKE_${name}`);
  }
  assert.ok(lake.errorFromNative(99, null) instanceof lake.InternalError);
});

test('E002 an error carries lake\'s message, integrity kind, counts, retryable and pending id', (t) => {
  const s = scratch(t);
  const db = s.clipsRoot();
  const location = s.locationOf(db);
  fs.truncateSync(storedPath(location), 1000);
  let error = null;
  try {
    db.stage.cat(location);
  } catch (e) {
    error = e;
  }
  assert.ok(error instanceof lake.IntegrityError);
  assert.equal(error.code, 'LAKE_INTEGRITY');
  assert.match(error.message, /\S/);
  assert.equal(error.integrityKind, 'SizeShort');
  assert.deepEqual([error.expected, error.observed], [OBJECT_SIZE, 1000]);
  assert.equal(error.retryable, false);
  assert.equal(error.pendingOperationId, null);
});

test('E003 real calls reach JS as their error classes', (t) => {
  const s = scratch(t);
  const db = s.openRoot();
  db.createTable('media.clips', ['name:utf8', 'video:file']);
  assert.throws(() => lake.Location.fromJson('{"uri":"file:///x"}'),
    (e) => e instanceof lake.InvalidArgumentError && e.integrityKind === 'InvalidLocation');
  assert.throws(() => db.createTable('media.clips', ['name:utf8']), lake.ConflictError);
  assert.throws(() => db.describeTable('media.nothing'), lake.NotFoundError);
  const token = new lake.CancelToken();
  token.cancel();
  assert.throws(() => db.stage.put(s.episode, { cancel: token }), lake.CancelledError);
  assert.deepEqual(db.stage.list(), []);
  const location = db.stage.put(s.episode);
  assert.throws(() => db.stage.presign(location, 60), lake.UnsupportedError);
  token.close();
});

const INSERT_CHILD = (root) => `
const db = lake.Db.open(${JSON.stringify(root)});
try {
  db.insert('INSERT INTO media.clips (name, video) VALUES (?, ?)', ['c', null]);
  console.log(JSON.stringify(null));
} catch (e) {
  console.log(JSON.stringify([e.name, e.code, e.retryable, e.pendingOperationId]));
} finally {
  db.close();
}`;

function insertUnderFailpoint(t, failpoint) {
  const s = scratch(t);
  s.clipsRoot().close();
  const child = runNode(INSERT_CHILD(path.join(s.dir, 'root')), { LAKE_FAILPOINTS: failpoint });
  assert.equal(child.status, 0, child.stderr);
  return { s, result: JSON.parse(child.stdout.trim().split('\n').pop()) };
}

test('E004 a transient failure before the commit is a retryable IO error without pending id', (t) => {
  const { result } = insertUnderFailpoint(t, 'table_append.fragment_written=error');
  assert.deepEqual(result, ['IoError', 'LAKE_IO', true, null]);
});

test('E005 a failure after the commit is IO, not retryable, naming a listed pending operation', (t) => {
  const { s, result } = insertUnderFailpoint(t, 'table_append.committed=error');
  const [name, code, retryable, pending] = result;
  assert.deepEqual([name, code, retryable], ['IoError', 'LAKE_IO', false]);
  assert.equal(pending.length, 36);
  const db = s.openRoot();
  assert.ok(db.pendingAppends().some((p) => p.operation_id === pending));
});

function tampered(t) {
  const s = scratch(t);
  const db = s.clipsRoot();
  const location = s.locationOf(db);
  const fd = fs.openSync(storedPath(location), 'r+');
  const byte = Buffer.alloc(1);
  fs.readSync(fd, byte, 0, 1, OBJECT_SIZE / 2);
  byte[0] ^= 0xff;
  fs.writeSync(fd, byte, 0, 1, OBJECT_SIZE / 2);
  fs.closeSync(fd);
  return { s, db, location };
}

test('I001 a tampered object fails with DigestMismatch at the end of a full read', async (t) => {
  const { db, location } = tampered(t);
  const reader = db.stage.open(location);
  let delivered = 0;
  await assert.rejects(async () => {
    for await (const chunk of reader) delivered += chunk.length;
  }, (e) => e instanceof lake.IntegrityError && e.integrityKind === 'DigestMismatch');
  assert.equal(delivered, OBJECT_SIZE);
});

test('I002 a truncated object is SizeShort with expected and observed sizes', (t) => {
  const s = scratch(t);
  const db = s.clipsRoot();
  const location = s.locationOf(db);
  fs.truncateSync(storedPath(location), OBJECT_SIZE - 7);
  const reader = db.stage.open(location);
  assert.throws(() => reader.readAllSync(), (e) => e instanceof lake.IntegrityError
    && e.integrityKind === 'SizeShort' && e.expected === OBJECT_SIZE
    && e.observed === OBJECT_SIZE - 7);
  reader.close();
});

test('I003 reading a tampered object\'s first bytes and closing early claims nothing', (t) => {
  const { db, location } = tampered(t);
  const reader = db.stage.open(location);
  assert.equal(reader.readSync(Buffer.alloc(1000)), 1000);
  assert.equal(reader.verified, false);
  reader.close();
  assert.equal(reader.handle.closed, true);
});

// The table's fragments as {file, offset, size}: every data/*.frag file,
// and every fragment record of its log. The log's layout
// (engine/table/table_log_format.h): a 32-byte segment header, then
// records, each a 32-byte header (magic "LKTR", the kind at byte 4 — 2 is
// a fragment —, the payload bytes as a little-endian u64 at byte 16) and
// its payload.
function fragmentsOf(tableDir) {
  const filesIn = (dir, suffix) => (fs.existsSync(dir)
    ? fs.readdirSync(dir).filter((f) => f.endsWith(suffix)).sort().map((f) => path.join(dir, f))
    : []);
  const found = filesIn(path.join(tableDir, 'data'), '.frag')
    .map((file) => ({ file, offset: 0, size: fs.statSync(file).size }));
  for (const file of filesIn(path.join(tableDir, '_log'), '.seg')) {
    const data = fs.readFileSync(file);
    for (let at = 32; at + 32 <= data.length && data.toString('latin1', at, at + 4) === 'LKTR';) {
      const size = Number(data.readBigUInt64LE(at + 16));
      if (data[at + 4] === 2) found.push({ file, offset: at + 32, size });
      at += 32 + size;
    }
  }
  return found;
}

test('I004 a query over a damaged fragment is the INTEGRITY error', (t) => {
  const s = scratch(t);
  const db = s.clipsRoot();
  const fragments = fragmentsOf(path.join(s.dir, 'root', 'tables', 'media', 'clips'));
  assert.equal(fragments.length, 1);
  const [{ file, offset, size }] = fragments;
  const data = fs.readFileSync(file);
  data[offset + (size >> 1)] ^= 0xff;
  fs.writeFileSync(file, data);
  const result = db.query('SELECT name, video FROM media.clips');
  assert.throws(() => result.rows(), lake.IntegrityError);
});
