'use strict';
// Leaks (CONFORMANCE.md, L-001, L-002): resident memory, descriptors,
// threads and the binding's count of open handles across open/close loops.
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { test } = require('node:test');
const { lake, scratch } = require('./support');

const MiB = 1 << 20;

function residentBytes() {
  global.gc();
  const status = fs.readFileSync('/proc/self/status', 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)[1]) * 1024;
}

function threads() {
  return Number(/Threads:\s+(\d+)/.exec(fs.readFileSync('/proc/self/status', 'utf8'))[1]);
}

function descriptors() {
  return fs.readdirSync('/proc/self/fd').length;
}

test('L001 10,000 open/close loops of cheap handles leak nothing', (t) => {
  const s = scratch(t);
  const db = s.clipsRoot();
  const sha = '0'.repeat(64);
  const loop = (count) => {
    for (let i = 0; i < count; i += 1) {
      const location = lake.Location.create('file:///x/y', 'video/mp4', i + 1, sha);
      const token = new lake.CancelToken();
      token.cancel();
      // A registered progress callback each time: koffi has 8,192 slots, so
      // a callback never unregistered would exhaust them within the loop.
      const options = new lake.UploadOptions({ contentType: 'video/mp4', cancel: token,
        progress: () => {} });
      const statement = db.prepare('SELECT name FROM media.clips WHERE name = ?');
      statement.bind(1, 'x');
      statement.close();
      options.close();
      token.close();
      location.close();
    }
  };
  loop(1000);
  const handles = lake.openHandleCount();
  const before = residentBytes();
  loop(10000);
  const grown = residentBytes() - before;
  assert.equal(lake.openHandleCount(), handles);
  assert.ok(grown < 2 * MiB, `resident memory grew by ${grown} bytes`);
});

test('L002 100 open/close loops of a root leak nothing', (t) => {
  const s = scratch(t);
  const loop = (from, count) => {
    for (let i = from; i < from + count; i += 1) {
      const db = lake.Db.open(path.join(s.dir, 'root'));
      db.createTable(`media.t${i}`, ['name:utf8']);
      assert.deepEqual(db.query(`SELECT name FROM media.t${i}`).rows(), []);
      db.close();
    }
  };
  loop(0, 5);
  const handles = lake.openHandleCount();
  const [fds, threadCount, before] = [descriptors(), threads(), residentBytes()];
  loop(5, 100);
  const grown = residentBytes() - before;
  assert.equal(lake.openHandleCount(), handles);
  assert.equal(descriptors(), fds);
  assert.equal(threads(), threadCount);
  assert.ok(grown < 16 * MiB, `resident memory grew by ${grown} bytes`);
});
