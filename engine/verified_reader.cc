#include "engine/verified_reader.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "engine/integrity_error.h"

namespace lake {

VerifiedReader::VerifiedReader(std::unique_ptr<ObjectStream> stream,
                               DataLocation location)
    : stream_(std::move(stream)), location_(std::move(location)) {}

absl::StatusOr<size_t> VerifiedReader::Read(uint8_t* dst, size_t len) {
  absl::StatusOr<absl::Span<const uint8_t>> got =
      Next(len, [&](size_t want) -> absl::StatusOr<absl::Span<const uint8_t>> {
        absl::StatusOr<size_t> n = stream_->Read(dst, want);
        if (!n.ok()) return n.status();
        return absl::Span<const uint8_t>(dst, *n);
      });
  if (!got.ok()) return got.status();
  return got->size();
}

absl::StatusOr<absl::Span<const uint8_t>> VerifiedReader::ReadView(
    size_t max_len) {
  return Next(max_len, [&](size_t want) { return stream_->ReadView(want); });
}

template <typename Fetch>
absl::StatusOr<absl::Span<const uint8_t>> VerifiedReader::Next(size_t len,
                                                              Fetch&& fetch) {
  if (len == 0) {
    return absl::InvalidArgumentError("read buffer capacity must be positive");
  }
  if (!failure_.ok()) return failure_;
  if (verified_) return absl::Span<const uint8_t>();
  if (stream_ == nullptr) {
    return absl::FailedPreconditionError("reader is closed");
  }
  uint64_t remaining = location_.size_bytes - delivered_;
  if (remaining == 0) {
    failure_ = VerifyEnd();
    if (!failure_.ok()) return failure_;
    verified_ = true;
    return absl::Span<const uint8_t>();
  }
  size_t want = static_cast<size_t>(std::min<uint64_t>(len, remaining));
  absl::StatusOr<absl::Span<const uint8_t>> got = fetch(want);
  if (!got.ok()) {
    failure_ = got.status();
    return failure_;
  }
  if (got->empty()) {
    failure_ = IntegrityError(
        IntegrityKind::kSizeShort, location_.size_bytes, delivered_,
        absl::StrCat("object ended after ", delivered_, " of ",
                     location_.size_bytes, " bytes: ", location_.uri));
    return failure_;
  }
  hash_.Update(got->data(), got->size());
  delivered_ += got->size();
  return got;
}

absl::Status VerifiedReader::VerifyEnd() {
  uint8_t probe;
  absl::StatusOr<size_t> extra = stream_->Read(&probe, 1);
  if (!extra.ok()) return extra.status();
  if (*extra != 0) {
    return IntegrityError(
        IntegrityKind::kSizeLong, location_.size_bytes,
        location_.size_bytes + 1,
        absl::StrCat("object continues past its declared ",
                     location_.size_bytes, " bytes: ", location_.uri));
  }
  std::string digest = hash_.FinishHex();
  if (digest != location_.sha256) {
    return IntegrityError(
        IntegrityKind::kDigestMismatch, location_.size_bytes, delivered_,
        absl::StrCat("SHA-256 mismatch: expected ", location_.sha256,
                     ", read ", digest, ": ", location_.uri));
  }
  return absl::OkStatus();
}

absl::Status VerifiedReader::Close() {
  if (stream_ == nullptr) return absl::OkStatus();
  absl::Status status = stream_->Close();
  stream_.reset();
  return status;
}

}  // namespace lake
