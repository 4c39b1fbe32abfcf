// Applying a deletion plan (issue 20, item 9).
//
//   1. The run lock (one plan or apply per root); the plan's manifest, which
//      must name this root and its stage, whose owner marker must still
//      name this root; the durable progress (apply_progress_store.h): a
//      finished plan returns at once, a voided one is refused.
//   2. The whole plan is verified before the first delete: every page of
//      the chain read and checked (plan_reader.h), every entry one this
//      root may delete (a stage object the stage contains; a table file in
//      a table directory), the totals, and — when resuming — that the page
//      the progress names next is the chain's page at that position.
//      Anything wrong is DataLoss and nothing is deleted (kApplyFailpoints[0]
//      is passed only after this).
//   2b. The plan's orphan multipart uploads (orphan_uploads.h) still
//      unprotected are aborted — again on every run until the plan is
//      done, which is idempotent (a gone upload is not an error).
//   3. For each remaining page, in chain order: the page is read again and
//      its hash checked against the chain; the references lock is taken
//      exclusively (no reference-adding path is between its existence check
//      and its commit, in any process); the registry view catches up with
//      the writer; the root fingerprint is compared with the plan's — any
//      change voids the plan (a voided progress record, then an Aborted
//      error that IsPlanVoided recognises) and nothing more is deleted; the
//      page's entries are removed (page_deleter.h); the lock is released.
//   4. A checkpoint, after every ApplyOptions::checkpoint_pages pages or
//      once checkpoint_interval has passed since the last one, whichever
//      comes first, and after the last page: on a finisher thread, while
//      the next pages go through step 3, the removals since the last
//      checkpoint are made durable (each directory they touched synced
//      once) and then the progress record advances durably past them. A
//      checkpoint starts only once the one before it has finished.
// Only the fingerprint check under the references lock guards liveness, and
// it is made for every page; the syncs and the record only make a resume
// cheap and let it end with every candidate gone: a record never claims a
// page whose removals are not durable, so a power loss can undo removals
// only past the record, and those pages are repeated (deleting what is
// gone is success). A crash anywhere resumes with the same call, repeating
// the pages removed since the last durable checkpoint: at most two
// checkpoints' worth (2 x checkpoint_pages).
#ifndef LAKE_ENGINE_GC_PLAN_APPLY_H_
#define LAKE_ENGINE_GC_PLAN_APPLY_H_

#include <array>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "base/cancel_token.h"
#include "engine/gc/apply_progress_format.h"
#include "engine/gc/gc_root.h"
#include "engine/gc/plan_writer.h"

namespace lake::gc {

inline constexpr std::array<std::string_view, 5> kApplyFailpoints = {
    "gc_apply.verified",          // the whole plan is verified; nothing deleted yet
    "gc_apply.page_checked",      // a page's fingerprint matched (each page)
    "gc_apply.page_deleted",      // a checkpoint's removals are durable, its progress
                                  // not (each checkpoint; on the finisher thread)
    "gc_apply.progress_written",  // a checkpoint's progress is durable (each; finisher)
    "gc_apply.page_removed",      // a page's entries are removed, not yet durable, and
                                  // the references lock released (each; between pages)
};

// A crash repeats at most twice this many pages (two checkpoints' worth):
// 64 local pages are ~0.5 s of unlinks, and one sync of the directories
// they touched (a page spans one or two shard directories) and one record
// per 64 pages take the syncs off the path of the removals (bench/gc (c)).
inline constexpr uint64_t kCheckpointPages = 64;
// ...or this much time, whichever comes first: what bounds the repeated
// work of a slow backend (S3 pages of DeleteObjects).
inline constexpr absl::Duration kCheckpointInterval = absl::Seconds(1);

inline constexpr std::string_view kPlanVoidedPayload = "lake.dev/GcPlanVoided";

struct ApplyOptions {
  GcProgressFn progress;
  const CancelToken* cancel = nullptr;
  // S3: the most keys deleted per second (0: unlimited).
  uint64_t max_deletes_per_second = 0;
  // How long a dead process's leases protect (the append retention
  // horizon): what keeps a planned upload from being aborted.
  absl::Duration lease_expiry = absl::Hours(7 * 24);
  // How often the progress record advances (step 4); at least 1 page.
  uint64_t checkpoint_pages = kCheckpointPages;
  absl::Duration checkpoint_interval = kCheckpointInterval;
  // Out (may be null): multipart uploads this call aborted.
  uint64_t* uploads_aborted = nullptr;
};

// The final progress (state done). Errors: NotFound (no such plan),
// InvalidArgument (not a plan id; a plan of another root or stage),
// FailedPrecondition (the stage's marker), AlreadyExists (another plan or
// apply runs), DataLoss (a damaged or tampered plan or progress record:
// nothing deleted), Aborted with kPlanVoidedPayload (the root changed since
// the plan), a storage error (apply again to resume).
absl::StatusOr<ApplyProgress> ApplyPlan(const GcRoot& root, std::string_view plan_id,
                                        const ApplyOptions& options);

bool IsPlanVoided(const absl::Status& status);

}  // namespace lake::gc

#endif  // LAKE_ENGINE_GC_PLAN_APPLY_H_
