// Append checkpoints as table log records (append_record_format.h,
// logged_checkpoints.h), with versions in the table log: where a
// checkpoint is written, how it is withdrawn, what is pending (a
// checkpoint record past the committed watermark, not withdrawn, its
// operation not committed), and that recovery, the listing of pending
// appends, a discard and the collector work over the log. Crashes at the
// new steps — a SIGKILLed child and a simulated power loss — and the
// sequence kill → reopen → append → power loss. Appends commit one at a
// time here (group commit off): a killed writer's append is then pending
// at once; queued, it is pending only after a restart, and before one a
// later writer commits it (commit_queue_test.cc).
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "base/failpoint.h"
#include "engine/gc/live_references.h"
#include "engine/gc/plan_apply.h"
#include "engine/managed_key.h"
#include "engine/sha256.h"
#include "engine/table/append_record_format.h"
#include "engine/table/logged_checkpoints.h"
#include "engine/table/pending_append_error.h"
#include "engine/table/table_log.h"
#include "io/posix/posix_file_system.h"
#include "tests/support/episodes_table.h"
#include "tests/support/fault_injection_file_system.h"
#include "tests/support/gc_fixture.h"
#include "tests/support/stage_fixture.h"
#include "tests/support/status_checks.h"
#include "tests/support/table_fixture.h"
#include "tests/support/test_files.h"

