// The registry: tables and versions in RocksDB, a version compare-and-set,
// operation records, one writer per root and read-only followers.
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <latch>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/failpoint.h"
#include "io/file_system.h"
#include "registry/commit_lock.h"
#include "registry/registry.h"
#include "registry/registry_keys.h"
#include "registry/writer_channel.h"
#include "registry/writer_lock.h"
#include "rocksdb/db.h"
#include "tests/support/status_checks.h"
#include "tests/support/test_files.h"

namespace lake::registry {
namespace {

using table::ColumnType;
using table::Schema;
using table::TableName;

Schema TwoColumns() { return Schema{{{"id", ColumnType::kInt64}, {"video", ColumnType::kFile}}}; }

std::string Hex64(char c) { return std::string(64, c); }

VersionRecord Version(uint64_t version, uint64_t parent, std::string operation_id = "") {
  return VersionRecord{version,
                       parent,
                       absl::StrCat("tables/ns/t/_lake/manifests/", version, ".manifest"),
                       Hex64('a' + static_cast<char>(version % 6)),
                       std::move(operation_id),
                       1700000000000000 + static_cast<int64_t>(version)};
}

// Creates ns.t through `registry` and commits versions 1..`versions` of it;
// the table record as created.
TableRecord TableWithVersions(Registry& registry, uint64_t versions) {
  absl::StatusOr<TableRecord> t = registry.CreateTable({"ns", "t"}, TwoColumns());
  LAKE_REQUIRE_OK(t);
  for (uint64_t v = 1; v <= versions; ++v) {
    LAKE_REQUIRE_OK(registry.CommitVersion(t->table_id, v - 1, Version(v, v - 1), std::nullopt));
  }
  return *t;
}

AppendOperationRecord Operation(std::string id, uint64_t table_id, uint64_t version) {
  return AppendOperationRecord{std::move(id), table_id, version, Hex64('f'), 1700000000000123};
}

// A clock tests move by hand.
struct FakeClock {
  std::shared_ptr<std::atomic<int64_t>> micros =
      std::make_shared<std::atomic<int64_t>>(1700000000000000);

  std::function<absl::Time()> Function() const {
    auto m = micros;
    return [m] { return absl::FromUnixMicros(m->load()); };
  }
  void Advance(absl::Duration d) { *micros += absl::ToInt64Microseconds(d); }
  int64_t Now() const { return micros->load(); }
};

// A root directory with a registry and its lock inside.
struct Root {
  testing::TempDir dir;
  std::string registry_dir() const { return dir.Join("registry"); }
  std::string lock_path() const { return dir.Join("registry.lock"); }

  std::unique_ptr<Registry> OpenWriter(RegistryOptions options = {}) {
    absl::StatusOr<std::unique_ptr<Registry>> opened =
        Registry::Open(registry_dir(), lock_path(), std::move(options));
    REQUIRE_MESSAGE(opened.ok(), opened.status().ToString());
    return std::move(*opened);
  }
  std::unique_ptr<Registry> OpenFollower(RegistryOptions options = {}) {
    options.read_only = true;
    absl::StatusOr<std::unique_ptr<Registry>> opened =
        Registry::Open(registry_dir(), lock_path(), std::move(options));
    REQUIRE_MESSAGE(opened.ok(), opened.status().ToString());
    return std::move(*opened);
  }
};

TEST_CASE("a new registry is empty") {
  Root root;
  std::unique_ptr<Registry> registry = root.OpenWriter();
  CHECK_FALSE(registry->read_only());
  CHECK(*registry->GetStageDescriptor() == std::nullopt);
  CHECK(registry->ListNamespaces()->empty());
  CHECK(registry->ListTables()->empty());
  CHECK(registry->ViewAge() == absl::ZeroDuration());
  CHECK(absl::IsNotFound(registry->GetTable({"ns", "t"}).status()));
  CHECK(absl::IsNotFound(registry->GetTableById(1).status()));
}

TEST_CASE("the stage descriptor is recorded once") {
  Root root;
  std::unique_ptr<Registry> registry = root.OpenWriter();
  const std::string local = "{\"version\":1,\"kind\":\"local\"}";
  LAKE_REQUIRE_OK(registry->PutStageDescriptorIfAbsent(local));
  CHECK(*registry->GetStageDescriptor() == local);
  LAKE_CHECK_OK(registry->PutStageDescriptorIfAbsent(local));  // the same again

  absl::Status other = registry->PutStageDescriptorIfAbsent("{\"kind\":\"s3\"}");
  CHECK(absl::IsFailedPrecondition(other));
  CHECK(other.message() == absl::StrCat("the root's stage descriptor is already ", local,
                                        "; it cannot become {\"kind\":\"s3\"}"));
  CHECK(*registry->GetStageDescriptor() == local);
  CHECK(absl::IsInvalidArgument(registry->PutStageDescriptorIfAbsent("")));
}

TEST_CASE("namespaces are created once and listed sorted") {
  Root root;
  std::unique_ptr<Registry> registry = root.OpenWriter();
  LAKE_REQUIRE_OK(registry->CreateNamespace("zeta"));
  LAKE_REQUIRE_OK(registry->CreateNamespace("alpha"));
  LAKE_REQUIRE_OK(registry->CreateNamespace("alpha_2"));
  absl::Status again = registry->CreateNamespace("zeta");
  CHECK(absl::IsAlreadyExists(again));
  CHECK(again.message() == "namespace zeta already exists");
  CHECK(absl::IsInvalidArgument(registry->CreateNamespace("no.dots")));
  CHECK(absl::IsInvalidArgument(registry->CreateNamespace("")));
  CHECK(*registry->ListNamespaces() == std::vector<std::string>{"alpha", "alpha_2", "zeta"});
}

TEST_CASE("a table is created at version 0 with the next id") {
  Root root;
  FakeClock clock;
  std::unique_ptr<Registry> registry = root.OpenWriter({.clock = clock.Function()});
  absl::StatusOr<TableRecord> created = registry->CreateTable({"media", "clips"}, TwoColumns());
  LAKE_REQUIRE_OK(created);
  const TableRecord expected{1, {"media", "clips"}, TwoColumns(), 0, "", clock.Now()};
  CHECK(*created == expected);
  CHECK(*registry->GetTable({"media", "clips"}) == expected);
  CHECK(*registry->GetTableById(1) == expected);
  CHECK(*registry->ListNamespaces() == std::vector<std::string>{"media"});  // implicitly
  CHECK(registry->ListVersions(1)->empty());
  CHECK(absl::IsNotFound(registry->GetVersion(1, 0).status()));

  absl::StatusOr<TableRecord> second = registry->CreateTable({"media", "frames"}, TwoColumns());
  LAKE_REQUIRE_OK(second);
  CHECK(second->table_id == 2);

  absl::StatusOr<TableRecord> taken = registry->CreateTable({"media", "clips"}, TwoColumns());
  CHECK(absl::IsAlreadyExists(taken.status()));
  CHECK(taken.status().message() == "table media.clips already exists");
}

TEST_CASE("bad table names and schemas are refused") {
  Root root;
  std::unique_ptr<Registry> registry = root.OpenWriter();
  CHECK(absl::IsInvalidArgument(registry->CreateTable({"ns", "bad-name"}, TwoColumns()).status()));
  CHECK(absl::IsInvalidArgument(registry->CreateTable({"", "t"}, TwoColumns()).status()));
  CHECK(absl::IsInvalidArgument(registry->CreateTable({"ns", "t"}, Schema{}).status()));
  CHECK(registry->ListTables()->empty());
  CHECK(registry->ListNamespaces()->empty());
}

TEST_CASE("tables are listed by namespace, then table") {
  Root root;
  std::unique_ptr<Registry> registry = root.OpenWriter();
  // '.' separates namespace and table in the keys; "a_b" must still sort
  // after every table of "a", as TableName's order says.
  for (TableName name : {TableName{"a_b", "c"}, TableName{"b", "x"}, TableName{"a", "z"},
                         TableName{"a", "b"}, TableName{"A", "q"}}) {
    LAKE_REQUIRE_OK(registry->CreateTable(name, TwoColumns()));
  }
  absl::StatusOr<std::vector<TableRecord>> tables = registry->ListTables();
  LAKE_REQUIRE_OK(tables);
  std::vector<std::string> names;
  std::vector<uint64_t> ids;
  for (const TableRecord& t : *tables) {
    names.push_back(t.name.ToString());
    ids.push_back(t.table_id);
  }
  CHECK(names == std::vector<std::string>{"A.q", "a.b", "a.z", "a_b.c", "b.x"});
  CHECK(ids == std::vector<uint64_t>{5, 4, 3, 1, 2});
}

TEST_CASE("a commit on the expected version advances the table") {
  Root root;
  std::unique_ptr<Registry> registry = root.OpenWriter();
  TableRecord table = *registry->CreateTable({"ns", "t"}, TwoColumns());

  absl::StatusOr<TableRecord> v1 =
      registry->CommitVersion(table.table_id, 0, Version(1, 0, "op-1"),
                              Operation("op-1", table.table_id, 1));
  LAKE_REQUIRE_OK(v1);
  CHECK(v1->current_version == 1);
  CHECK(v1->manifest_path == Version(1, 0).manifest_path);
  CHECK(*registry->GetTable({"ns", "t"}) == *v1);

  // Versions need not be consecutive, and a commit need not be an append.
  absl::StatusOr<TableRecord> v3 =
      registry->CommitVersion(table.table_id, 1, Version(3, 1), std::nullopt);
  LAKE_REQUIRE_OK(v3);
  CHECK(v3->current_version == 3);

  CHECK(*registry->GetVersion(table.table_id, 1) == Version(1, 0, "op-1"));
  CHECK(*registry->GetVersion(table.table_id, 3) == Version(3, 1));
  CHECK(absl::IsNotFound(registry->GetVersion(table.table_id, 2).status()));
  CHECK(*registry->ListVersions(table.table_id) ==
        std::vector<VersionRecord>{Version(1, 0, "op-1"), Version(3, 1)});
  CHECK(**registry->GetAppendOperation("op-1") == Operation("op-1", table.table_id, 1));
  CHECK(*registry->GetAppendOperation("op-2") == std::nullopt);
}

TEST_CASE("a commit on a stale version is a typed conflict and changes nothing") {
  Root root;
  std::unique_ptr<Registry> registry = root.OpenWriter();
  TableRecord table = *registry->CreateTable({"ns", "t"}, TwoColumns());
  LAKE_REQUIRE_OK(registry->CommitVersion(table.table_id, 0, Version(1, 0), std::nullopt));
  std::string before = *registry->Fingerprint();

  absl::StatusOr<TableRecord> lost = registry->CommitVersion(
      table.table_id, 0, Version(2, 0, "late"), Operation("late", table.table_id, 2));
  CHECK(absl::IsAborted(lost.status()));
  CHECK(lost.status().message() ==
        "version conflict on table 1: expected version 0, but the table is at version 1");
  CHECK(GetVersionConflict(lost.status()) == VersionConflict{table.table_id, 0, 1});
  CHECK(GetCommittedOperation(lost.status()) == std::nullopt);

  CHECK(*registry->Fingerprint() == before);
  CHECK(registry->GetTable({"ns", "t"})->current_version == 1);
  CHECK(registry->ListVersions(table.table_id)->size() == 1);
  CHECK(absl::IsNotFound(registry->GetVersion(table.table_id, 2).status()));
  CHECK(*registry->GetAppendOperation("late") == std::nullopt);
}

TEST_CASE("threads racing a commit from the same version: exactly one wins") {
  Root root;
  std::unique_ptr<Registry> registry = root.OpenWriter();
  TableRecord table = *registry->CreateTable({"ns", "t"}, TwoColumns());
  constexpr int kRounds = 10;
  constexpr int kThreads = 4;
  for (int round = 0; round < kRounds; ++round) {
    uint64_t from = registry->GetTable({"ns", "t"})->current_version;
    std::latch start(kThreads);
    std::atomic<int> wins = 0;
    std::atomic<int> conflicts = 0;
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        std::string op = absl::StrCat("round", round, "-thread", t);
        start.arrive_and_wait();
        absl::StatusOr<TableRecord> result = registry->CommitVersion(
            table.table_id, from, Version(from + 1, from, op),
            Operation(op, table.table_id, from + 1));
        if (result.ok()) ++wins;
        if (GetVersionConflict(result.status()) ==
            VersionConflict{table.table_id, from, from + 1}) {
          ++conflicts;
        }
      });
    }
    for (std::thread& thread : threads) thread.join();
    CHECK(wins == 1);
    CHECK(conflicts == kThreads - 1);
    CHECK(registry->GetTable({"ns", "t"})->current_version == from + 1);
  }
  CHECK(registry->ListVersions(table.table_id)->size() == kRounds);
}

