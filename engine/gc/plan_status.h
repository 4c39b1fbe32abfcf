// What `lake gc status` shows: each kept plan's manifest and how far its
// apply got (none yet, applying, done, voided).
#ifndef LAKE_ENGINE_GC_PLAN_STATUS_H_
#define LAKE_ENGINE_GC_PLAN_STATUS_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/gc/apply_progress_format.h"
#include "engine/gc/plan_manifest_format.h"
#include "io/file_system.h"

namespace lake::gc {

struct PlanStatus {
  PlanManifest manifest;
  std::optional<ApplyProgress> progress;  // nullopt: never applied
};

// "planned", "applying", "done" or "voided".
std::string_view PlanStateName(const PlanStatus& status);

// Every published plan, oldest first, or only `plan_id` (NotFound when
// there is no such plan). DataLoss for a damaged manifest or record.
absl::StatusOr<std::vector<PlanStatus>> ReadPlanStatuses(io::FileSystem& fs,
                                                         const std::string& root_dir,
                                                         std::optional<std::string> plan_id);

}  // namespace lake::gc

#endif  // LAKE_ENGINE_GC_PLAN_STATUS_H_
