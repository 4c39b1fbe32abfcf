// What the collector needs to know of where a root's stage keeps an object:
// its key relative to the stage (root directory or S3 prefix), from which
// its tenant follows, and which backend holds it.
#ifndef LAKE_ENGINE_GC_STAGE_KEYS_H_
#define LAKE_ENGINE_GC_STAGE_KEYS_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "engine/managed_object_store.h"

namespace lake::gc {

// "objects/ab/<uuid>" or "tenants/<t>/objects/ab/<uuid>": the key of a
// URI the stage contains (InvalidLocation otherwise). A host's store
// answers through ManagedObjectStore::StageRelativeKey; a backend without
// one is Unimplemented.
absl::StatusOr<std::string> StageRelativeKey(ManagedObjectStore& store, std::string_view uri);

// The tenant a stage handle is scoped to ("" for the whole stage);
// Unimplemented for a backend that cannot say.
absl::StatusOr<std::string> StageTenant(ManagedObjectStore& store);

// The tenant of a stage-relative key; "" for the stage's own objects.
std::string TenantOfKey(std::string_view key);

}  // namespace lake::gc

#endif  // LAKE_ENGINE_GC_STAGE_KEYS_H_
