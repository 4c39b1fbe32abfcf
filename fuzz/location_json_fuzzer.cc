// Fuzzes lake::DataLocationFromJson, the reader of the DataLocation text
// form that CLI users, checkpoints and hosts hand back (DATALOCATION.md).
//
// Properties checked (a violation traps):
//   1. Any input: no crash, leak, ASan or UBSan finding, no exception.
//   2. Accepted input: the fields obey the DataLocation invariant — sha256 is
//      exactly 64 lowercase hex characters, size_bytes < 2^63, content_type
//      is 1..255 printable ASCII bytes, and the uri parses as a location URI.
//   3. Accepted input: the canonical form round-trips — parsing
//      DataLocationToJson(parsed) succeeds and gives a DataLocation equal to
//      `parsed`, and serialising that again gives byte-identical text (the
//      canonical form is a fixed point).
//   4. Accepted input: the canonical text has the documented shape — the
//      four keys in order, no whitespace outside strings.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "engine/data_location.h"
#include "engine/data_location_json.h"
#include "engine/location_uri.h"
#include "fuzz/property_check.h"

namespace {

using lake::fuzz::Check;

bool IsLowerHex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

bool IsCanonicalSha256(std::string_view sha256) {
  if (sha256.size() != 64) return false;
  for (char c : sha256) {
    if (!IsLowerHex(c)) return false;
  }
  return true;
}

bool IsValidContentType(std::string_view content_type) {
  if (content_type.empty() || content_type.size() > 255) return false;
  for (char c : content_type) {
    if (c < 0x20 || c > 0x7E) return false;
  }
  return true;
}

void CheckInvariant(const lake::DataLocation& location) {
  Check(IsCanonicalSha256(location.sha256));
  Check(location.size_bytes < (uint64_t{1} << 63));
  Check(IsValidContentType(location.content_type));
  Check(lake::ParseLocationUri(location.uri).ok());
}

// The canonical text starts with {"uri":" and ends with "}; between the
// fields the keys follow in the documented order. Valid fields hold no
// quote or backslash that could fake a key (uri and sha256 are ASCII without
// quotes; content_type may hold quotes, which JSON escapes as \").
void CheckCanonicalShape(std::string_view json,
                         const lake::DataLocation& location) {
  std::string expected_tail = "\",\"size_bytes\":" +
                              std::to_string(location.size_bytes) +
                              ",\"sha256\":\"" + location.sha256 + "\"}";
  std::string expected_head = "{\"uri\":\"" + location.uri +
                              "\",\"content_type\":\"";
  Check(json.size() > expected_head.size() + expected_tail.size());
  Check(json.substr(0, expected_head.size()) == expected_head);
  Check(json.substr(json.size() - expected_tail.size()) == expected_tail);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<lake::DataLocation> parsed = lake::DataLocationFromJson(text);
  if (!parsed.ok()) return 0;

  CheckInvariant(*parsed);

  std::string canonical = lake::DataLocationToJson(*parsed);
  CheckCanonicalShape(canonical, *parsed);

  absl::StatusOr<lake::DataLocation> reparsed =
      lake::DataLocationFromJson(canonical);
  Check(reparsed.ok());
  Check(*reparsed == *parsed);
  Check(lake::DataLocationToJson(*reparsed) == canonical);
  return 0;
}
