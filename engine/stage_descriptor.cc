#include "engine/stage_descriptor.h"

#include <nlohmann/json.hpp>

#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "base/utf8.h"
#include "engine/location_uri.h"
#include "io/s3http/s3_endpoint.h"

namespace lake {
namespace {

using Json = nlohmann::json;

constexpr size_t kMaxDescriptorBytes = 16 * 1024;

std::string JsonString(const std::string& text) {
  return Json(text).dump(-1, ' ', false, Json::error_handler_t::strict);
}

absl::Status Refuse(std::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat("stage descriptor: ", std::string(why)));
}

}  // namespace

absl::Status ValidateHostId(std::string_view host_id) {
  if (host_id.empty() || host_id.size() > kMaxHostIdBytes) {
    return Refuse(absl::StrCat("a host id is 1..", kMaxHostIdBytes, " bytes"));
  }
  if (!IsValidUtf8(host_id)) return Refuse("a host id is UTF-8");
  for (unsigned char c : host_id) {
    if (c < 0x20 || c == 0x7f) return Refuse("a host id holds no control character");
  }
  return absl::OkStatus();
}

absl::StatusOr<StageDescriptor> ValidateStageDescriptor(StageDescriptor d) {
  bool has_s3_fields =
      !d.bucket.empty() || !d.prefix.empty() || !d.region.empty() || !d.endpoint.empty() ||
      d.path_style;
  if (d.kind == StageDescriptor::Kind::kLocal) {
    if (has_s3_fields || !d.host_id.empty()) {
      return Refuse("a local stage has no bucket, prefix, region, endpoint, path style or host id");
    }
    return d;
  }
  if (d.kind == StageDescriptor::Kind::kHost) {
    if (has_s3_fields) {
      return Refuse("a host stage has no bucket, prefix, region, endpoint or path style");
    }
    if (absl::Status s = ValidateHostId(d.host_id); !s.ok()) return s;
    return d;
  }
  if (!d.host_id.empty()) return Refuse("an S3 stage has no host id");
  if (!IsValidBucketName(d.bucket)) return Refuse("invalid bucket name \"" + d.bucket + "\"");
  while (!d.prefix.empty() && d.prefix.front() == '/') d.prefix.erase(0, 1);
  while (!d.prefix.empty() && d.prefix.back() == '/') d.prefix.pop_back();
  if (!d.prefix.empty() && !ValidatePathSegments(d.prefix).ok()) {
    return Refuse("the prefix has an empty, \".\" or \"..\" segment, a NUL or invalid UTF-8");
  }
  if (d.region.empty() || d.region.size() > 64) return Refuse("the region must be 1..64 characters");
  for (char c : d.region) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') {
      return Refuse("the region may hold only letters, digits, '-', '_' and '.'");
    }
  }
  absl::StatusOr<s3http::S3Endpoint> endpoint = s3http::ParseS3Endpoint(d.endpoint, d.path_style);
  if (!endpoint.ok()) return Refuse(std::string(endpoint.status().message()));
  return d;
}

std::string StageDescriptorToJson(const StageDescriptor& d) {
  if (d.kind == StageDescriptor::Kind::kLocal) {
    return absl::StrCat("{\"version\":", kStageDescriptorVersion, ",\"kind\":\"local\"}");
  }
  if (d.kind == StageDescriptor::Kind::kHost) {
    return absl::StrCat("{\"version\":", kStageDescriptorVersion,
                        ",\"kind\":\"host\",\"host_id\":", JsonString(d.host_id), "}");
  }
  return absl::StrCat("{\"version\":", kStageDescriptorVersion, ",\"kind\":\"s3\",\"bucket\":",
                      JsonString(d.bucket), ",\"prefix\":", JsonString(d.prefix),
                      ",\"region\":", JsonString(d.region), ",\"endpoint\":",
                      JsonString(d.endpoint), ",\"path_style\":", d.path_style ? "true" : "false",
                      "}");
}

absl::StatusOr<StageDescriptor> StageDescriptorFromJson(std::string_view text) {
  if (text.size() > kMaxDescriptorBytes) return Refuse("longer than 16 KiB");
  std::multiset<std::string> keys;
  auto callback = [&](int depth, Json::parse_event_t event, Json& parsed) {
    if (event == Json::parse_event_t::key && depth == 1) {
      keys.insert(parsed.get_ref<const std::string&>());
    }
    return true;
  };
  Json json = Json::parse(text.begin(), text.end(), callback, /*allow_exceptions=*/false);
  if (json.is_discarded() || !json.is_object()) return Refuse("not a JSON object");
  for (const std::string& key : keys) {
    if (keys.count(key) > 1) return Refuse("duplicate key \"" + key + "\"");
  }
  const Json* version = json.contains("version") ? &json["version"] : nullptr;
  if (version == nullptr || !version->is_number_integer() ||
      version->get<int64_t>() != kStageDescriptorVersion) {
    return Refuse(absl::StrCat("unknown or missing version (this lake reads version ",
                               kStageDescriptorVersion, ")"));
  }
  if (!json.contains("kind") || !json["kind"].is_string()) return Refuse("missing kind");
  std::string kind = json["kind"].get<std::string>();
  StageDescriptor d;
  std::set<std::string> allowed;
  if (kind == "local") {
    d.kind = StageDescriptor::Kind::kLocal;
    allowed = {"version", "kind"};
  } else if (kind == "s3") {
    d.kind = StageDescriptor::Kind::kS3;
    allowed = {"version", "kind", "bucket", "prefix", "region", "endpoint", "path_style"};
    for (const char* field : {"bucket", "prefix", "region", "endpoint"}) {
      if (!json.contains(field) || !json[field].is_string()) {
        return Refuse(absl::StrCat("missing string \"", field, "\""));
      }
    }
    if (!json.contains("path_style") || !json["path_style"].is_boolean()) {
      return Refuse("missing boolean \"path_style\"");
    }
    d.bucket = json["bucket"].get<std::string>();
    d.prefix = json["prefix"].get<std::string>();
    d.region = json["region"].get<std::string>();
    d.endpoint = json["endpoint"].get<std::string>();
    d.path_style = json["path_style"].get<bool>();
  } else if (kind == "host") {
    d.kind = StageDescriptor::Kind::kHost;
    allowed = {"version", "kind", "host_id"};
    if (!json.contains("host_id") || !json["host_id"].is_string()) {
      return Refuse("missing string \"host_id\"");
    }
    d.host_id = json["host_id"].get<std::string>();
  } else {
    return Refuse("unknown kind \"" + kind + "\"");
  }
  for (const std::string& key : keys) {
    if (allowed.count(key) == 0) return Refuse("unknown key \"" + key + "\"");
  }
  return ValidateStageDescriptor(std::move(d));
}

}  // namespace lake
