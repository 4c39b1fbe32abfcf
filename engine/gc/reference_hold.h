// The shared references hold (gc_locks.h) as a path that adds references
// to existing objects of a root's stage takes it: the stage is told the
// deletion epoch under the hold, so its remembered sizes never vouch for an
// object a collection deleted. Hold it from the existence checks
// (ManagedStage::CheckExisting) to the commit that makes the references
// durable.
#ifndef LAKE_ENGINE_GC_REFERENCE_HOLD_H_
#define LAKE_ENGINE_GC_REFERENCE_HOLD_H_

#include <string>

#include "absl/status/statusor.h"
#include "engine/gc/gc_locks.h"
#include "engine/managed_stage.h"
#include "io/file_system.h"

namespace lake::gc {

absl::StatusOr<GcHold> HoldToAddReferences(io::FileSystem& fs, const std::string& root_dir,
                                           ManagedStage& stage);

}  // namespace lake::gc

#endif  // LAKE_ENGINE_GC_REFERENCE_HOLD_H_
