// The process-wide bound on in-flight buffer memory.
#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "base/buffer_budget.h"

namespace lake {
namespace {

TEST_CASE("leases never exceed the limit; they grant what fits, at least the minimum") {
  BufferBudget budget(8 << 20);
  absl::StatusOr<BufferLease> a = budget.Acquire(1 << 20, 2, 6, nullptr);
  REQUIRE(a.ok());
  CHECK(a->chunk_count() == 6);
  absl::StatusOr<BufferLease> b = budget.Acquire(1 << 20, 1, 8, nullptr);
  REQUIRE(b.ok());
  CHECK(b->chunk_count() == 2);
  CHECK(budget.in_use() == (8u << 20));
  CHECK(reinterpret_cast<uintptr_t>(a->chunk(1)) % BufferBudget::kAlignment == 0);
  *a = BufferLease();
  CHECK(budget.in_use() == (2u << 20));
  CHECK(budget.peak_in_use() == (8u << 20));
}

TEST_CASE("a request that can never fit is refused, not waited on") {
  BufferBudget budget(4 << 20);
  CHECK(absl::IsInvalidArgument(budget.Acquire(1 << 20, 5, 5, nullptr).status()));
  CHECK(absl::IsInvalidArgument(budget.Acquire(1000, 1, 1, nullptr).status()));
  CHECK(absl::IsInvalidArgument(budget.SetLimit(1 << 20)));
}

TEST_CASE("a waiting request proceeds when memory is released, or stops when cancelled") {
  BufferBudget budget(4 << 20);
  absl::StatusOr<BufferLease> all = budget.Acquire(1 << 20, 4, 4, nullptr);
  REQUIRE(all.ok());
  std::thread releaser([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    *all = BufferLease();
  });
  absl::StatusOr<BufferLease> waited = budget.Acquire(1 << 20, 2, 2, nullptr);
  releaser.join();
  CHECK(waited.ok());

  absl::StatusOr<BufferLease> rest = budget.Acquire(1 << 20, 2, 2, nullptr);
  REQUIRE(rest.ok());
  CancelToken token;
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    token.Cancel();
  });
  CHECK(absl::IsCancelled(budget.Acquire(1 << 20, 1, 1, &token).status()));
  canceller.join();
}

TEST_CASE("a released lease's mapping serves the next lease of its size") {
  BufferBudget budget(64 << 20);
  absl::StatusOr<BufferLease> first = budget.Acquire(1 << 20, 2, 2, nullptr);
  REQUIRE(first.ok());
  uint8_t* memory = first->chunk(0);
  memory[0] = 7;
  *first = BufferLease();
  CHECK(budget.in_use() == 0);  // a kept mapping counts in no lease
  // Another size takes a mapping of its own; the kept one waits.
  absl::StatusOr<BufferLease> other = budget.Acquire(1 << 20, 3, 3, nullptr);
  REQUIRE(other.ok());
  CHECK(other->chunk(0) != memory);
  absl::StatusOr<BufferLease> again = budget.Acquire(1 << 20, 2, 2, nullptr);
  REQUIRE(again.ok());
  CHECK(again->chunk(0) == memory);
  again->chunk(1)[4095] = 1;  // writable throughout
  CHECK(budget.in_use() == (5u << 20));
}

// Whether `address` lies in a mapping of this process (/proc/self/maps).
bool Mapped(const void* address) {
  const uintptr_t at = reinterpret_cast<uintptr_t>(address);
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    uintptr_t begin = 0;
    uintptr_t end = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx", &begin, &end) == 2 && begin <= at && at < end) {
      return true;
    }
  }
  return false;
}

TEST_CASE("a lease over the kept bound goes back to the system when released") {
  BufferBudget budget(64 << 20);
  const size_t chunks = BufferBudget::kKeptMappingBytes / (1 << 20) + 1;
  absl::StatusOr<BufferLease> big = budget.Acquire(1 << 20, chunks, chunks, nullptr);
  REQUIRE(big.ok());
  const uint8_t* memory = big->chunk(0);
  REQUIRE(Mapped(memory));
  *big = BufferLease();
  CHECK_FALSE(Mapped(memory));
}

TEST_CASE("only the newest released mappings are kept; the oldest goes back") {
  BufferBudget budget(64 << 20);
  std::vector<BufferLease> leases;
  for (size_t i = 0; i <= BufferBudget::kKeptMappings; ++i) {
    absl::StatusOr<BufferLease> lease = budget.Acquire(1 << 20, 1, 1, nullptr);
    REQUIRE(lease.ok());
    leases.push_back(*std::move(lease));
  }
  const uint8_t* oldest = leases[0].chunk(0);
  const uint8_t* newest = leases.back().chunk(0);
  leases.clear();  // released in order: the first is evicted by the last
  CHECK_FALSE(Mapped(oldest));
  CHECK(Mapped(newest));
}

}  // namespace
}  // namespace lake
