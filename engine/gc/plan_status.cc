#include "engine/gc/plan_status.h"

#include "engine/gc/apply_progress_store.h"
#include "engine/gc/plan_reader.h"

namespace lake::gc {

std::string_view PlanStateName(const PlanStatus& status) {
  if (!status.progress.has_value()) return "planned";
  return ApplyStateName(status.progress->state);
}

absl::StatusOr<std::vector<PlanStatus>> ReadPlanStatuses(io::FileSystem& fs,
                                                         const std::string& root_dir,
                                                         std::optional<std::string> plan_id) {
  std::vector<std::string> ids;
  if (plan_id.has_value()) {
    ids.push_back(*plan_id);
  } else {
    absl::StatusOr<std::vector<std::string>> listed = ListPlans(fs, root_dir);
    if (!listed.ok()) return listed.status();
    ids = std::move(*listed);
  }
  std::vector<PlanStatus> statuses;
  for (const std::string& id : ids) {
    absl::StatusOr<PlanManifest> manifest = ReadPlanManifest(fs, root_dir, id);
    if (!manifest.ok()) return manifest.status();
    absl::StatusOr<std::optional<ApplyProgress>> progress = LoadApplyProgress(fs, root_dir, id);
    if (!progress.ok()) return progress.status();
    statuses.push_back(PlanStatus{std::move(*manifest), std::move(*progress)});
  }
  return statuses;
}

}  // namespace lake::gc
