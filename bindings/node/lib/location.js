'use strict';
// DataLocation: the immutable identity of one managed object.
const native = require('./native');
const { Handle } = require('./handle');
const { check } = require('./errors');

const lib = () => native.lib();

class Location extends Handle {
  // Wraps an owned lake_location*.
  constructor(ptr, parent = null) {
    super();
    this.initHandle(ptr, (p) => lib().lake_location_free(p), parent, 'location');
  }

  static fromJson(text) {
    const bytes = Buffer.from(text, 'utf8');
    const out = [null];
    check(lib().lake_location_from_json, bytes, bytes.length, out);
    return new Location(out[0]);
  }

  static create(uri, contentType, sizeBytes, sha256) {
    const out = [null];
    check(lib().lake_location_new, uri, contentType, sizeBytes, sha256, out);
    return new Location(out[0]);
  }

  get json() { return lib().lake_location_json(this.ptr()); }
  get uri() { return lib().lake_location_uri(this.ptr()); }
  get contentType() { return lib().lake_location_content_type(this.ptr()); }
  get sizeBytes() { return Number(lib().lake_location_size_bytes(this.ptr())); }
  get sha256() { return lib().lake_location_sha256(this.ptr()); }
  toJSON() { return JSON.parse(this.json); }
}

module.exports = { Location };