TEST_CASE("a replayed operation is refused with the version it produced") {
  Root root;
  std::unique_ptr<Registry> registry = root.OpenWriter();
  TableRecord table = *registry->CreateTable({"ns", "t"}, TwoColumns());
  LAKE_REQUIRE_OK(registry->CommitVersion(table.table_id, 0, Version(1, 0, "op-a"),
                                          Operation("op-a", table.table_id, 1)));
  std::string before = *registry->Fingerprint();

  // The replay of a commit that went through: its expected version is now
  // stale, and still the answer is the operation's own version.
  absl::StatusOr<TableRecord> replay = registry->CommitVersion(
      table.table_id, 0, Version(1, 0, "op-a"), Operation("op-a", table.table_id, 1));
  CHECK(absl::IsAlreadyExists(replay.status()));
  CHECK(replay.status().message() == "operation op-a already committed version 1 of table 1");
  CHECK(GetCommittedOperation(replay.status()) == CommittedOperation{table.table_id, 1});

  // On the current version too.
  absl::StatusOr<TableRecord> again = registry->CommitVersion(
      table.table_id, 1, Version(2, 1, "op-a"), Operation("op-a", table.table_id, 2));
  CHECK(GetCommittedOperation(again.status()) == CommittedOperation{table.table_id, 1});
  CHECK(*registry->Fingerprint() == before);
  CHECK(registry->ListVersions(table.table_id)->size() == 1);
}

TEST_CASE("inconsistent commits are refused") {
  Root root;
  std::unique_ptr<Registry> registry = root.OpenWriter();
  TableRecord table = *registry->CreateTable({"ns", "t"}, TwoColumns());
  const uint64_t id = table.table_id;
  auto status = [&](uint64_t expected, const VersionRecord& next,
                    const std::optional<AppendOperationRecord>& op) {
    return registry->CommitVersion(id, expected, next, op).status();
  };
  CHECK(absl::IsInvalidArgument(status(0, Version(2, 1), std::nullopt)));  // parent != expected
  CHECK(absl::IsInvalidArgument(status(0, Version(0, 0), std::nullopt)));  // not above
  VersionRecord bad_digest = Version(1, 0);
  bad_digest.reference_delta_sha256 = Hex64('A');
  CHECK(absl::IsInvalidArgument(status(0, bad_digest, std::nullopt)));
  VersionRecord no_manifest = Version(1, 0);
  no_manifest.manifest_path = "";
  CHECK(absl::IsInvalidArgument(status(0, no_manifest, std::nullopt)));
  CHECK(absl::IsInvalidArgument(status(0, Version(1, 0, "op"), Operation("other", id, 1))));
  CHECK(absl::IsInvalidArgument(status(0, Version(1, 0, "op"), Operation("op", id, 2))));
  CHECK(absl::IsInvalidArgument(status(0, Version(1, 0, "op"), Operation("op", id + 1, 1))));
  CHECK(absl::IsInvalidArgument(status(0, Version(1, 0, "has space"), std::nullopt)));
  CHECK(absl::IsNotFound(
      registry->CommitVersion(id + 7, 0, Version(1, 0), std::nullopt).status()));
  CHECK(registry->GetTable({"ns", "t"})->current_version == 0);
}

TEST_CASE("a commit whose synced write fails may have committed, and only that error says so") {
  REQUIRE(failpoint::Enabled());
  Root root;
  std::unique_ptr<Registry> registry = root.OpenWriter();
  TableRecord table = *registry->CreateTable({"ns", "t"}, TwoColumns());
  // The errors found before the write are certain: nothing was written.
  absl::Status stale = registry->CommitVersion(table.table_id, 3, Version(4, 3), std::nullopt)
                           .status();
  CHECK(GetVersionConflict(stale).has_value());
  CHECK_FALSE(IsCommitOutcomeUnknown(stale));
  CHECK_FALSE(IsCommitOutcomeUnknown(
      registry->CommitVersion(table.table_id + 7, 0, Version(1, 0), std::nullopt).status()));
  // The write reached the log, then reported a failure.
  failpoint::ClearAll();
  failpoint::Set(kCommitWrittenFailpoint, failpoint::Action::kError);
  absl::Status failed = registry
                            ->CommitVersion(table.table_id, 0, Version(1, 0, "op-w"),
                                            Operation("op-w", table.table_id, 1))
                            .status();
  failpoint::ClearAll();
  CHECK(absl::IsUnavailable(failed));  // the write's own code
  CHECK(IsCommitOutcomeUnknown(failed));
  CHECK_FALSE(GetVersionConflict(failed).has_value());
  CHECK_FALSE(IsCommitOutcomeUnknown(absl::UnavailableError("x")));
  // And it did commit: the operation's record tells.
  CHECK(**registry->GetAppendOperation("op-w") == Operation("op-w", table.table_id, 1));
}

