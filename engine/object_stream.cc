#include "engine/object_stream.h"

#include <algorithm>

namespace lake {

absl::StatusOr<absl::Span<const uint8_t>> ObjectStream::ReadView(size_t max_len) {
  size_t want = std::min(max_len, kViewBufferBytes);
  if (view_buffer_.size() < want) view_buffer_.resize(want);
  absl::StatusOr<size_t> n = Read(view_buffer_.data(), want);
  if (!n.ok()) return n.status();
  return absl::Span<const uint8_t>(view_buffer_.data(), *n);
}

}  // namespace lake
