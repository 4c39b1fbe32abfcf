'use strict';
// The README's vertical slice runs as pasted (S-001 … S-012 in one piece),
// from a directory holding episode.mp4 where the binding is installed.
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { test } = require('node:test');
const { BINDING, scratch } = require('./support');

test('the README slice runs as pasted in a directory with episode.mp4', (t) => {
  const s = scratch(t);
  const readme = fs.readFileSync(path.join(BINDING, 'README.md'), 'utf8');
  const snippet = /```js\n([\s\S]*?)```/.exec(readme)[1];
  assert.ok(snippet.split('\n').length <= 50);
  // As `npm install /path/to/lake/bindings/node` leaves it.
  fs.mkdirSync(path.join(s.dir, 'node_modules'));
  fs.symlinkSync(BINDING, path.join(s.dir, 'node_modules', 'lake'));
  fs.writeFileSync(path.join(s.dir, 'slice.mjs'), snippet);
  const child = spawnSync(process.execPath, ['slice.mjs'], { cwd: s.dir, encoding: 'utf8', timeout: 60000 });
  assert.equal(child.status, 0, child.stderr);
  assert.match(child.stdout, /completed p1/);
  assert.ok(fs.statSync(path.join(s.dir, 'lake-data')).isDirectory());
  assert.equal(fs.statSync(path.join(s.dir, 'head.bin')).size, 1024);
});