TEST_CASE("a second writer in the same process forwards its writes to the owner and reads them back") {
  Root root;
  std::unique_ptr<Registry> owner = root.OpenWriter();
  std::unique_ptr<Registry> second = root.OpenWriter();
  CHECK(owner->IsOwner());
  CHECK_FALSE(second->IsOwner());
  LAKE_REQUIRE_OK(second->PutStageDescriptorIfAbsent("{\"kind\":\"local\"}"));
  LAKE_REQUIRE_OK(second->CreateNamespace("empty"));
  absl::StatusOr<TableRecord> t = second->CreateTable({"ns", "t"}, TwoColumns());
  LAKE_REQUIRE_OK(t);
  absl::StatusOr<TableRecord> committed =
      second->CommitVersion(t->table_id, 0, Version(1, 0, "op"), Operation("op", t->table_id, 1));
  LAKE_REQUIRE_OK(committed);
  CHECK(committed->current_version == 1);
  // The forwarding writer reads its own writes at once; the owner has them.
  CHECK(*second->GetTable({"ns", "t"}) == *committed);
  CHECK(*owner->GetTable({"ns", "t"}) == *committed);
  CHECK(*owner->GetStageDescriptor() == "{\"kind\":\"local\"}");
  CHECK(*second->ListNamespaces() == std::vector<std::string>{"empty", "ns"});
  CHECK(second->ViewAge() >= absl::ZeroDuration());
}

TEST_CASE("a second writer's drop is forwarded to the owner; its NotFound crosses too") {
  Root root;
  std::unique_ptr<Registry> owner = root.OpenWriter();
  std::unique_ptr<Registry> second = root.OpenWriter();
  REQUIRE_FALSE(second->IsOwner());
  TableRecord t = *second->CreateTable({"ns", "t"}, TwoColumns());
  absl::StatusOr<DroppedTableRecord> dropped = second->DropTable({"ns", "t"});
  LAKE_REQUIRE_OK(dropped);
  CHECK(dropped->table == t);
  CHECK(absl::IsNotFound(owner->GetTable({"ns", "t"}).status()));
  CHECK(*owner->ListDroppedTables() == std::vector<DroppedTableRecord>{*dropped});
  CHECK(absl::IsNotFound(second->DropTable({"ns", "t"}).status()));
}

TEST_CASE("writers forward through a socket whose path is too long for a socket address") {
  testing::TempDir dir;
  std::string deep = dir.Join(std::string(60, 'd') + "/" + std::string(60, 'e'));
  std::filesystem::create_directories(deep);
  REQUIRE(deep.size() + strlen("/writer.sock") >= 108);  // sizeof(sockaddr_un::sun_path)
  absl::StatusOr<std::unique_ptr<Registry>> owner =
      Registry::Open(deep + "/registry", deep + "/writer.lock", {});
  LAKE_REQUIRE_OK(owner);
  absl::StatusOr<std::unique_ptr<Registry>> second =
      Registry::Open(deep + "/registry", deep + "/writer.lock", {});
  LAKE_REQUIRE_OK(second);
  CHECK_FALSE((*second)->IsOwner());
  LAKE_REQUIRE_OK((*second)->CreateTable({"ns", "t"}, TwoColumns()));
  CHECK((*owner)->GetTable({"ns", "t"}).ok());
}

TEST_CASE("within one commit turn a forwarding writer reads its own forwarded writes") {
  Root root;
  std::unique_ptr<Registry> owner = root.OpenWriter();
  std::unique_ptr<Registry> second = root.OpenWriter();
  TableRecord t = *owner->CreateTable({"ns", "t"}, TwoColumns());
  absl::StatusOr<CommitTurn> turn = second->AwaitCommitTurn();
  LAKE_REQUIRE_OK(turn);
  // Caught up once under the turn, then a forwarded commit: the next read
  // sees it.
  CHECK(second->GetTableById(t.table_id)->current_version == 0);
  LAKE_REQUIRE_OK(second->CommitVersion(t.table_id, 0, Version(1, 0), std::nullopt));
  CHECK(second->GetTableById(t.table_id)->current_version == 1);
  LAKE_REQUIRE_OK(second->CommitVersion(t.table_id, 1, Version(2, 1), std::nullopt));
  CHECK(second->GetTable({"ns", "t"})->current_version == 2);
  CHECK(second->ListVersions(t.table_id)->size() == 2);
}

TEST_CASE("a second writer's tags and expiries are forwarded to the owner") {
  Root root;
  std::unique_ptr<Registry> owner = root.OpenWriter();
  std::unique_ptr<Registry> second = root.OpenWriter();
  REQUIRE_FALSE(second->IsOwner());
  TableRecord t = TableWithVersions(*second, 3);
  absl::StatusOr<TagRecord> tag = second->TagVersion(t.table_id, "gold", 2);
  LAKE_REQUIRE_OK(tag);
  CHECK(tag->version == 2);
  CHECK(*owner->ListTags(t.table_id) == std::vector<TagRecord>{*tag});
  CHECK(absl::IsAlreadyExists(second->TagVersion(t.table_id, "gold", 1).status()));
  absl::StatusOr<std::vector<RetiredVersionRecord>> retired = second->RetireVersions(
      t.table_id, 3, {1}, ReferenceBaseRecord{t.table_id, 2, Hex64('c'), 0});
  LAKE_REQUIRE_OK(retired);
  REQUIRE(retired->size() == 1);
  CHECK((*retired)[0].version == 1);
  // A tagged version is refused across the channel too.
  CHECK(absl::IsFailedPrecondition(second->RetireVersions(t.table_id, 3, {2}).status()));
  LAKE_REQUIRE_OK(second->UntagVersion(t.table_id, "gold"));
  CHECK(owner->ListTags(t.table_id)->empty());
  CHECK(absl::IsNotFound(second->UntagVersion(t.table_id, "gold")));
}

TEST_CASE("a forwarded write's typed errors cross the channel with their payloads") {
  Root root;
  std::unique_ptr<Registry> owner = root.OpenWriter();
  std::unique_ptr<Registry> second = root.OpenWriter();
  TableRecord t = *owner->CreateTable({"ns", "t"}, TwoColumns());
  LAKE_REQUIRE_OK(
      owner->CommitVersion(t.table_id, 0, Version(1, 0, "op"), Operation("op", t.table_id, 1)));
  // A stale base: the conflict names both versions.
  absl::Status lost = second->CommitVersion(t.table_id, 0, Version(1, 0), std::nullopt).status();
  CHECK(absl::IsAborted(lost));
  std::optional<VersionConflict> conflict = GetVersionConflict(lost);
  REQUIRE(conflict.has_value());
  CHECK(conflict->expected_version == 0);
  CHECK(conflict->actual_version == 1);
  // A replayed operation: the version it produced.
  absl::Status replayed =
      second->CommitVersion(t.table_id, 1, Version(2, 1, "op"), Operation("op", t.table_id, 2))
          .status();
  std::optional<CommittedOperation> committed = GetCommittedOperation(replayed);
  REQUIRE(committed.has_value());
  CHECK(committed->version == 1);
  // Refusals are the owner's own.
  CHECK(absl::IsAlreadyExists(second->CreateTable({"ns", "t"}, TwoColumns()).status()));
  CHECK(absl::IsNotFound(second->CommitVersion(99, 0, Version(1, 0), std::nullopt).status()));
}

TEST_CASE("when the owner closes, the next writer to write takes the registry over") {
  Root root;
  std::unique_ptr<Registry> owner = root.OpenWriter();
  std::unique_ptr<Registry> second = root.OpenWriter();
  TableRecord t = *owner->CreateTable({"ns", "t"}, TwoColumns());
  owner.reset();
  CHECK_FALSE(second->IsOwner());
  LAKE_REQUIRE_OK(second->CommitVersion(t.table_id, 0, Version(1, 0), std::nullopt));
  CHECK(second->IsOwner());
  CHECK(second->GetTable({"ns", "t"})->current_version == 1);
  // And a third writer forwards to it.
  std::unique_ptr<Registry> third = root.OpenWriter();
  CHECK_FALSE(third->IsOwner());
  LAKE_REQUIRE_OK(third->CommitVersion(t.table_id, 1, Version(2, 1), std::nullopt));
  CHECK(second->GetTable({"ns", "t"})->current_version == 2);
}

TEST_CASE("a second writer process forwards to the owner; when the owner is killed, it takes over") {
  Root root;
  int ready[2];
  REQUIRE(::pipe(ready) == 0);
  pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    // The owner: opens first, creates the table, then waits to be killed.
    ::close(ready[0]);
    absl::StatusOr<std::unique_ptr<Registry>> owner =
        Registry::Open(root.registry_dir(), root.lock_path(), {});
    if (!owner.ok() || !(*owner)->IsOwner()) ::_exit(1);
    if (!(*owner)->CreateTable({"ns", "t"}, TwoColumns()).ok()) ::_exit(2);
    ssize_t ignored = ::write(ready[1], "x", 1);
    (void)ignored;
    for (;;) ::pause();
  }
  ::close(ready[1]);
  char byte;
  REQUIRE(::read(ready[0], &byte, 1) == 1);
  ::close(ready[0]);
  std::unique_ptr<Registry> writer = root.OpenWriter();
  CHECK_FALSE(writer->IsOwner());
  TableRecord t = *writer->GetTable({"ns", "t"});
  LAKE_REQUIRE_OK(writer->CommitVersion(t.table_id, 0, Version(1, 0), std::nullopt));
  CHECK_FALSE(writer->IsOwner());
  ::kill(child, SIGKILL);
  int wait_status = 0;
  REQUIRE(::waitpid(child, &wait_status, 0) == child);
  // Nothing listens now: the next write takes over and keeps everything.
  LAKE_REQUIRE_OK(writer->CommitVersion(t.table_id, 1, Version(2, 1), std::nullopt));
  CHECK(writer->IsOwner());
  CHECK(writer->GetTable({"ns", "t"})->current_version == 2);
  CHECK(writer->ListVersions(t.table_id)->size() == 2);
}

