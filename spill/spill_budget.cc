#include "spill/spill_budget.h"

#include <sys/mman.h>

#include <new>
#include <utility>

#include "absl/strings/str_format.h"

namespace lake::spill {
namespace {

// Buffers this large get a mapping of their own, in huge pages.
constexpr size_t kHugePageBytes = 2u << 20;

}  // namespace

absl::Status SpillBudget::Charge(uint64_t bytes, std::string_view what) {
  uint64_t held = in_use_.load(std::memory_order_relaxed);
  do {
    if (bytes > limit_ - held) {
      return absl::ResourceExhaustedError(absl::StrFormat(
          "spill budget of %d bytes exceeded: %s needs %d bytes with %d in use", limit_, what,
          bytes, held));
    }
  } while (!in_use_.compare_exchange_weak(held, held + bytes, std::memory_order_relaxed));
  uint64_t peak = peak_.load(std::memory_order_relaxed);
  while (held + bytes > peak &&
         !peak_.compare_exchange_weak(peak, held + bytes, std::memory_order_relaxed)) {
  }
  return absl::OkStatus();
}

void SpillBudget::Release(uint64_t bytes) { in_use_.fetch_sub(bytes, std::memory_order_relaxed); }

absl::StatusOr<SpillBuffer> SpillBuffer::Allocate(SpillBudget& budget, size_t bytes,
                                                  std::string_view what) {
  if (absl::Status s = budget.Charge(bytes, what); !s.ok()) return s;
  SpillBuffer buffer;
  buffer.budget_ = &budget;
  buffer.size_ = bytes;
  if (bytes >= kHugePageBytes) {
    void* memory =
        mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED) {
      return absl::ResourceExhaustedError(absl::StrFormat("out of memory for %s", what));
    }
    // Advice only: without huge pages the buffer works the same, slower.
    (void)madvise(memory, bytes, MADV_HUGEPAGE);
    buffer.data_ = static_cast<char*>(memory);
    buffer.mapped_ = true;
  } else {
    // Uninitialised: the caller overwrites what it uses.
    buffer.data_ = new char[bytes];
  }
  return buffer;
}

SpillBuffer::SpillBuffer(SpillBuffer&& other) noexcept { *this = std::move(other); }

SpillBuffer& SpillBuffer::operator=(SpillBuffer&& other) noexcept {
  if (this != &other) {
    Reset();
    budget_ = std::exchange(other.budget_, nullptr);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    mapped_ = std::exchange(other.mapped_, false);
  }
  return *this;
}

SpillBuffer::~SpillBuffer() { Reset(); }

void SpillBuffer::Reset() {
  if (mapped_) {
    munmap(data_, size_);
  } else {
    delete[] data_;
  }
  if (budget_ != nullptr) budget_->Release(size_);
  budget_ = nullptr;
  data_ = nullptr;
  size_ = 0;
  mapped_ = false;
}

absl::StatusOr<SpillCharge> SpillCharge::Take(SpillBudget& budget, uint64_t bytes,
                                              std::string_view what) {
  if (absl::Status s = budget.Charge(bytes, what); !s.ok()) return s;
  SpillCharge charge;
  charge.budget_ = &budget;
  charge.bytes_ = bytes;
  return charge;
}

SpillCharge::SpillCharge(SpillCharge&& other) noexcept { *this = std::move(other); }

SpillCharge& SpillCharge::operator=(SpillCharge&& other) noexcept {
  if (this != &other) {
    Reset();
    budget_ = std::exchange(other.budget_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

SpillCharge::~SpillCharge() { Reset(); }

void SpillCharge::Reset() {
  if (budget_ != nullptr) budget_->Release(bytes_);
  budget_ = nullptr;
  bytes_ = 0;
}

}  // namespace lake::spill
