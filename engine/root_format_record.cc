#include "engine/root_format_record.h"

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "engine/sha256.h"

namespace lake {
namespace {

using Json = nlohmann::json;

absl::Status Corrupt(std::string_view why) {
  return absl::DataLossError(
      absl::StrCat("the root's format record (format.json) is unreadable: ", std::string(why)));
}

std::string DigestOf(int64_t version) {
  return Sha256Hex(absl::StrCat("lake_root_format=", version));
}

}  // namespace

std::string EncodeRootFormatRecord(int64_t version) {
  return absl::StrCat("{\"lake_root_format\":", version, ",\"sha256\":\"", DigestOf(version),
                      "\"}\n");
}

absl::StatusOr<int64_t> DecodeRootFormatRecord(std::string_view text) {
  if (text.size() > kMaxRootFormatRecordBytes) return Corrupt("larger than 4 KiB");
  Json json = Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded() || !json.is_object()) return Corrupt("not a JSON object");
  if (json.size() != 2 || !json.contains("lake_root_format") || !json.contains("sha256")) {
    return Corrupt("it must hold exactly lake_root_format and sha256");
  }
  const Json& version = json["lake_root_format"];
  if (!version.is_number_integer() || version.get<int64_t>() < 1) {
    return Corrupt("the version is not a positive integer");
  }
  const Json& digest = json["sha256"];
  if (!digest.is_string() || digest.get<std::string>() != DigestOf(version.get<int64_t>())) {
    return Corrupt("its digest does not match its version");
  }
  return version.get<int64_t>();
}

absl::Status CheckRootFormatVersion(int64_t version) {
  if (version <= kRootFormatVersion) return absl::OkStatus();
  return absl::UnimplementedError(absl::StrCat(
      "this root is in lake root format version ", version, "; this lake reads versions up to ",
      kRootFormatVersion, ": open it with a newer lake"));
}

}  // namespace lake
