'use strict';
const { Handle } = require('./handle');

// The native half of a Reader or Writer stream: a Handle, a child of its
// stage (or event log). Closed by a parent, it destroys its stream, which
// fails from then on (unless the stream itself is closing it).
class StreamHandle extends Handle {
  constructor(ptr, free, parent, kind, stream) {
    super();
    this.initHandle(ptr, free, parent, kind);
    this.stream = stream;
  }

  released() {
    if (!this.stream._closing && !this.stream.destroyed) this.stream.destroy();
  }
}

module.exports = { StreamHandle };
