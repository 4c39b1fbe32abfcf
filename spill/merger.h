// The k-way merge of sorted record sources into one ascending stream in
// which every record appears once: equal records of different sources are
// collapsed (each source is strictly ascending by itself).
//
// A binary heap of the sources' current records: a record costs one
// replace-top and sift-down, about 2·log2(k) comparisons.
//
// Memory: the emitted record (at most `max_record_bytes`, charged to the
// budget) and the heap; the sources' own buffers are theirs.
#ifndef LAKE_SPILL_MERGER_H_
#define LAKE_SPILL_MERGER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "spill/record_source.h"
#include "spill/spill_budget.h"

namespace lake::spill {

class Merger final : public RecordSource {
 public:
  // The bookkeeping one input adds to the merge: its heap entry and the
  // objects that read it (a reader, a decoder, a file), rounded up.
  static constexpr uint64_t kInputOverheadBytes = 512;
  static uint64_t BudgetBytes(size_t inputs, size_t max_record_bytes);

  // Takes the inputs and reads the first record of each.
  static absl::StatusOr<std::unique_ptr<Merger>> Create(
      std::vector<std::unique_ptr<RecordSource>> inputs, SpillBudget& budget,
      size_t max_record_bytes);

  absl::StatusOr<bool> Next() override;
  std::string_view record() const override { return {emitted_.data(), emitted_bytes_}; }

 private:
  struct Entry {
    std::string_view record;  // the source's current record
    RecordSource* source;
  };
  Merger() = default;
  void SiftDown(size_t i);
  absl::Status AdvanceTop();

  std::vector<std::unique_ptr<RecordSource>> inputs_;
  SpillCharge bookkeeping_;
  std::vector<Entry> heap_;  // a min-heap on record
  SpillBuffer emitted_;      // the record Next last returned
  size_t emitted_bytes_ = 0;
  bool has_emitted_ = false;
};

}  // namespace lake::spill

#endif  // LAKE_SPILL_MERGER_H_
