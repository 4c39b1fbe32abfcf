#include "engine/gc/live_index.h"

#include <thread>

#include "absl/strings/str_cat.h"
#include "engine/gc/live_references.h"

namespace lake::gc {

absl::StatusOr<std::unique_ptr<LiveIndex>> LiveIndex::Build(const GcRoot& root,
                                                            const LiveIndexOptions& options) {
  if (options.parts == 0) return absl::InvalidArgumentError("a live index needs a part");
  std::unique_ptr<LiveIndex> index(new LiveIndex());
  index->parts_.resize(options.parts);
  for (size_t i = 0; i < options.parts; ++i) {
    Part& part = index->parts_[i];
    part.budget = std::make_unique<spill::SpillBudget>(options.memory_budget / options.parts);
    absl::StatusOr<std::unique_ptr<spill::SpillSorter>> sorter = spill::SpillSorter::Create(
        root.fs, spill::SpillDirectoryPath(options.temp_dir, absl::StrCat(options.run_id, "-live-", i)), *part.budget);
    if (!sorter.ok()) return sorter.status();
    part.sorter = std::move(*sorter);
  }
  std::vector<absl::Status> walked(options.parts);
  auto walk = [&](size_t i) {
    Part& part = index->parts_[i];
    walked[i] = ForEachLiveReference(
        root, options.now, options.lease_expiry, options.released_before,
        [&](std::string_view uri, const DataLocation*, const Referrer&) -> absl::Status {
          if (absl::Status s = part.sorter->Add(uri); !s.ok()) return s;
          if (++part.added % 4096 == 0) return CheckCancelled(options.cancel);
          return absl::OkStatus();
        },
        LiveWalkPart{i, options.parts});
  };
  std::vector<std::thread> threads;
  for (size_t i = 1; i < options.parts; ++i) threads.emplace_back(walk, i);
  walk(0);
  for (std::thread& t : threads) t.join();
  for (const absl::Status& s : walked) {
    if (!s.ok()) return s;
  }
  for (Part& part : index->parts_) {
    index->references_ += part.added;
    absl::StatusOr<std::unique_ptr<spill::SortedRecords>> sorted = part.sorter->Finish();
    if (!sorted.ok()) return sorted.status();
    part.sorted = std::move(*sorted);
  }
  return index;
}

absl::StatusOr<bool> LiveIndex::Next() {
  for (Part& part : parts_) {
    // First call: every part to its first record; later: past the current.
    if (started_ && !(part.more && part.sorted->record() == current_)) continue;
    absl::StatusOr<bool> more = part.sorted->Next();
    if (!more.ok()) return more.status();
    part.more = *more;
  }
  started_ = true;
  const Part* smallest = nullptr;
  for (const Part& part : parts_) {
    if (part.more && (smallest == nullptr || part.sorted->record() < smallest->sorted->record())) {
      smallest = &part;
    }
  }
  if (smallest == nullptr) return false;
  current_.assign(smallest->sorted->record());
  return true;
}

uint64_t LiveIndex::budget_peak() const {
  uint64_t peak = 0;
  for (const Part& part : parts_) peak += part.budget->peak();
  return peak;
}

}  // namespace lake::gc
