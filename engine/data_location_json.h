// The canonical JSON text form of a DataLocation (DATALOCATION.md):
//
//   {"uri":"file:///…","content_type":"video/mp4","size_bytes":3145728,"sha256":"9f86…"}
//
// Output: exactly these four keys in this order, no whitespace, UTF-8.
// Input: any key order and JSON whitespace; a missing, duplicate or unknown
// key, a non-integer or negative size, or any invalid field is refused with
// IntegrityKind::kInvalidLocation. Inputs over 64 KiB are refused unread.
#ifndef LAKE_ENGINE_DATA_LOCATION_JSON_H_
#define LAKE_ENGINE_DATA_LOCATION_JSON_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "engine/data_location.h"

namespace lake {

inline constexpr size_t kMaxLocationJsonBytes = 64 * 1024;

std::string DataLocationToJson(const DataLocation& location);
absl::StatusOr<DataLocation> DataLocationFromJson(std::string_view text);

}  // namespace lake

#endif  // LAKE_ENGINE_DATA_LOCATION_JSON_H_
