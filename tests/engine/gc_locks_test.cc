// The lock files of <root>/gc/ (engine/gc/gc_locks.h): one plan or apply
// per root, and the references lock that keeps reference-adding paths and
// apply's deletions apart — across processes, waiting and not, and released
// when their holder dies.
#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "engine/gc/gc_locks.h"
#include "io/posix/posix_file_system.h"
#include "tests/support/child_process.h"
#include "tests/support/status_checks.h"
#include "tests/support/test_files.h"

namespace lake::gc {
namespace {

using testing::ParentLink;
using testing::SteppedChild;

constexpr auto kBlockedFor = std::chrono::milliseconds(200);

// A child that takes `hold` and keeps it until told to go on, then exits.
SteppedChild ChildHolding(const std::string& root,
                          absl::StatusOr<GcHold> (*hold)(io::FileSystem&, const std::string&)) {
  return SteppedChild([root, hold](ParentLink& parent) {
    io::PosixFileSystem fs;
    absl::StatusOr<GcHold> held = hold(fs, root);
    if (!held.ok()) return 10;
    parent.Arrive();
    return 0;
  });
}

absl::StatusOr<GcHold> RunWithoutWaiting(io::FileSystem& fs, const std::string& root) {
  return HoldGcRun(fs, root, /*wait=*/false);
}

// Runs `take` on a thread; true when it had not returned after kBlockedFor
// and did once `release` ran.
bool BlocksUntil(const std::function<absl::Status()>& take, const std::function<void()>& release) {
  std::atomic<bool> done{false};
  absl::Status status;
  std::thread waiter([&] {
    status = take();
    done = true;
  });
  std::this_thread::sleep_for(kBlockedFor);
  bool blocked = !done;
  release();
  waiter.join();
  CHECK_MESSAGE(status.ok(), status.ToString());
  return blocked;
}

TEST_CASE("a second GC run is refused naming the process that holds the run lock") {
  testing::TempDir dir;
  io::PosixFileSystem fs;
  SteppedChild child = ChildHolding(dir.path(), &RunWithoutWaiting);
  REQUIRE(child.AwaitArrival());
  absl::StatusOr<GcHold> second = HoldGcRun(fs, dir.path(), /*wait=*/false);
  REQUIRE(absl::IsAlreadyExists(second.status()));
  CHECK(absl::StrContains(second.status().message(), absl::StrCat("process ", child.pid())));
  child.Release();
  REQUIRE(WIFEXITED(child.Wait()));
  LAKE_CHECK_OK(HoldGcRun(fs, dir.path(), /*wait=*/false));
}

TEST_CASE("a GC run that waits gets the run lock once its holder lets go") {
  testing::TempDir dir;
  io::PosixFileSystem fs;
  SteppedChild child = ChildHolding(dir.path(), &RunWithoutWaiting);
  REQUIRE(child.AwaitArrival());
  CHECK(BlocksUntil([&] { return HoldGcRun(fs, dir.path(), /*wait=*/true).status(); },
                    [&] { child.Release(); }));
  child.Wait();
}

TEST_CASE("the GC locks of a SIGKILLed process are released") {
  testing::TempDir dir;
  io::PosixFileSystem fs;
  SteppedChild run = ChildHolding(dir.path(), &RunWithoutWaiting);
  SteppedChild refs = ChildHolding(dir.path(), &HoldReferencesShared);
  REQUIRE(run.AwaitArrival());
  REQUIRE(refs.AwaitArrival());
  REQUIRE(absl::IsAlreadyExists(HoldGcRun(fs, dir.path(), false).status()));
  run.Kill();
  refs.Kill();
  LAKE_CHECK_OK(HoldGcRun(fs, dir.path(), /*wait=*/false));
  LAKE_CHECK_OK(HoldReferencesExclusive(fs, dir.path()));  // would wait for a live holder
}

TEST_CASE("an exclusive references hold waits for a shared holder in another process") {
  testing::TempDir dir;
  io::PosixFileSystem fs;
  SteppedChild child = ChildHolding(dir.path(), &HoldReferencesShared);
  REQUIRE(child.AwaitArrival());
  CHECK(BlocksUntil([&] { return HoldReferencesExclusive(fs, dir.path()).status(); },
                    [&] { child.Release(); }));
  child.Wait();
}

TEST_CASE("a shared references hold waits for an exclusive holder in another process") {
  testing::TempDir dir;
  io::PosixFileSystem fs;
  SteppedChild child = ChildHolding(dir.path(), &HoldReferencesExclusive);
  REQUIRE(child.AwaitArrival());
  CHECK(BlocksUntil([&] { return HoldReferencesShared(fs, dir.path()).status(); },
                    [&] { child.Release(); }));
  child.Wait();
}

TEST_CASE("shared references holds are shared, and nest while an exclusive request waits") {
  testing::TempDir dir;
  io::PosixFileSystem fs;
  absl::StatusOr<GcHold> first = HoldReferencesShared(fs, dir.path());
  LAKE_REQUIRE_OK(first);
  SteppedChild child = ChildHolding(dir.path(), &HoldReferencesShared);
  REQUIRE(child.AwaitArrival());  // a second process shares it
  // An apply waits for both; meanwhile this thread takes the lock again.
  std::atomic<bool> exclusive{false};
  std::thread apply([&] {
    io::PosixFileSystem apply_fs;
    absl::StatusOr<GcHold> held = HoldReferencesExclusive(apply_fs, dir.path());
    CHECK(held.ok());
    exclusive = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  absl::StatusOr<GcHold> nested = HoldReferencesShared(fs, dir.path());
  LAKE_CHECK_OK(nested);
  CHECK_FALSE(exclusive);
  nested = GcHold();
  *first = GcHold();
  child.Release();
  apply.join();
  CHECK(exclusive);
  child.Wait();
}

TEST_CASE("every exclusive references hold changes the deletion epoch shared holders read") {
  testing::TempDir dir;
  io::PosixFileSystem fs;
  absl::StatusOr<GcHold> before = HoldReferencesShared(fs, dir.path());
  LAKE_REQUIRE_OK(before);
  uint64_t epoch = before->deletion_epoch();
  absl::StatusOr<GcHold> again = HoldReferencesShared(fs, dir.path());
  LAKE_REQUIRE_OK(again);
  CHECK(again->deletion_epoch() == epoch);  // nothing happened in between
  *before = GcHold();
  *again = GcHold();
  for (int apply = 0; apply < 3; ++apply) {
    uint64_t exclusive_epoch = 0;
    {
      absl::StatusOr<GcHold> exclusive = HoldReferencesExclusive(fs, dir.path());
      LAKE_REQUIRE_OK(exclusive);
      exclusive_epoch = exclusive->deletion_epoch();
      CHECK(exclusive_epoch != epoch);
    }
    absl::StatusOr<GcHold> after = HoldReferencesShared(fs, dir.path());
    LAKE_REQUIRE_OK(after);
    CHECK(after->deletion_epoch() == exclusive_epoch);
    epoch = exclusive_epoch;
  }
}

TEST_CASE("a shared references hold costs a few microseconds") {
  testing::TempDir dir;
  io::PosixFileSystem fs;
  LAKE_REQUIRE_OK(HoldReferencesShared(fs, dir.path()));  // creates the file
  constexpr int kHolds = 2000;
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < kHolds; ++i) LAKE_REQUIRE_OK(HoldReferencesShared(fs, dir.path()));
  double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
                  .count() /
              kHolds;
  MESSAGE("one shared references hold (open, flock, read the epoch, close): ", us, " us");
  CHECK(us < 200);  // a generous bound: an flock per operation, not a sync
}

}  // namespace
}  // namespace lake::gc
