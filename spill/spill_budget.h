// The memory one spilling operation (a sort of more records than fit in
// memory, and its merge) may hold, and a buffer charged to it.
//
// A SpillBudget is a counter per operation, separate from the process's
// BufferBudget (base/buffer_budget.h): that one hands out page-aligned I/O
// chunks shared by every upload and read of the process, and waits for
// them; a spill plans its buffers from its own limit up front (run size,
// merge fan-in) and must never wait for memory another operation holds. A
// caller that wants the spill counted against the process bound too holds
// a lease of the same size from the process budget for the operation's life.
//
// Invariant: the bytes of all live SpillBuffers never exceed limit(); a
// charge that would pass it is refused (ResourceExhausted) rather than
// granted, so peak() <= limit() always holds and a test can assert it.
//
// Thread safety: a SpillBudget may be charged from several threads; a
// SpillBuffer belongs to one.
#ifndef LAKE_SPILL_SPILL_BUDGET_H_
#define LAKE_SPILL_SPILL_BUDGET_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "absl/status/statusor.h"

namespace lake::spill {

class SpillBudget {
 public:
  explicit SpillBudget(uint64_t limit_bytes) : limit_(limit_bytes) {}
  SpillBudget(const SpillBudget&) = delete;
  SpillBudget& operator=(const SpillBudget&) = delete;

  uint64_t limit() const { return limit_; }
  uint64_t in_use() const { return in_use_.load(std::memory_order_relaxed); }
  // The high-water mark of in_use() since the budget was made.
  uint64_t peak() const { return peak_.load(std::memory_order_relaxed); }

  // Counts `bytes` as held, or refuses (ResourceExhausted naming `what`)
  // when that would pass the limit. Release gives back what Charge took.
  absl::Status Charge(uint64_t bytes, std::string_view what);
  void Release(uint64_t bytes);

 private:
  const uint64_t limit_;
  std::atomic<uint64_t> in_use_{0};
  std::atomic<uint64_t> peak_{0};
};

// A byte buffer of a fixed size whose bytes are charged to a SpillBudget
// for as long as it lives. Its content starts undefined.
//
// A large buffer (a run buffer of tens of MiB) is its own mapping, in huge
// pages where the kernel allows: a sort reads its records in random order,
// and with 4 KiB pages nearly every record would also be a TLB miss. Its
// memory goes back to the system when the buffer does.
class SpillBuffer {
 public:
  SpillBuffer() = default;
  static absl::StatusOr<SpillBuffer> Allocate(SpillBudget& budget, size_t bytes,
                                              std::string_view what);
  SpillBuffer(SpillBuffer&& other) noexcept;
  SpillBuffer& operator=(SpillBuffer&& other) noexcept;
  ~SpillBuffer();

  char* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  void Reset();

  SpillBudget* budget_ = nullptr;
  char* data_ = nullptr;
  size_t size_ = 0;
  bool mapped_ = false;  // its own mapping (else from operator new[])
};

// Memory that is not a plain buffer (a compressor's tables) charged to a
// SpillBudget for as long as it lives.
class SpillCharge {
 public:
  SpillCharge() = default;
  static absl::StatusOr<SpillCharge> Take(SpillBudget& budget, uint64_t bytes,
                                          std::string_view what);
  SpillCharge(SpillCharge&& other) noexcept;
  SpillCharge& operator=(SpillCharge&& other) noexcept;
  ~SpillCharge();

 private:
  void Reset();

  SpillBudget* budget_ = nullptr;
  uint64_t bytes_ = 0;
};

}  // namespace lake::spill

#endif  // LAKE_SPILL_SPILL_BUDGET_H_
