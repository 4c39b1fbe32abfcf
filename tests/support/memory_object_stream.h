// An ObjectStream over bytes in memory that records how it was read, for
// testing the readers' policies without storage.
#ifndef LAKE_TESTS_SUPPORT_MEMORY_OBJECT_STREAM_H_
#define LAKE_TESTS_SUPPORT_MEMORY_OBJECT_STREAM_H_

#include <algorithm>
#include <cstring>
#include <vector>

#include "engine/object_stream.h"

namespace lake::testing {

struct StreamLog {
  uint64_t bytes_requested = 0;  // sum of the lengths asked for
  uint64_t largest_request = 0;
  bool closed = false;
};

class MemoryObjectStream final : public ObjectStream {
 public:
  // Serves bytes[start..]; at most `max_chunk` per read (short reads).
  MemoryObjectStream(std::vector<uint8_t> bytes, StreamLog* log,
                     uint64_t start = 0, size_t max_chunk = 4096)
      : bytes_(std::move(bytes)), log_(log), offset_(start), max_chunk_(max_chunk) {}

  absl::StatusOr<size_t> Read(uint8_t* dst, size_t len) override {
    log_->bytes_requested += len;
    log_->largest_request = std::max<uint64_t>(log_->largest_request, len);
    if (offset_ >= bytes_.size()) return 0;
    size_t n = std::min({len, max_chunk_, static_cast<size_t>(bytes_.size() - offset_)});
    std::memcpy(dst, bytes_.data() + offset_, n);
    offset_ += n;
    return n;
  }
  absl::Status Close() override {
    log_->closed = true;
    return absl::OkStatus();
  }

 private:
  std::vector<uint8_t> bytes_;
  StreamLog* log_;
  uint64_t offset_;
  size_t max_chunk_;
};

}  // namespace lake::testing

#endif  // LAKE_TESTS_SUPPORT_MEMORY_OBJECT_STREAM_H_
