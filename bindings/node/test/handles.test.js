'use strict';
// Handle lifetimes (CONFORMANCE.md, H-001 … H-008).
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { test } = require('node:test');
const { lake, scratch, runNode, withCallTrap } = require('./support');

// One open handle of each kind, children of one root (and a standalone stage).
function everyKindOfHandle(s) {
  const db = s.clipsRoot();
  db.createExperiment('demo', 'run-1');
  const log = db.eventLog('demo', 'run-1', { writable: true });
  const writer = log.writer('p1', 'w1');
  writer.set('f', 1);
  writer.commit();
  const result = db.query('SELECT name, video FROM media.clips');
  const batch = result.next();
  const location = batch.location('video', 0);
  return {
    root: db, stage: db.stage, location, 'cancel token': new lake.CancelToken(),
    'upload options': new lake.UploadOptions(), statement: db.prepare('SELECT name FROM media.clips'),
    'query result': result, batch, reader: db.stage.open(location), writer: db.stage.writer(),
    'event log': log, 'event writer': log.writer('p2', 'w1'), 'folded item': log.fold('p1'),
    'standalone stage': lake.Stage.openLocal(path.join(s.dir, 'stage')),
  };
}

const isClosed = (handle) => (handle.handle ? handle.handle.closed : handle.closed);

test('H001 closing any handle twice is a no-op', (t) => {
  const handles = everyKindOfHandle(scratch(t));
  for (const [name, handle] of Object.entries(handles).reverse()) {
    handle.close();
    handle.close();
    assert.ok(isClosed(handle), name);
  }
});

test('H002 using a closed handle throws ClosedHandleError without calling lake', (t) => {
  const handles = everyKindOfHandle(scratch(t));
  for (const handle of Object.values(handles)) handle.close();
  const uses = {
    root: (h) => h.tables(), stage: (h) => h.descriptor, location: (h) => h.uri,
    'cancel token': (h) => h.cancel(), 'upload options': (h) => h.ptr(),
    statement: (h) => h.query(), 'query result': (h) => h.next(), batch: (h) => h.numRows,
    reader: (h) => h.readSync(Buffer.alloc(10)), writer: (h) => h.writeSync(Buffer.from('x')),
    'event log': (h) => h.roots(), 'event writer': (h) => h.commit(),
    'folded item': (h) => h.status, 'standalone stage': (h) => h.list(),
  };
  const calls = withCallTrap(() => {
    for (const [name, use] of Object.entries(uses)) {
      assert.throws(() => use(handles[name]),
        (e) => e instanceof lake.ClosedHandleError && e.code === 'LAKE_CLOSED_HANDLE', name);
    }
  });
  assert.deepEqual(calls, []);
});

test('H003 closing a root closes its children first, which then throw ClosedHandleError', (t) => {
  const handles = everyKindOfHandle(scratch(t));
  handles.root.close();
  for (const [name, handle] of Object.entries(handles)) {
    const own = ['location', 'cancel token', 'upload options', 'standalone stage'].includes(name);
    assert.equal(isClosed(handle), !own, name);
  }
  assert.throws(() => handles.reader.readSync(Buffer.alloc(10)), lake.ClosedHandleError);
  assert.throws(() => handles['event writer'].set('f', 2), lake.ClosedHandleError);
  assert.throws(() => handles.batch.rows(), lake.ClosedHandleError);
  for (const own of ['location', 'cancel token', 'upload options', 'standalone stage']) {
    handles[own].close();
  }
});

test('H004 closing an event log closes its writers, folded items and blob readers', (t) => {
  const s = scratch(t);
  const db = s.openRoot();
  db.createExperiment('demo', 'run-1');
  const log = db.eventLog('demo', 'run-1', { writable: true });
  const done = log.writer('p1', 'w1');
  done.set('clip', s.data.subarray(0, 70000));
  done.commit();
  const openWriter = log.writer('p2', 'w1');
  const item = log.fold('p1');
  const blob = item.openBlob('clip');
  log.close();
  for (const handle of [done, openWriter, item, blob]) assert.ok(isClosed(handle));
  assert.throws(() => item.value('clip'), lake.ClosedHandleError);
  assert.equal(db.closed, false);
});

test('H005 closing a statement releases its read sources and keeps its results readable', async (t) => {
  const s = scratch(t);
  const db = s.clipsRoot();
  const statement = db.prepare('INSERT INTO media.clips (name, video) VALUES (?, ?)');
  let source = [Buffer.from('never read')];
  const sourceAlive = new WeakRef(source);
  statement.bind(1, 's');
  statement.bind(2, { source });
  source = null;
  const query = db.prepare('SELECT name FROM media.clips');
  const result = query.query();
  statement.close();
  query.close();
  await new Promise((resolve) => setImmediate(resolve));
  global.gc();
  assert.equal(sourceAlive.deref(), undefined);
  assert.equal(result.closed, false);
  assert.deepEqual(result.rows().map((row) => row.name), ['a']);
});

test('H006 closing a root releases its writer lock at once', (t) => {
  const s = scratch(t);
  const root = path.join(s.dir, 'root');
  const db = lake.Db.open(root);
  db.createTable('media.first', ['name:utf8']);
  const lock = path.join(root, 'writer.lock');
  assert.match(fs.readFileSync(lock, 'utf8'), new RegExp(`\\b${process.pid}\\b`));
  // No collection runs here: the close alone releases the lock.
  db.close();
  const started = Date.now();
  const child = runNode(`
const db = lake.Db.open(${JSON.stringify(root)});
db.setBusyTimeout(0);
db.createTable('media.second', ['name:utf8']);
console.log(process.pid, require('fs').readFileSync(${JSON.stringify(lock)}, 'utf8'));
db.close();`);
  assert.equal(child.status, 0, child.stderr);
  const [pid, ...lockText] = child.stdout.trim().split(' ');
  assert.ok(lockText.join(' ').includes(pid));
  assert.ok(Date.now() - started < 10000);
});

test('H007 closing a standalone stage closes its readers and writers', (t) => {
  const s = scratch(t);
  const stage = lake.Stage.openLocal(path.join(s.dir, 'stage'));
  const location = stage.put(s.episode);
  const reader = stage.open(location);
  const writer = stage.writer();
  writer.writeSync(Buffer.from('abc'));
  stage.close();
  assert.ok(reader.handle.closed && writer.handle.closed);
  assert.equal(location.closed, false);
  assert.throws(() => stage.cat(location), lake.ClosedHandleError);
  location.close();
});

test('H008 closing a cancel token first closes the options and writers borrowing it', (t) => {
  const s = scratch(t);
  const db = s.openRoot();
  const token = new lake.CancelToken();
  const options = new lake.UploadOptions({ cancel: token });
  const writer = db.stage.writer(options);
  writer.writeSync(Buffer.from('abc'));
  token.close();
  assert.ok(options.closed && writer.handle.closed);
  assert.throws(() => db.stage.put(s.episode, options), lake.ClosedHandleError);
  assert.deepEqual(db.stage.list(), []);
});
