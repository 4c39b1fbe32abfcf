#include "engine/local/local_stage_paths.h"

#include "absl/strings/str_cat.h"
#include "engine/integrity_error.h"
#include "engine/location_uri.h"
#include "engine/managed_key.h"

namespace lake {

LocalStagePaths::LocalStagePaths(std::string real_root, std::string tenant)
    : root_(std::move(real_root)), tenant_(std::move(tenant)) {}

std::string LocalStagePaths::staging_dir() const {
  return absl::StrCat(root_, "/", std::string(kStagingDir));
}

std::string LocalStagePaths::StagingPath(std::string_view uuid) const {
  return absl::StrCat(staging_dir(), "/", std::string(uuid),
                      std::string(kStagingSuffix));
}

std::string LocalStagePaths::Path(std::string_view relative) const {
  return absl::StrCat(root_, "/", std::string(relative));
}

std::string LocalStagePaths::UriOfKey(std::string_view key) const {
  return FormatFileUri(Path(key));
}

std::string LocalStagePaths::tenant_dir() const {
  if (tenant_.empty()) return "";
  return absl::StrCat(std::string(kTenantsDir), "/", tenant_);
}

std::string LocalStagePaths::KeyBeneathTenantDir(std::string_view key) const {
  if (tenant_.empty()) return std::string(key);
  return std::string(key.substr(tenant_dir().size() + 1));
}

absl::StatusOr<std::string_view> LocalStagePaths::KeyViewOfLocation(
    const DataLocation& location, std::string* decoded) const {
  // The common all-literal URI is its own decoded path: no parse needed.
  std::optional<std::string_view> path = LiteralFileUriPath(location.uri);
  if (!path) {
    absl::StatusOr<ParsedUri> parsed = ParseLocationUri(location.uri);
    if (!parsed.ok()) return parsed.status();
    if (parsed->scheme != UriScheme::kFile) {
      return InvalidLocationError(
          "location is not a file:// URI of this local stage: " + location.uri);
    }
    *decoded = std::move(parsed->path);
    path = *decoded;
  }
  if (!IsStrictlyBeneath(*path, root_)) {
    return InvalidLocationError(
        "location is outside the stage root " + root_ + ": " + location.uri);
  }
  std::string_view key = path->substr(root_.size() + 1);
  if (!IsManagedKey(key, tenant_)) {
    return InvalidLocationError(
        tenant_.empty()
            ? "location is not a managed object of this stage: " + location.uri
            : "location is outside tenant \"" + tenant_ + "\": " + location.uri);
  }
  return key;
}

absl::StatusOr<std::string> LocalStagePaths::KeyOfLocation(
    const DataLocation& location) const {
  std::string decoded;
  absl::StatusOr<std::string_view> key = KeyViewOfLocation(location, &decoded);
  if (!key.ok()) return key.status();
  return std::string(*key);
}

absl::Status LocalStagePaths::CheckContained(const DataLocation& location) const {
  std::string decoded;
  return KeyViewOfLocation(location, &decoded).status();
}

}  // namespace lake
