#include "base/buffer_budget.h"

#include <algorithm>
#include <sys/mman.h>

#include <cstdlib>
#include <utility>

#include "absl/strings/str_format.h"
#include "absl/time/time.h"

namespace lake {

BufferLease::BufferLease(BufferLease&& other) noexcept { *this = std::move(other); }

BufferLease& BufferLease::operator=(BufferLease&& other) noexcept {
  if (this != &other) {
    Release();
    budget_ = std::exchange(other.budget_, nullptr);
    memory_ = std::exchange(other.memory_, nullptr);
    chunk_bytes_ = std::exchange(other.chunk_bytes_, 0);
    chunk_count_ = std::exchange(other.chunk_count_, 0);
  }
  return *this;
}

BufferLease::~BufferLease() { Release(); }

void BufferLease::Release() {
  if (memory_ == nullptr) return;
  budget_->Return(memory_, static_cast<uint64_t>(chunk_bytes_) * chunk_count_);
  memory_ = nullptr;
  budget_ = nullptr;
  chunk_count_ = 0;
}

BufferBudget& BufferBudget::Process() {
  static BufferBudget* budget = new BufferBudget(kDefaultLimitBytes);
  return *budget;
}

BufferBudget::~BufferBudget() {
  absl::MutexLock lock(&mu_);
  for (const Mapping& mapping : kept_) munmap(mapping.memory, mapping.bytes);
}

absl::Status BufferBudget::SetLimit(uint64_t limit_bytes) {
  if (limit_bytes < kMinimumLimitBytes) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "buffer budget %d bytes is below the minimum %d", limit_bytes,
        kMinimumLimitBytes));
  }
  absl::MutexLock lock(&mu_);
  limit_ = limit_bytes;
  released_.SignalAll();
  return absl::OkStatus();
}

uint64_t BufferBudget::limit() const {
  absl::MutexLock lock(&mu_);
  return limit_;
}

uint64_t BufferBudget::in_use() const {
  absl::MutexLock lock(&mu_);
  return in_use_;
}

uint64_t BufferBudget::peak_in_use() const {
  absl::MutexLock lock(&mu_);
  return peak_;
}

absl::StatusOr<BufferLease> BufferBudget::Acquire(size_t chunk_bytes,
                                                  size_t min_chunks,
                                                  size_t max_chunks,
                                                  const CancelToken* cancel) {
  if (chunk_bytes == 0 || chunk_bytes % kAlignment != 0 || min_chunks == 0 ||
      max_chunks < min_chunks) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "bad buffer request: %d chunks of %d bytes (at least %d)", max_chunks,
        chunk_bytes, min_chunks));
  }
  size_t granted = 0;
  {
    absl::MutexLock lock(&mu_);
    for (;;) {
      if (static_cast<uint64_t>(chunk_bytes) * min_chunks > limit_) {
        return absl::InvalidArgumentError(absl::StrFormat(
            "buffer request of %d bytes exceeds the process buffer budget of "
            "%d bytes",
            static_cast<uint64_t>(chunk_bytes) * min_chunks, limit_));
      }
      uint64_t free_bytes = limit_ - std::min(limit_, in_use_);
      granted = std::min<uint64_t>(max_chunks, free_bytes / chunk_bytes);
      if (granted >= min_chunks) break;
      if (absl::Status s = CheckCancelled(cancel); !s.ok()) return s;
      released_.WaitWithTimeout(&mu_, absl::Milliseconds(20));
    }
    in_use_ += static_cast<uint64_t>(granted) * chunk_bytes;
    peak_ = std::max(peak_, in_use_);
  }
  // mmap rather than malloc: page-aligned, and the pages go back at once
  // (malloc's dynamic mmap threshold would keep freed chunks resident).
  void* memory = TakeKept(granted * chunk_bytes);
  if (memory == nullptr) {
    memory = mmap(nullptr, granted * chunk_bytes, PROT_READ | PROT_WRITE,
                  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  }
  if (memory == MAP_FAILED) {
    Return(nullptr, static_cast<uint64_t>(granted) * chunk_bytes);
    return absl::ResourceExhaustedError("out of memory for data buffers");
  }
  BufferLease lease;
  lease.budget_ = this;
  lease.memory_ = static_cast<uint8_t*>(memory);
  lease.chunk_bytes_ = chunk_bytes;
  lease.chunk_count_ = granted;
  return lease;
}

void* BufferBudget::TakeKept(size_t bytes) {
  absl::MutexLock lock(&mu_);
  for (size_t i = kept_.size(); i-- > 0;) {
    if (kept_[i].bytes == bytes) {
      void* memory = kept_[i].memory;
      kept_.erase(kept_.begin() + static_cast<std::ptrdiff_t>(i));
      return memory;
    }
  }
  return nullptr;
}

void BufferBudget::Return(void* memory, uint64_t bytes) {
  // Marked free outside the lock; a kernel without MADV_FREE unmaps.
  const bool keep = memory != nullptr && bytes <= kKeptMappingBytes &&
                    madvise(memory, bytes, MADV_FREE) == 0;
  Mapping evicted{nullptr, 0};
  {
    absl::MutexLock lock(&mu_);
    in_use_ -= bytes;
    if (keep) {
      if (kept_.size() == kKeptMappings) {
        evicted = kept_.front();
        kept_.erase(kept_.begin());
      }
      kept_.push_back(Mapping{memory, static_cast<size_t>(bytes)});
    }
    released_.SignalAll();
  }
  if (memory != nullptr && !keep) munmap(memory, bytes);
  if (evicted.memory != nullptr) munmap(evicted.memory, evicted.bytes);
}

}  // namespace lake
