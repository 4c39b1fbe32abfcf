'use strict';
// Text lake returns as char* for the caller to free (lake_string_free):
// taken into a JS string, and the call patterns that return it.
const native = require('./native');
const { check } = require('./errors');

const { koffi } = native;
const lib = () => native.lib();

// A string lake returned as char* (freed here with lake_string_free).
function takeString(pointer) {
  if (!pointer) return null;
  try {
    return koffi.decode(pointer, 'char', -1);
  } finally {
    lib().lake_string_free(pointer);
  }
}

// Calls `fn(...args, &text, &err)`; the text lake returns (null for none).
function stringCall(fn, ...args) {
  const out = [null];
  check(fn, ...args, out);
  return takeString(out[0]);
}

// Calls `fn(...args, &json, &err)`; the JSON text lake returns, parsed.
function jsonCall(fn, ...args) {
  const text = stringCall(fn, ...args);
  return text === null ? null : JSON.parse(text);
}

module.exports = { takeString, stringCall, jsonCall };
