'use strict';
// The rest of the wrapped surface: event log reads and writers' steps,
// experiments, followers, pins, value binding, stage descriptors.
const assert = require('node:assert/strict');
const path = require('node:path');
const { test } = require('node:test');
const { lake, OBJECT_SIZE, scratch } = require('./support');

function itemLog(t) {
  const s = scratch(t);
  const db = s.openRoot();
  db.createExperiment('demo', 'run-1');
  return { s, db, log: db.eventLog('demo', 'run-1', { writable: true }) };
}

test('an event writer records steps, every value kind and a failure', (t) => {
  const { log } = itemLog(t);
  const step = { name: 'caption', index: 0, kind: 'Sequence' };
  const writer = log.writer('p1', 'w1');
  writer.stepStarted(step);
  writer.set('n', 42);
  writer.set('x', 1.5);
  writer.set('ok', true);
  writer.set('meta', { json: { a: [1, 2] } });
  writer.append('tags', 'red', step);
  writer.append('tags', 'blue', step);
  writer.stepCompleted(step);
  writer.failed('ValueError', { errorDump: 'bad', traceback: 'line 1' });
  writer.commit();
  assert.equal(writer.attempt, 0);
  const item = log.fold('p1');
  assert.equal(item.status, 'failed');
  assert.deepEqual([item.value('n'), item.value('x'), item.value('ok'), item.value('meta')],
    [42, 1.5, true, { a: [1, 2] }]);
  assert.equal(item.valueCount('tags'), 2);
  assert.deepEqual([item.value('tags', 0), item.value('tags', 1)], ['red', 'blue']);
  assert.equal(item.lastAttempt, 0);
  assert.ok(item.nextItemSeq > 1);
  assert.equal(item.json.item_id, 'p1');
  assert.deepEqual(log.failures().map((f) => [f.item_id, f.error_type]), [['p1', 'ValueError']]);
  assert.throws(() => item.value('absent'), lake.NotFoundError);
});

test('a resumed item continues in a new attempt; roots and events list it', (t) => {
  const { log } = itemLog(t);
  const first = log.writer('p1', 'w1');
  first.set('f', 1);
  first.commit();
  const again = log.resume('p1', 'w2');
  assert.equal(again.attempt, 1);
  again.terminal();
  again.commit();
  assert.equal(log.fold('p1').status, 'completed');
  assert.deepEqual(log.roots().roots.map((r) => [r.item_id, r.status]), [['p1', 'completed']]);
  const events = log.events('p1').trim().split('\n').map((line) => JSON.parse(line));
  assert.ok(events.length >= 3);
  assert.equal(log.fold('nobody'), null);
});

test('JSONL appended to one log is absorbed once and seen by another after refresh', (t) => {
  const { db, log } = itemLog(t);
  const writer = log.writer('p1', 'w1');
  writer.set('f', 1);
  writer.commit();
  const jsonl = log.events('p1');
  db.createExperiment('demo', 'run-2');
  const copy = db.eventLog('demo', 'run-2', { writable: true });
  const reader = db.eventLog('demo', 'run-2');
  const lines = jsonl.trim().split('\n').length;
  assert.deepEqual(copy.appendJsonl(jsonl), { appended: lines, duplicates: 0 });
  assert.deepEqual(copy.appendJsonl(jsonl), { appended: 0, duplicates: lines });
  assert.equal(reader.fold('p1'), null);
  reader.refresh();
  assert.equal(reader.fold('p1').value('f'), 1);
});

