#include "engine/gc/digested_json.h"

#include "absl/strings/str_cat.h"
#include "engine/sha256.h"
#include "engine/table/byte_codec.h"

namespace lake::gc {

using Json = nlohmann::json;

std::string SealJson(const Json& object) {
  Json sealed = object;
  sealed["sha256"] = Sha256Hex(object.dump());
  return sealed.dump() + "\n";
}

absl::StatusOr<Json> OpenSealedJson(std::string_view text, std::string_view what,
                                    size_t max_bytes) {
  auto damaged = [&](std::string_view why) {
    return absl::DataLossError(
        absl::StrCat(std::string(what), " is damaged: ", std::string(why)));
  };
  if (text.size() > max_bytes) return damaged(absl::StrCat("larger than ", max_bytes, " bytes"));
  Json json = Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded() || !json.is_object()) return damaged("not a JSON object");
  auto digest = json.find("sha256");
  if (digest == json.end() || !digest->is_string()) return damaged("it has no sha256");
  std::string stored = digest->get<std::string>();
  json.erase("sha256");
  if (table::kChecksumsEnforced && stored != Sha256Hex(json.dump())) {
    return damaged("its sha256 does not match its content");
  }
  return json;
}

absl::Status DigestedJsonFields::Error(std::string_view why) const {
  return absl::DataLossError(absl::StrCat(what_, " is damaged: ", std::string(why)));
}

absl::StatusOr<const Json*> DigestedJsonFields::Field(std::string_view key) {
  auto it = object_.find(std::string(key));
  if (it == object_.end()) return Error(absl::StrCat("it has no ", std::string(key)));
  read_.insert(std::string(key));
  return &*it;
}

absl::StatusOr<std::string> DigestedJsonFields::String(std::string_view key, size_t max_bytes) {
  absl::StatusOr<const Json*> field = Field(key);
  if (!field.ok()) return field.status();
  if (!(*field)->is_string() || (*field)->get_ref<const std::string&>().size() > max_bytes) {
    return Error(absl::StrCat(std::string(key), " is not a string of at most ", max_bytes,
                              " bytes"));
  }
  return (*field)->get<std::string>();
}

absl::StatusOr<uint64_t> DigestedJsonFields::Unsigned(std::string_view key) {
  absl::StatusOr<const Json*> field = Field(key);
  if (!field.ok()) return field.status();
  if ((*field)->is_number_unsigned()) return (*field)->get<uint64_t>();
  return Error(absl::StrCat(std::string(key), " is not a non-negative integer"));
}

absl::StatusOr<int64_t> DigestedJsonFields::Signed(std::string_view key) {
  absl::StatusOr<const Json*> field = Field(key);
  if (!field.ok()) return field.status();
  if ((*field)->is_number_unsigned() &&
      (*field)->get<uint64_t>() <= static_cast<uint64_t>(INT64_MAX)) {
    return static_cast<int64_t>((*field)->get<uint64_t>());
  }
  if ((*field)->is_number_integer() && !(*field)->is_number_unsigned()) {
    return (*field)->get<int64_t>();
  }
  return Error(absl::StrCat(std::string(key), " is not a 64-bit integer"));
}

absl::StatusOr<const Json*> DigestedJsonFields::Array(std::string_view key) {
  absl::StatusOr<const Json*> field = Field(key);
  if (!field.ok()) return field.status();
  if (!(*field)->is_array()) return Error(absl::StrCat(std::string(key), " is not an array"));
  return *field;
}

absl::Status DigestedJsonFields::Finish() const {
  for (auto it = object_.begin(); it != object_.end(); ++it) {
    if (read_.count(it.key()) == 0) return Error(absl::StrCat("unknown field ", it.key()));
  }
  return absl::OkStatus();
}

}  // namespace lake::gc
