// bench/bindings' Node lane: bindings_bench.c's `read` and `calls` through
// the Node binding (bindings/node, koffi), run by bench/bindings_lanes/node
// from a copy of the binding holding its node_modules.
//
//   node bindings_lane_node.js BINDING_DIR read ROOT LOCATION_FILE BUF
//   node bindings_lane_node.js BINDING_DIR calls ROOT LOCATION_FILE N
//
// Prints the C anchor's fields ("seconds=S bytes=B verified=1" or
// "seconds=S calls=N"), timing the same span.
'use strict';
const fs = require('fs');
const path = require('path');

const [bindingDir, what, root, locationFile, count] = process.argv.slice(2);
const lake = require(path.resolve(bindingDir));

function seconds(since) {
  return Number(process.hrtime.bigint() - since) / 1e9;
}

const db = lake.Db.open(root);
const location = lake.Location.fromJson(fs.readFileSync(locationFile, 'utf8').trim());
if (what === 'read') {
  const buffer = Buffer.allocUnsafe(Number(count));
  let total = 0;
  const began = process.hrtime.bigint();
  const reader = db.stage.open(location);
  for (;;) {
    const n = reader.readSync(buffer);
    if (n === 0) break;
    total += n;
  }
  const verified = reader.verified;
  reader.close();
  const took = seconds(began);
  if (!verified || total !== Number(location.sizeBytes)) {
    console.error(`node lane: read ${total} bytes, verified=${verified}`);
    process.exit(1);
  }
  console.log(`seconds=${took.toFixed(6)} bytes=${total} verified=1`);
} else if (what === 'calls') {
  const n = Number(count);
  const token = new lake.CancelToken();
  let sink = 0;
  const began = process.hrtime.bigint();
  for (let i = 0; i < n; i++) sink += token.cancelled ? 1 : 0;
  const took = seconds(began);
  token.close();
  if (sink !== 0) process.exit(1);
  console.log(`seconds=${took.toFixed(6)} calls=${n}`);
} else {
  console.error('usage: bindings_lane_node.js BINDING_DIR read|calls ROOT LOCATION_FILE BUF|N');
  process.exit(2);
}
location.close();
db.close();