TEST_CASE("the commit turn is one thread's at a time; another waits at most the busy timeout") {
  Root root;
  RegistryOptions options;
  options.busy_timeout = absl::Milliseconds(100);
  std::unique_ptr<Registry> writer = root.OpenWriter(options);
  absl::StatusOr<CommitTurn> held = writer->AwaitCommitTurn();
  LAKE_REQUIRE_OK(held);
  absl::Status waited = absl::UnknownError("unset");
  absl::Duration took;
  std::thread other([&] {
    absl::Time start = absl::Now();
    waited = writer->AwaitCommitTurn().status();
    took = absl::Now() - start;
  });
  other.join();
  CHECK(absl::IsAborted(waited));
  CHECK(took >= absl::Milliseconds(100));
  CHECK(waited.message() ==
        absl::StrCat("the root is busy: another writer held its commit lock ",
                     root.dir.Join("commit.lock"), " for longer than the 100ms busy timeout"));
  // Once released, a waiter gets it.
  writer->set_busy_timeout(absl::Seconds(10));
  std::thread next([&] { waited = writer->AwaitCommitTurn().status(); });
  absl::SleepFor(absl::Milliseconds(50));
  *held = CommitTurn();
  next.join();
  LAKE_CHECK_OK(waited);
}

TEST_CASE("the owner's own writes wait for the commit turn; past the busy timeout none is made") {
  Root root;
  RegistryOptions options;
  options.busy_timeout = absl::Milliseconds(100);
  std::unique_ptr<Registry> owner = root.OpenWriter(options);
  std::unique_ptr<Registry> second = root.OpenWriter();
  REQUIRE(owner->IsOwner());
  TableRecord t = TableWithVersions(*owner, 3);
  absl::StatusOr<TagRecord> gold = owner->TagVersion(t.table_id, "gold", 2);
  LAKE_REQUIRE_OK(gold);
  absl::StatusOr<CommitTurn> held = second->AwaitCommitTurn();
  LAKE_REQUIRE_OK(held);
  CHECK(absl::IsAborted(owner->CreateNamespace("other")));
  CHECK(absl::IsAborted(owner->CreateTable({"ns", "u"}, TwoColumns()).status()));
  CHECK(absl::IsAborted(
      owner->CommitVersion(t.table_id, 3, Version(4, 3), std::nullopt).status()));
  CHECK(absl::IsAborted(owner->TagVersion(t.table_id, "silver", 1).status()));
  CHECK(absl::IsAborted(owner->UntagVersion(t.table_id, "gold")));
  CHECK(absl::IsAborted(owner->RetireVersions(t.table_id, 3, {1}).status()));
  CHECK(absl::IsAborted(owner->DropTable({"ns", "t"}).status()));
  *held = CommitTurn();
  CHECK(*owner->ListNamespaces() == std::vector<std::string>{"ns"});
  CHECK(owner->ListTables()->size() == 1);
  CHECK(owner->GetTable({"ns", "t"})->current_version == 3);
  CHECK(*owner->ListTags(t.table_id) == std::vector<TagRecord>{*gold});
  CHECK(owner->ListRetiredVersions(t.table_id)->empty());
}

TEST_CASE("the commit turn is one process's at a time; it is free once its holder dies") {
  Root root;
  RegistryOptions options;
  options.busy_timeout = absl::Milliseconds(100);
  std::unique_ptr<Registry> writer = root.OpenWriter(options);
  int ready[2];
  REQUIRE(::pipe(ready) == 0);
  pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    // Holds the turn (the same lock file, its own open file) until killed.
    absl::StatusOr<io::FileSystem*> fs = io::DefaultFileSystem();
    if (!fs.ok()) ::_exit(1);
    CommitLock lock(**fs, root.dir.Join("commit.lock"));
    absl::StatusOr<CommitTurn> turn = lock.Acquire(absl::Seconds(10));
    if (!turn.ok()) ::_exit(2);
    ssize_t ignored = ::write(ready[1], "x", 1);
    (void)ignored;
    for (;;) ::pause();
  }
  ::close(ready[1]);
  char byte;
  REQUIRE(::read(ready[0], &byte, 1) == 1);
  ::close(ready[0]);
  CHECK(absl::IsAborted(writer->AwaitCommitTurn().status()));
  ::kill(child, SIGKILL);
  int wait_status = 0;
  REQUIRE(::waitpid(child, &wait_status, 0) == child);
  LAKE_CHECK_OK(writer->AwaitCommitTurn());
}

// The child's exit status once it opened a writer and then a follower with
// every file it writes limited to `max_file_bytes` (RLIMIT_FSIZE: a write
// past it fails with EFBIG, as one fails on a full disk with ENOSPC).
int OpenWithFilesLimitedTo(const Root& root, rlim_t max_file_bytes) {
  pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::signal(SIGXFSZ, SIG_IGN);  // the write fails instead of killing
    struct rlimit limit = {max_file_bytes, max_file_bytes};
    if (::setrlimit(RLIMIT_FSIZE, &limit) != 0) ::_exit(100);
    absl::StatusOr<std::unique_ptr<Registry>> writer =
        Registry::Open(root.registry_dir(), root.lock_path(), {});
    if (!writer.ok()) ::_exit(1);
    writer->reset();
    RegistryOptions follow;
    follow.read_only = true;
    absl::StatusOr<std::unique_ptr<Registry>> follower =
        Registry::Open(root.registry_dir(), root.lock_path(), std::move(follow));
    ::_exit(follower.ok() ? 0 : 2);
  }
  int wait_status = 0;
  REQUIRE(::waitpid(child, &wait_status, 0) == child);
  return wait_status;
}

TEST_CASE("a failed write of RocksDB's own LOG is no crash: the registry opens all the same") {
  Root root;
  root.OpenWriter()->CreateNamespace("ns").IgnoreError();
  // RocksDB's LOG of one open is tens of KiB; the registry's other files
  // stay far below the limit.
  int wait_status = OpenWithFilesLimitedTo(root, 16 << 10);
  CHECK_FALSE(WIFSIGNALED(wait_status));
  REQUIRE(WIFEXITED(wait_status));
  CHECK(WEXITSTATUS(wait_status) == 0);
  CHECK(root.OpenWriter()->ListNamespaces()->size() == 1);
}

TEST_CASE("closing the writer releases the lock and keeps everything") {
  Root root;
  TableRecord committed;
  {
    std::unique_ptr<Registry> writer = root.OpenWriter();
    LAKE_REQUIRE_OK(writer->PutStageDescriptorIfAbsent("{\"kind\":\"local\"}"));
    LAKE_REQUIRE_OK(writer->CreateNamespace("empty"));
    TableRecord t = *writer->CreateTable({"ns", "t"}, TwoColumns());
    committed = *writer->CommitVersion(t.table_id, 0, Version(1, 0, "op"),
                                       Operation("op", t.table_id, 1));
  }
  CHECK_FALSE(testing::PathExists(root.lock_path()));
  std::unique_ptr<Registry> reopened = root.OpenWriter();
  CHECK(*reopened->GetStageDescriptor() == "{\"kind\":\"local\"}");
  CHECK(*reopened->ListNamespaces() == std::vector<std::string>{"empty", "ns"});
  CHECK(*reopened->GetTable({"ns", "t"}) == committed);
  CHECK(*reopened->ListVersions(committed.table_id) ==
        std::vector<VersionRecord>{Version(1, 0, "op")});
  CHECK(**reopened->GetAppendOperation("op") == Operation("op", committed.table_id, 1));
  // Ids are never reused: the counter survived.
  CHECK(reopened->CreateTable({"ns", "u"}, TwoColumns())->table_id == committed.table_id + 1);
}

TEST_CASE("a lock file left by a crashed writer does not block the next") {
  Root root;
  testing::WriteFile(root.lock_path(), {'4', '2', '\n'});
  std::unique_ptr<Registry> writer = root.OpenWriter();
  std::vector<uint8_t> pid = testing::ReadFile(root.lock_path());
  CHECK(std::string(pid.begin(), pid.end()) == absl::StrCat(::getpid(), "\n"));
}

