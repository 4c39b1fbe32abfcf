#include "engine/data_location.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "base/hex.h"
#include "engine/integrity_error.h"
#include "engine/location_uri.h"

namespace lake {

absl::Status ValidateContentType(std::string_view content_type) {
  if (content_type.empty() || content_type.size() > kMaxContentTypeBytes) {
    return InvalidLocationError(absl::StrCat(
        "content_type must be 1..", kMaxContentTypeBytes, " bytes, not ",
        content_type.size()));
  }
  for (char c : content_type) {
    if (c < 0x20 || c > 0x7E) {
      return InvalidLocationError(
          "content_type must be printable ASCII without control characters");
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> NormalizeSha256Hex(std::string_view sha256) {
  if (sha256.size() != 64) {
    return InvalidLocationError(absl::StrCat(
        "sha256 must be exactly 64 hexadecimal characters, not ",
        sha256.size()));
  }
  std::string lower(sha256);
  for (char& c : lower) {
    if (!absl::ascii_isxdigit(static_cast<unsigned char>(c))) {
      return InvalidLocationError(
          "sha256 must contain only hexadecimal characters");
    }
    c = absl::ascii_tolower(static_cast<unsigned char>(c));
  }
  return lower;
}

absl::Status CheckCanonicalLocation(std::string_view uri, std::string_view content_type,
                                    uint64_t size_bytes, std::string_view sha256) {
  if (!IsLowerHexSha256(sha256)) {
    if (absl::StatusOr<std::string> digest = NormalizeSha256Hex(sha256); !digest.ok()) {
      return digest.status();
    }
    return InvalidLocationError("sha256 must be lowercase hexadecimal (the canonical form)");
  }
  if (absl::Status s = ValidateContentType(content_type); !s.ok()) return s;
  if (size_bytes > kMaxObjectSizeBytes) {
    return InvalidLocationError("size_bytes must be below 2^63");
  }
  return CheckLocationUri(uri);
}

absl::StatusOr<DataLocation> MakeDataLocation(std::string_view uri,
                                              std::string_view content_type,
                                              uint64_t size_bytes,
                                              std::string_view sha256) {
  absl::StatusOr<std::string> digest = NormalizeSha256Hex(sha256);
  if (!digest.ok()) return digest.status();
  if (absl::Status s = CheckCanonicalLocation(uri, content_type, size_bytes, *digest); !s.ok()) {
    return s;
  }
  return DataLocation{std::string(uri), std::string(content_type), size_bytes,
                      std::move(*digest)};
}

}  // namespace lake
