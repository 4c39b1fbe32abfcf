'use strict';
// Callbacks (CONFORMANCE.md, C-001 … C-007): collection while lake holds
// them, exceptions becoming the call's error, cancellation.
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const path = require('node:path');
const { test } = require('node:test');
const { lake, OBJECT_SIZE, scratch, sha256 } = require('./support');

// The bytes of `data` in chunks, forcing a full collection before each one.
function* collecting(data, chunk = 32 * 1024) {
  for (let at = 0; at < data.length; at += chunk) {
    global.gc();
    yield data.subarray(at, at + chunk);
  }
}

// A host store in JS: objects in a Map.
class MemoryStore {
  constructor() {
    this.rootUri = 's3://node-host/root';
    this.objects = new Map();
    this.failOpen = false;
  }

  upload(uri, _contentType, read) {
    const chunks = [];
    for (;;) {
      global.gc();
      const chunk = read(64 * 1024);
      if (chunk.length === 0) break;
      chunks.push(Buffer.from(chunk));
    }
    this.objects.set(uri, { data: Buffer.concat(chunks), modified: Date.now() * 1000 });
  }

  open(uri, start) {
    if (this.failOpen) throw new Error('the host refuses');
    if (!this.objects.has(uri)) throw new lake.NotFoundError(`no object ${uri}`);
    let data = this.objects.get(uri).data.subarray(start);
    return {
      read(n) {
        const part = data.subarray(0, n);
        data = data.subarray(part.length);
        return part;
      },
      close() {},
    };
  }

  * list(prefix) {
    for (const [uri, { data, modified }] of this.objects) {
      if (uri.startsWith(prefix)) yield { uri, sizeBytes: data.length, modifiedUnixMicros: modified };
    }
  }

  remove(uri) {
    this.objects.delete(uri);
  }
}

test('C001 a read source bound to an INSERT survives forced collection', (t) => {
  const s = scratch(t);
  const db = s.openRoot();
  db.createTable('media.clips', ['name:utf8', 'video:file']);
  const statement = db.prepare('INSERT INTO media.clips (name, video) VALUES (?, ?)');
  statement.bind(1, 'c');
  statement.bindFile(2, collecting(s.data));
  global.gc();
  statement.insert();
  statement.close();
  const location = s.locationOf(db, 'c');
  assert.equal(location.sizeBytes, OBJECT_SIZE);
  assert.equal(location.sha256, sha256(s.data));
});

test('C002 a progress callback survives collection and ends at the object\'s size', (t) => {
  const s = scratch(t);
  const db = s.openRoot();
  const seen = [];
  const options = new lake.UploadOptions({ progress: (done) => { global.gc(); seen.push(done); } });
  global.gc();
  const large = crypto.randomBytes(3 << 20);
  db.stage.put(collecting(large, 256 * 1024), options);
  options.close();
  assert.ok(seen.length > 1);
  assert.deepEqual(seen, [...seen].sort((a, b) => a - b));
  assert.equal(seen[seen.length - 1], large.length);
});

test('C003 a host store in JS serves a stage: put, cat, a range, list and delete', (t) => {
  const s = scratch(t);
  const store = new MemoryStore();
  const stage = lake.Stage.openHost(store);
  try {
    global.gc();
    const location = stage.put(collecting(s.data));
    assert.ok(location.uri.startsWith(`${store.rootUri}/`));
    assert.ok(stage.cat(location).equals(s.data));
    const range = stage.openRange(location, 10, 20);
    assert.ok(range.readAllSync().equals(s.data.subarray(10, 20)));
    range.close();
    assert.deepEqual(stage.list().map((entry) => entry.uri), [location.uri]);
    stage.delete(location);
    assert.deepEqual(stage.list(), []);
  } finally {
    stage.close();
  }
});

