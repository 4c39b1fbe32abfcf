'use strict';
// Maintenance from Node: garbage collection's show, apply and verify, table
// compaction, tags and expiry, and the resumable uploads' checkpoints.
const assert = require('node:assert/strict');
const fs = require('node:fs');
const { test } = require('node:test');
const { lake, OBJECT_SIZE, scratch, storedPath } = require('./support');

// A root with one referenced row, one unreferenced object and a plan of cutoff 0.
function plannedRoot(t) {
  const s = scratch(t);
  const db = s.clipsRoot();
  const unreferenced = db.stage.put(s.episode);
  const plan = db.gcPlan({ cutoffSeconds: 0, allowShortCutoff: true });
  return { s, db, unreferenced, plan };
}

test('gc show lists the unreferenced object and not the referenced one', (t) => {
  const { db, unreferenced, plan } = plannedRoot(t);
  const { candidates, status } = db.gcShow(plan.plan_id);
  const objects = candidates.filter((c) => c.kind === 'object');
  assert.deepEqual(objects.map((c) => c.uri), [unreferenced.uri]);
  assert.equal(objects[0].sizeBytes, OBJECT_SIZE);
  assert.equal(status.state, 'planned');
});

test('gc show of an unknown plan is NOT_FOUND', (t) => {
  const db = scratch(t).openRoot();
  assert.throws(() => db.gcShow('01890a5d-ac96-774b-bcce-b302099a8057'), lake.NotFoundError);
});

test('gc apply deletes the plan\'s objects and keeps the referenced one', (t) => {
  const { s, db, unreferenced, plan } = plannedRoot(t);
  const phases = [];
  const done = db.gcApply(plan.plan_id, { progress: (phase) => phases.push(phase) });
  assert.equal(done.state, 'done');
  assert.equal(done.objects_deleted, 1);
  assert.equal(fs.existsSync(storedPath(unreferenced)), false);
  assert.ok(db.stage.cat(s.locationOf(db)).equals(s.data));
  assert.ok(phases.length > 0);
});

test('gc apply throws what its progress callback threw', (t) => {
  const { db, plan } = plannedRoot(t);
  class ProgressBroke extends Error {}
  assert.throws(() => db.gcApply(plan.plan_id, {
    progress: () => { throw new ProgressBroke('from progress'); },
  }), ProgressBroke);
});

test('gc apply cancelled before it starts deletes nothing', (t) => {
  const { db, unreferenced, plan } = plannedRoot(t);
  const token = new lake.CancelToken();
  token.cancel();
  assert.throws(() => db.gcApply(plan.plan_id, { cancel: token }), lake.CancelledError);
  assert.ok(fs.existsSync(storedPath(unreferenced)));
  token.close();
});

test('gc verify of a sound root finds no problem', (t) => {
  const db = scratch(t).clipsRoot();
  const { problems, summary } = db.gcVerify({ deep: true });
  assert.deepEqual(problems, []);
  assert.equal(summary.problems, 0);
  assert.ok(summary.bytes_verified >= OBJECT_SIZE);
});

test('gc verify names a missing object and what references it', (t) => {
  const s = scratch(t);
  const db = s.clipsRoot();
  const location = s.locationOf(db);
  fs.rmSync(storedPath(location));
  const { problems, summary } = db.gcVerify();
  assert.equal(summary.problems, 1);
  assert.deepEqual([problems[0].uri, problems[0].problem], [location.uri, 'missing']);
  assert.ok(problems[0].referrers.some((r) => r.includes('media.clips')), problems[0].referrers);
});

test('gc verify deep names a tampered object', (t) => {
  const s = scratch(t);
  const db = s.clipsRoot();
  const file = storedPath(s.locationOf(db));
  fs.chmodSync(file, 0o644);
  const fd = fs.openSync(file, 'r+');
  fs.writeSync(fd, Buffer.alloc(8, 0xff), 0, 8, 0);
  fs.closeSync(fd);
  assert.deepEqual(db.gcVerify({ deep: true }).problems.map((p) => p.problem), ['digest-mismatch']);
});

test('compaction makes a new version with the same rows', (t) => {
  const s = scratch(t);
  const db = s.clipsRoot();
  db.insert('INSERT INTO media.clips (name, video) VALUES (?, ?)', ['b', { path: s.episode }]);
  assert.equal(db.compactTable('media.clips'), 3);
  assert.deepEqual(db.query('SELECT name FROM media.clips ORDER BY name').rows().map((r) => r.name),
    ['a', 'b']);
});

test('compaction with nothing to merge keeps the version', (t) => {
  assert.equal(scratch(t).clipsRoot().compactTable('media.clips'), 1);
});

test('a tag twice is CONFLICT and an absent untag NOT_FOUND', (t) => {
  const db = scratch(t).clipsRoot();
  db.tagTable('media.clips', 'golden', 1);
  assert.throws(() => db.tagTable('media.clips', 'golden', 1), lake.ConflictError);
  db.untagTable('media.clips', 'golden');
  assert.throws(() => db.untagTable('media.clips', 'golden'), lake.NotFoundError);
});

test('expiry retires old versions but not a tagged one', (t) => {
  const s = scratch(t);
  const db = s.clipsRoot();
  for (const name of ['b', 'c']) {
    db.insert('INSERT INTO media.clips (name, video) VALUES (?, ?)', [name, { path: s.episode }]);
  }
  db.tagTable('media.clips', 'first', 1);
  assert.deepEqual(db.expireTable('media.clips', { keepLast: 1 }), { retired: [2], current_version: 3 });
  assert.deepEqual(db.query('SELECT count(*) FROM media.clips AS OF VERSION 1').rows(), [{ count: 1 }]);
  assert.throws(() => db.query('SELECT count(*) FROM media.clips AS OF VERSION 2'), lake.NotFoundError);
});

test('expiry without a bound is INVALID_ARGUMENT', (t) => {
  assert.throws(() => scratch(t).clipsRoot().expireTable('media.clips'), lake.InvalidArgumentError);
});

test('a local root has no upload checkpoints', (t) => {
  assert.deepEqual(scratch(t).openRoot().uploads(), []);
});

test('resuming or aborting an unknown upload is NOT_FOUND', (t) => {
  const db = scratch(t).openRoot();
  assert.throws(() => db.resumeUpload('no-such-upload'), lake.NotFoundError);
  assert.throws(() => db.abortUpload('no-such-upload'), lake.NotFoundError);
});

test('a DELETE through execute reports its version and rows; changes() counts them', (t) => {
  const s = scratch(t);
  const db = s.clipsRoot();
  const statement = db.prepare('DELETE FROM media.clips WHERE name = ?');
  statement.bind(1, 'a');
  assert.deepEqual(statement.execute(), { version: 2, rows: 1 });
  assert.deepEqual(statement.changes(), { deleted: 1, inserted: 0 });
  statement.close();
  assert.deepEqual(db.query('SELECT name FROM media.clips').rows(), []);
});
