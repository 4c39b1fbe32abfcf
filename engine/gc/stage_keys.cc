#include "engine/gc/stage_keys.h"

#include "absl/strings/str_cat.h"
#include "engine/local/local_object_store.h"
#include "engine/managed_key.h"
#include "engine/s3/s3_object_store.h"

namespace lake::gc {

absl::StatusOr<std::string> StageRelativeKey(ManagedObjectStore& store, std::string_view uri) {
  DataLocation location;
  location.uri = std::string(uri);
  if (auto* local = dynamic_cast<LocalObjectStore*>(&store)) {
    return local->paths().KeyOfLocation(location);
  }
  if (auto* s3 = dynamic_cast<S3ObjectStore*>(&store)) {
    absl::StatusOr<std::string> key = s3->layout().KeyOfLocation(location);
    if (!key.ok()) return key.status();
    const std::string& prefix = s3->layout().prefix();
    return prefix.empty() ? *key : key->substr(prefix.size() + 1);
  }
  return store.StageRelativeKey(uri);  // a host's store knows its own keys
}

absl::StatusOr<std::string> StageTenant(ManagedObjectStore& store) {
  if (auto* local = dynamic_cast<LocalObjectStore*>(&store)) return local->paths().tenant();
  if (auto* s3 = dynamic_cast<S3ObjectStore*>(&store)) return s3->layout().tenant();
  return store.ScopedTenant();
}

std::string TenantOfKey(std::string_view key) {
  std::string tenants = absl::StrCat(std::string(kTenantsDir), "/");
  if (!key.starts_with(tenants)) return "";
  std::string_view rest = key.substr(tenants.size());
  return std::string(rest.substr(0, rest.find('/')));
}

}  // namespace lake::gc