test('C003 a root on a JS host store inserts and reads through it, also asynchronously', async (t) => {
  const s = scratch(t);
  const store = new MemoryStore();
  const db = lake.Db.open(path.join(s.dir, 'root'), { hostStore: store, hostId: 'node-memory' });
  try {
    assert.deepEqual(JSON.parse(db.stage.descriptor), { version: 1, kind: 'host', host_id: 'node-memory' });
    db.createTable('media.clips', ['name:utf8', 'video:file']);
    db.insert('INSERT INTO media.clips (name, video) VALUES (?, ?)', ['a', { path: s.episode }]);
    const statement = db.prepare('INSERT INTO media.clips (name, video) VALUES (?, ?)');
    statement.bindAll(['b', { source: collecting(s.data) }]);
    assert.equal(await statement.insertAsync(), 2);
    statement.close();
    for (const name of ['a', 'b']) {
      const location = s.locationOf(db, name);
      assert.ok(location.uri.startsWith(`${store.rootUri}/`));
      assert.ok(db.stage.cat(location).equals(s.data));
    }
  } finally {
    db.close();
  }
});

test('C003 a writer on a JS host-store stage is refused instead of deadlocking', (t) => {
  scratch(t);
  const stage = lake.Stage.openHost(new MemoryStore());
  try {
    assert.throws(() => stage.writer(), (e) => e instanceof lake.UnsupportedError && /deadlock/.test(e.message));
  } finally {
    stage.close();
  }
});

test('C001 a read source survives forced collection in an asynchronous INSERT', async (t) => {
  const s = scratch(t);
  const db = s.openRoot();
  db.createTable('media.clips', ['name:utf8', 'video:file']);
  const statement = db.prepare('INSERT INTO media.clips (name, video) VALUES (?, ?)');
  statement.bindAll(['c', { source: collecting(s.data) }]);
  assert.equal(await statement.insertAsync({ progress: () => global.gc() }), 1);
  statement.close();
  assert.equal(s.locationOf(db, 'c').sha256, sha256(s.data));
});

test('C004 an exception in a read source becomes the call\'s error; nothing is published', (t) => {
  const s = scratch(t);
  const db = s.openRoot();
  db.createTable('media.clips', ['name:utf8', 'video:file']);
  class SourceBroke extends Error {}
  function* failing() {
    yield Buffer.from('some bytes');
    throw new SourceBroke('the source broke');
  }
  assert.throws(() => db.insert('INSERT INTO media.clips (name, video) VALUES (?, ?)',
    ['f', { source: failing() }]), (e) => e instanceof SourceBroke && e.lakeError instanceof lake.LakeError);
  assert.equal(db.describeTable('media.clips').total_rows, 0);
  assert.throws(() => db.stage.put(failing()), SourceBroke);
  assert.deepEqual(db.stage.list(), []);
});

test('C005 an exception in a progress callback becomes the call\'s error', (t) => {
  const s = scratch(t);
  const db = s.openRoot();
  class ProgressBroke extends Error {}
  assert.throws(() => db.stage.put(s.episode, {
    progress: (done) => { throw new ProgressBroke(`progress at ${done}`); },
  }), ProgressBroke);
});

test('C006 an exception in a host store callback becomes the call\'s error', (t) => {
  const s = scratch(t);
  const store = new MemoryStore();
  const stage = lake.Stage.openHost(store);
  try {
    const location = stage.put(s.data);
    store.failOpen = true;
    assert.throws(() => stage.cat(location), (e) => e.message === 'the host refuses'
      && e.lakeError instanceof lake.IoError && e.lakeError.message.includes('the host refuses'));
    store.failOpen = false;
    assert.ok(stage.cat(location).equals(s.data));
  } finally {
    stage.close();
  }
});

test('C007 a token cancelled from the progress callback stops the upload with CANCELLED', (t) => {
  const s = scratch(t);
  const db = s.openRoot();
  const token = new lake.CancelToken();
  const large = crypto.randomBytes(8 << 20);
  assert.throws(() => db.stage.put(large, { cancel: token, progress: () => token.cancel() }),
    lake.CancelledError);
  assert.deepEqual(db.stage.list(), []);
  token.close();
});
