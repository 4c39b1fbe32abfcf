'use strict';
// An S3 stage through the binding (not a CONFORMANCE.md scenario; none
// needs S3): runs when the S3 test server's AWS_* variables are set
// (scripts/test starts it), in a bucket of its own made with curl.
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const path = require('node:path');
const { Readable } = require('node:stream');
const { pipeline } = require('node:stream/promises');
const { spawnSync } = require('node:child_process');
const { test } = require('node:test');
const { lake, OBJECT_SIZE, scratch, sha256 } = require('./support');

const { AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION } = process.env;

// A new bucket on the test server: its name.
function newBucket() {
  const bucket = `lake-node-${crypto.randomBytes(6).toString('hex')}`;
  const curl = spawnSync('curl', ['-sS', '-o', '/dev/null', '-w', '%{http_code}', '-X', 'PUT',
    '-H', `x-amz-content-sha256: ${sha256(Buffer.alloc(0))}`,
    '--aws-sigv4', `aws:amz:${AWS_REGION || 'us-east-1'}:s3`,
    '--user', `${AWS_ACCESS_KEY_ID}:${AWS_SECRET_ACCESS_KEY}`, `${AWS_ENDPOINT_URL}/${bucket}`],
  { encoding: 'utf8' });
  assert.equal(curl.stdout, '200', curl.stderr);
  return bucket;
}

function s3Root(t) {
  const s = scratch(t);
  const db = lake.Db.open(path.join(s.dir, 'root'),
    { s3: { stageUri: `s3://${newBucket()}/root`, pathStyle: true } });
  t.after(() => db.close());
  return { s, db };
}

test('a root on an S3 stage inserts a file and reads it back verified', (t) => {
  if (!AWS_ENDPOINT_URL) {
    t.skip('AWS_ENDPOINT_URL is not set (the S3 test server)');
    return;
  }
  const { s, db } = s3Root(t);
  assert.equal(db.stage.ioBackend, 's3');
  db.createTable('media.clips', ['name:utf8', 'video:file']);
  db.insert('INSERT INTO media.clips (name, video) VALUES (?, ?)', ['a', { path: s.episode }]);
  const location = s.locationOf(db);
  assert.match(location.uri, /^s3:\/\//);
  assert.equal(location.sha256, sha256(s.data));
  assert.ok(db.stage.cat(location).equals(s.data));
  assert.match(db.stage.presign(location, 60), /^http/);
});

test('a Writable on an S3 stage gets progress from lake\'s upload thread while it writes', async (t) => {
  if (!AWS_ENDPOINT_URL) {
    t.skip('AWS_ENDPOINT_URL is not set (the S3 test server)');
    return;
  }
  const { db } = s3Root(t);
  const data = crypto.randomBytes(3 * OBJECT_SIZE);
  const seen = [];
  const writer = db.stage.writer({ contentType: 'video/mp4', progress: (done) => seen.push(done) });
  await pipeline(Readable.from([data.subarray(0, OBJECT_SIZE), data.subarray(OBJECT_SIZE)]), writer);
  assert.equal(writer.location.sizeBytes, data.length);
  assert.ok(db.stage.cat(writer.location).equals(data));
  assert.equal(seen[seen.length - 1], data.length);
  const blocking = db.stage.writer({ progress: () => {} });
  assert.throws(() => blocking.writeSync(data), (e) => e instanceof lake.UnsupportedError
    && /deadlock/.test(e.message));
  blocking.close();
});

test('putAsync uploads to an S3 stage with progress and notice callbacks', async (t) => {
  if (!AWS_ENDPOINT_URL) {
    t.skip('AWS_ENDPOINT_URL is not set (the S3 test server)');
    return;
  }
  const { s, db } = s3Root(t);
  const seen = [];
  const location = await db.stage.putAsync(s.episode, {
    progress: (done) => seen.push(done), notice: () => {} });
  assert.equal(location.sha256, sha256(s.data));
  assert.equal(seen[seen.length - 1], OBJECT_SIZE);
});
