// What a caller reads an object through: a VerifiedReader (the whole
// object, checked at EOF) or a RangeReader (one capped interval).
#ifndef LAKE_ENGINE_OBJECT_READER_H_
#define LAKE_ENGINE_OBJECT_READER_H_

#include <cstddef>
#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace lake {

class ObjectReader {
 public:
  virtual ~ObjectReader() = default;
  // Up to `len` bytes; 0 at a successful end. A failure is sticky: every
  // later call returns it again.
  virtual absl::StatusOr<size_t> Read(uint8_t* dst, size_t len) = 0;
  // The same, without copying: up to `max_len` bytes in the reader's own
  // memory, valid until the next call; empty at a successful end.
  virtual absl::StatusOr<absl::Span<const uint8_t>> ReadView(size_t max_len) = 0;
  // True only for a full reader that reached its verified end.
  virtual bool verified() const = 0;
  // Releases the storage stream; closing early claims nothing.
  virtual absl::Status Close() = 0;
};

}  // namespace lake

#endif  // LAKE_ENGINE_OBJECT_READER_H_
