// A read of one half-open interval [start, end) of a managed object.
//
// Invariants: the backend stream is asked for at most end - start bytes in
// total; the reader ends either with exactly that many bytes delivered or
// with PrematureEof carrying expected (end - start) and observed counts. It
// makes no claim about the object's SHA-256: a part cannot establish the
// identity of bytes it did not read.
#ifndef LAKE_ENGINE_RANGE_READER_H_
#define LAKE_ENGINE_RANGE_READER_H_

#include <memory>
#include <string>

#include "engine/byte_range.h"
#include "engine/object_reader.h"
#include "engine/object_stream.h"

namespace lake {

class RangeReader final : public ObjectReader {
 public:
  RangeReader(std::unique_ptr<ObjectStream> stream, ByteRange range,
              std::string uri);

  absl::StatusOr<size_t> Read(uint8_t* dst, size_t len) override;
  absl::StatusOr<absl::Span<const uint8_t>> ReadView(size_t max_len) override;
  bool verified() const override { return false; }
  absl::Status Close() override;

 private:
  template <typename Fetch>
  absl::StatusOr<absl::Span<const uint8_t>> Next(size_t len, Fetch&& fetch);

  std::unique_ptr<ObjectStream> stream_;
  ByteRange range_;
  std::string uri_;
  uint64_t delivered_ = 0;
  absl::Status failure_;
};

// The PrematureEof error of a range that yielded `observed` of `expected`.
absl::Status PrematureEofError(uint64_t expected, uint64_t observed,
                               ByteRange range, std::string_view uri);

}  // namespace lake

#endif  // LAKE_ENGINE_RANGE_READER_H_
