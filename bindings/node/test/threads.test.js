'use strict';
// Threads (CONFORMANCE.md, T-001 … T-003). JS runs on one thread; lake's
// calls reach other threads through koffi's asynchronous calls (readAsync,
// insertAsync), each on a worker thread of koffi's while the event loop
// goes on.
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const { test } = require('node:test');
const { lake, OBJECT_SIZE, scratch, sha256 } = require('./support');

async function readAllAsync(reader, size = 64 * 1024) {
  const chunks = [];
  for (;;) {
    const buffer = Buffer.alloc(size);
    const n = await reader.readAsync(buffer);
    if (n === 0) return Buffer.concat(chunks);
    chunks.push(buffer.subarray(0, n));
  }
}

test('T001 thread-safe handles serve 4 threads at once: reads through one stage, INSERTs through one root', async (t) => {
  const s = scratch(t);
  const db = s.clipsRoot();
  const location = s.locationOf(db);
  const readers = [0, 1, 2, 3].map(() => db.stage.open(location));
  const contents = await Promise.all(readers.map((reader) => readAllAsync(reader)));
  for (const [i, content] of contents.entries()) {
    assert.ok(content.equals(s.data));
    assert.equal(readers[i].verified, true);
    readers[i].close();
  }
  const statements = [0, 1, 2, 3].map((i) => {
    const statement = db.prepare('INSERT INTO media.clips (name, video) VALUES (?, ?)');
    statement.bindAll([`t${i}`, { path: s.episode }]);
    return statement;
  });
  const versions = await Promise.all(statements.map((statement) => statement.insertAsync()));
  for (const statement of statements) statement.close();
  assert.equal(new Set(versions).size, 4);
  assert.equal(db.describeTable('media.clips').total_rows, 5);
});

test('T002 a one-thread-at-a-time reader used from 2 callers at once serialises their reads', async (t) => {
  const s = scratch(t);
  const db = s.clipsRoot();
  const reader = db.stage.open(s.locationOf(db));
  // Counts the reads inside lake at once, through the library's functions.
  const functions = lake.load();
  const read = functions.lake_reader_read;
  let inLake = 0;
  let mostInLake = 0;
  const counted = (...args) => read(...args);
  counted.async = (...args) => {
    const callback = args.pop();
    inLake += 1;
    mostInLake = Math.max(mostInLake, inLake);
    read.async(...args, (...results) => {
      inLake -= 1;
      callback(...results);
    });
  };
  functions.lake_reader_read = counted;
  t.after(() => { functions.lake_reader_read = read; });
  let inFlight = 0;
  let most = 0;
  const consumer = async () => {
    let total = 0;
    for (;;) {
      inFlight += 1;
      most = Math.max(most, inFlight);
      const n = await reader.readAsync(Buffer.alloc(4096));
      inFlight -= 1;
      if (n === 0) return total;
      total += n;
    }
  };
  const totals = await Promise.all([consumer(), consumer()]);
  assert.equal(most, 2);  // both were waiting on the reader at once
  assert.equal(mostInLake, 1);  // and lake saw one read at a time
  assert.equal(totals[0] + totals[1], OBJECT_SIZE);
  assert.equal(reader.verified, true);
  reader.close();
});

test('T003 closing a reader during a call on it frees it only after the call returned', async (t) => {
  const s = scratch(t);
  const db = s.openRoot();
  const location = db.stage.put(crypto.randomBytes(32 << 20));
  const reader = db.stage.open(location);
  let busyAtFree = null;
  const free = reader.handle._free;
  reader.handle._free = (ptr) => {
    busyAtFree = reader.handle._busy;
    free(ptr);
  };
  const read = reader.readAsync(Buffer.alloc(32 << 20));
  reader.close();
  assert.equal(reader.handle.closed, true);
  assert.throws(() => reader.readSync(Buffer.alloc(1)), lake.ClosedHandleError);
  assert.equal(busyAtFree, null);  // not freed while the read runs
  assert.ok(await read > 0);
  await reader.handle.closeAsync();
  assert.equal(busyAtFree, 0);
});

test('T003 closing a statement and its options during an asynchronous INSERT waits for it', async (t) => {
  const s = scratch(t);
  const db = s.openRoot();
  db.createTable('media.clips', ['name:utf8', 'video:file']);
  const statement = db.prepare('INSERT INTO media.clips (name, video) VALUES (?, ?)');
  function* chunks() {
    for (let at = 0; at < s.data.length; at += 16384) {
      global.gc();
      yield s.data.subarray(at, at + 16384);
    }
  }
  statement.bindAll(['late', { source: chunks() }]);
  const seen = [];
  const options = new lake.UploadOptions({ progress: (done) => seen.push(done) });
  const insert = statement.insertAsync(options);
  statement.close();
  options.close();
  assert.equal(statement.closed && options.closed, true);
  assert.throws(() => statement.insert(), lake.ClosedHandleError);
  assert.equal(await insert, 1);  // its source and progress callback outlived the close
  await Promise.all([statement.closeAsync(), options.closeAsync()]);
  assert.equal(seen[seen.length - 1], OBJECT_SIZE);
  assert.deepEqual(db.query('SELECT name FROM media.clips').rows(), [{ name: 'late' }]);
});

test('T001 putAsync uploads a path and a byte source on koffi\'s threads', async (t) => {
  const s = scratch(t);
  const db = s.openRoot();
  function* chunks() {
    for (let at = 0; at < s.data.length; at += 50000) yield s.data.subarray(at, at + 50000);
  }
  const [fromPath, fromSource] = await Promise.all([
    db.stage.putAsync(s.episode, { contentType: 'video/mp4' }), db.stage.putAsync(chunks())]);
  assert.equal(fromPath.contentType, 'video/mp4');
  assert.equal(fromPath.sha256, sha256(s.data));
  assert.equal(fromSource.sha256, sha256(s.data));
  class SourceBroke extends Error {}
  function* failing() {
    yield Buffer.from('x');
    throw new SourceBroke('broke');
  }
  await assert.rejects(db.stage.putAsync(failing()), SourceBroke);
});
