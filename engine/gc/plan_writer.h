// Making a deletion plan (issue 20, items 4, 6, 7): the inventory and the
// live index, each spilled into bounded sorted runs (spill/), merged in URI
// order into draft pages, validated, and published as a plan.
//
// Steps, in order (each a failpoint of kPlanFailpoints where it matters):
//   1. checks: the cutoff (under kMinimumCutoff needs allow_short_cutoff),
//      the stage's owner marker (root_identity.h); the run lock (one plan
//      or apply per root, collector_guards.h); the leftovers of crashed
//      plans (drafts: plan directories without a manifest) are removed;
//   2. the listing — taken first, at listing time: every stage object and
//      every table file into the inventory sort;
//   3. the snapshot: the root's fingerprint (root_fingerprint.h), then the
//      live index (live_references.h) into the live sort, then the
//      fingerprint again — a root that changed meanwhile is Aborted (run
//      the plan again), since the index may miss what changed;
//   4. the merge: a listed entry becomes a candidate when it is absent from
//      the live index, older than the cutoff (modified at or before
//      listing time − cutoff), and — a stage object — inside the exact
//      managed stage, or — a table file — in the directory of a registered
//      table. Candidates go to draft pages of at most page_entries;
//   5. validation and sealing: the drafts are read back last to first,
//      each checked (ascending URIs within and across pages, totals equal
//      to the merge's) and sealed into the content-addressed chain
//      (plan_page_format.h), each page synced; the pages directory synced;
//   6. publication: the manifest (plan_manifest_format.h), written durably
//      last. Before it, the plan directory is a draft: apply refuses it and
//      the next plan removes it;
//   7. old plans beyond the newest kKeptPlans are removed, with their
//      progress.
// Nothing is deleted from the stage or the tables by planning.
//
// Memory: the two sorts get half of memory_budget each (SpillBudget); a
// draft page and one table's manifest are held besides.
#ifndef LAKE_ENGINE_GC_PLAN_WRITER_H_
#define LAKE_ENGINE_GC_PLAN_WRITER_H_

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "base/cancel_token.h"
#include "engine/gc/gc_root.h"
#include "engine/gc/plan_manifest_format.h"

namespace lake::gc {

inline constexpr std::array<std::string_view, 6> kPlanFailpoints = {
    "gc_plan.listed",        // the inventory is spilled
    "gc_plan.indexed",       // the live index is spilled, the snapshot checked
    "gc_plan.drafted",       // every draft page is written
    "gc_plan.page_sealed",   // one page of the chain is written and synced (each)
    "gc_plan.pages_synced",  // the pages directory is synced
    "gc_plan.published",     // the manifest is durable
};

// A cutoff shorter than this risks an upload that has not committed yet
// (the seed's safety horizon), unless a lease protects it.
inline constexpr absl::Duration kDefaultCutoff = absl::Hours(7 * 24);
inline constexpr absl::Duration kMinimumCutoff = absl::Hours(24);
// Plans kept for `lake gc status`; older ones go with the next plan.
inline constexpr size_t kKeptPlans = 5;
inline constexpr uint64_t kDefaultGcMemoryBudget = uint64_t{64} << 20;
// An S3 page takes ~10-70 ms to come, mostly waiting: 8 streams keep one
// core busy parsing without crowding the server (apply sends as many
// DeleteObjects at once). As S3 listing's kS3MaxListStreams, at most 64.
inline constexpr size_t kDefaultListStreams = 8;
inline constexpr size_t kMaxListStreams = 64;

// Called with a phase ("listing", "indexing", "merging", "sealing",
// "deleting", "verifying"), work done and the total (0 when unknown).
using GcProgressFn = std::function<void(std::string_view phase, uint64_t done, uint64_t total)>;

struct PlanOptions {
  absl::Duration cutoff = kDefaultCutoff;
  bool allow_short_cutoff = false;
  uint64_t memory_budget = kDefaultGcMemoryBudget;
  // Where the sorts spill: <root>/gc/tmp when empty, else a directory of
  // lake's own in it (SpillParentDir).
  std::string temp_dir;
  GcProgressFn progress;
  const CancelToken* cancel = nullptr;
  // Test seam: candidates per page (1..kMaxPlanPageEntries).
  size_t page_entries = 1000;
  // Concurrent listing streams of the stage's inventory, 1..kMaxListStreams
  // (an S3 stage lists key ranges in parallel; a local one walks serially).
  // The plan is the same whatever the number: the inventory is sorted.
  size_t list_streams = kDefaultListStreams;
  // How long a dead process's leases protect (the append retention horizon).
  absl::Duration lease_expiry = absl::Hours(7 * 24);
};

struct TenantTotals {
  uint64_t objects = 0;
  uint64_t bytes = 0;
};

struct PlanSummary {
  PlanManifest manifest;
  std::map<std::string, TenantTotals> tenants;  // "" is the stage's own objects
  uint64_t listed_objects = 0;
  uint64_t listed_table_files = 0;
  uint64_t live_references = 0;
};

absl::StatusOr<PlanSummary> WritePlan(const GcRoot& root, const PlanOptions& options);

// Validation of the plan options alone (step 1's first check).
absl::Status CheckPlanOptions(const PlanOptions& options);

}  // namespace lake::gc

#endif  // LAKE_ENGINE_GC_PLAN_WRITER_H_