TEST_CASE("a follower catches up once its view is older than the bound") {
  Root root;
  FakeClock clock;
  std::unique_ptr<Registry> writer = root.OpenWriter();
  TableRecord table = *writer->CreateTable({"ns", "t"}, TwoColumns());
  std::unique_ptr<Registry> follower = root.OpenFollower({.clock = clock.Function()});
  CHECK(follower->read_only());
  CHECK(follower->ViewAge() == absl::ZeroDuration());
  CHECK(follower->GetTable({"ns", "t"})->current_version == 0);

  LAKE_REQUIRE_OK(writer->CommitVersion(table.table_id, 0, Version(1, 0), std::nullopt));
  clock.Advance(absl::Milliseconds(900));
  CHECK(follower->ViewAge() == absl::Milliseconds(900));
  // Within the bound (1 s by default) the follower reads its own view.
  CHECK(follower->GetTable({"ns", "t"})->current_version == 0);

  clock.Advance(absl::Milliseconds(200));
  CHECK(follower->ViewAge() == absl::Milliseconds(1100));
  CHECK(follower->GetTable({"ns", "t"})->current_version == 1);
  CHECK(follower->ViewAge() == absl::ZeroDuration());
  CHECK(*follower->GetVersion(table.table_id, 1) == Version(1, 0));

  // An explicit catch-up does not wait for the bound.
  LAKE_REQUIRE_OK(writer->CreateTable({"ns", "u"}, TwoColumns()));
  clock.Advance(absl::Milliseconds(10));
  LAKE_REQUIRE_OK(follower->CatchUp());
  CHECK(follower->ViewAge() == absl::ZeroDuration());
  CHECK(follower->ListTables()->size() == 2);
  CHECK(*follower->Fingerprint() == *writer->Fingerprint());
}

TEST_CASE("a follower keeps following across a restart of the writer") {
  Root root;
  std::unique_ptr<Registry> writer = root.OpenWriter();
  TableRecord table = *writer->CreateTable({"ns", "t"}, TwoColumns());
  std::unique_ptr<Registry> follower = root.OpenFollower();
  LAKE_REQUIRE_OK(writer->CommitVersion(table.table_id, 0, Version(1, 0), std::nullopt));
  writer.reset();  // its reopening flushes the log into a table file
  writer = root.OpenWriter();
  LAKE_REQUIRE_OK(writer->CommitVersion(table.table_id, 1, Version(2, 1), std::nullopt));
  LAKE_REQUIRE_OK(follower->CatchUp());
  CHECK(follower->GetTable({"ns", "t"})->current_version == 2);
  CHECK(*follower->ListVersions(table.table_id) ==
        std::vector<VersionRecord>{Version(1, 0), Version(2, 1)});
}

TEST_CASE("a follower's bound is configurable") {
  Root root;
  FakeClock clock;
  std::unique_ptr<Registry> writer = root.OpenWriter();
  std::unique_ptr<Registry> follower = root.OpenFollower(
      {.follower_max_staleness = absl::ZeroDuration(), .clock = clock.Function()});
  LAKE_REQUIRE_OK(writer->CreateNamespace("ns"));
  clock.Advance(absl::Microseconds(1));
  CHECK(*follower->ListNamespaces() == std::vector<std::string>{"ns"});
}

TEST_CASE("a follower refuses writes") {
  Root root;
  std::unique_ptr<Registry> writer = root.OpenWriter();
  TableRecord table = *writer->CreateTable({"ns", "t"}, TwoColumns());
  std::unique_ptr<Registry> follower = root.OpenFollower();
  absl::Status refused = follower->CreateNamespace("other");
  CHECK(absl::IsFailedPrecondition(refused));
  CHECK(refused.message() == absl::StrCat("the registry at ", root.registry_dir(),
                                          " is open read-only: creating a namespace needs "
                                          "the writer"));
  CHECK(absl::IsFailedPrecondition(follower->CreateTable({"ns", "u"}, TwoColumns()).status()));
  CHECK(absl::IsFailedPrecondition(follower->PutStageDescriptorIfAbsent("{}")));
  CHECK(absl::IsFailedPrecondition(
      follower->CommitVersion(table.table_id, 0, Version(1, 0), std::nullopt).status()));
  LAKE_REQUIRE_OK(follower->CatchUp());
  CHECK(writer->GetTable({"ns", "t"})->current_version == 0);
  CHECK(*writer->ListNamespaces() == std::vector<std::string>{"ns"});
}

TEST_CASE("a follower of a missing registry is NotFound") {
  Root root;
  absl::StatusOr<std::unique_ptr<Registry>> opened =
      Registry::Open(root.registry_dir(), root.lock_path(), {.read_only = true});
  CHECK(absl::IsNotFound(opened.status()));
  CHECK(opened.status().message() == absl::StrCat("there is no registry at ", root.registry_dir()));
}

TEST_CASE("a follower's private directory is removed when it closes") {
  Root root;
  testing::TempDir tmp;
  std::unique_ptr<Registry> writer = root.OpenWriter();
  const char* saved = std::getenv("TMPDIR");
  std::string saved_value = saved != nullptr ? saved : "";
  ::setenv("TMPDIR", tmp.path().c_str(), 1);
  {
    std::unique_ptr<Registry> follower = root.OpenFollower();
    CHECK(testing::FilesUnder(tmp.path()).size() > 0);  // RocksDB's files
  }
  if (saved != nullptr) ::setenv("TMPDIR", saved_value.c_str(), 1);
  else ::unsetenv("TMPDIR");
  CHECK(testing::FilesUnder(tmp.path()).empty());
  CHECK(std::filesystem::is_empty(tmp.path()));
}