test('experiments are listed, described, compacted and deleted', (t) => {
  const { db, log } = itemLog(t);
  const second = db.eventLog('demo', 'run-1', { writable: true });  // a shard of its own
  for (const [shard, item] of [[log, 'p1'], [second, 'p2']]) {
    const writer = shard.writer(item, 'w1');
    writer.set('f', 1);
    writer.commit();
    shard.close();
  }
  assert.deepEqual(db.experiments().map((e) => [e.pipeline, e.experiment]), [['demo', 'run-1']]);
  assert.deepEqual(db.experiments('other'), []);
  assert.equal(db.describeExperiment('demo', 'run-1').items, 2);
  const compacted = db.compactExperiment('demo', 'run-1');
  assert.deepEqual([compacted.compacted, compacted.merged_shards], [true, 2]);
  assert.throws(() => db.createExperiment('demo', 'run-1'), lake.ConflictError);
  db.deleteExperiment('demo', 'run-1');
  assert.throws(() => db.deleteExperiment('demo', 'run-1'), lake.NotFoundError);
});

test('a follower reads the writer\'s rows and refuses writes', (t) => {
  const s = scratch(t);
  s.clipsRoot();
  const follower = lake.Db.openFollower(path.join(s.dir, 'root'), { maxStalenessMs: 10 });
  try {
    assert.deepEqual(follower.query('SELECT name FROM media.clips').rows(), [{ name: 'a' }]);
    assert.ok(follower.viewAgeMicros >= 0);
    assert.throws(() => follower.createTable('media.other', ['name:utf8']), lake.InvalidArgumentError);
  } finally {
    follower.close();
  }
});

test('pins are kept until unpinned; unpinning twice is NOT_FOUND', (t) => {
  const s = scratch(t);
  const db = s.openRoot();
  const location = db.stage.put(s.episode);
  db.pin(location);
  db.pin(location);
  db.unpin(location);
  assert.throws(() => db.unpin(location), lake.NotFoundError);
});

test('values of every column type bind and come back', (t) => {
  const db = scratch(t).openRoot();
  db.createTable('t.all', ['s:utf8', 'i:int64', 'f:float64', 'b:bool', 'z:binary', 'ts:timestamp']);
  const statement = db.prepare('INSERT INTO t.all (s, i, f, b, z, ts) VALUES (?, ?, ?, ?, ?, ?)');
  statement.bindAll(['héllo', 2n ** 40n, 0.25, true, Buffer.from([0, 1, 255]), new Date(1000)]);
  statement.insert();
  statement.bindText(2, '7');
  statement.bindTimestampMicros(6, 5);
  statement.bind(1, null);
  statement.insert();
  assert.equal(statement.parameterCount, 6);
  statement.close();
  const rows = db.query('SELECT * FROM t.all ORDER BY i').rows();
  assert.deepEqual(rows.map((r) => [r.s, r.i, r.f, r.b, [...r.z], r.ts]), [
    [null, 7, 0.25, true, [0, 1, 255], 5],
    ['héllo', 2 ** 40, 0.25, true, [0, 1, 255], 1000000]]);
});

test('a local stage describes itself, cleans staging and sets the buffer budget', (t) => {
  const s = scratch(t);
  const stage = lake.Stage.openLocal(path.join(s.dir, 'stage'));
  try {
    assert.deepEqual(JSON.parse(stage.descriptor), { version: 1, kind: 'local' });
    assert.match(stage.ioBackend, /^(io_uring|sync)$/);
    assert.equal(stage.cleanStaging(), 0);
    const location = stage.put(s.episode);
    assert.equal(lake.Location.fromJson(location.json).sizeBytes, OBJECT_SIZE);
    stage.delete(location);
    assert.deepEqual(stage.list(), []);
    lake.setBufferBudget(64 << 20);
    assert.throws(() => lake.setBufferBudget(1), lake.InvalidArgumentError);
  } finally {
    stage.close();
  }
});

test('readViewSync reads without a copy and reaches the verified end', (t) => {
  const s = scratch(t);
  const db = s.clipsRoot();
  const reader = db.stage.open(s.locationOf(db));
  const chunks = [];
  for (let view = reader.readViewSync(65536); view.length > 0; view = reader.readViewSync(65536)) {
    chunks.push(Buffer.from(view));  // a copy: the view lives until the next call
  }
  assert.ok(Buffer.concat(chunks).equals(s.data));
  assert.equal(reader.verified, true);
  reader.close();
});
