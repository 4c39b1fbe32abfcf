'use strict';
// The loops of the leak scenarios (L-001, L-002), run by leaks.test.js in a
// child Node started with `--expose-gc --single-threaded` and
// MALLOC_ARENA_MAX=1: without V8's background threads and per-thread malloc
// arenas, resident memory moves only with what the loops keep (else it
// drifts by ±2 MiB from run to run, more than L-001's bound). Prints the
// measurements as JSON.  Usage: node leak_loops.js cheap|roots DIR
const fs = require('node:fs');
const path = require('node:path');
const lake = require('..');

function status(field) {
  return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(fs.readFileSync('/proc/self/status', 'utf8'))[1]);
}

function measure() {
  global.gc();
  return { handles: lake.openHandleCount(), resident: status('VmRSS') * 1024,
    fds: fs.readdirSync('/proc/self/fd').length, threads: status('Threads') };
}

const [kind, dir] = process.argv.slice(2);
let loop;
if (kind === 'cheap') {
  const db = lake.Db.open(path.join(dir, 'root'));
  db.createTable('media.clips', ['name:utf8']);
  const sha = '0'.repeat(64);
  loop = (from, count) => {
    for (let i = from; i < from + count; i += 1) {
      const location = lake.Location.create('file:///x/y', 'video/mp4', i + 1, sha);
      const token = new lake.CancelToken();
      token.cancel();
      // A registered progress callback each time: koffi has 8,192 slots, so
      // one never unregistered would exhaust them within the loop.
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
  loop(0, 1000);
  const before = measure();
  loop(1000, 10000);
  const after = measure();
  db.close();
  console.log(JSON.stringify({ before, after }));
} else {
  loop = (from, count) => {
    for (let i = from; i < from + count; i += 1) {
      const db = lake.Db.open(path.join(dir, 'root'));
      db.createTable(`media.t${i}`, ['name:utf8']);
      if (db.query(`SELECT name FROM media.t${i}`).rows().length !== 0) throw new Error('rows');
      db.close();
    }
  };
  loop(0, 5);
  const before = measure();
  loop(5, 100);
  console.log(JSON.stringify({ before, after: measure() }));
}
