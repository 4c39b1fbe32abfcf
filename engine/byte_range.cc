#include "engine/byte_range.h"

#include "absl/strings/str_format.h"

namespace lake {

absl::Status ValidateRange(ByteRange range, uint64_t size_bytes) {
  if (range.end < range.start) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "range [%d, %d) is reversed", range.start, range.end));
  }
  if (range.end == range.start) {
    return absl::InvalidArgumentError(
        absl::StrFormat("range [%d, %d) is empty", range.start, range.end));
  }
  if (range.end > size_bytes) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "range [%d, %d) ends past the object's %d bytes", range.start,
        range.end, size_bytes));
  }
  return absl::OkStatus();
}

}  // namespace lake
