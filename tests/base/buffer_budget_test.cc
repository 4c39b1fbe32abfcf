// The process-wide bound on in-flight buffer memory.
#include <doctest/doctest.h>

#include <thread>

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

}  // namespace
}  // namespace lake
