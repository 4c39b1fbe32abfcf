#include "engine/data_location_json.h"

#include <array>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "engine/integrity_error.h"

namespace lake {
namespace {

using Json = nlohmann::json;

constexpr std::array<std::string_view, 4> kKeys = {"uri", "content_type",
                                                   "size_bytes", "sha256"};

std::string JsonString(std::string_view text) {
  return Json(std::string(text)).dump(-1, ' ', false,
                                      Json::error_handler_t::strict);
}

}  // namespace

std::string DataLocationToJson(const DataLocation& location) {
  return absl::StrCat("{\"uri\":", JsonString(location.uri),
                      ",\"content_type\":", JsonString(location.content_type),
                      ",\"size_bytes\":", location.size_bytes,
                      ",\"sha256\":", JsonString(location.sha256), "}");
}

absl::StatusOr<DataLocation> DataLocationFromJson(std::string_view text) {
  if (text.size() > kMaxLocationJsonBytes) {
    return InvalidLocationError(
        absl::StrCat("location JSON is longer than ", kMaxLocationJsonBytes,
                     " bytes"));
  }
  // nlohmann keeps the last of duplicate keys silently; the callback sees
  // every key of the top-level object and remembers a duplicate.
  std::array<int, kKeys.size()> seen{};
  std::string problem;
  auto callback = [&](int depth, Json::parse_event_t event, Json& parsed) {
    if (event == Json::parse_event_t::key && depth == 1) {
      const std::string& key = parsed.get_ref<const std::string&>();
      bool known = false;
      for (size_t i = 0; i < kKeys.size(); ++i) {
        if (key == kKeys[i]) {
          known = true;
          if (++seen[i] > 1 && problem.empty()) {
            problem = absl::StrCat("duplicate key \"", key, "\"");
          }
        }
      }
      if (!known && problem.empty()) {
        problem = absl::StrCat("unknown key \"", key, "\"");
      }
    }
    return true;
  };
  Json json = Json::parse(text.begin(), text.end(), callback,
                          /*allow_exceptions=*/false);
  if (json.is_discarded()) {
    return InvalidLocationError("location is not valid JSON");
  }
  if (!json.is_object()) {
    return InvalidLocationError("location JSON must be an object");
  }
  if (!problem.empty()) {
    return InvalidLocationError(absl::StrCat("location JSON: ", problem));
  }
  for (size_t i = 0; i < kKeys.size(); ++i) {
    if (seen[i] == 0) {
      return InvalidLocationError(
          absl::StrCat("location JSON lacks \"", std::string(kKeys[i]), "\""));
    }
  }
  const Json& uri = json["uri"];
  const Json& content_type = json["content_type"];
  const Json& size = json["size_bytes"];
  const Json& sha256 = json["sha256"];
  if (!uri.is_string() || !content_type.is_string() || !sha256.is_string()) {
    return InvalidLocationError(
        "uri, content_type and sha256 must be JSON strings");
  }
  // Integers only: nlohmann types 1.0 and 1e3 as floats; 2^64 and above
  // also become floats.
  uint64_t size_bytes = 0;
  if (size.is_number_unsigned()) {
    size_bytes = size.get<uint64_t>();
  } else if (size.is_number_integer() && size.get<int64_t>() == 0) {
    size_bytes = 0;  // "-0"
  } else {
    return InvalidLocationError(
        "size_bytes must be a non-negative JSON integer");
  }
  return MakeDataLocation(uri.get_ref<const std::string&>(),
                          content_type.get_ref<const std::string&>(),
                          size_bytes, sha256.get_ref<const std::string&>());
}

}  // namespace lake
