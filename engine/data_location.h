// DataLocation {uri, content_type, size_bytes, sha256}: the immutable
// identity of one complete managed object (DATALOCATION.md).
//
// Invariant: a DataLocation value that exists was validated — every
// constructor path goes through MakeDataLocation — so `uri` is canonical,
// `sha256` is 64 lowercase hex characters, `size_bytes` < 2^63 and
// `content_type` is 1..255 printable ASCII bytes.
#ifndef LAKE_ENGINE_DATA_LOCATION_H_
#define LAKE_ENGINE_DATA_LOCATION_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace lake {

inline constexpr std::string_view kDefaultContentType =
    "application/octet-stream";
inline constexpr size_t kMaxContentTypeBytes = 255;
inline constexpr uint64_t kMaxObjectSizeBytes = (uint64_t{1} << 63) - 1;

struct DataLocation {
  std::string uri;
  std::string content_type;
  uint64_t size_bytes = 0;
  std::string sha256;

  bool operator==(const DataLocation&) const = default;
};

// Non-empty printable ASCII (0x20..0x7E), at most 255 bytes.
absl::Status ValidateContentType(std::string_view content_type);

// Exactly 64 hexadecimal characters, either case; returns them lowercased.
absl::StatusOr<std::string> NormalizeSha256Hex(std::string_view sha256);

// OK when the four fields are a valid location already in normalised form
// (the sha256 lowercase), as MakeDataLocation would return it; the same
// errors otherwise, and a non-lowercase sha256 is refused. Allocates nothing
// for an all-literal URI: stored batches and journals are checked with it.
absl::Status CheckCanonicalLocation(std::string_view uri, std::string_view content_type,
                                    uint64_t size_bytes, std::string_view sha256);

// Validates every field (errors carry IntegrityKind::kInvalidLocation) and
// returns the normalised location.
absl::StatusOr<DataLocation> MakeDataLocation(std::string_view uri,
                                              std::string_view content_type,
                                              uint64_t size_bytes,
                                              std::string_view sha256);

}  // namespace lake

#endif  // LAKE_ENGINE_DATA_LOCATION_H_
