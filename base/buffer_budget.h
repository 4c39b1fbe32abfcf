// The process-wide bound on memory held by in-flight data buffers.
//
// Invariant: the bytes of all live BufferLeases never exceed the limit. An
// operation asks for between `min_chunks` and `max_chunks` equal chunks and
// gets as many as fit, waiting (while polling its cancellation token) until
// at least `min_chunks` fit. Chunks are page-aligned so they can be used for
// O_DIRECT I/O. Memory is returned to the system when the lease ends, so
// idle processes do not keep it resident.
#ifndef LAKE_BASE_BUFFER_BUDGET_H_
#define LAKE_BASE_BUFFER_BUDGET_H_

#include <cstddef>
#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "base/cancel_token.h"

namespace lake {

class BufferBudget;

// A set of equal, page-aligned chunks charged to a BufferBudget.
class BufferLease {
 public:
  BufferLease() = default;
  BufferLease(BufferLease&& other) noexcept;
  BufferLease& operator=(BufferLease&& other) noexcept;
  BufferLease(const BufferLease&) = delete;
  BufferLease& operator=(const BufferLease&) = delete;
  ~BufferLease();

  size_t chunk_count() const { return chunk_count_; }
  size_t chunk_bytes() const { return chunk_bytes_; }
  uint8_t* chunk(size_t i) const { return memory_ + i * chunk_bytes_; }

 private:
  friend class BufferBudget;
  void Release();

  BufferBudget* budget_ = nullptr;
  uint8_t* memory_ = nullptr;
  size_t chunk_bytes_ = 0;
  size_t chunk_count_ = 0;
};

class BufferBudget {
 public:
  // Default limit of the process budget, and the smallest a host may set:
  // the smallest must still hold one operation's minimum (a few MiB). The
  // default holds four S3 uploads at their default 4 x 64 MiB part buffers;
  // it is a ceiling, not an allocation (leases map pages on demand).
  static constexpr uint64_t kDefaultLimitBytes = 1ull << 30;
  static constexpr uint64_t kMinimumLimitBytes = 4ull << 20;
  static constexpr size_t kAlignment = 4096;

  explicit BufferBudget(uint64_t limit_bytes) : limit_(limit_bytes) {}

  // The one budget every operation of this process draws from.
  static BufferBudget& Process();

  absl::Status SetLimit(uint64_t limit_bytes);
  uint64_t limit() const;
  uint64_t in_use() const;
  uint64_t peak_in_use() const;

  // chunk_bytes must be a multiple of kAlignment, and min_chunks chunks must
  // fit in the limit (else InvalidArgument rather than waiting forever).
  absl::StatusOr<BufferLease> Acquire(size_t chunk_bytes, size_t min_chunks,
                                      size_t max_chunks,
                                      const CancelToken* cancel);

 private:
  friend class BufferLease;
  void Return(uint64_t bytes);

  mutable absl::Mutex mu_;
  absl::CondVar released_;
  uint64_t limit_ ABSL_GUARDED_BY(mu_);
  uint64_t in_use_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t peak_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace lake

#endif  // LAKE_BASE_BUFFER_BUDGET_H_