TEST_CASE("the fingerprint changes with every registration and commit") {
  Root root;
  std::unique_ptr<Registry> registry = root.OpenWriter();
  std::string empty = *registry->Fingerprint();
  // SHA-256 of nothing.
  CHECK(empty == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  TableRecord t = *registry->CreateTable({"ns", "t"}, TwoColumns());
  std::string one = *registry->Fingerprint();
  CHECK(one != empty);
  CHECK(*registry->Fingerprint() == one);
  LAKE_REQUIRE_OK(registry->CreateNamespace("other"));  // namespaces do not count
  CHECK(*registry->Fingerprint() == one);
  LAKE_REQUIRE_OK(registry->CommitVersion(t.table_id, 0, Version(1, 0), std::nullopt));
  CHECK(*registry->Fingerprint() != one);
}

TEST_CASE("a dropped table leaves every lookup at once; its versions stay for the collector") {
  Root root;
  FakeClock clock;
  RegistryOptions options;
  options.clock = clock.Function();
  std::unique_ptr<Registry> registry = root.OpenWriter(options);
  TableRecord t = *registry->CreateTable({"ns", "t"}, TwoColumns());
  TableRecord v1 = *registry->CommitVersion(t.table_id, 0, Version(1, 0), std::nullopt);
  std::string before = *registry->Fingerprint();
  clock.Advance(absl::Seconds(5));

  absl::StatusOr<DroppedTableRecord> dropped = registry->DropTable({"ns", "t"});
  LAKE_REQUIRE_OK(dropped);
  CHECK(dropped->table == v1);
  CHECK(dropped->dropped_unix_micros == clock.Now());
  CHECK(absl::IsNotFound(registry->GetTable({"ns", "t"}).status()));
  CHECK(absl::IsNotFound(registry->GetTableById(t.table_id).status()));
  CHECK(absl::IsNotFound(registry->ListVersions(t.table_id).status()));
  CHECK(registry->ListTables()->empty());
  CHECK(*registry->Fingerprint() != before);
  CHECK(*registry->ListDroppedTables() == std::vector<DroppedTableRecord>{*dropped});
  CHECK(*registry->ListDroppedTableVersions(t.table_id) == std::vector<VersionRecord>{Version(1, 0)});
  // A commit on the dropped table finds no table.
  CHECK(absl::IsNotFound(
      registry->CommitVersion(t.table_id, 1, Version(2, 1), std::nullopt).status()));
}

TEST_CASE("a dropped table's name is free at once; its id is never reused") {
  Root root;
  std::unique_ptr<Registry> registry = root.OpenWriter();
  TableRecord first = *registry->CreateTable({"ns", "t"}, TwoColumns());
  LAKE_REQUIRE_OK(registry->DropTable({"ns", "t"}));
  absl::StatusOr<TableRecord> second = registry->CreateTable({"ns", "t"}, TwoColumns());
  LAKE_REQUIRE_OK(second);
  CHECK(second->table_id == first.table_id + 1);
  CHECK(*registry->GetTableById(second->table_id) == *second);
  CHECK(absl::IsNotFound(registry->GetTableById(first.table_id).status()));
  LAKE_REQUIRE_OK(registry->DropTable({"ns", "t"}));
  CHECK(registry->ListDroppedTables()->size() == 2);
}

TEST_CASE("dropping an unknown table is NotFound; a follower refuses to drop") {
  Root root;
  std::unique_ptr<Registry> registry = root.OpenWriter();
  CHECK(absl::IsNotFound(registry->DropTable({"ns", "nope"}).status()));
  CHECK(absl::IsNotFound(registry->ListDroppedTableVersions(1).status()));
  LAKE_REQUIRE_OK(registry->CreateTable({"ns", "t"}, TwoColumns()));
  std::unique_ptr<Registry> follower = root.OpenFollower();
  CHECK(absl::IsFailedPrecondition(follower->DropTable({"ns", "t"}).status()));
  CHECK(registry->GetTable({"ns", "t"}).ok());
}

TEST_CASE("a drop survives a reopen; a follower sees it") {
  Root root;
  {
    std::unique_ptr<Registry> registry = root.OpenWriter();
    LAKE_REQUIRE_OK(registry->CreateTable({"ns", "t"}, TwoColumns()));
    LAKE_REQUIRE_OK(registry->DropTable({"ns", "t"}));
  }
  std::unique_ptr<Registry> follower = root.OpenFollower();
  CHECK(absl::IsNotFound(follower->GetTable({"ns", "t"}).status()));
  CHECK(follower->ListDroppedTables()->size() == 1);
}

// Writes `value` at `key` behind the registry's back.
void PutRaw(const std::string& registry_dir, const std::string& key, const std::string& value) {
  rocksdb::DB* raw = nullptr;
  rocksdb::Status opened = rocksdb::DB::Open(rocksdb::Options(), registry_dir, &raw);
  REQUIRE_MESSAGE(opened.ok(), opened.ToString());
  std::unique_ptr<rocksdb::DB> db(raw);
  rocksdb::Status put = db->Put(rocksdb::WriteOptions(), key, value);
  REQUIRE_MESSAGE(put.ok(), put.ToString());
}

std::string GetRaw(const std::string& registry_dir, const std::string& key) {
  rocksdb::DB* raw = nullptr;
  rocksdb::Status opened = rocksdb::DB::Open(rocksdb::Options(), registry_dir, &raw);
  REQUIRE_MESSAGE(opened.ok(), opened.ToString());
  std::unique_ptr<rocksdb::DB> db(raw);
  std::string value;
  rocksdb::Status got = db->Get(rocksdb::ReadOptions(), key, &value);
  REQUIRE_MESSAGE(got.ok(), got.ToString());
  return value;
}

TEST_CASE("a tag pins a committed version; a taken tag is AlreadyExists; untag frees it") {
  Root root;
  FakeClock clock;
  RegistryOptions options;
  options.clock = clock.Function();
  std::unique_ptr<Registry> registry = root.OpenWriter(options);
  TableRecord t = *registry->CreateTable({"ns", "t"}, TwoColumns());
  LAKE_REQUIRE_OK(registry->CommitVersion(t.table_id, 0, Version(1, 0), std::nullopt));
  LAKE_REQUIRE_OK(registry->CommitVersion(t.table_id, 1, Version(2, 1), std::nullopt));

  absl::StatusOr<TagRecord> tagged = registry->TagVersion(t.table_id, "golden", 1);
  LAKE_REQUIRE_OK(tagged);
  CHECK(*tagged == TagRecord{t.table_id, "golden", 1, clock.Now()});
  CHECK(absl::IsAlreadyExists(registry->TagVersion(t.table_id, "golden", 2).status()));
  CHECK(absl::IsNotFound(registry->TagVersion(t.table_id, "later", 3).status()));
  CHECK(absl::IsInvalidArgument(registry->TagVersion(t.table_id, "not a tag", 1).status()));
  CHECK(absl::IsNotFound(registry->TagVersion(t.table_id + 1, "x", 1).status()));
  LAKE_REQUIRE_OK(registry->TagVersion(t.table_id, "also", 1));
  CHECK(registry->ListTags(t.table_id)->size() == 2);

  LAKE_CHECK_OK(registry->UntagVersion(t.table_id, "golden"));
  CHECK(absl::IsNotFound(registry->UntagVersion(t.table_id, "golden")));
  CHECK(*registry->ListTags(t.table_id) ==
        std::vector<TagRecord>{{t.table_id, "also", 1, clock.Now()}});
  LAKE_CHECK_OK(registry->TagVersion(t.table_id, "golden", 2).status());
}

TEST_CASE("retiring versions: never the current one, never a tagged one; all or nothing") {
  Root root;
  FakeClock clock;
  RegistryOptions options;
  options.clock = clock.Function();
  std::unique_ptr<Registry> registry = root.OpenWriter(options);
  TableRecord t = TableWithVersions(*registry, 4);
  LAKE_REQUIRE_OK(registry->TagVersion(t.table_id, "keep", 2));

  CHECK(absl::IsFailedPrecondition(registry->RetireVersions(t.table_id, 4, {1, 4}).status()));
  CHECK(absl::IsFailedPrecondition(registry->RetireVersions(t.table_id, 4, {1, 2}).status()));
  CHECK(absl::IsAborted(registry->RetireVersions(t.table_id, 3, {1}).status()));
  CHECK(absl::IsInvalidArgument(registry->RetireVersions(t.table_id, 4, {}).status()));
  CHECK(registry->ListRetiredVersions(t.table_id)->empty());

  clock.Advance(absl::Seconds(3));
  absl::StatusOr<std::vector<RetiredVersionRecord>> retired =
      registry->RetireVersions(t.table_id, 4, {1, 3});
  LAKE_REQUIRE_OK(retired);
  std::vector<RetiredVersionRecord> expected = {{t.table_id, 1, clock.Now()},
                                                {t.table_id, 3, clock.Now()}};
  CHECK(*retired == expected);
  CHECK(*registry->ListRetiredVersions(t.table_id) == expected);
  CHECK(registry->GetRetiredVersion(t.table_id, 3)->value() == expected[1]);
  CHECK_FALSE(registry->GetRetiredVersion(t.table_id, 2)->has_value());
  // Retired once; a retired version cannot be tagged.
  CHECK(absl::IsFailedPrecondition(registry->RetireVersions(t.table_id, 4, {1}).status()));
  CHECK(absl::IsNotFound(registry->TagVersion(t.table_id, "late", 1).status()));
  // Its version record stays (the lineage replay reads its edge).
  LAKE_CHECK_OK(registry->GetVersion(t.table_id, 1).status());
}

TEST_CASE("an expiry records the reference base with its retirements; a bad base changes nothing") {
  Root root;
  std::unique_ptr<Registry> registry = root.OpenWriter();
  TableRecord t = TableWithVersions(*registry, 4);
  CHECK_FALSE(registry->GetReferenceBase(t.table_id)->has_value());
  ReferenceBaseRecord base{t.table_id, 3, Hex64('b'), 0};
  // The base among the versions retired, or of another table: refused whole.
  CHECK(absl::IsFailedPrecondition(
      registry->RetireVersions(t.table_id, 4, {1, 3}, base).status()));
  CHECK(absl::IsInvalidArgument(
      registry->RetireVersions(t.table_id, 4, {1}, ReferenceBaseRecord{9, 3, Hex64('b'), 0})
          .status()));
  CHECK(registry->ListRetiredVersions(t.table_id)->empty());
  CHECK_FALSE(registry->GetReferenceBase(t.table_id)->has_value());

  LAKE_REQUIRE_OK(registry->RetireVersions(t.table_id, 4, {1, 2}, base));
  absl::StatusOr<std::optional<ReferenceBaseRecord>> recorded =
      registry->GetReferenceBase(t.table_id);
  LAKE_REQUIRE_OK(recorded);
  REQUIRE(recorded->has_value());
  CHECK((*recorded)->version == 3);
  CHECK((*recorded)->snapshot_sha256 == Hex64('b'));
  // A base never moves back.
  LAKE_REQUIRE_OK(registry->CommitVersion(t.table_id, 4, Version(5, 4), std::nullopt));
  CHECK(absl::IsFailedPrecondition(
      registry->RetireVersions(t.table_id, 5, {4}, ReferenceBaseRecord{t.table_id, 3, Hex64('c'), 0})
          .status()));
}

TEST_CASE("tags and retirements survive a reopen; a follower sees them and refuses them") {
  Root root;
  uint64_t table_id = 0;
  {
    std::unique_ptr<Registry> registry = root.OpenWriter();
    TableRecord t = *registry->CreateTable({"ns", "t"}, TwoColumns());
    table_id = t.table_id;
    LAKE_REQUIRE_OK(registry->CommitVersion(table_id, 0, Version(1, 0), std::nullopt));
    LAKE_REQUIRE_OK(registry->CommitVersion(table_id, 1, Version(2, 1), std::nullopt));
    LAKE_REQUIRE_OK(registry->CommitVersion(table_id, 2, Version(3, 2), std::nullopt));
    LAKE_REQUIRE_OK(registry->TagVersion(table_id, "keep", 2));
    LAKE_REQUIRE_OK(registry->RetireVersions(table_id, 3, {1}));
  }
  std::unique_ptr<Registry> writer = root.OpenWriter();
  CHECK(writer->ListTags(table_id)->size() == 1);
  CHECK(writer->ListRetiredVersions(table_id)->size() == 1);
  std::unique_ptr<Registry> follower = root.OpenFollower();
  CHECK(follower->ListTags(table_id)->size() == 1);
  CHECK(follower->GetRetiredVersion(table_id, 1)->has_value());
  CHECK(absl::IsFailedPrecondition(follower->TagVersion(table_id, "x", 3).status()));
  CHECK(absl::IsFailedPrecondition(follower->UntagVersion(table_id, "keep")));
  CHECK(absl::IsFailedPrecondition(follower->RetireVersions(table_id, 3, {2}).status()));
}

TEST_CASE("a damaged value is DataLoss") {
  Root root;
  uint64_t id = 0;
  {
    std::unique_ptr<Registry> writer = root.OpenWriter();
    id = writer->CreateTable({"ns", "t"}, TwoColumns())->table_id;
    LAKE_REQUIRE_OK(writer->CreateTable({"ns", "u"}, TwoColumns()));
    LAKE_REQUIRE_OK(writer->CommitVersion(id, 0, Version(1, 0, "op"), Operation("op", id, 1)));
  }
  SUBCASE("garbage in a table record") {
    PutRaw(root.registry_dir(), TableKey({"ns", "t"}), "garbage");
    std::unique_ptr<Registry> registry = root.OpenWriter();
    CHECK(absl::IsDataLoss(registry->GetTable({"ns", "t"}).status()));
    CHECK(absl::IsDataLoss(registry->GetTableById(id).status()));
    CHECK(absl::IsDataLoss(registry->ListTables().status()));
    CHECK(absl::IsDataLoss(registry->Fingerprint().status()));
    CHECK(absl::IsDataLoss(
        registry->CommitVersion(id, 1, Version(2, 1), std::nullopt).status()));
    LAKE_CHECK_OK(registry->GetTable({"ns", "u"}));  // the others read
  }
  SUBCASE("one flipped bit in a version record") {
    std::string value = GetRaw(root.registry_dir(), VersionKey(id, 1));
    value[value.size() / 2] ^= 0x01;
    PutRaw(root.registry_dir(), VersionKey(id, 1), value);
    std::unique_ptr<Registry> registry = root.OpenWriter();
    absl::Status damaged = registry->GetVersion(id, 1).status();
    CHECK(absl::IsDataLoss(damaged));
    CHECK(damaged.message() == "registry version record is damaged: its digest does not match");
    CHECK(absl::IsDataLoss(registry->ListVersions(id).status()));
  }
  SUBCASE("an unknown format version in an operation record") {
    std::string value = GetRaw(root.registry_dir(), OperationKey("op"));
    value[0] = 2;
    PutRaw(root.registry_dir(), OperationKey("op"), value);
    std::unique_ptr<Registry> registry = root.OpenWriter();
    CHECK(absl::IsDataLoss(registry->GetAppendOperation("op").status()));
    CHECK(absl::IsDataLoss(
        registry->CommitVersion(id, 1, Version(2, 1, "op"), Operation("op", id, 2)).status()));
  }
  SUBCASE("a record under another table's key") {
    PutRaw(root.registry_dir(), TableKey({"ns", "t"}),
           GetRaw(root.registry_dir(), TableKey({"ns", "u"})));
    std::unique_ptr<Registry> registry = root.OpenWriter();
    CHECK(absl::IsDataLoss(registry->GetTable({"ns", "t"}).status()));
    CHECK(absl::IsDataLoss(registry->ListTables().status()));
  }
  SUBCASE("a damaged table id counter") {
    PutRaw(root.registry_dir(), std::string(kNextTableIdKey), "");
    std::unique_ptr<Registry> registry = root.OpenWriter();
    CHECK(absl::IsDataLoss(registry->CreateTable({"ns", "v"}, TwoColumns()).status()));
  }
}

// ---- Deferred commits ----

RegistryOptions OnBoot(std::string boot_id) {
  RegistryOptions options;
  options.boot_id = std::move(boot_id);
  return options;
}

// Commits versions 1..`versions` of table `table_id` from version 0.
void CommitVersions(Registry& registry, uint64_t table_id, uint64_t versions,
                    CommitDurability durability) {
  for (uint64_t v = 1; v <= versions; ++v) {
    LAKE_REQUIRE_OK(
        registry.CommitVersion(table_id, v - 1, Version(v, v - 1), std::nullopt, durability));
  }
}

TEST_CASE("the boot id is Linux's unless one is given") {
  Root root;
  std::string linux_boot_id;
  std::getline(std::ifstream("/proc/sys/kernel/random/boot_id"), linux_boot_id);
  REQUIRE(linux_boot_id.size() == 36);
  CHECK(root.OpenWriter()->boot_id() == linux_boot_id);
  CHECK(root.OpenWriter(OnBoot("boot-a"))->boot_id() == "boot-a");
}

TEST_CASE("deferred commits are read at once and kept when the owner closes") {
  Root root;
  uint64_t id = 0;
  {
    std::unique_ptr<Registry> writer = root.OpenWriter(OnBoot("boot-a"));
    id = writer->CreateTable({"ns", "t"}, TwoColumns())->table_id;
    CommitVersions(*writer, id, 3, CommitDurability::kDeferred);
    CHECK(writer->GetTable({"ns", "t"})->current_version == 3);
  }
  std::unique_ptr<Registry> reopened = root.OpenWriter(OnBoot("boot-b"));
  CHECK(reopened->GetTable({"ns", "t"})->current_version == 3);
  CHECK(reopened->ListVersions(id)->size() == 3);
}

TEST_CASE("a deferred commit marks its table with the boot; the owner's close clears it") {
  Root root;
  std::unique_ptr<Registry> owner = root.OpenWriter(OnBoot("boot-a"));
  uint64_t id = owner->CreateTable({"ns", "t"}, TwoColumns())->table_id;
  CommitVersions(*owner, id, 2, CommitDurability::kDeferred);
  // Seen from the same boot, the mark is no other boot's.
  CHECK(owner->DeferredMarksFromOtherBoots()->empty());
  std::unique_ptr<Registry> later = root.OpenWriter(OnBoot("boot-b"));
  REQUIRE_FALSE(later->IsOwner());
  absl::StatusOr<std::vector<DeferredMarkRecord>> marks = later->DeferredMarksFromOtherBoots();
  LAKE_REQUIRE_OK(marks);
  REQUIRE(marks->size() == 1);
  CHECK((*marks)[0].table_id == id);
  CHECK((*marks)[0].boot_id == "boot-a");
  owner.reset();
  CHECK(later->DeferredMarksFromOtherBoots()->empty());
}

TEST_CASE("an owner whose commits are all durable clears its mark as it closes") {
  Root root;
  uint64_t id = 0;
  {
    std::unique_ptr<Registry> owner = root.OpenWriter(OnBoot("boot-a"));
    id = owner->CreateTable({"ns", "t"}, TwoColumns())->table_id;
    CommitVersions(*owner, id, 1, CommitDurability::kDeferred);  // the marking one: synced
    REQUIRE(root.OpenWriter(OnBoot("boot-b"))->DeferredMarksFromOtherBoots()->size() == 1);
  }
  std::unique_ptr<Registry> later = root.OpenWriter(OnBoot("boot-b"));
  CHECK(later->DeferredMarksFromOtherBoots()->empty());
  CHECK(later->GetTable({"ns", "t"})->current_version == 1);
}

TEST_CASE("synced commits mark nothing") {
  Root root;
  std::unique_ptr<Registry> owner = root.OpenWriter(OnBoot("boot-a"));
  uint64_t id = owner->CreateTable({"ns", "t"}, TwoColumns())->table_id;
  CommitVersions(*owner, id, 2, CommitDurability::kSynced);
  CHECK(root.OpenWriter(OnBoot("boot-b"))->DeferredMarksFromOtherBoots()->empty());
}

TEST_CASE("a forwarded deferred commit is deferred by the owner, which marks the table") {
  Root root;
  std::unique_ptr<Registry> owner = root.OpenWriter(OnBoot("boot-a"));
  std::unique_ptr<Registry> second = root.OpenWriter(OnBoot("boot-a"));
  REQUIRE_FALSE(second->IsOwner());
  uint64_t id = second->CreateTable({"ns", "t"}, TwoColumns())->table_id;
  CommitVersions(*second, id, 2, CommitDurability::kDeferred);
  CHECK(owner->GetTable({"ns", "t"})->current_version == 2);
  std::vector<DeferredMarkRecord> marks =
      *root.OpenWriter(OnBoot("boot-b"))->DeferredMarksFromOtherBoots();
  REQUIRE(marks.size() == 1);
  CHECK(marks[0].table_id == id);
  CHECK(marks[0].boot_id == "boot-a");
  // The owner's close syncs what it deferred and clears its mark.
  owner.reset();
  CHECK(root.OpenWriter(OnBoot("boot-b"))->DeferredMarksFromOtherBoots()->empty());
  CHECK(second->GetTable({"ns", "t"})->current_version == 2);
}

TEST_CASE("a forwarded synced commit marks nothing") {
  Root root;
  std::unique_ptr<Registry> owner = root.OpenWriter(OnBoot("boot-a"));
  std::unique_ptr<Registry> second = root.OpenWriter(OnBoot("boot-a"));
  REQUIRE_FALSE(second->IsOwner());
  uint64_t id = second->CreateTable({"ns", "t"}, TwoColumns())->table_id;
  CommitVersions(*second, id, 2, CommitDurability::kSynced);
  CHECK(owner->GetTable({"ns", "t"})->current_version == 2);
  CHECK(root.OpenWriter(OnBoot("boot-b"))->DeferredMarksFromOtherBoots()->empty());
}

TEST_CASE("an owner older than deferred forwarding is sent the commit again, synced") {
  Root root;
  root.OpenWriter()->CreateNamespace("ns").IgnoreError();  // the registry exists
  // The older owner: it holds the writer lock and serves the channel, and
  // its decoder knows no request kind 10.
  absl::StatusOr<io::FileSystem*> fs = io::DefaultFileSystem();
  REQUIRE(fs.ok());
  absl::StatusOr<std::unique_ptr<WriterLock>> lock =
      WriterLock::Acquire(**fs, root.lock_path(), root.registry_dir());
  LAKE_REQUIRE_OK(lock);
  std::vector<ForwardedKind> received;
  const TableRecord answered{7, {"ns", "t"}, TwoColumns(), 1, "m1", 1};
  absl::StatusOr<std::unique_ptr<WriterChannelServer>> older = WriterChannelServer::Start(
      root.dir.Join(std::string(kWriterSocketName)), [&](const ForwardedWrite& write) {
        received.push_back(write.kind);
        ForwardedReply reply;
        if (write.kind == ForwardedKind::kCommitVersionDeferred) {
          reply.status = absl::InvalidArgumentError(
              "a forwarded registry write is malformed: unknown request kind 10");
        } else {
          reply.table = answered;
        }
        return reply;
      });
  LAKE_REQUIRE_OK(older);
  std::unique_ptr<Registry> writer = root.OpenWriter();
  REQUIRE_FALSE(writer->IsOwner());
  absl::StatusOr<TableRecord> committed = writer->CommitVersion(
      7, 0, Version(1, 0), std::nullopt, CommitDurability::kDeferred);
  LAKE_REQUIRE_OK(committed);
  CHECK(*committed == answered);
  CHECK(received == std::vector<ForwardedKind>{ForwardedKind::kCommitVersionDeferred,
                                               ForwardedKind::kCommitVersion});
}

TEST_CASE("an unknown boot syncs deferred commits, and every mark is another boot's") {
  Root root;
  uint64_t id = 0;
  {
    std::unique_ptr<Registry> owner = root.OpenWriter(OnBoot("boot a"));  // not a boot id
    CHECK(owner->boot_id().empty());
    id = owner->CreateTable({"ns", "t"}, TwoColumns())->table_id;
    CommitVersions(*owner, id, 1, CommitDurability::kDeferred);
    CHECK(owner->DeferredMarksFromOtherBoots()->empty());  // no mark was made
  }
  std::unique_ptr<Registry> owner = root.OpenWriter(OnBoot("boot-a"));
  LAKE_REQUIRE_OK(
      owner->CommitVersion(id, 1, Version(2, 1), std::nullopt, CommitDurability::kDeferred));
  std::unique_ptr<Registry> unknown = root.OpenWriter(OnBoot("\x01"));  // not a boot id
  CHECK(unknown->boot_id().empty());
  CHECK(unknown->DeferredMarksFromOtherBoots()->size() == 1);
}

// The exit status of a child that owns the registry on `boot_id`, creates
// ns.t, commits `versions` deferred versions of it and is then killed.
int CommitDeferredThenDie(const Root& root, const std::string& boot_id, uint64_t versions) {
  pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    absl::StatusOr<std::unique_ptr<Registry>> owner =
        Registry::Open(root.registry_dir(), root.lock_path(), OnBoot(boot_id));
    if (!owner.ok() || !(*owner)->IsOwner()) ::_exit(1);
    absl::StatusOr<TableRecord> t = (*owner)->CreateTable({"ns", "t"}, TwoColumns());
    if (!t.ok()) ::_exit(2);
    for (uint64_t v = 1; v <= versions; ++v) {
      if (!(*owner)
               ->CommitVersion(t->table_id, v - 1, Version(v, v - 1), std::nullopt,
                               CommitDurability::kDeferred)
               .ok()) {
        ::_exit(3);
      }
    }
    ::kill(::getpid(), SIGKILL);
    ::_exit(4);
  }
  int wait_status = 0;
  REQUIRE(::waitpid(child, &wait_status, 0) == child);
  return wait_status;
}

