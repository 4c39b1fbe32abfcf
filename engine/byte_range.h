// Half-open byte ranges [start, end) of an object.
#ifndef LAKE_ENGINE_BYTE_RANGE_H_
#define LAKE_ENGINE_BYTE_RANGE_H_

#include <cstdint>

#include "absl/status/status.h"

namespace lake {

struct ByteRange {
  uint64_t start = 0;
  uint64_t end = 0;  // exclusive
  uint64_t length() const { return end - start; }
};

// Refuses (InvalidArgument) an empty or reversed range, and one that ends
// past `size_bytes`: checked against the DataLocation before any I/O.
absl::Status ValidateRange(ByteRange range, uint64_t size_bytes);

}  // namespace lake

#endif  // LAKE_ENGINE_BYTE_RANGE_H_
