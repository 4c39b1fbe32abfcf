'use strict';
// The ABI (CONFORMANCE.md, A-001, A-002).
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { test } = require('node:test');
const { BINDING, lake, runNode } = require('./support');
const native = require('../lib/native');

test('A001 a library of another ABI version is refused at load, before any handle', (t) => {
  assert.equal(lake.load().lake_abi_version(), lake.ABI_VERSION);
  const dir = fs.mkdtempSync(path.join(process.env.LAKE_TEST_TMPDIR || os.tmpdir(), 'lake-node-abi-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const source = path.join(dir, 'stub.c');
  fs.writeFileSync(source, '#include <stdint.h>\n'
    + `uint32_t lake_abi_version(void) { return ${lake.ABI_VERSION + 1}; }\n`
    + 'const char* lake_version_string(void) { return "stub"; }\n');
  const stub = path.join(dir, 'liblake_stub.so');
  execFileSync('cc', ['-shared', '-fPIC', '-o', stub, source]);
  // A fresh process: loading is what is refused, before any handle.
  const child = runNode(`
try {
  lake.Location.create('file:///x', 'a/b', 1, '0'.repeat(64));
  console.log('loaded');
} catch (e) {
  console.log('refused:', e instanceof lake.AbiVersionError, e.message);
  console.log('handles:', lake.openHandleCount());
}`, { LAKE_LIBRARY: stub });
  assert.equal(child.status, 0, child.stderr);
  assert.match(child.stdout, new RegExp(`refused: true .*implements lake ABI ${lake.ABI_VERSION + 1}`));
  assert.match(child.stdout, /handles: 0/);
});

test('A002 every LAKE_API function of lake.h is declared and loaded', () => {
  const header = fs.readFileSync(path.join(BINDING, '..', '..', 'include', 'lake.h'), 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*#.*$/gm, '');
  const inHeader = new Set([...header.matchAll(/LAKE_API\b[^;(]*?\b(lake_\w+)\s*\(/g)].map((m) => m[1]));
  const declared = new Set(native.PROTOTYPES.map(native.functionName));
  assert.deepEqual([...inHeader].filter((name) => !declared.has(name)), []);
  assert.deepEqual([...declared].filter((name) => !inHeader.has(name)), []);
  const functions = lake.load();
  assert.ok([...declared].every((name) => typeof functions[name] === 'function'));
  assert.ok(inHeader.size > 100);  // the pattern found lake.h's functions
});