TEST_CASE("deferred commits survive their process's crash; the mark stays for a later boot") {
  Root root;
  int wait_status = CommitDeferredThenDie(root, "boot-a", 3);
  REQUIRE(WIFSIGNALED(wait_status));
  REQUIRE(WTERMSIG(wait_status) == SIGKILL);
  // The same boot: the page cache held every commit.
  CHECK(root.OpenWriter(OnBoot("boot-a"))->GetTable({"ns", "t"})->current_version == 3);
  std::unique_ptr<Registry> later = root.OpenWriter(OnBoot("boot-b"));
  absl::StatusOr<std::vector<DeferredMarkRecord>> marks = later->DeferredMarksFromOtherBoots();
  LAKE_REQUIRE_OK(marks);
  REQUIRE(marks->size() == 1);
  CHECK((*marks)[0].boot_id == "boot-a");
  LAKE_REQUIRE_OK(later->ClearDeferredMark((*marks)[0]));
  CHECK(later->DeferredMarksFromOtherBoots()->empty());
}

TEST_CASE("an owner takes over the mark a crashed owner of its boot left") {
  Root root;
  REQUIRE(WIFSIGNALED(CommitDeferredThenDie(root, "boot-a", 1)));
  std::vector<DeferredMarkRecord> left =
      *root.OpenWriter(OnBoot("boot-b"))->DeferredMarksFromOtherBoots();
  REQUIRE(left.size() == 1);
  {
    std::unique_ptr<Registry> owner = root.OpenWriter(OnBoot("boot-a"));
    const uint64_t id = owner->GetTable({"ns", "t"})->table_id;
    LAKE_REQUIRE_OK(
        owner->CommitVersion(id, 1, Version(2, 1), std::nullopt, CommitDurability::kDeferred));
    // Taken over, not marked again.
    std::vector<DeferredMarkRecord> seen =
        *root.OpenWriter(OnBoot("boot-b"))->DeferredMarksFromOtherBoots();
    REQUIRE(seen.size() == 1);
    CHECK(seen[0] == left[0]);
  }
  // Closed after an unsynced commit: synced, and the mark is gone.
  std::unique_ptr<Registry> later = root.OpenWriter(OnBoot("boot-b"));
  CHECK(later->DeferredMarksFromOtherBoots()->empty());
  CHECK(later->GetTable({"ns", "t"})->current_version == 2);
}

