// A backend's raw, unverified byte stream of one object from some offset.
// The engine wraps it in a VerifiedReader or a RangeReader; nothing above
// the engine ever sees an ObjectStream directly.
#ifndef LAKE_ENGINE_OBJECT_STREAM_H_
#define LAKE_ENGINE_OBJECT_STREAM_H_

#include <cstddef>
#include <cstdint>

#include "absl/status/statusor.h"

namespace lake {

class ObjectStream {
 public:
  virtual ~ObjectStream() = default;
  // Up to `len` bytes; 0 at the end of what storage holds.
  virtual absl::StatusOr<size_t> Read(uint8_t* dst, size_t len) = 0;
  virtual absl::Status Close() = 0;
};

}  // namespace lake

#endif  // LAKE_ENGINE_OBJECT_STREAM_H_
