// The records of the run being built, in one buffer charged to a
// SpillBudget: the records' bytes packed from the front, a 16-byte entry
// for each (where it is, and a sort key) from the back. It is full when the
// two would meet; then it is sorted and read back in order without
// duplicates, to be written as a run or merged from memory.
//
// Sorting. Records that garbage collection spills are URIs: long shared
// prefixes, then a few bytes that tell them apart. A comparison sort over
// pointers would compare those prefixes again at every step, each time
// loading two records from random places in a buffer of tens of MiB. So
// the sort is most-significant-digit first, 8 bytes at a time: the
// prefix all records share is skipped, each entry caches the next 8 bytes
// of its record as an integer, std::sort orders the entries by it without
// touching the records, and only the entries that tie go on to the next 8
// bytes. Small groups, and groups still tied after kMaxKeyLevels levels,
// are finished by comparing the records' remaining bytes.
//
// Invariant: every record added has its bytes and its entry in the buffer;
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
  struct Entry {
    uint64_t key;     // the record's 8 bytes at the depth being sorted
    uint32_t offset;  // of the record's bytes in the buffer
    uint32_t length;
  };
  // Entries address the buffer with 32 bits: a larger budget does not make
  // a larger run buffer.
  static constexpr size_t kMaxBytes = UINT32_MAX;
  // What one record of `record_bytes` takes in the buffer.
  static constexpr size_t Cost(size_t record_bytes) { return record_bytes + sizeof(Entry); }

  // A buffer of min(bytes, kMaxBytes) bytes.
  static absl::StatusOr<RunBuffer> Create(SpillBudget& budget, size_t bytes);
  RunBuffer() = default;
  RunBuffer(RunBuffer&&) = default;
  RunBuffer& operator=(RunBuffer&&) = default;

  // False for a RunBuffer made by its default constructor (no buffer).
  bool allocated() const { return buffer_.data() != nullptr; }
  // False, adding nothing, when the record does not fit.
  bool Add(std::string_view record);
  size_t records() const { return count_; }
  bool empty() const { return count_ == 0; }

  // Sorts the records. No Add after it until Clear.
  void Sort();
  // The sorted records without duplicates. Precondition: Sort was called;
  // the source must not outlive the buffer or see a Clear.
  std::unique_ptr<RecordSource> SortedRecords() const;
  void Clear();

 private:
  Entry* entries() const {
    return reinterpret_cast<Entry*>(buffer_.data() + entries_end_) - count_;
  }

  SpillBuffer buffer_;
  size_t entries_end_ = 0;  // the buffer's size, aligned down for entries
  size_t bytes_used_ = 0;   // of records, from the front
  size_t count_ = 0;
};

}  // namespace lake::spill

#endif  // LAKE_SPILL_RUN_BUFFER_H_
