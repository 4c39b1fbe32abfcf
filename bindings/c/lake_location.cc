// lake_location: DataLocation handles and their canonical JSON.
#include <cstring>

#include "bindings/c/c_handles.h"
#include "engine/data_location_json.h"

namespace lake::c {

lake_location* NewLocation(DataLocation location) {
  auto* handle = new lake_location;
  handle->json = DataLocationToJson(location);
  handle->location = std::move(location);
  return handle;
}

}  // namespace lake::c

extern "C" {

lake_status lake_location_from_json(const char* json, size_t len,
                                    lake_location** out, lake_error** err) {
  return lake::c::Guarded(err, [&] {
    if (json == nullptr) return lake::c::NullArgument("json", err);
    if (out == nullptr) return lake::c::NullArgument("out", err);
    absl::StatusOr<lake::DataLocation> location =
        lake::DataLocationFromJson(std::string_view(json, len));
    if (!location.ok()) return lake::c::Report(location.status(), err);
    *out = lake::c::NewLocation(std::move(*location));
    return LAKE_OK;
  });
}

lake_status lake_location_new(const char* uri, const char* content_type,
                              uint64_t size_bytes, const char* sha256,
                              lake_location** out, lake_error** err) {
  return lake::c::Guarded(err, [&] {
    if (uri == nullptr) return lake::c::NullArgument("uri", err);
    if (content_type == nullptr) return lake::c::NullArgument("content_type", err);
    if (sha256 == nullptr) return lake::c::NullArgument("sha256", err);
    if (out == nullptr) return lake::c::NullArgument("out", err);
    absl::StatusOr<lake::DataLocation> location =
        lake::MakeDataLocation(uri, content_type, size_bytes, sha256);
    if (!location.ok()) return lake::c::Report(location.status(), err);
    *out = lake::c::NewLocation(std::move(*location));
    return LAKE_OK;
  });
}

const char* lake_location_json(const lake_location* loc) {
  return loc == nullptr ? "" : loc->json.c_str();
}
const char* lake_location_uri(const lake_location* loc) {
  return loc == nullptr ? "" : loc->location.uri.c_str();
}
const char* lake_location_content_type(const lake_location* loc) {
  return loc == nullptr ? "" : loc->location.content_type.c_str();
}
uint64_t lake_location_size_bytes(const lake_location* loc) {
  return loc == nullptr ? 0 : loc->location.size_bytes;
}
const char* lake_location_sha256(const lake_location* loc) {
  return loc == nullptr ? "" : loc->location.sha256.c_str();
}
void lake_location_free(lake_location* loc) { delete loc; }

}  // extern "C"
