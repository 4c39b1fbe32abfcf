// Where the progress of applying a plan is kept (apply_progress_format.h):
// <root>/gc/progress/<plan id>/<seq as 20 digits>.progress, each record a
// new file, durable before the one before it is removed.
#ifndef LAKE_ENGINE_GC_APPLY_PROGRESS_STORE_H_
#define LAKE_ENGINE_GC_APPLY_PROGRESS_STORE_H_

#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "engine/gc/apply_progress_format.h"
#include "io/file_system.h"

namespace lake::gc {

// The current record of `plan_id` (the highest seq), nullopt when the plan
// was never applied. DataLoss when that record is damaged: an apply never
// guesses where it was.
absl::StatusOr<std::optional<ApplyProgress>> LoadApplyProgress(io::FileSystem& fs,
                                                               const std::string& root_dir,
                                                               std::string_view plan_id);

// Writes `progress` (whose seq is one more than the current record's, or 1)
// durably, then removes the records before it (not synced: an old record
// that comes back after a power loss is older, and loses to this one).
absl::Status WriteApplyProgress(io::FileSystem& fs, const std::string& root_dir,
                                const ApplyProgress& progress);

// WriteApplyProgress in two halves, so that the first can overlap the
// syncs that must be durable before the record is: Prepare writes and
// syncs the record under a temporary name nobody reads; Publish renames it
// into place, syncs the directory and removes the records before it (and
// temporaries a crash left). A prepared record never published is
// removed by the next Publish.
struct PreparedApplyProgress {
  std::string path;
  std::string temp_path;
  std::string dir;
  uint64_t seq = 0;
};
absl::StatusOr<PreparedApplyProgress> PrepareApplyProgress(io::FileSystem& fs,
                                                           const std::string& root_dir,
                                                           const ApplyProgress& progress);
absl::Status PublishApplyProgress(io::FileSystem& fs, const PreparedApplyProgress& prepared);

}  // namespace lake::gc

#endif  // LAKE_ENGINE_GC_APPLY_PROGRESS_STORE_H_
