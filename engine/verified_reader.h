// The verified full read of a managed object (managed-objects.md, "Full
// opens are integrity-verified").
//
// Invariants:
//  - the backend stream is capped at size_bytes: no read asks it for more;
//  - only bytes delivered to the caller are hashed, each exactly once;
//  - after size_bytes have been delivered, one byte beyond the cap is probed
//    into private memory; EOF (a 0-byte read) is reported only when that
//    probe finds nothing and the SHA-256 matches;
//  - a short stream is SizeShort, a longer one SizeLong, a wrong digest
//    DigestMismatch, each with expected and observed counts;
//  - memory is constant: the reader holds no buffer of its own.
#ifndef LAKE_ENGINE_VERIFIED_READER_H_
#define LAKE_ENGINE_VERIFIED_READER_H_

#include <memory>

#include "engine/data_location.h"
#include "engine/object_reader.h"
#include "engine/object_stream.h"
#include "engine/sha256.h"

namespace lake {

class VerifiedReader final : public ObjectReader {
 public:
  VerifiedReader(std::unique_ptr<ObjectStream> stream, DataLocation location);

  absl::StatusOr<size_t> Read(uint8_t* dst, size_t len) override;
  absl::StatusOr<absl::Span<const uint8_t>> ReadView(size_t max_len) override;
  bool verified() const override { return verified_; }
  absl::Status Close() override;

 private:
  // The one read path: `fetch(want)` takes at most `want` bytes from the
  // stream (into the caller's buffer or as a view); Next caps, hashes and
  // checks them.
  template <typename Fetch>
  absl::StatusOr<absl::Span<const uint8_t>> Next(size_t len, Fetch&& fetch);
  absl::Status VerifyEnd();

  std::unique_ptr<ObjectStream> stream_;
  DataLocation location_;
  Sha256 hash_;
  uint64_t delivered_ = 0;
  bool verified_ = false;
  absl::Status failure_;  // sticky once set
};

}  // namespace lake

#endif  // LAKE_ENGINE_VERIFIED_READER_H_
