// The records of the run being built, in one buffer charged to a
// SpillBudget: the records' bytes packed from the front, a string_view of
// each from the back. It is full when the two would meet; then it is
// sorted (std::sort over the views) and read back in order without
// duplicates, to be written as a run or merged from memory.
//
// Invariant: every record added has its bytes and its view in the buffer;
// nothing else is allocated, so the buffer's size is all the run holds.
#ifndef LAKE_SPILL_RUN_BUFFER_H_
#define LAKE_SPILL_RUN_BUFFER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "absl/status/statusor.h"
#include "spill/record_source.h"
#include "spill/spill_budget.h"

namespace lake::spill {

class RunBuffer {
 public:
  // What one record of `record_bytes` takes in the buffer.
  static constexpr size_t Cost(size_t record_bytes) {
    return record_bytes + sizeof(std::string_view);
  }

  static absl::StatusOr<RunBuffer> Create(SpillBudget& budget, size_t bytes);
  RunBuffer() = default;
  RunBuffer(RunBuffer&&) = default;
  RunBuffer& operator=(RunBuffer&&) = default;

  // False, adding nothing, when the record does not fit.
  bool Add(std::string_view record);
  // False for a RunBuffer made by its default constructor (no buffer).
  bool allocated() const { return buffer_.data() != nullptr; }
  size_t records() const { return count_; }
  bool empty() const { return count_ == 0; }

  // Sorts the records. No Add after it until Clear.
  void Sort();
  // The sorted records without duplicates. Precondition: Sort was called;
  // the source must not outlive the buffer or see a Clear.
  std::unique_ptr<RecordSource> SortedRecords() const;
  void Clear();

 private:
  std::string_view* views() const {
    return reinterpret_cast<std::string_view*>(buffer_.data() + views_end_) - count_;
  }

  SpillBuffer buffer_;
  size_t views_end_ = 0;   // where the views end: the buffer's size, aligned down
  size_t bytes_used_ = 0;  // of records, from the front
  size_t count_ = 0;
};

}  // namespace lake::spill

#endif  // LAKE_SPILL_RUN_BUFFER_H_
