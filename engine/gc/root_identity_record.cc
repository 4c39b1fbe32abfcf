#include "engine/gc/root_identity_record.h"

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "engine/operation_id.h"
#include "engine/sha256.h"

namespace lake::gc {
namespace {

using Json = nlohmann::json;

std::string DigestOf(std::string_view root_id) {
  return Sha256Hex(absl::StrCat("lake_root_id=", std::string(root_id)));
}

}  // namespace

std::string EncodeRootIdentityRecord(std::string_view root_id) {
  return absl::StrCat("{\"lake_root_id\":\"", std::string(root_id), "\",\"sha256\":\"",
                      DigestOf(root_id), "\"}\n");
}

absl::StatusOr<std::string> DecodeRootIdentityRecord(std::string_view text,
                                                     std::string_view what) {
  auto corrupt = [&](std::string_view why) {
    return absl::DataLossError(
        absl::StrCat(std::string(what), " is unreadable: ", std::string(why)));
  };
  if (text.size() > kMaxRootIdentityRecordBytes) return corrupt("larger than 1 KiB");
  Json json = Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded() || !json.is_object()) return corrupt("not a JSON object");
  if (json.size() != 2 || !json.contains("lake_root_id") || !json.contains("sha256")) {
    return corrupt("it must hold exactly lake_root_id and sha256");
  }
  const Json& id = json["lake_root_id"];
  if (!id.is_string() || !ParseOperationId(id.get<std::string>()).ok()) {
    return corrupt("the root id is not a canonical UUIDv7");
  }
  const Json& digest = json["sha256"];
  if (!digest.is_string() || digest.get<std::string>() != DigestOf(id.get<std::string>())) {
    return corrupt("its digest does not match its root id");
  }
  return id.get<std::string>();
}

}  // namespace lake::gc
