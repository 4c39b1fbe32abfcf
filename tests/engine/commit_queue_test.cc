// The root's commit queue (engine/table/commit_queue.h) on its own: what
// it holds, in which order it settles, what a failed sync does, and that
// a queue another boot left is never used. The appends that go through it
// are tested with the append path (table_append_crash_test.cc,
// table_store_test.cc).
#include "engine/table/commit_queue.h"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "io/posix/posix_file_system.h"
#include "tests/support/status_checks.h"
#include "tests/support/test_files.h"

namespace lake::table {
namespace {

constexpr char kBoot[] = "boot-of-the-test";

// A commit of version `version` of table `table_id` on `version - 1`.
registry::ForwardedWrite CommitOf(uint64_t table_id, uint64_t version) {
  registry::VersionRecord next;
  next.version = version;
  next.parent_version = version - 1;
  next.manifest_path = "_log/00000000000000000001.seg@" + std::to_string(version * 100) + "+90";
  next.reference_delta_sha256 = std::string(64, 'a');
  next.operation_id = "01890000-0000-7000-8000-00000000000" + std::to_string(version % 10);
  next.committed_unix_micros = 1;
  return registry::ForwardedWrite{.kind = registry::ForwardedKind::kCommitVersionDeferred,
                                  .table_id = table_id,
                                  .expected_current_version = version - 1,
                                  .next = next};
}

struct QueueDir {
  QueueDir() {
    std::filesystem::create_directories(dir.Join("tables/ns/t/_log"));
    for (const char* name : {"a.seg", "b.seg"}) std::ofstream(Segment(name)) << "records";
  }
  // A segment of table ns.t's log, as an append names it.
  std::string Segment(const std::string& name) const {
    return dir.Join("tables/ns/t/_log/" + name);
  }
  std::unique_ptr<CommitQueue> Open(const std::string& boot = kBoot) {
    absl::StatusOr<std::unique_ptr<CommitQueue>> queue = CommitQueue::Open(fs, dir.path(), boot);
    LAKE_REQUIRE_OK(queue);
    (*queue)->AdoptIfStale();
    return std::move(*queue);
  }
  testing::TempDir dir;
  io::PosixFileSystem fs;
};

uint64_t EnqueueOrFail(CommitQueue& queue, const registry::ForwardedWrite& commit,
                       const std::string& segment) {
  absl::StatusOr<uint64_t> seq = queue.Enqueue(commit, segment, "base-manifest");
  LAKE_REQUIRE_OK(seq);
  return *seq;
}

// Settles every synced entry as committed; returns their versions, in the
// order settled.
std::vector<uint64_t> CommitAll(CommitQueue& queue) {
  std::vector<uint64_t> versions;
  queue.CommitSynced([&](const QueuedCommit& q) {
    versions.push_back(q.commit.next.version);
    return QueuedOutcome{};
  });
  return versions;
}

TEST_CASE("commit queue: entries are synced together and settle oldest first, as queued") {
  QueueDir d;
  std::unique_ptr<CommitQueue> queue = d.Open();
  CHECK(queue->empty());
  uint64_t first = EnqueueOrFail(*queue, CommitOf(7, 1), d.Segment("a.seg"));
  uint64_t second = EnqueueOrFail(*queue, CommitOf(8, 1), d.Segment("b.seg"));
  uint64_t third = EnqueueOrFail(*queue, CommitOf(7, 2), d.Segment("a.seg"));
  CHECK(first < second);
  CHECK(second < third);
  CHECK_FALSE(queue->Synced(first));
  CHECK_FALSE(queue->Outcome(first).has_value());
  LAKE_CHECK_OK(queue->SyncQueued(absl::Now() + absl::Seconds(5)));
  CHECK(queue->Synced(third));
  CHECK(CommitAll(*queue) == std::vector<uint64_t>{1, 1, 2});
  CHECK(queue->empty());
  for (uint64_t seq : {first, second, third}) {
    std::optional<QueuedOutcome> outcome = queue->Outcome(seq);
    REQUIRE(outcome.has_value());
    LAKE_CHECK_OK(outcome->status);
  }
}

TEST_CASE("commit queue: an entry reads back whole: its commit, segment and base") {
  QueueDir d;
  std::unique_ptr<CommitQueue> queue = d.Open();
  registry::ForwardedWrite commit = CommitOf(7, 3);
  commit.operation =
      registry::AppendOperationRecord{commit.next.operation_id, 7, 3, std::string(64, 'b'), 1};
  EnqueueOrFail(*queue, commit, d.Segment("a.seg"));
  absl::StatusOr<std::vector<QueuedCommit>> queued = queue->Queued();
  LAKE_REQUIRE_OK(queued);
  REQUIRE(queued->size() == 1);
  const QueuedCommit& q = (*queued)[0];
  CHECK(q.commit.kind == registry::ForwardedKind::kCommitVersionDeferred);
  CHECK(q.commit.table_id == 7);
  CHECK(q.commit.expected_current_version == 2);
  CHECK(q.commit.next == commit.next);
  CHECK(q.commit.operation == commit.operation);
  CHECK(q.segment_path == d.Segment("a.seg"));
  CHECK(q.base_manifest_path == "base-manifest");
  CHECK_FALSE(q.sync_failure.has_value());
}

TEST_CASE("commit queue: only synced entries settle; a later one waits for its sync") {
  QueueDir d;
  std::unique_ptr<CommitQueue> queue = d.Open();
  EnqueueOrFail(*queue, CommitOf(7, 1), d.Segment("a.seg"));
  LAKE_CHECK_OK(queue->SyncQueued(absl::Now() + absl::Seconds(5)));
  uint64_t later = EnqueueOrFail(*queue, CommitOf(7, 2), d.Segment("a.seg"));
  CHECK(CommitAll(*queue) == std::vector<uint64_t>{1});
  CHECK_FALSE(queue->Outcome(later).has_value());
  CHECK_FALSE(queue->empty());
}

TEST_CASE("commit queue: every mapping of the file is the same queue") {
  QueueDir d;
  std::unique_ptr<CommitQueue> one = d.Open();
  std::unique_ptr<CommitQueue> other = d.Open();
  uint64_t seq = EnqueueOrFail(*one, CommitOf(7, 1), d.Segment("a.seg"));
  absl::StatusOr<std::vector<QueuedCommit>> seen = other->Queued();
  LAKE_REQUIRE_OK(seen);
  REQUIRE(seen->size() == 1);
  LAKE_CHECK_OK(other->SyncQueued(absl::Now() + absl::Seconds(5)));
  CHECK(one->Synced(seq));
  CHECK(CommitAll(*other) == std::vector<uint64_t>{1});
  REQUIRE(one->Outcome(seq).has_value());
}

TEST_CASE("commit queue: a queue another boot left is emptied: nothing of it is committed") {
  QueueDir d;
  {
    std::unique_ptr<CommitQueue> before = d.Open("the-boot-before");
    EnqueueOrFail(*before, CommitOf(7, 1), d.Segment("a.seg"));
    LAKE_CHECK_OK(before->SyncQueued(absl::Now() + absl::Seconds(5)));
  }
  std::unique_ptr<CommitQueue> after = d.Open();
  CHECK(after->empty());
  CHECK(CommitAll(*after).empty());
  absl::StatusOr<std::vector<QueuedCommit>> queued = after->Queued();
  LAKE_REQUIRE_OK(queued);
  CHECK(queued->empty());
}

TEST_CASE("commit queue: a file of zeros or garbage is adopted as an empty queue") {
  QueueDir d;
  {
    std::ofstream f(d.dir.Join(std::string(kCommitQueueName)), std::ios::binary);
    std::string garbage(8192, '\x7f');
    f.write(garbage.data(), static_cast<std::streamsize>(garbage.size()));
  }
  std::unique_ptr<CommitQueue> queue = d.Open();
  CHECK(queue->empty());
  CHECK(EnqueueOrFail(*queue, CommitOf(7, 1), d.Segment("a.seg")) == 0);
}

TEST_CASE("commit queue: a damaged header is refused, never walked, and the next turn empties it") {
  QueueDir d;
  std::unique_ptr<CommitQueue> queue = d.Open();
  EnqueueOrFail(*queue, CommitOf(7, 1), d.Segment("a.seg"));
  {
    // next_seq (offset 72) far past every slot.
    std::fstream f(d.dir.Join(std::string(kCommitQueueName)),
                   std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(72);
    const uint64_t huge = uint64_t{1} << 40;
    f.write(reinterpret_cast<const char*>(&huge), sizeof(huge));
  }
  CHECK(absl::IsDataLoss(queue->Queued().status()));
  CHECK(absl::IsDataLoss(queue->SyncQueued(absl::Now() + absl::Seconds(5))));
  queue->AdoptIfStale();
  CHECK(queue->empty());
}

TEST_CASE("commit queue: a failed sync fails every entry it covered, told to the settler") {
  QueueDir d;
  std::unique_ptr<CommitQueue> queue = d.Open();
  uint64_t first = EnqueueOrFail(*queue, CommitOf(7, 1), d.Segment("a.seg"));
  uint64_t missing = EnqueueOrFail(*queue, CommitOf(8, 1), d.Segment("no-such.seg"));
  absl::Status synced = queue->SyncQueued(absl::Now() + absl::Seconds(5));
  CHECK(absl::IsNotFound(synced));
  CHECK(queue->Synced(missing));
  std::vector<uint64_t> failed;
  queue->CommitSynced([&](const QueuedCommit& q) {
    REQUIRE(q.sync_failure.has_value());
    CHECK(absl::IsNotFound(*q.sync_failure));
    failed.push_back(q.seq);
    return QueuedOutcome{*q.sync_failure, true};
  });
  CHECK(failed == std::vector<uint64_t>{first, missing});
  std::optional<QueuedOutcome> outcome = queue->Outcome(first);
  REQUIRE(outcome.has_value());
  CHECK(absl::IsNotFound(outcome->status));
  CHECK(outcome->final_failure);
}

TEST_CASE("commit queue: a failure of the step after the sync is the sync's") {
  QueueDir d;
  std::unique_ptr<CommitQueue> queue = d.Open();
  uint64_t seq = EnqueueOrFail(*queue, CommitOf(7, 1), d.Segment("a.seg"));
  absl::Status synced = queue->SyncQueued(absl::Now() + absl::Seconds(5), [] {
    return absl::ResourceExhaustedError("no space left on device");
  });
  CHECK(absl::IsResourceExhausted(synced));
  queue->CommitSynced([](const QueuedCommit& q) {
    CHECK(q.sync_failure.has_value());
    return QueuedOutcome{q.sync_failure.value_or(absl::OkStatus()), false};
  });
  std::optional<QueuedOutcome> outcome = queue->Outcome(seq);
  REQUIRE(outcome.has_value());
  CHECK(absl::IsResourceExhausted(outcome->status));
  CHECK(std::string(outcome->status.message()) == "no space left on device");
  CHECK_FALSE(outcome->final_failure);
}

TEST_CASE("commit queue: a full queue refuses an entry until one settles") {
  QueueDir d;
  std::unique_ptr<CommitQueue> queue = d.Open();
  for (uint64_t i = 0; i < kCommitQueueSlots; ++i) {
    EnqueueOrFail(*queue, CommitOf(7, i + 1), d.Segment("a.seg"));
  }
  CHECK(absl::IsResourceExhausted(
      queue->Enqueue(CommitOf(7, 99), d.Segment("a.seg"), "base").status()));
  LAKE_CHECK_OK(queue->SyncQueued(absl::Now() + absl::Seconds(5)));
  CHECK(CommitAll(*queue).size() == kCommitQueueSlots);
  LAKE_CHECK_OK(queue->Enqueue(CommitOf(7, 99), d.Segment("a.seg"), "base").status());
}

TEST_CASE("commit queue: an entry too large for a slot is refused, and nothing is queued") {
  QueueDir d;
  std::unique_ptr<CommitQueue> queue = d.Open();
  std::string long_path = d.dir.Join(std::string(kCommitQueueSlotBytes, 'x'));
  CHECK_FALSE(CommitQueue::Fits(long_path.size(), 16));
  CHECK(absl::IsInvalidArgument(queue->Enqueue(CommitOf(7, 1), long_path, "base").status()));
  CHECK(queue->empty());
}

TEST_CASE("commit queue: the outcome of an entry whose slot was reused is NotFound") {
  QueueDir d;
  std::unique_ptr<CommitQueue> queue = d.Open();
  uint64_t first = EnqueueOrFail(*queue, CommitOf(7, 1), d.Segment("a.seg"));
  LAKE_CHECK_OK(queue->SyncQueued(absl::Now() + absl::Seconds(5)));
  CommitAll(*queue);
  for (uint64_t i = 0; i < kCommitQueueSlots; ++i) {
    EnqueueOrFail(*queue, CommitOf(7, i + 2), d.Segment("a.seg"));
  }
  std::optional<QueuedOutcome> outcome = queue->Outcome(first);
  REQUIRE(outcome.has_value());
  CHECK(absl::IsNotFound(outcome->status));
}

TEST_CASE(
    "commit queue: a sync another process holds past the deadline is Aborted, nothing synced") {
  QueueDir d;
  std::unique_ptr<CommitQueue> queue = d.Open();
  uint64_t seq = EnqueueOrFail(*queue, CommitOf(7, 1), d.Segment("a.seg"));
  // The sync lock is an exclusive flock on the queue file.
  int held = ::open(d.dir.Join(std::string(kCommitQueueName)).c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(held >= 0);
  REQUIRE(::flock(held, LOCK_EX) == 0);
  absl::Status synced = queue->SyncQueued(absl::Now() + absl::Milliseconds(50));
  CHECK(absl::IsAborted(synced));
  CHECK_FALSE(queue->Synced(seq));
  ::close(held);
  LAKE_CHECK_OK(queue->SyncQueued(absl::Now() + absl::Seconds(5)));
  CHECK(queue->Synced(seq));
}

TEST_CASE("commit queue: an entry naming no table log segment is damaged, and never synced") {
  QueueDir d;
  std::unique_ptr<CommitQueue> queue = d.Open();
  std::ofstream(d.dir.Join("elsewhere.seg")) << "not a segment of a table log";
  for (const std::string& path :
       {d.dir.Join("elsewhere.seg"), d.Segment("../a.seg"), d.Segment("a.log"), d.Segment(""),
        d.dir.Join("tables/ns/t/data/a.seg"), d.dir.Join("tables/ns/_log/a.seg"),
        std::string("tables/ns/t/_log/a.seg/x"), std::string("/etc/passwd")}) {
    CAPTURE(path);
    uint64_t seq = EnqueueOrFail(*queue, CommitOf(7, 1), path);
    CHECK(absl::IsDataLoss(queue->Queued().status()));
    CHECK(absl::IsDataLoss(queue->SyncQueued(absl::Now() + absl::Seconds(5))));
    CHECK(CommitAll(*queue).empty());
    std::optional<QueuedOutcome> outcome = queue->Outcome(seq);
    REQUIRE(outcome.has_value());
    CHECK(absl::IsDataLoss(outcome->status));
  }
}

TEST_CASE("commit queue: a failed entry whose failure reads as OK is damage, never a success") {
  QueueDir d;
  std::unique_ptr<CommitQueue> queue = d.Open();
  uint64_t seq = EnqueueOrFail(*queue, CommitOf(7, 1), d.Segment("a.seg"));
  REQUIRE(seq % kCommitQueueSlots == 0);
  {
    // Slot 0 (after the 4096-byte header): state (offset 8) failed,
    // failure code (offset 12) 0, which is OK's.
    std::fstream f(d.dir.Join(std::string(kCommitQueueName)),
                   std::ios::in | std::ios::out | std::ios::binary);
    const uint32_t failed_state_and_ok_code[2] = {3, 0};
    f.seekp(4096 + 8);
    f.write(reinterpret_cast<const char*>(failed_state_and_ok_code),
            sizeof(failed_state_and_ok_code));
  }
  std::optional<QueuedOutcome> outcome = queue->Outcome(seq);
  REQUIRE(outcome.has_value());
  CHECK(absl::IsDataLoss(outcome->status));
}

}  // namespace
}  // namespace lake::table
