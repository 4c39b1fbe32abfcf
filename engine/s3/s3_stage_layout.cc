#include "engine/s3/s3_stage_layout.h"

#include "absl/strings/str_cat.h"
#include "engine/integrity_error.h"
#include "engine/location_uri.h"
#include "engine/managed_key.h"

namespace lake {

absl::StatusOr<S3StageLayout> S3StageLayout::Create(std::string bucket, std::string prefix,
                                                    std::string tenant) {
  if (!IsValidBucketName(bucket)) {
    return absl::InvalidArgumentError("invalid S3 bucket name \"" + bucket + "\"");
  }
  while (!prefix.empty() && prefix.front() == '/') prefix.erase(0, 1);
  while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
  if (!prefix.empty()) {
    if (absl::Status s = ValidatePathSegments(prefix); !s.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("invalid S3 stage prefix \"", prefix, "\": ", s.message()));
    }
  }
  return S3StageLayout(std::move(bucket), std::move(prefix), std::move(tenant));
}

std::string S3StageLayout::NewObjectKey() const {
  std::string key = NewManagedObjectKey(tenant_);
  return prefix_.empty() ? key : absl::StrCat(prefix_, "/", key);
}

std::string S3StageLayout::ListPrefix() const {
  std::string relative = tenant_.empty() ? "" : ObjectsPrefix(tenant_) + "/";
  return prefix_.empty() ? relative : absl::StrCat(prefix_, "/", relative);
}

std::string S3StageLayout::ObjectsKeyPrefix() const {
  std::string relative = ObjectsPrefix(tenant_) + "/";
  return prefix_.empty() ? relative : absl::StrCat(prefix_, "/", relative);
}

std::string S3StageLayout::UriOfKey(std::string_view key) const {
  return FormatS3Uri(bucket_, key);
}

bool S3StageLayout::RelativeKey(std::string_view key, std::string_view* relative) const {
  if (prefix_.empty()) {
    *relative = key;
    return true;
  }
  if (!IsStrictlyBeneath(key, prefix_)) return false;
  *relative = key.substr(prefix_.size() + 1);
  return true;
}

bool S3StageLayout::ContainsKey(std::string_view key) const {
  std::string_view relative;
  return RelativeKey(key, &relative) && IsManagedKey(relative, tenant_);
}

absl::StatusOr<std::string> S3StageLayout::KeyOfLocation(const DataLocation& location) const {
  absl::StatusOr<ParsedUri> parsed = ParseLocationUri(location.uri);
  if (!parsed.ok()) return parsed.status();
  if (parsed->scheme != UriScheme::kS3) {
    return InvalidLocationError("location is not an s3:// URI of this stage: " + location.uri);
  }
  if (parsed->bucket != bucket_) {
    return InvalidLocationError(absl::StrCat("location names bucket \"", parsed->bucket,
                                             "\", not the stage's \"", bucket_, "\""));
  }
  if (!ContainsKey(parsed->path)) {
    return InvalidLocationError(absl::StrCat(
        "location is outside the stage s3://", bucket_, "/", prefix_,
        tenant_.empty() ? "" : absl::StrCat(" (tenant \"", tenant_, "\")"), ": ",
        location.uri));
  }
  return parsed->path;
}

}  // namespace lake
