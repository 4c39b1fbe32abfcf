'use strict';
// Leaks (CONFORMANCE.md, L-001, L-002): resident memory, descriptors,
// threads and the binding's count of open handles across open/close loops
// (run in a child process: see leak_loops.js).
const assert = require('node:assert/strict');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { test } = require('node:test');
const { scratch } = require('./support');

const MiB = 1 << 20;

function loops(t, kind) {
  const s = scratch(t);
  const child = spawnSync(process.execPath,
    ['--expose-gc', '--single-threaded', path.join(__dirname, 'leak_loops.js'), kind, s.dir],
    { env: { ...process.env, MALLOC_ARENA_MAX: '1' }, encoding: 'utf8', timeout: 120000 });
  assert.equal(child.status, 0, child.stderr);
  return JSON.parse(child.stdout.trim().split('\n').pop());
}

test('L001 10,000 open/close loops of cheap handles leak nothing', (t) => {
  const { before, after } = loops(t, 'cheap');
  assert.equal(after.handles, before.handles);
  const grown = after.resident - before.resident;
  assert.ok(grown < 2 * MiB, `resident memory grew by ${grown} bytes`);
});

test('L002 100 open/close loops of a root leak nothing', (t) => {
  const { before, after } = loops(t, 'roots');
  assert.equal(after.handles, before.handles);
  assert.equal(after.fds, before.fds);
  assert.equal(after.threads, before.threads);
  const grown = after.resident - before.resident;
  assert.ok(grown < 16 * MiB, `resident memory grew by ${grown} bytes`);
});
