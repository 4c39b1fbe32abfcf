// The live index (issue 20, item 4): every URI something keeps alive
// (live_references.h), spilled into bounded sorted runs (spill/) and read
// back as one URI-sorted stream without duplicates.
//
// The walk runs in `parts` parts at once, on threads of their own, each
// part spilling into a sorter of its own with an equal share of the
// budget: reading and checking reference deltas and sorting their URIs use
// every core. The stream is the union of the parts' sorted streams.
//
// Memory: the budget (every sorter's buffers) plus what the walk holds
// (one delta chunk and one manifest per part).
#ifndef LAKE_ENGINE_GC_LIVE_INDEX_H_
#define LAKE_ENGINE_GC_LIVE_INDEX_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "base/cancel_token.h"
#include "engine/gc/gc_root.h"
#include "spill/spill_sorter.h"

namespace lake::gc {

struct LiveIndexOptions {
  // The sorters' spill directories are <temp_dir>/lake-spill.<run_id>-live-<part>.
  std::string temp_dir;
  std::string run_id;
  uint64_t memory_budget = 0;
  size_t parts = 2;
  absl::Time now;
  absl::Duration lease_expiry;
  // What a table dropped before this time referenced is not live
  // (ForEachLiveReference); by default every dropped table's is.
  absl::Time released_before = absl::InfinitePast();
  const CancelToken* cancel = nullptr;
};

class LiveIndex {
 public:
  // Walks and spills everything (failing closed as the walk does), then
  // opens the merged stream.
  static absl::StatusOr<std::unique_ptr<LiveIndex>> Build(const GcRoot& root,
                                                          const LiveIndexOptions& options);

  // Moves to the next URI: true when there is one (record() is it).
  absl::StatusOr<bool> Next();
  std::string_view record() const { return current_; }
  // References the walk visited (before duplicates were collapsed).
  uint64_t references() const { return references_; }
  // The most the sorters' budgets counted at once, summed.
  uint64_t budget_peak() const;

 private:
  struct Part {
    std::unique_ptr<spill::SpillBudget> budget;
    std::unique_ptr<spill::SpillSorter> sorter;
    std::unique_ptr<spill::SortedRecords> sorted;
    uint64_t added = 0;
    bool more = false;
  };
  LiveIndex() = default;

  std::vector<Part> parts_;
  uint64_t references_ = 0;
  bool started_ = false;
  std::string current_;
};

}  // namespace lake::gc

#endif  // LAKE_ENGINE_GC_LIVE_INDEX_H_
