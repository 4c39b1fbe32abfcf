// Scope and ownership of garbage collection: a collector works on a whole
// root and deletes from its stage only when the stage's owner marker names
// that root, so two roots (or a root and a bare stage user) that share one
// S3 prefix never take each other's objects for orphans. Record formats
// in root_identity_record.h.
//
// A writer's open of a root (never a follower's) runs EnsureRootIdentity:
//   1. <root>/root_id.json is created with a fresh id when absent (a racing
//      open's record wins: the file is never replaced);
//   2. the stage's owner marker _lake/owner is created naming that id when
//      absent. When it names another root, this root writes a claim
//      _lake/claims/<its id> instead, which makes the owner's collector
//      refuse the stage too (neither knows the other's objects);
//   3. <root>/gc/owner.confirmed records that 2 is done, so later opens
//      touch no stage (one stat).
// A root created before identities existed gets one at its first writer
// open. The steps are idempotent; a crash between them repeats them.
#ifndef LAKE_ENGINE_GC_ROOT_IDENTITY_H_
#define LAKE_ENGINE_GC_ROOT_IDENTITY_H_

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "engine/managed_object_store.h"
#include "io/file_system.h"

namespace lake::gc {

// The root's id; nullopt when it has none yet. DataLoss for a damaged record.
absl::StatusOr<std::optional<std::string>> ReadRootId(io::FileSystem& fs,
                                                      const std::string& root_dir);

// The steps above; returns the root's id.
absl::StatusOr<std::string> EnsureRootIdentity(io::FileSystem& fs, const std::string& root_dir,
                                               ManagedObjectStore& store);

// OK when the stage's owner marker names `root_id` and no other root has
// claimed the stage. FailedPrecondition otherwise, saying why: no marker
// (open the root once as a writer), a marker or claim of another root (the
// stage is shared: collecting it could delete that root's objects).
// DataLoss for a damaged marker; the store's error when it cannot be read.
absl::Status CheckStageOwnership(ManagedObjectStore& store, const std::string& root_id);

}  // namespace lake::gc

#endif  // LAKE_ENGINE_GC_ROOT_IDENTITY_H_
