'use strict';
// A host store written in JS (lake_host_store): not written yet.
class HostStore {
  constructor() {
    throw new Error('lake host stores are not supported by the Node binding yet');
  }
}
module.exports = { HostStore };
