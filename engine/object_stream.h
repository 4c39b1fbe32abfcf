// A backend's raw, unverified byte stream of one object from some offset.
// The engine wraps it in a VerifiedReader or a RangeReader; nothing above
// the engine ever sees an ObjectStream directly.
#ifndef LAKE_ENGINE_OBJECT_STREAM_H_
#define LAKE_ENGINE_OBJECT_STREAM_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace lake {

class ObjectStream {
 public:
  virtual ~ObjectStream() = default;
  // Up to `len` bytes; 0 at the end of what storage holds.
  virtual absl::StatusOr<size_t> Read(uint8_t* dst, size_t len) = 0;

  // Up to `max_len` bytes without a copy to the caller: a view of the
  // stream's own memory, valid until the next call on the stream; empty at
  // the end. The default reads into a buffer the stream keeps (at most
  // kViewBufferBytes); streams with buffers of their own override it.
  virtual absl::StatusOr<absl::Span<const uint8_t>> ReadView(size_t max_len);

  virtual absl::Status Close() = 0;

  static constexpr size_t kViewBufferBytes = 256 << 10;

 private:
  std::vector<uint8_t> view_buffer_;
};

}  // namespace lake

#endif  // LAKE_ENGINE_OBJECT_STREAM_H_
