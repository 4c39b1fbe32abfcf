'use strict';
// What the binding's tests share: scratch directories holding episode.mp4,
// roots with media.clips, and child Node processes running snippets.
//
// The tests run against $LAKE_LIBRARY (scripts/lib/test-node-binding sets
// it to the build's liblake.so).
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const BINDING = path.resolve(__dirname, '..');
const lake = require(BINDING);

const OBJECT_SIZE = 300000;

// A scratch directory with episode.mp4 (OBJECT_SIZE random bytes), removed after the test.
function scratch(t) {
  const dir = fs.mkdtempSync(path.join(process.env.LAKE_TEST_TMPDIR || os.tmpdir(), 'lake-node-'));
  const data = crypto.randomBytes(OBJECT_SIZE);
  const episode = path.join(dir, 'episode.mp4');
  fs.writeFileSync(episode, data);
  const closers = [];
  t.after(() => {
    for (const close of closers.reverse()) close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return {
    dir, data, episode,
    openRoot(name = 'root') {
      const db = lake.Db.open(path.join(dir, name));
      closers.push(() => db.close());
      return db;
    },
    // A root with media.clips (name utf8, video file) holding one row "a".
    clipsRoot() {
      const db = this.openRoot();
      db.createTable('media.clips', ['name:utf8', 'video:file']);
      db.insert('INSERT INTO media.clips (name, video) VALUES (?, ?)', ['a', { path: episode }]);
      return db;
    },
    locationOf(db, name = 'a') {
      const result = db.query('SELECT video FROM media.clips WHERE name = ?', [name]);
      try {
        const batch = result.next();
        return batch.location('video', 0);
      } finally {
        result.close();
      }
    },
  };
}

function sha256(data) {
  return crypto.createHash('sha256').update(data).digest('hex');
}

// Runs `code` in a child Node with the binding as `lake`; {status, stdout, stderr}.
function runNode(code, env = {}) {
  const prelude = `const lake = require(${JSON.stringify(BINDING)});\n`;
  return spawnSync(process.execPath, ['-e', prelude + code], {
    env: { ...process.env, ...env }, encoding: 'utf8', timeout: 60000,
  });
}

function storedPath(location) {
  return decodeURIComponent(new URL(location.uri).pathname);
}

module.exports = { BINDING, lake, OBJECT_SIZE, scratch, sha256, runNode, storedPath };

// Replaces every lake function of the loaded library with one that records
// the call and throws, while `fn` runs: proves `fn` calls into lake not at all.
function withCallTrap(fn) {
  const native = require(path.join(BINDING, 'lib', 'native'));
  const functions = native.lib();
  const saved = { ...functions };
  const calls = [];
  for (const name of Object.keys(saved)) {
    functions[name] = () => {
      calls.push(name);
      throw new Error(`${name} was called`);
    };
  }
  try {
    fn();
  } finally {
    Object.assign(functions, saved);
  }
  return calls;
}

module.exports.withCallTrap = withCallTrap;
