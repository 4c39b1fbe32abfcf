#include "engine/range_reader.h"

#include <algorithm>

#include "absl/strings/str_format.h"
#include "engine/integrity_error.h"

namespace lake {

absl::Status PrematureEofError(uint64_t expected, uint64_t observed,
                               ByteRange range, std::string_view uri) {
  return IntegrityError(
      IntegrityKind::kPrematureEof, expected, observed,
      absl::StrFormat("range [%d, %d) ended after %d of %d bytes: %s",
                      range.start, range.end, observed, expected,
                      std::string(uri)));
}

RangeReader::RangeReader(std::unique_ptr<ObjectStream> stream,
                         ByteRange range, std::string uri)
    : stream_(std::move(stream)), range_(range), uri_(std::move(uri)) {}

absl::StatusOr<size_t> RangeReader::Read(uint8_t* dst, size_t len) {
  absl::StatusOr<absl::Span<const uint8_t>> got =
      Next(len, [&](size_t want) -> absl::StatusOr<absl::Span<const uint8_t>> {
        absl::StatusOr<size_t> n = stream_->Read(dst, want);
        if (!n.ok()) return n.status();
        return absl::Span<const uint8_t>(dst, *n);
      });
  if (!got.ok()) return got.status();
  return got->size();
}

absl::StatusOr<absl::Span<const uint8_t>> RangeReader::ReadView(size_t max_len) {
  return Next(max_len, [&](size_t want) { return stream_->ReadView(want); });
}

template <typename Fetch>
absl::StatusOr<absl::Span<const uint8_t>> RangeReader::Next(size_t len,
                                                           Fetch&& fetch) {
  if (len == 0) {
    return absl::InvalidArgumentError("read buffer capacity must be positive");
  }
  if (!failure_.ok()) return failure_;
  uint64_t remaining = range_.length() - delivered_;
  if (remaining == 0) return absl::Span<const uint8_t>();
  if (stream_ == nullptr) {
    return absl::FailedPreconditionError("reader is closed");
  }
  size_t want = static_cast<size_t>(std::min<uint64_t>(len, remaining));
  absl::StatusOr<absl::Span<const uint8_t>> got = fetch(want);
  if (!got.ok()) {
    failure_ = got.status();
    return failure_;
  }
  if (got->empty()) {
    failure_ = PrematureEofError(range_.length(), delivered_, range_, uri_);
    return failure_;
  }
  delivered_ += got->size();
  return got;
}

absl::Status RangeReader::Close() {
  if (stream_ == nullptr) return absl::OkStatus();
  absl::Status status = stream_->Close();
  stream_.reset();
  return status;
}

}  // namespace lake
