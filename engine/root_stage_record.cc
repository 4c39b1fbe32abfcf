#include "engine/root_stage_record.h"

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "engine/sha256.h"

namespace lake {
namespace {

using Json = nlohmann::json;

absl::Status Corrupt(std::string_view why) {
  return absl::DataLossError(absl::StrCat("the root's stage record is unreadable: ", std::string(why)));
}

}  // namespace

std::string EncodeRootStageRecord(const StageDescriptor& descriptor) {
  std::string canonical = StageDescriptorToJson(descriptor);
  return absl::StrCat("{\"version\":", kRootStageRecordVersion, ",\"descriptor\":", canonical,
                      ",\"sha256\":\"", Sha256Hex(canonical), "\"}\n");
}

absl::StatusOr<StageDescriptor> DecodeRootStageRecord(std::string_view text) {
  if (text.size() > kMaxRootStageRecordBytes) return Corrupt("larger than 32 KiB");
  Json json = Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded() || !json.is_object()) return Corrupt("not a JSON object");
  if (json.size() != 3 || !json.contains("version") || !json.contains("descriptor") ||
      !json.contains("sha256")) {
    return Corrupt("it must hold exactly version, descriptor and sha256");
  }
  if (!json["version"].is_number_integer() ||
      json["version"].get<int64_t>() != kRootStageRecordVersion) {
    return Corrupt(absl::StrCat("unknown version (this lake reads version ",
                                kRootStageRecordVersion, ")"));
  }
  if (!json["descriptor"].is_object() || !json["sha256"].is_string()) {
    return Corrupt("malformed descriptor or digest");
  }
  absl::StatusOr<StageDescriptor> descriptor =
      StageDescriptorFromJson(json["descriptor"].dump());
  if (!descriptor.ok()) return Corrupt(std::string(descriptor.status().message()));
  // The digest covers the canonical text, so any change to a field shows.
  if (Sha256Hex(StageDescriptorToJson(*descriptor)) != json["sha256"].get<std::string>()) {
    return Corrupt("its digest does not match its descriptor");
  }
  return descriptor;
}

}  // namespace lake
