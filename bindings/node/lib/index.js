'use strict';
// lake for Node: the public API. See README.md.
const native = require('./native');
const errors = require('./errors');
const { openHandleCount } = require('./handle');
const { Location } = require('./location');
const { CancelToken, UploadOptions } = require('./upload_options');
const { Stage } = require('./stage');
const { Reader } = require('./reader');
const { Writer } = require('./writer');
const { Db } = require('./db');
const { Statement } = require('./statement');
const { QueryResult, Batch, ArrowStream } = require('./query_result');
const { EventLog, EventWriter, FoldedItem, ValueKind } = require('./events');
const { GcOptions, setBufferBudget } = require('./gc');

// The library, loaded and ABI-checked (AbiVersionError on a mismatch).
function load() {
  return native.lib();
}

module.exports = {
  ABI_VERSION: native.ABI_VERSION, AbiVersionError: native.AbiVersionError, load,
  version: () => native.lib().lake_version_string(),
  openHandleCount, setBufferBudget,
  Location, CancelToken, UploadOptions, Stage, Reader, Writer,
  Db, Statement, QueryResult, Batch, ArrowStream, EventLog, EventWriter, FoldedItem, ValueKind, GcOptions,
  ...errors,
};
