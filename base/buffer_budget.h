// The process-wide bound on memory held by in-flight data buffers.
//
// Invariant: the bytes of all live BufferLeases never exceed the limit. An
// operation asks for between `min_chunks` and `max_chunks` equal chunks and
// gets as many as fit, waiting (while polling its cancellation token) until
// at least `min_chunks` fit. Chunks are page-aligned so they can be used for
// O_DIRECT I/O.
//
// Memory is given back when a lease ends, so idle processes do not keep it:
//   - a mapping of at most kKeptMappingBytes is kept, at most
//     kKeptMappings of them, for the next lease of its size; its pages are
//     marked free (MADV_FREE), so the kernel takes them whenever it needs
//     memory, and a reuse of pages it did not take faults nothing in (one
//     INSERT after another would otherwise fault in a fresh megabyte each);
//   - any other mapping is unmapped.
// Kept mappings count in no lease and never against the limit.
#ifndef LAKE_BASE_BUFFER_BUDGET_H_
#define LAKE_BASE_BUFFER_BUDGET_H_

#include <cstddef>
#include <cstdint>
#include <vector>

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
  // Released mappings kept for reuse: an upload's 8 x 1 MiB, a few times.
  static constexpr size_t kKeptMappingBytes = size_t{8} << 20;
  static constexpr size_t kKeptMappings = 4;

  explicit BufferBudget(uint64_t limit_bytes) : limit_(limit_bytes) {}
  // Unmaps the kept mappings. Precondition: no lease is live.
  ~BufferBudget();

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
  struct Mapping {
    void* memory;
    size_t bytes;
  };
  // Returns a lease's bytes to the budget, and its mapping to the kept
  // ones or to the system.
  void Return(void* memory, uint64_t bytes);
  // A kept mapping of `bytes`, or null.
  void* TakeKept(size_t bytes);

  mutable absl::Mutex mu_;
  absl::CondVar released_;
  uint64_t limit_ ABSL_GUARDED_BY(mu_);
  uint64_t in_use_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t peak_ ABSL_GUARDED_BY(mu_) = 0;
  std::vector<Mapping> kept_ ABSL_GUARDED_BY(mu_);  // newest last
};

}  // namespace lake

#endif  // LAKE_BASE_BUFFER_BUDGET_H_
