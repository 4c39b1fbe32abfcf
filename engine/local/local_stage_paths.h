// Where a local stage keeps things, and which locations it contains.
//
//   <root>/objects/<xx>/<uuidv7>                    published objects
//   <root>/tenants/<tenant>/objects/<xx>/<uuidv7>   a tenant's objects
//   <root>/.staging/<uuidv7>.uploading              unpublished uploads
//
// <root> is the stage directory after resolving symlinks, so URIs name the
// real path. A location is contained when its decoded path lies beneath an
// objects directory of this stage — of this tenant only, when the stage
// has one — and never in .staging. Reads and deletes then resolve its key
// beneath the tenant's directory (the root without a tenant), so no
// symlink in the tree takes them out of it.
#ifndef LAKE_ENGINE_LOCAL_LOCAL_STAGE_PATHS_H_
#define LAKE_ENGINE_LOCAL_LOCAL_STAGE_PATHS_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "engine/data_location.h"

namespace lake {

inline constexpr std::string_view kStagingDir = ".staging";
inline constexpr std::string_view kStagingSuffix = ".uploading";

class LocalStagePaths {
 public:
  LocalStagePaths(std::string real_root, std::string tenant);

  const std::string& root() const { return root_; }
  const std::string& tenant() const { return tenant_; }

  std::string staging_dir() const;
  std::string StagingPath(std::string_view uuid) const;
  // root/<relative>
  std::string Path(std::string_view relative) const;
  std::string UriOfKey(std::string_view key) const;

  // "tenants/<tenant>", or "" without a tenant: the directory, relative to
  // the root, that reads and deletes must stay beneath.
  std::string tenant_dir() const;
  // A contained key relative to tenant_dir().
  std::string KeyBeneathTenantDir(std::string_view key) const;

  // The stage-relative key a contained location names, or InvalidLocation.
  absl::StatusOr<std::string> KeyOfLocation(const DataLocation& location) const;
  // KeyOfLocation's answer without the key: OK exactly when it has one.
  // Copies nothing for the common all-literal URI.
  absl::Status CheckContained(const DataLocation& location) const;

 private:
  // The key a contained location names, a view into location.uri or into
  // *decoded (which holds the URI's decoded path when it has escapes).
  absl::StatusOr<std::string_view> KeyViewOfLocation(const DataLocation& location,
                                                     std::string* decoded) const;

  std::string root_;
  std::string tenant_;
};

}  // namespace lake

#endif  // LAKE_ENGINE_LOCAL_LOCAL_STAGE_PATHS_H_