TEST_CASE("clearing a mark made again since changes nothing") {
  Root root;
  REQUIRE(WIFSIGNALED(CommitDeferredThenDie(root, "boot-a", 1)));
  std::unique_ptr<Registry> owner = root.OpenWriter(OnBoot("boot-b"));
  std::vector<DeferredMarkRecord> old_marks = *owner->DeferredMarksFromOtherBoots();
  REQUIRE(old_marks.size() == 1);
  LAKE_REQUIRE_OK(owner->CommitVersion(old_marks[0].table_id, 1, Version(2, 1), std::nullopt,
                                       CommitDurability::kDeferred));
  LAKE_REQUIRE_OK(owner->ClearDeferredMark(old_marks[0]));
  absl::StatusOr<std::vector<DeferredMarkRecord>> now =
      root.OpenWriter(OnBoot("boot-c"))->DeferredMarksFromOtherBoots();
  LAKE_REQUIRE_OK(now);
  REQUIRE(now->size() == 1);
  CHECK((*now)[0].boot_id == "boot-b");
}

TEST_CASE("a forwarding writer's clear of a mark reaches the owner") {
  Root root;
  REQUIRE(WIFSIGNALED(CommitDeferredThenDie(root, "boot-a", 1)));
  std::unique_ptr<Registry> owner = root.OpenWriter(OnBoot("boot-b"));
  std::unique_ptr<Registry> second = root.OpenWriter(OnBoot("boot-b"));
  REQUIRE_FALSE(second->IsOwner());
  std::vector<DeferredMarkRecord> marks = *second->DeferredMarksFromOtherBoots();
  REQUIRE(marks.size() == 1);
  LAKE_REQUIRE_OK(second->ClearDeferredMark(marks[0]));
  CHECK(owner->DeferredMarksFromOtherBoots()->empty());
  CHECK(second->DeferredMarksFromOtherBoots()->empty());
}

TEST_CASE("a follower refuses to clear a mark") {
  Root root;
  REQUIRE(WIFSIGNALED(CommitDeferredThenDie(root, "boot-a", 1)));
  RegistryOptions options = OnBoot("boot-b");
  std::unique_ptr<Registry> follower = root.OpenFollower(options);
  std::vector<DeferredMarkRecord> marks = *follower->DeferredMarksFromOtherBoots();
  REQUIRE(marks.size() == 1);
  CHECK(absl::IsFailedPrecondition(follower->ClearDeferredMark(marks[0])));
}

}  // namespace
}  // namespace lake::registry