namespace lake {
namespace {

using table::CellValue;
using table::TableLogRecordKind;
using testing::TableRoot;

constexpr char kTable[] = "robots.episodes";
constexpr char kInsert[] = "INSERT INTO robots.episodes (episode_id, video) VALUES (?, ?)";

void CreateTable(io::FileSystem& fs, const std::string& dir) {
  absl::StatusOr<std::unique_ptr<TableRoot>> root = TableRoot::Open(fs, dir);
  LAKE_REQUIRE_OK(root);
  table::Schema schema;
  schema.columns = {{"episode_id", table::ColumnType::kUtf8}, {"video", table::ColumnType::kFile}};
  LAKE_REQUIRE_OK((*root)->tables->CreateTable(*table::ParseTableName(kTable), schema));
}

absl::Status InsertOne(TableRoot& root, const std::string& id, const std::vector<uint8_t>& bytes) {
  testing::MemorySource source(bytes);
  return root.Insert(kInsert, {CellValue{id}, sql::FileFromSource{&source, "video/mp4"}}).status();
}

std::string TableDirOf(TableRoot& root) {
  return root.tables->TableDir(*table::ParseTableName(kTable));
}

// The kinds of every valid record of the table's log, in order.
std::vector<TableLogRecordKind> LogKinds(io::FileSystem& fs, const std::string& table_dir) {
  std::vector<TableLogRecordKind> kinds;
  LAKE_CHECK_OK(table::ReadTableLogFrom(
      fs, table_dir, {}, [&](const table::TableLogAddress&, const table::TableLogRecord& r) {
        kinds.push_back(r.kind);
        return absl::OkStatus();
      }));
  return kinds;
}

struct LoggedRecord {
  table::TableLogAddress address;
  TableLogRecordKind kind;
  std::string payload;
};
// Every valid record of the table's log, in order.
std::vector<LoggedRecord> LogRecords(io::FileSystem& fs, const std::string& table_dir) {
  std::vector<LoggedRecord> records;
  LAKE_CHECK_OK(table::ReadTableLogFrom(
      fs, table_dir, {}, [&](const table::TableLogAddress& a, const table::TableLogRecord& r) {
        records.push_back(LoggedRecord{a, r.kind, std::string(r.payload)});
        return absl::OkStatus();
      }));
  return records;
}

// The last checkpoint record naming its fragment (checkpoint format
// version 2) in the table's log, decoded (without reading the fragment);
// NotFound when none is there.
absl::StatusOr<table::AppendCheckpointReference> LastReference(io::FileSystem& fs,
                                                               const std::string& table_dir) {
  std::optional<LoggedRecord> last;
  for (LoggedRecord& r : LogRecords(fs, table_dir)) {
    if (r.kind == TableLogRecordKind::kAppendCheckpoint && table::NamesFragmentRecord(r.payload)) {
      last = std::move(r);
    }
  }
  if (!last) return absl::NotFoundError("no checkpoint record naming its fragment in the log");
  return table::DecodeAppendCheckpointReference(last->payload);
}

// Flips one byte of the segment file at `offset`, as a lost page would
// leave it.
void FlipByte(const std::string& table_dir, uint64_t segment, uint64_t offset) {
  std::fstream f(table_dir + "/" + table::TableLogSegmentRelativePath(segment),
                 std::ios::in | std::ios::out | std::ios::binary);
  REQUIRE(f.good());
  f.seekg(static_cast<std::streamoff>(offset));
  char c = 0;
  f.read(&c, 1);
  c = static_cast<char>(c ^ 0x5a);
  f.seekp(static_cast<std::streamoff>(offset));
  f.write(&c, 1);
  REQUIRE(f.good());
}

// The ids of the table's current rows, sorted.
std::vector<std::string> RowIds(TableRoot& root) {
  absl::StatusOr<std::vector<std::vector<CellValue>>> rows = root.Rows(kTable);
  LAKE_CHECK_OK(rows);
  std::vector<std::string> ids;
  if (!rows.ok()) return ids;
  for (const auto& row : *rows) ids.push_back(std::get<std::string>(row[0]));
  std::sort(ids.begin(), ids.end());
  return ids;
}

std::vector<table::PendingAppend> Pending(TableRoot& root) {
  absl::StatusOr<std::vector<table::PendingAppend>> pending = root.tables->PendingAppends();
  LAKE_CHECK_OK(pending);
  return pending.ok() ? *pending : std::vector<table::PendingAppend>{};
}

// Recovers `root`, requiring exactly one append committed, and that a
// second recovery finds nothing (it converged).
void RequireRecoversOneCommit(TableRoot& root) {
  absl::StatusOr<std::vector<table::RecoveredAppend>> recovered = root.tables->Recover();
  LAKE_REQUIRE_OK(recovered);
  REQUIRE(recovered->size() == 1);
  CHECK((*recovered)[0].result == table::RecoveredAppend::Result::kCommitted);
  CHECK(Pending(root).empty());
  absl::StatusOr<std::vector<table::RecoveredAppend>> again = root.tables->Recover();
  LAKE_REQUIRE_OK(again);
  CHECK(again->empty());
}

// Requires `root` to have no pending append, recovery to find none, and
// the table no rows.
void RequireNothingToRecover(TableRoot& root) {
  CHECK(Pending(root).empty());
  absl::StatusOr<std::vector<table::RecoveredAppend>> recovered = root.tables->Recover();
  LAKE_REQUIRE_OK(recovered);
  CHECK(recovered->empty());
  CHECK(RowIds(root).empty());
}

// From now on the power goes at the next table log write, before its
// sync: every unsynced byte lost, or (torn_seed != 0) each unsynced page
// lost or kept as the seed picks.
void LosePowerAtNextLogWrite(testing::FaultInjectionFileSystem& fs, uint64_t torn_seed = 0) {
  failpoint::ClearAll();
  failpoint::Set(table::kTableLogWrittenFailpoint, failpoint::Action::kCallback, [&fs, torn_seed] {
    if (torn_seed == 0) {
      fs.Crash();
    } else {
      fs.CrashTorn(torn_seed);
    }
    return absl::UnavailableError("power lost");
  });
}

// A root whose append of "e1" was SIGKILLed right after its checkpoint
// (and its version's records) became durable: the checkpoint is pending.
struct KilledAfterCheckpoint {
  KilledAfterCheckpoint() {
    CreateTable(posix, root_dir);
    testing::RunKilledAt("table_append.checkpoint_published", root_dir,
                         [&](TableRoot& root) { (void)InsertOne(root, "e1", bytes); });
  }
  testing::CrashTestRoot r;
  io::PosixFileSystem& posix = r.posix;
  const std::string& root_dir = r.root_dir;
  std::vector<uint8_t> bytes = testing::RandomBytes(5000, 41);
};

TEST_CASE("table log checkpoint: an append writes its checkpoint right after its fragment, naming it, no file") {
  testing::ScopedVersionsInTableLog in_log;
  testing::ScopedGroupCommitOff one_at_a_time;
  testing::TempDir dir;
  io::PosixFileSystem fs;
  CreateTable(fs, dir.path());
  auto root = testing::OpenTableRootOrStop(fs, dir.path());
  LAKE_REQUIRE_OK(InsertOne(*root, "e1", testing::RandomBytes(1000, 1)));
  CHECK(LogKinds(fs, TableDirOf(*root)) ==
        std::vector<TableLogRecordKind>{TableLogRecordKind::kFragment,
                                        TableLogRecordKind::kAppendCheckpoint,
                                        TableLogRecordKind::kReferenceDelta,
                                        TableLogRecordKind::kManifest});
  CHECK(testing::CheckpointFilesExceptSpares(dir.path() + "/checkpoints").empty());
  CHECK(Pending(*root).empty());  // committed: behind the watermark
}

TEST_CASE("table log checkpoint: an append's checkpoint record holds no batch: it names the fragment record before it") {
  testing::ScopedVersionsInTableLog in_log;
  testing::ScopedGroupCommitOff one_at_a_time;
  testing::TempDir dir;
  io::PosixFileSystem fs;
  CreateTable(fs, dir.path());
  auto root = testing::OpenTableRootOrStop(fs, dir.path());
  LAKE_REQUIRE_OK(InsertOne(*root, "e1", testing::RandomBytes(1000, 3)));
  std::vector<LoggedRecord> records = LogRecords(fs, TableDirOf(*root));
  REQUIRE(records.size() == 4);
  REQUIRE(records[1].kind == TableLogRecordKind::kAppendCheckpoint);
  CHECK(table::NamesFragmentRecord(records[1].payload));
  absl::StatusOr<table::AppendCheckpointReference> reference =
      table::DecodeAppendCheckpointReference(records[1].payload);
  LAKE_REQUIRE_OK(reference);
  CHECK(reference->fragment == records[0].address);
  CHECK(reference->checkpoint.batch_sha256 == Sha256Hex(records[0].payload));
  CHECK(records[1].payload.size() < 1024);
  CHECK(records[1].payload.find(records[0].payload) == std::string::npos);
}

TEST_CASE("table log checkpoint: the committed watermark is the end of the current manifest record") {
  table::TableLogAddress manifest{3, 4096, 500};
  CHECK(table::CommittedLogWatermark(table::FormatTableLogAddress(manifest)) ==
        table::TableLogPosition{3, 4096 + table::kTableLogRecordHeaderBytes + 500});
  CHECK(table::CommittedLogWatermark("_versions/00000000000000000001.manifest") ==
        table::TableLogPosition{});
  CHECK(table::CommittedLogWatermark("") == table::TableLogPosition{});
}

TEST_CASE("table log checkpoint: a failure before the commit call withdraws the checkpoint with a record") {
  REQUIRE(failpoint::Enabled());
  testing::ScopedVersionsInTableLog in_log;
  testing::ScopedGroupCommitOff one_at_a_time;
  testing::TempDir dir;
  io::PosixFileSystem fs;
  CreateTable(fs, dir.path());
  auto root = testing::OpenTableRootOrStop(fs, dir.path());
  failpoint::ClearAll();
  failpoint::Set("table_append.reference_delta_written", failpoint::Action::kError);
  absl::Status failed = InsertOne(*root, "e1", testing::RandomBytes(1000, 2));
  failpoint::ClearAll();
  REQUIRE_FALSE(failed.ok());
  CHECK_FALSE(table::GetPendingOperationId(failed).has_value());  // certainly not committed
  std::vector<TableLogRecordKind> kinds = LogKinds(fs, TableDirOf(*root));
  REQUIRE(!kinds.empty());
  CHECK(kinds.back() == TableLogRecordKind::kAppendWithdrawal);
  RequireNothingToRecover(*root);
  // Running it again appends once.
  LAKE_REQUIRE_OK(InsertOne(*root, "e1", testing::RandomBytes(1000, 2)));
  CHECK(RowIds(*root) == std::vector<std::string>{"e1"});
}

TEST_CASE("table log checkpoint: a checkpoint past the watermark is pending, and recovery commits it once") {
  REQUIRE(failpoint::Enabled());
  testing::ScopedVersionsInTableLog in_log;
  testing::ScopedGroupCommitOff one_at_a_time;
  KilledAfterCheckpoint killed;
  auto root = testing::OpenTableRootOrStop(killed.posix, killed.root_dir);
  std::vector<table::PendingAppend> pending = Pending(*root);
  REQUIRE(pending.size() == 1);
  CHECK(pending[0].state == table::PendingAppend::State::kReplayable);
  CHECK(pending[0].table == kTable);
  CHECK(pending[0].checkpoint.path.find("/_log/") != std::string::npos);
  CHECK(testing::CheckpointFilesExceptSpares(killed.root_dir + "/checkpoints").empty());
  absl::StatusOr<std::vector<table::RecoveredAppend>> recovered = root->tables->Recover();
  LAKE_REQUIRE_OK(recovered);
  REQUIRE(recovered->size() == 1);
  CHECK((*recovered)[0].result == table::RecoveredAppend::Result::kCommitted);
  CHECK((*recovered)[0].operation_id == pending[0].checkpoint.operation_id);
  CHECK(RowIds(*root) == std::vector<std::string>{"e1"});
  CHECK(root->StageObjects().size() == 1);  // no second upload
  CHECK(Pending(*root).empty());
  absl::StatusOr<std::vector<table::RecoveredAppend>> again = root->tables->Recover();
  LAKE_REQUIRE_OK(again);
  CHECK(again->empty());
  CHECK(RowIds(*root) == std::vector<std::string>{"e1"});
}

TEST_CASE("table log checkpoint: a later commit carries a pending checkpoint past its watermark") {
  REQUIRE(failpoint::Enabled());
  testing::ScopedVersionsInTableLog in_log;
  testing::ScopedGroupCommitOff one_at_a_time;
  KilledAfterCheckpoint killed;
  auto root = testing::OpenTableRootOrStop(killed.posix, killed.root_dir);
  LAKE_REQUIRE_OK(InsertOne(*root, "e2", testing::RandomBytes(700, 42)));
  LAKE_REQUIRE_OK(InsertOne(*root, "e3", testing::RandomBytes(700, 43)));
  std::vector<table::PendingAppend> pending = Pending(*root);
  REQUIRE(pending.size() == 1);
  CHECK(pending[0].state == table::PendingAppend::State::kReplayable);
  absl::StatusOr<std::vector<table::RecoveredAppend>> recovered = root->tables->Recover();
  LAKE_REQUIRE_OK(recovered);
  REQUIRE(recovered->size() == 1);
  CHECK((*recovered)[0].result == table::RecoveredAppend::Result::kCommitted);
  CHECK(RowIds(*root) == std::vector<std::string>{"e1", "e2", "e3"});
  CHECK(Pending(*root).empty());
}

TEST_CASE("table log checkpoint: kill, reopen, append, power loss: the pending append survives and recovers once") {
  REQUIRE(failpoint::Enabled());
  testing::ScopedVersionsInTableLog in_log;
  testing::ScopedGroupCommitOff one_at_a_time;
  KilledAfterCheckpoint killed;
  {
    testing::FaultInjectionFileSystem fs(killed.r.posix, killed.r.backups);
    auto root = testing::OpenTableRootOrStop(fs, killed.root_dir);
    LAKE_REQUIRE_OK(InsertOne(*root, "e2", testing::RandomBytes(700, 44)));
    fs.Crash();  // everything not synced is gone
  }
  auto root = testing::OpenTableRootOrStop(killed.posix, killed.root_dir);
  absl::StatusOr<std::vector<table::RecoveredAppend>> recovered = root->tables->Recover();
  LAKE_REQUIRE_OK(recovered);
  REQUIRE(recovered->size() == 1);
  CHECK((*recovered)[0].result == table::RecoveredAppend::Result::kCommitted);
  CHECK(RowIds(*root) == std::vector<std::string>{"e1", "e2"});
  CHECK(root->StageObjects().size() == 2);
  CHECK(Pending(*root).empty());
}

TEST_CASE("table log checkpoint: a discard withdraws a logged checkpoint durably; recovery never commits it") {
  REQUIRE(failpoint::Enabled());
  testing::ScopedVersionsInTableLog in_log;
  testing::ScopedGroupCommitOff one_at_a_time;
  KilledAfterCheckpoint killed;
  std::string operation_id;
  {
    testing::FaultInjectionFileSystem fs(killed.r.posix, killed.r.backups);
    auto root = testing::OpenTableRootOrStop(fs, killed.root_dir);
    std::vector<table::PendingAppend> pending = Pending(*root);
    REQUIRE(pending.size() == 1);
    operation_id = pending[0].checkpoint.operation_id;
    absl::StatusOr<std::string> discarded = root->tables->DiscardPendingAppend(operation_id);
    LAKE_REQUIRE_OK(discarded);
    CHECK(*discarded == pending[0].checkpoint.path);
    fs.Crash();  // the withdrawal was synced: it stays
  }
  auto root = testing::OpenTableRootOrStop(killed.posix, killed.root_dir);
  CHECK(Pending(*root).empty());
  absl::StatusOr<std::vector<table::RecoveredAppend>> recovered = root->tables->Recover();
  LAKE_REQUIRE_OK(recovered);
  CHECK(recovered->empty());
  CHECK(RowIds(*root).empty());
  CHECK(absl::IsNotFound(root->tables->DiscardPendingAppend(operation_id).status()));
}

TEST_CASE("table log checkpoint: the collector keeps a pending checkpoint's objects and its segment") {
  REQUIRE(failpoint::Enabled());
  testing::ScopedVersionsInTableLog in_log;
  testing::ScopedGroupCommitOff one_at_a_time;
  KilledAfterCheckpoint killed;
  testing::GcTestRoot gc_root(nullptr, killed.root_dir);
  std::vector<std::string> uris;
  LAKE_REQUIRE_OK(gc::ForEachLiveReference(
      gc_root.View(), absl::Now(), absl::Hours(1), absl::InfinitePast(),
      [&](std::string_view uri, const DataLocation*, const gc::Referrer&) -> absl::Status {
        uris.emplace_back(uri);
        return absl::OkStatus();
      }));
  std::vector<std::string> objects = gc_root.tables().StageObjects();
  REQUIRE(objects.size() == 1);
  auto has_suffix = [&](std::string_view suffix) {
    return std::any_of(uris.begin(), uris.end(), [&](const std::string& uri) {
      return uri.size() >= suffix.size() && uri.substr(uri.size() - suffix.size()) == suffix;
    });
  };
  CHECK(std::find(uris.begin(), uris.end(), objects[0]) != uris.end());
  // The segment holding the checkpoint record: the only one.
  CHECK(has_suffix(std::string("/") + table::TableLogSegmentRelativePath(1)));
}

TEST_CASE("table log checkpoint: a checkpoint file of an older append is still listed and recovered") {
  REQUIRE(failpoint::Enabled());
  testing::CrashTestRoot r;
  CreateTable(r.posix, r.root_dir);
  {
    // Written as lakes before checkpoint records wrote it: a file.
    testing::ScopedVersionsAsFiles as_files;
    testing::RunKilledAt("table_append.checkpoint_published", r.root_dir, [&](TableRoot& root) {
      (void)InsertOne(root, "e1", testing::RandomBytes(900, 45));
    });
  }
  REQUIRE(testing::CheckpointFilesExceptSpares(r.root_dir + "/checkpoints").size() == 1);
  testing::ScopedVersionsInTableLog in_log;
  testing::ScopedGroupCommitOff one_at_a_time;
  auto root = testing::OpenTableRootOrStop(r.posix, r.root_dir);
  std::vector<table::PendingAppend> pending = Pending(*root);
  REQUIRE(pending.size() == 1);
  CHECK(pending[0].checkpoint.path.find("/checkpoints/") != std::string::npos);
  CHECK(pending[0].state == table::PendingAppend::State::kReplayable);
  absl::StatusOr<std::vector<table::RecoveredAppend>> recovered = root->tables->Recover();
  LAKE_REQUIRE_OK(recovered);
  REQUIRE(recovered->size() == 1);
  CHECK((*recovered)[0].result == table::RecoveredAppend::Result::kCommitted);
  CHECK(RowIds(*root) == std::vector<std::string>{"e1"});
  CHECK(testing::CheckpointFilesExceptSpares(r.root_dir + "/checkpoints").empty());
  CHECK(Pending(*root).empty());
}

// ---- crashes at the new steps ----

// The steps of an append that fails before its commit call and withdraws
// its checkpoint: a crash at the withdrawal's write (before its sync).
TEST_CASE("table log checkpoint: a power loss at a withdrawal's write recovers to zero or one row") {
  REQUIRE(failpoint::Enabled());
  testing::ScopedVersionsInTableLog in_log;
  testing::ScopedGroupCommitOff one_at_a_time;
  testing::CrashTestRoot r;
  CreateTable(r.posix, r.root_dir);
  {
    testing::FaultInjectionFileSystem fs(r.posix, r.backups);
    auto root = testing::OpenTableRootOrStop(fs, r.root_dir);
    failpoint::ClearAll();
    failpoint::Set("table_append.reference_delta_written", failpoint::Action::kCallback, [&] {
      // The withdrawal's write comes next: the power goes after it.
      failpoint::Set(table::kTableLogWrittenFailpoint, failpoint::Action::kCallback, [&] {
        fs.Crash();
        return absl::UnavailableError("power lost");
      });
      return absl::InternalError("the delta failed");
    });
    CHECK_FALSE(InsertOne(*root, "e1", testing::RandomBytes(1000, 50)).ok());
    failpoint::ClearAll();
    CHECK(fs.crashed());
  }
  auto root = testing::OpenTableRootOrStop(r.posix, r.root_dir);
  absl::StatusOr<std::vector<table::RecoveredAppend>> recovered = root->tables->Recover();
  LAKE_REQUIRE_OK(recovered);
  // The withdrawal was not durable: the checkpoint is pending and commits
  // (the caller was not told it certainly failed: the process died).
  std::vector<std::string> ids = RowIds(*root);
  CHECK(ids.size() <= 1);
  CHECK(Pending(*root).empty());
  CHECK(root->tables->Recover()->empty());
  CHECK(RowIds(*root) == ids);
}

TEST_CASE("table log checkpoint: a child SIGKILLed at a withdrawal's write recovers to zero or one row") {
  REQUIRE(failpoint::Enabled());
  testing::ScopedVersionsInTableLog in_log;
  testing::ScopedGroupCommitOff one_at_a_time;
  testing::CrashTestRoot r;
  CreateTable(r.posix, r.root_dir);
  // The append fails before its commit call; the kill fires at its
  // withdrawal's write, before the sync (the page cache keeps the bytes).
  testing::RunKilledAt("table_append.reference_delta_written", r.root_dir, [&](TableRoot& root) {
    failpoint::Set("table_append.reference_delta_written", failpoint::Action::kCallback, [] {
      failpoint::Set(table::kTableLogWrittenFailpoint, failpoint::Action::kKill);
      return absl::InternalError("the delta failed");
    });
    (void)InsertOne(root, "e1", testing::RandomBytes(1000, 51));
  });
  auto root = testing::OpenTableRootOrStop(r.posix, r.root_dir);
  absl::StatusOr<std::vector<table::RecoveredAppend>> recovered = root->tables->Recover();
  LAKE_REQUIRE_OK(recovered);
  CHECK(recovered->empty());  // withdrawn: nothing to settle
  CHECK(RowIds(*root).empty());
  CHECK(Pending(*root).empty());
}

TEST_CASE("table log checkpoint: a power loss during a carrying commit keeps the pending append") {
  REQUIRE(failpoint::Enabled());
  testing::ScopedVersionsInTableLog in_log;
  testing::ScopedGroupCommitOff one_at_a_time;
  KilledAfterCheckpoint killed;
  {
    testing::FaultInjectionFileSystem fs(killed.r.posix, killed.r.backups);
    auto root = testing::OpenTableRootOrStop(fs, killed.root_dir);
    LosePowerAtNextLogWrite(fs);
    CHECK_FALSE(InsertOne(*root, "e2", testing::RandomBytes(700, 52)).ok());
    failpoint::ClearAll();
  }
  auto root = testing::OpenTableRootOrStop(killed.posix, killed.root_dir);
  absl::StatusOr<std::vector<table::RecoveredAppend>> recovered = root->tables->Recover();
  LAKE_REQUIRE_OK(recovered);
  CHECK(RowIds(*root) == std::vector<std::string>{"e1"});
  CHECK(Pending(*root).empty());
}

// ---- the checkpoint naming its fragment record (format version 2) ----

TEST_CASE("table log checkpoint: recovery replays a checkpoint naming its fragment once, and converges") {
  REQUIRE(failpoint::Enabled());
  testing::ScopedVersionsInTableLog in_log;
  testing::ScopedGroupCommitOff one_at_a_time;
  KilledAfterCheckpoint killed;
  auto root = testing::OpenTableRootOrStop(killed.posix, killed.root_dir);
  const std::string table_dir = TableDirOf(*root);
  LAKE_REQUIRE_OK(LastReference(killed.posix, table_dir));
  std::vector<table::PendingAppend> pending = Pending(*root);
  REQUIRE(pending.size() == 1);
  CHECK(pending[0].state == table::PendingAppend::State::kReplayable);
  RequireRecoversOneCommit(*root);
  CHECK(RowIds(*root) == std::vector<std::string>{"e1"});
  CHECK(root->StageObjects().size() == 1);
}

TEST_CASE("table log checkpoint: a carried copy of a checkpoint naming its fragment holds its batch") {
  REQUIRE(failpoint::Enabled());
  testing::ScopedVersionsInTableLog in_log;
  testing::ScopedGroupCommitOff one_at_a_time;
  KilledAfterCheckpoint killed;
  auto root = testing::OpenTableRootOrStop(killed.posix, killed.root_dir);
  const std::string table_dir = TableDirOf(*root);
  absl::StatusOr<table::AppendCheckpointReference> reference = LastReference(killed.posix, table_dir);
  LAKE_REQUIRE_OK(reference);
  LAKE_REQUIRE_OK(InsertOne(*root, "e2", testing::RandomBytes(700, 60)));
  // After e2's manifest: the copy, self-contained (format version 1).
  std::vector<LoggedRecord> records = LogRecords(killed.posix, table_dir);
  REQUIRE(records.back().kind == TableLogRecordKind::kAppendCheckpoint);
  CHECK_FALSE(table::NamesFragmentRecord(records.back().payload));
  absl::StatusOr<table::AppendCheckpoint> copy = table::DecodeCheckpointRecord(
      {TableLogRecordKind::kAppendCheckpoint, reference->checkpoint.base_version + 1,
       records.back().payload});
  LAKE_REQUIRE_OK(copy);
  CHECK(copy->operation_id == reference->checkpoint.operation_id);
  CHECK(copy->batch_sha256 == reference->checkpoint.batch_sha256);
  CHECK(Sha256Hex(copy->batch) == copy->batch_sha256);
  CHECK(Pending(*root).size() == 1);
  RequireRecoversOneCommit(*root);
  CHECK(RowIds(*root) == std::vector<std::string>{"e1", "e2"});
}

TEST_CASE("table log checkpoint: a torn write that lost the checkpoint's fragment leaves no checkpoint") {
  REQUIRE(failpoint::Enabled());
  testing::ScopedVersionsInTableLog in_log;
  testing::ScopedGroupCommitOff one_at_a_time;
  KilledAfterCheckpoint killed;
  io::PosixFileSystem& fs = killed.posix;
  std::string table_dir;
  {
    auto root = testing::OpenTableRootOrStop(fs, killed.root_dir);
    table_dir = TableDirOf(*root);
    REQUIRE(Pending(*root).size() == 1);
  }
  absl::StatusOr<table::AppendCheckpointReference> reference = LastReference(fs, table_dir);
  LAKE_REQUIRE_OK(reference);
  // The fragment's page lost, the checkpoint's kept.
  FlipByte(table_dir, reference->fragment.segment,
           reference->fragment.offset + table::kTableLogRecordHeaderBytes + 1);
  auto root = testing::OpenTableRootOrStop(fs, killed.root_dir);
  CHECK(absl::IsNotFound(LastReference(fs, table_dir).status()));
  RequireNothingToRecover(*root);
  // The torn tail is left alone: the next append goes to a new segment.
  LAKE_REQUIRE_OK(InsertOne(*root, "e2", testing::RandomBytes(700, 61)));
  CHECK(RowIds(*root) == std::vector<std::string>{"e2"});
  CHECK(Pending(*root).empty());
}

TEST_CASE("table log checkpoint: a named fragment not matching its digest is a stuck, damaged checkpoint that a discard settles") {
  REQUIRE(failpoint::Enabled());
  testing::ScopedVersionsInTableLog in_log;
  testing::ScopedGroupCommitOff one_at_a_time;
  KilledAfterCheckpoint killed;
  io::PosixFileSystem& fs = killed.posix;
  auto root = testing::OpenTableRootOrStop(fs, killed.root_dir);
  const std::string table_dir = TableDirOf(*root);
  absl::StatusOr<table::AppendCheckpointReference> reference = LastReference(fs, table_dir);
  LAKE_REQUIRE_OK(reference);
  // A whole, valid fragment record that is not the batch, and a checkpoint
  // record naming it, appended past the watermark (as damage no checksum
  // catches would leave them).
  table::AppendCheckpoint other = reference->checkpoint;
  other.operation_id = NewUuidV7();  // recent: not past the retention horizon
  table::TableLogWriter writer(fs);
  absl::StatusOr<table::TableLogAppend> append = writer.Begin(table_dir, 4096);
  LAKE_REQUIRE_OK(append);
  const uint64_t version = other.base_version + 1;
  table::TableLogAddress fragment = append->Add(
      {TableLogRecordKind::kFragment, version, std::string("not the batch it names")});
  absl::StatusOr<std::string> payload = table::EncodeAppendCheckpointReference(other, fragment);
  LAKE_REQUIRE_OK(payload);
  table::TableLogAddress named =
      append->Add({TableLogRecordKind::kAppendCheckpoint, version, *payload});
  LAKE_REQUIRE_OK(append->Commit());

  std::vector<table::PendingAppend> pending = Pending(*root);
  REQUIRE(pending.size() == 2);
  const table::PendingAppend& damaged = pending[1];
  CHECK(damaged.checkpoint.operation_id == other.operation_id);
  CHECK(damaged.state == table::PendingAppend::State::kStuck);
  CHECK(damaged.reason.find("SHA-256") != std::string::npos);
  CHECK(damaged.reason.find(table::FormatTableLogAddress(named)) != std::string::npos);
  // The collector fails closed on it.
  testing::GcTestRoot gc_root(nullptr, killed.root_dir);
  CHECK_FALSE(gc::ForEachLiveReference(gc_root.View(), absl::Now(), absl::Hours(1),
                                       absl::InfinitePast(),
                                       [](std::string_view, const DataLocation*,
                                          const gc::Referrer&) { return absl::OkStatus(); })
                  .ok());
  // Its operation is known: a discard settles it; the other one recovers.
  LAKE_REQUIRE_OK(root->tables->DiscardPendingAppend(other.operation_id));
  RequireRecoversOneCommit(*root);
  CHECK(RowIds(*root) == std::vector<std::string>{"e1"});
}

// Every test root opened while it lives rolls a new segment for each
// version's records.
struct ScopedSegmentPerVersion {
  ScopedSegmentPerVersion() { testing::DefaultTableStoreOptions().table_log_segment_bytes = kRoll; }
  ~ScopedSegmentPerVersion() { testing::DefaultTableStoreOptions().table_log_segment_bytes = saved; }
  static constexpr uint64_t kRoll = table::kTableLogSegmentHeaderBytes + 64;
  uint64_t saved = testing::DefaultTableStoreOptions().table_log_segment_bytes;
};

TEST_CASE("table log checkpoint: once carried, the segment of a checkpoint naming its fragment may be collected; the copy recovers") {
  REQUIRE(failpoint::Enabled());
  testing::ScopedVersionsInTableLog in_log;
  testing::ScopedGroupCommitOff one_at_a_time;
  ScopedSegmentPerVersion roll;
  KilledAfterCheckpoint killed;  // e1 pending, in a segment of its own
  testing::GcTestRoot gc_root(nullptr, killed.root_dir);
  TableRoot& root = gc_root.tables();
  const std::string table_dir = TableDirOf(root);
  absl::StatusOr<table::AppendCheckpointReference> reference = LastReference(killed.posix, table_dir);
  LAKE_REQUIRE_OK(reference);
  const std::string original_segment =
      table_dir + "/" + table::TableLogSegmentRelativePath(reference->fragment.segment);
  // e2's commit, in a later segment, carries e1's checkpoint with its batch.
  LAKE_REQUIRE_OK(InsertOne(root, "e2", testing::RandomBytes(700, 66)));
  REQUIRE(Pending(root).size() == 1);
  LAKE_REQUIRE_OK(root.tables->Expire(*table::ParseTableName(kTable), {.keep_last = 1}));
  gc_root.AgeEverything(absl::Hours(48));
  absl::StatusOr<gc::PlanSummary> plan = gc_root.Plan();
  LAKE_REQUIRE_OK(plan);
  LAKE_REQUIRE_OK(gc::ApplyPlan(gc_root.View(), plan->manifest.plan_id, {}));
  CHECK_FALSE(std::filesystem::exists(original_segment));  // nothing needs it now
  RequireRecoversOneCommit(root);
  CHECK(RowIds(root) == std::vector<std::string>{"e1", "e2"});
  CHECK(root.StageObjects().size() == 2);
}

// The new step: an append's fragment and the checkpoint naming it, written
// in one write; a crash before its sync.
TEST_CASE("table log checkpoint: a power loss at an append's write leaves no row and no checkpoint") {
  REQUIRE(failpoint::Enabled());
  testing::ScopedVersionsInTableLog in_log;
  testing::ScopedGroupCommitOff one_at_a_time;
  testing::CrashTestRoot r;
  CreateTable(r.posix, r.root_dir);
  {
    testing::FaultInjectionFileSystem fs(r.posix, r.backups);
    auto root = testing::OpenTableRootOrStop(fs, r.root_dir);
    LosePowerAtNextLogWrite(fs);
    CHECK_FALSE(InsertOne(*root, "e1", testing::RandomBytes(1000, 62)).ok());
    failpoint::ClearAll();
    CHECK(fs.crashed());
  }
  auto root = testing::OpenTableRootOrStop(r.posix, r.root_dir);
  RequireNothingToRecover(*root);
  LAKE_REQUIRE_OK(InsertOne(*root, "e1", testing::RandomBytes(1000, 62)));
  CHECK(RowIds(*root) == std::vector<std::string>{"e1"});
}

TEST_CASE("table log checkpoint: torn power losses at an append's write never leave a checkpoint without its fragment") {
  REQUIRE(failpoint::Enabled());
  testing::ScopedVersionsInTableLog in_log;
  testing::ScopedGroupCommitOff one_at_a_time;
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    CAPTURE(seed);
    testing::CrashTestRoot r;
    CreateTable(r.posix, r.root_dir);
    {
      testing::FaultInjectionFileSystem fs(r.posix, r.backups);
      auto root = testing::OpenTableRootOrStop(fs, r.root_dir);
      LosePowerAtNextLogWrite(fs, seed);
      const std::vector<uint8_t> bytes = testing::RandomBytes(300, 63);
      testing::MemorySource source(bytes);
      // An id long enough that the fragment spans pages of its own.
      std::string id(12000, static_cast<char>('a' + seed));
      (void)root->Insert(kInsert, {CellValue{id}, sql::FileFromSource{&source, "video/mp4"}});
      failpoint::ClearAll();
      CHECK(fs.crashed());
    }
    auto root = testing::OpenTableRootOrStop(r.posix, r.root_dir);
    const std::string table_dir = TableDirOf(*root);
    // Every checkpoint the log shows resolves: its fragment survived whole.
    std::vector<table::PendingAppend> pending = Pending(*root);
    CHECK(pending.size() <= 1);
    for (const table::PendingAppend& p : pending) {
      CHECK(p.state == table::PendingAppend::State::kReplayable);
    }
    absl::StatusOr<std::vector<table::RecoveredAppend>> recovered = root->tables->Recover();
    LAKE_REQUIRE_OK(recovered);
    CHECK(recovered->size() == pending.size());
    const size_t rows = RowIds(*root).size();
    CHECK(rows == pending.size());
    CHECK(Pending(*root).empty());
    CHECK(root->tables->Recover()->empty());
    CHECK(RowIds(*root).size() == rows);
  }
}

TEST_CASE("table log checkpoint: a child SIGKILLed at an append's write recovers to one row") {
  REQUIRE(failpoint::Enabled());
  testing::ScopedVersionsInTableLog in_log;
  testing::ScopedGroupCommitOff one_at_a_time;
  testing::CrashTestRoot r;
  CreateTable(r.posix, r.root_dir);
  // Killed after the write, before its sync: the page cache keeps the
  // fragment and the checkpoint naming it.
  testing::RunKilledAt(table::kTableLogWrittenFailpoint, r.root_dir,
                       [&](TableRoot& root) { (void)InsertOne(root, "e1", testing::RandomBytes(1000, 64)); });
  auto root = testing::OpenTableRootOrStop(r.posix, r.root_dir);
  LAKE_CHECK_OK(LastReference(r.posix, TableDirOf(*root)));
  std::vector<table::PendingAppend> pending = Pending(*root);
  REQUIRE(pending.size() == 1);
  CHECK(pending[0].state == table::PendingAppend::State::kReplayable);
  RequireRecoversOneCommit(*root);
  CHECK(RowIds(*root) == std::vector<std::string>{"e1"});
}

TEST_CASE("table log checkpoint: a child SIGKILLed at a carrying commit's write keeps the pending append") {
  REQUIRE(failpoint::Enabled());
  testing::ScopedVersionsInTableLog in_log;
  testing::ScopedGroupCommitOff one_at_a_time;
  KilledAfterCheckpoint killed;
  // e2's commit carries e1's checkpoint, made whole; killed before its sync.
  testing::RunKilledAt(table::kTableLogWrittenFailpoint, killed.root_dir,
                       [&](TableRoot& root) { (void)InsertOne(root, "e2", testing::RandomBytes(700, 65)); });
  auto root = testing::OpenTableRootOrStop(killed.posix, killed.root_dir);
  std::vector<table::PendingAppend> pending = Pending(*root);
  REQUIRE_FALSE(pending.empty());
  for (const table::PendingAppend& p : pending) {
    CHECK(p.state == table::PendingAppend::State::kReplayable);
  }
  absl::StatusOr<std::vector<table::RecoveredAppend>> recovered = root->tables->Recover();
  LAKE_REQUIRE_OK(recovered);
  CHECK(RowIds(*root) == std::vector<std::string>{"e1", "e2"});
  CHECK(Pending(*root).empty());
  CHECK(root->tables->Recover()->empty());
  CHECK(RowIds(*root) == std::vector<std::string>{"e1", "e2"});
}

}  // namespace
}  // namespace lake
