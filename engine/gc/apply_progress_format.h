// The durable progress of applying one plan: how many pages are done and
// the identity of the next page to delete, so a crashed apply resumes at
// that page and a page swapped since the plan was verified is refused by
// its hash. The record advances at checkpoints (every
// ApplyOptions::checkpoint_pages pages or checkpoint_interval, plan_apply.h)
// and never past a removal that is not durable; the next pages are removed
// while a checkpoint's record is written: a resume repeats at most two
// checkpoints' worth of pages.
//
// Records are never rewritten in place: each one is a new file
//   <root>/gc/progress/<plan id>/<seq as 20 decimal digits>.progress
// written durably (temporary file, sync, rename without replacing, directory
// sync), after which the record before it is removed. The record with the
// highest seq is the current one (a crash between the two steps leaves
// both; a power loss may take back the newest rename, which only repeats
// its page, whose deletes are idempotent).
//
// Format (version 1): a sealed JSON record (digested_json.h), one line:
//   {"format":1,"plan_id":"<uuidv7>","seq":N,"state":"applying|done|voided",
//    "pages_done":N,"next_page_sha256":"<64 hex>" ("" once every page is done
//    or when voided),"objects_deleted":N,"bytes_deleted":N,
//    "table_files_deleted":N,"updated_unix_micros":N,"reason":"…",
//    "sha256":"<64 hex>"}
// `reason` says why a plan was voided ("" otherwise). The decoder fails
// closed (DataLoss) on a digest that does not match, a missing, extra or
// mistyped field, an unknown state, or a state that disagrees with
// next_page_sha256 (applying needs one; done and voided have none).
#ifndef LAKE_ENGINE_GC_APPLY_PROGRESS_FORMAT_H_
#define LAKE_ENGINE_GC_APPLY_PROGRESS_FORMAT_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace lake::gc {

inline constexpr uint64_t kApplyProgressFormatVersion = 1;
inline constexpr size_t kMaxApplyProgressBytes = 8 * 1024;
inline constexpr size_t kMaxVoidReasonBytes = 2048;

struct ApplyProgress {
  enum class State { kApplying, kDone, kVoided };
  std::string plan_id;
  uint64_t seq = 0;
  State state = State::kApplying;
  uint64_t pages_done = 0;
  std::string next_page_sha256;
  uint64_t objects_deleted = 0;
  uint64_t bytes_deleted = 0;
  uint64_t table_files_deleted = 0;
  int64_t updated_unix_micros = 0;
  std::string reason;

  bool operator==(const ApplyProgress&) const = default;
};

std::string_view ApplyStateName(ApplyProgress::State state);

absl::Status ValidateApplyProgress(const ApplyProgress& progress);
absl::StatusOr<std::string> EncodeApplyProgress(const ApplyProgress& progress);
absl::StatusOr<ApplyProgress> DecodeApplyProgress(std::string_view text);

}  // namespace lake::gc

#endif  // LAKE_ENGINE_GC_APPLY_PROGRESS_FORMAT_H_
