// ObjectIntegrityError: the typed payload of an integrity failure.
//
// Integrity failures travel as absl::Status values (DataLoss, or
// InvalidArgument for an invalid location) carrying this payload, so every
// layer can pass them through unchanged and the C ABI can expose the kind
// with its expected and observed counts.
#ifndef LAKE_ENGINE_INTEGRITY_ERROR_H_
#define LAKE_ENGINE_INTEGRITY_ERROR_H_

#include <cstdint>
#include <optional>
#include <string_view>

#include "absl/status/status.h"

namespace lake {

enum class IntegrityKind {
  kSizeShort,        // the object ended before size_bytes
  kSizeLong,         // the object continues past size_bytes
  kDigestMismatch,   // size right, SHA-256 wrong
  kPrematureEof,     // a range ended before end - start bytes
  kInvalidLocation,  // the DataLocation itself is malformed or not contained
  kObjectChanged,    // the stored object changed while it was read (its
                     // ETag is no longer the one the read is pinned to)
};

struct IntegrityDetail {
  IntegrityKind kind;
  uint64_t expected = 0;
  uint64_t observed = 0;
};

std::string_view IntegrityKindName(IntegrityKind kind);

// A DataLoss status (InvalidArgument for kInvalidLocation) with the payload.
absl::Status IntegrityError(IntegrityKind kind, uint64_t expected,
                            uint64_t observed, std::string_view message);
absl::Status InvalidLocationError(std::string_view message);

// The payload, if `status` carries one.
std::optional<IntegrityDetail> GetIntegrityDetail(const absl::Status& status);

}  // namespace lake

#endif  // LAKE_ENGINE_INTEGRITY_ERROR_H_
