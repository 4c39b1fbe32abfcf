// Reading a published plan back: its manifest and its page chain, verified
// page by page (plan_page_format.h), in chain order. Used by show, status,
// apply (which reads the whole chain before its first delete) and tests.
#ifndef LAKE_ENGINE_GC_PLAN_READER_H_
#define LAKE_ENGINE_GC_PLAN_READER_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/gc/plan_manifest_format.h"
#include "engine/gc/plan_page_format.h"
#include "io/file_system.h"

namespace lake::gc {

// InvalidArgument unless `plan_id` is a canonical UUIDv7.
absl::Status CheckPlanId(std::string_view plan_id);

// The manifest of a published plan. NotFound when there is no such plan,
// or only its draft (a plan without a manifest authorises nothing);
// DataLoss when the manifest is damaged or names another plan.
absl::StatusOr<PlanManifest> ReadPlanManifest(io::FileSystem& fs, const std::string& root_dir,
                                              std::string_view plan_id);

// The ids of the published plans, oldest first.
absl::StatusOr<std::vector<std::string>> ListPlans(io::FileSystem& fs,
                                                   const std::string& root_dir);

// One page, read from <plan>/pages/<sha256>.page and checked: its bytes hash
// to `sha256`, it belongs to the plan and sits at `page_index`. DataLoss
// otherwise (a missing page too).
absl::StatusOr<PlanPage> ReadPlanPage(io::FileSystem& fs, const std::string& root_dir,
                                      const PlanManifest& manifest, const std::string& sha256,
                                      uint64_t page_index);

// Walks the chain from the manifest's first page, handing each verified
// page (and its identity) to `visit` in order, and checks what only the
// whole chain shows: URIs ascending across pages, as many pages as the
// manifest says, and totals equal to its. DataLoss on any break — found
// before `visit` sees the page for the page itself, at the end for the
// totals (so a caller that must act only on a whole, sound plan walks
// twice: once to verify, once to act).
using PlanPageVisitor = std::function<absl::Status(const PlanPage& page, const std::string& sha256)>;
absl::Status ForEachPlanPage(io::FileSystem& fs, const std::string& root_dir,
                             const PlanManifest& manifest, const PlanPageVisitor& visit);

}  // namespace lake::gc

#endif  // LAKE_ENGINE_GC_PLAN_READER_H_
