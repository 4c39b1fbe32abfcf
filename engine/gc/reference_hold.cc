#include "engine/gc/reference_hold.h"

namespace lake::gc {

absl::StatusOr<GcHold> HoldToAddReferences(io::FileSystem& fs, const std::string& root_dir,
                                           ManagedStage& stage) {
  absl::StatusOr<GcHold> hold = HoldReferencesShared(fs, root_dir);
  if (!hold.ok()) return hold.status();
  stage.ObserveDeletionEpoch(hold->deletion_epoch());
  return hold;
}

}  // namespace lake::gc
