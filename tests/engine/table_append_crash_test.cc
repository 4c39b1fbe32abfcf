// Crash safety of the append path (table_store.h), at each of its steps
// on both layouts of a version (table log records, files of their own),
// twice: a child process SIGKILLed there, and a simulated power loss there
// (the fault-injecting file system drops everything lake had not fsynced).
// Then recovery as a restarted process runs it, and the invariants:
//   - a crash before the checkpoint: zero new rows, the version unchanged,
//     the uploaded object present but unreferenced;
//   - a crash at any later step: exactly one new row after recovery, and
//     still exactly one object in the stage (no second upload);
//   - no checkpoint is left after recovery.
// And what the caller of an append that failed (without a crash) is told:
// a failure before the commit call leaves no checkpoint, so recovery
// commits nothing and running the append again appends once; a failure
// that may have committed names the operation and keeps its checkpoint.
// The registry is RocksDB, which writes through its own file layer: the
// tests of a single append keep its writes (that append's commit marks the
// table, a synced write). The tests of deferred commits (registry.h) lose
// its unsynced writes too (registry_power_loss.h), and recover as the
// machine's next boot.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <functional>
#include <thread>
#include <variant>

#include "absl/strings/match.h"
#include "base/failpoint.h"
#include "engine/gc/plan_apply.h"
#include "engine/table/manifest_chain.h"
#include "engine/table/manifest_format.h"
#include "engine/table/pending_append_error.h"
#include "registry/registry.h"
#include "io/posix/posix_file_system.h"
#include "tests/support/episodes_table.h"
#include "tests/support/fault_injection_file_system.h"
#include "tests/support/gc_fixture.h"
#include "tests/support/registry_power_loss.h"
#include "tests/support/stage_fixture.h"
#include "tests/support/status_checks.h"
#include "tests/support/table_fixture.h"
#include "tests/support/test_files.h"

namespace lake {
namespace {

using table::CellValue;
using testing::TableRoot;

constexpr char kTable[] = "robots.episodes";
constexpr char kInsert[] = "INSERT INTO robots.episodes (episode_id, video) VALUES (?, ?)";

bool BeforeCheckpoint(std::string_view step) { return step == "table_append.prepared"; }
// A step at which the checkpoint may or may not be durable yet: the table
// log's records are written (and queued, for group commit) but not synced.
bool CheckpointRacing(std::string_view step) {
  return step == table::kTableLogWrittenFailpoint || step == table::kCommitQueueQueuedFailpoint;
}

void CreateTable(io::FileSystem& fs, const std::string& dir) {
  absl::StatusOr<std::unique_ptr<TableRoot>> root = TableRoot::Open(fs, dir);
  LAKE_REQUIRE_OK(root);
  table::Schema schema;
  schema.columns = {{"episode_id", table::ColumnType::kUtf8}, {"video", table::ColumnType::kFile}};
  LAKE_REQUIRE_OK((*root)->tables->CreateTable(*table::ParseTableName(kTable), schema));
}

absl::Status InsertOne(TableRoot& root, const std::vector<uint8_t>& bytes) {
  testing::MemorySource source(bytes);
  return root.Insert(kInsert, {CellValue{"e1"}, sql::FileFromSource{&source, "video/mp4"}})
      .status();
}

// Recovers the root on the real file system and checks the invariants.
void RecoverAndCheck(const std::string& dir, std::string_view step,
                     const std::vector<uint8_t>& bytes) {
  absl::StatusOr<io::FileSystem*> fs = io::DefaultFileSystem();
  REQUIRE(fs.ok());
  absl::StatusOr<std::unique_ptr<TableRoot>> root = TableRoot::Open(**fs, dir);
  LAKE_REQUIRE_OK(root);
  absl::StatusOr<std::vector<table::RecoveredAppend>> recovered = (*root)->tables->Recover();
  LAKE_REQUIRE_OK(recovered);
  for (const table::RecoveredAppend& r : *recovered) {
    CAPTURE(r.message);
    CHECK((r.result == table::RecoveredAppend::Result::kCommitted ||
           r.result == table::RecoveredAppend::Result::kAlreadyCommitted));
  }
  auto rows = (*root)->Rows(kTable);
  LAKE_REQUIRE_OK(rows);
  absl::StatusOr<registry::TableRecord> table =
      (*root)->tables->GetTable(*table::ParseTableName(kTable));
  LAKE_REQUIRE_OK(table);
  std::vector<std::string> objects = (*root)->StageObjects();
  CHECK(objects.size() == 1);  // uploaded once, never twice
  auto refs = (*root)->References(kTable);
  LAKE_REQUIRE_OK(refs);
  if (CheckpointRacing(step) && rows->empty()) {
    // The checkpoint did not survive: nothing committed, nothing pending.
    CHECK(table->current_version == 0);
    CHECK(refs->empty());
  } else if (BeforeCheckpoint(step)) {
    CHECK(rows->empty());
    CHECK(table->current_version == 0);
    CHECK(refs->empty());  // the object is unreferenced, for GC
  } else {
    REQUIRE(rows->size() == 1);
    CHECK(table->current_version == 1);
    const DataLocation& location = std::get<DataLocation>((*rows)[0][1]);
    CHECK(location.sha256 == testing::Sha256Hex(bytes));
    REQUIRE(refs->size() == 1);
    CHECK((*refs)[0] == location);
    // The row's object reads back verified.
    absl::StatusOr<std::unique_ptr<ObjectReader>> reader = (*root)->stage->OpenVerified(location);
    LAKE_REQUIRE_OK(reader);
    std::vector<uint8_t> back;
    LAKE_CHECK_OK(testing::ReadAll(**reader, &back));
    CHECK(back == bytes);
  }
  CHECK(testing::CheckpointFilesExceptSpares(dir + "/checkpoints").empty());
  // A second recovery changes nothing.
  absl::StatusOr<std::vector<table::RecoveredAppend>> again = (*root)->tables->Recover();
  LAKE_REQUIRE_OK(again);
  CHECK(again->empty());
  CHECK((*root)->Rows(kTable)->size() == rows->size());
}

TEST_CASE("table append: the failpoint list names every step an append passes, in order") {
  REQUIRE(failpoint::Enabled());
  testing::TempDir dir;
  io::PosixFileSystem fs;
  CreateTable(fs, dir.path());
  failpoint::ClearAll();
  {
    absl::StatusOr<std::unique_ptr<TableRoot>> root = TableRoot::Open(fs, dir.path());
    LAKE_REQUIRE_OK(root);
    LAKE_REQUIRE_OK(InsertOne(**root, testing::RandomBytes(1000, 1)));
  }
  for (std::string_view step : table::kTableAppendFailpoints) {
    CAPTURE(std::string(step));
    CHECK(failpoint::HitCount(step) == 1);
  }
  failpoint::ClearAll();
}

// The steps an append passes on `layout`: the table log's adds one between
// its records' write and their sync, and group commit (on by default) one
// once the append is queued and one between its registry commit and its
// settlement.
std::vector<std::string_view> AppendSteps(testing::VersionLayout layout) {
  std::vector<std::string_view> steps(table::kTableAppendFailpoints.begin(),
                                      table::kTableAppendFailpoints.end());
  if (layout == testing::VersionLayout::kTableLog) {
    steps.insert(steps.begin() + 1, table::kTableLogWrittenFailpoint);
    steps.insert(steps.begin() + 2, table::kCommitQueueQueuedFailpoint);
    steps.insert(steps.end() - 2, table::kCommitQueueCommittedFailpoint);
  }
  return steps;
}

TEST_CASE("table append: a child SIGKILLed at each step of either layout recovers to zero or one row, one upload") {
  REQUIRE(failpoint::Enabled());
  std::vector<uint8_t> bytes = testing::RandomBytes(300000, 2);
  for (testing::VersionLayout layout : testing::kVersionLayouts) {
    testing::ScopedVersionLayout scoped(layout);
    for (std::string_view step : AppendSteps(layout)) {
      CAPTURE(testing::VersionLayoutName(layout));
      CAPTURE(std::string(step));
      testing::TempDir dir;
      io::PosixFileSystem posix;
      CreateTable(posix, dir.path());
      testing::RunKilledAt(step, dir.path(), [&](TableRoot& root) { (void)InsertOne(root, bytes); });
      RecoverAndCheck(dir.path(), step, bytes);
    }
  }
}

// A root holding the table, and what a fault-injecting file system over it
// needs (its Crash() is the power loss).
struct PowerLossRoot : testing::CrashTestRoot {
  PowerLossRoot() { CreateTable(posix, root_dir); }
};

// Inserts `bytes` into the root of `r` on a fault-injecting file system
// whose power is lost at `step`: the insert fails, the power is lost.
void InsertWithPowerLossAt(testing::CrashTestRoot& r, std::string_view step,
                           const std::vector<uint8_t>& bytes) {
  testing::FaultInjectionFileSystem fs(r.posix, r.backups);
  absl::StatusOr<std::unique_ptr<TableRoot>> root = TableRoot::Open(fs, r.root_dir);
  LAKE_REQUIRE_OK(root);
  failpoint::ClearAll();
  failpoint::Set(step, failpoint::Action::kCallback, [&] {
    fs.Crash();
    return absl::UnavailableError("power lost");
  });
  absl::Status inserted = InsertOne(**root, bytes);
  failpoint::ClearAll();
  CHECK_FALSE(inserted.ok());
  CHECK(fs.crashed());
}

TEST_CASE("table append: a power loss at each step of either layout recovers to zero or one row, one upload") {
  REQUIRE(failpoint::Enabled());
  std::vector<uint8_t> bytes = testing::RandomBytes(300000, 3);
  for (testing::VersionLayout layout : testing::kVersionLayouts) {
    testing::ScopedVersionLayout scoped(layout);
    for (std::string_view step : AppendSteps(layout)) {
      CAPTURE(testing::VersionLayoutName(layout));
      CAPTURE(std::string(step));
      PowerLossRoot r;
      InsertWithPowerLossAt(r, step, bytes);
      RecoverAndCheck(r.root_dir, step, bytes);
    }
  }
}

// ---- the table log layout ----

TEST_CASE("table append in the table log: a version's files are records of one segment") {
  testing::ScopedVersionsInTableLog in_log;
  testing::TempDir dir;
  io::PosixFileSystem fs;
  CreateTable(fs, dir.path());
  absl::StatusOr<std::unique_ptr<TableRoot>> root = TableRoot::Open(fs, dir.path());
  LAKE_REQUIRE_OK(root);
  for (int i = 0; i < 5; ++i) LAKE_REQUIRE_OK(InsertOne(**root, testing::RandomBytes(1000, 10 + i)));
  const std::string table_dir = (*root)->tables->TableDir(*table::ParseTableName(kTable));
  // No file per version: the segment, created once.
  CHECK(testing::FilesUnder(table_dir) ==
        std::vector<std::string>{table::TableLogSegmentRelativePath(1)});
  absl::StatusOr<std::vector<registry::VersionRecord>> versions =
      (*root)->tables->ListVersions(*table::ParseTableName(kTable));
  LAKE_REQUIRE_OK(versions);
  REQUIRE(versions->size() == 5);
  for (const registry::VersionRecord& v : *versions) {
    CAPTURE(v.version);
    CHECK(table::IsTableLogPath(v.manifest_path));
    CHECK((*root)->Rows(kTable, v.version)->size() == v.version);
  }
  CHECK((*root)->References(kTable)->size() == 5);
  CHECK((*root)->CurrentReferences(kTable)->size() == 5);
}

// ---- an append whose manifest is a link to its parent's ----

// A table of kLinkedRows one-row versions, each with its own upload: big
// enough that the next version's manifest is a link (manifest_chain.h),
// not a checkpoint. Made once, copied per step.
constexpr uint64_t kLinkedRows = 40;

const std::string& LinkedTableTemplate() {
  static testing::TempDir dir;  // removed at exit (a forked child _exits)
  static const bool made = [] {
    io::PosixFileSystem fs;
    CreateTable(fs, dir.path());
    absl::StatusOr<std::unique_ptr<TableRoot>> root = TableRoot::Open(fs, dir.path());
    LAKE_REQUIRE_OK(root);
    for (uint64_t i = 0; i < kLinkedRows; ++i) {
      LAKE_REQUIRE_OK(InsertOne(**root, testing::RandomBytes(100, 100 + i)));
    }
    return true;
  }();
  (void)made;
  return dir.path();
}

void CopyLinkedTable(const std::string& to) {
  std::filesystem::copy(LinkedTableTemplate(), to, std::filesystem::copy_options::recursive);
}

// After a crash at `step` of the append of version kLinkedRows + 1 and
// recovery: the table holds the rows before it, or one more; the new
// version's manifest is a link; every version reads its own rows.
void RecoverLinkedAndCheck(const std::string& dir, std::string_view step) {
  absl::StatusOr<io::FileSystem*> fs = io::DefaultFileSystem();
  REQUIRE(fs.ok());
  absl::StatusOr<std::unique_ptr<TableRoot>> root = TableRoot::Open(**fs, dir);
  LAKE_REQUIRE_OK(root);
  absl::StatusOr<std::vector<table::RecoveredAppend>> recovered = (*root)->tables->Recover();
  LAKE_REQUIRE_OK(recovered);
  absl::StatusOr<registry::TableRecord> table =
      (*root)->tables->GetTable(*table::ParseTableName(kTable));
  LAKE_REQUIRE_OK(table);
  const uint64_t expected = BeforeCheckpoint(step) ? kLinkedRows : kLinkedRows + 1;
  REQUIRE(table->current_version == expected);
  if (expected > kLinkedRows) {
    const std::string manifest = testing::ReadTablePathBytes(
        (*root)->tables->TableDir(table->name), testing::ManifestPathOf(**root, kTable, expected));
    absl::StatusOr<table::ManifestFile> file = table::DecodeManifestFile(manifest);
    LAKE_REQUIRE_OK(file);
    CHECK(std::holds_alternative<table::ManifestLink>(*file));
  }
  for (uint64_t v = 1; v <= expected; ++v) {
    CAPTURE(v);
    absl::StatusOr<std::vector<std::vector<CellValue>>> rows = (*root)->Rows(kTable, v);
    LAKE_REQUIRE_OK(rows);
    CHECK(rows->size() == v);
  }
  CHECK((*root)->StageObjects().size() == kLinkedRows + 1);  // uploaded once
  CHECK((*root)->References(kTable)->size() == expected);
  CHECK(testing::CheckpointFilesExceptSpares(dir + "/checkpoints").empty());
}

TEST_CASE("table append: a child SIGKILLed at each step of an append writing a manifest link recovers whole") {
  REQUIRE(failpoint::Enabled());
  std::vector<uint8_t> bytes = testing::RandomBytes(3000, 4);
  for (std::string_view step : table::kTableAppendFailpoints) {
    CAPTURE(std::string(step));
    testing::TempDir dir;
    const std::string root_dir = dir.Join("root");
    CopyLinkedTable(root_dir);
    testing::RunKilledAt(step, root_dir, [&](TableRoot& root) { (void)InsertOne(root, bytes); });
    RecoverLinkedAndCheck(root_dir, step);
  }
}

TEST_CASE("table append: a power loss at each step of an append writing a manifest link recovers whole") {
  REQUIRE(failpoint::Enabled());
  std::vector<uint8_t> bytes = testing::RandomBytes(3000, 5);
  for (std::string_view step : table::kTableAppendFailpoints) {
    CAPTURE(std::string(step));
    testing::CrashTestRoot r;
    CopyLinkedTable(r.root_dir);
    InsertWithPowerLossAt(r, step, bytes);
    RecoverLinkedAndCheck(r.root_dir, step);
  }
}

// ---- failures the caller is told of ----

// The steps after the checkpoint is published and before the commit call:
// a failure there is certain not to commit.
constexpr std::array<std::string_view, 3> kBeforeCommitCall = {
    "table_append.checkpoint_published", "table_append.fragment_written",
    "table_append.reference_delta_written"};

// The failures an append's writes meet: ENOSPC and EIO as io/ types them.
std::vector<absl::Status> StorageFailures() {
  return {absl::ResourceExhaustedError("write: No space left on device"),
          absl::UnknownError("fsync: Input/output error")};
}

std::unique_ptr<TableRoot> OpenOn(io::FileSystem& fs, const std::string& dir) {
  absl::StatusOr<std::unique_ptr<TableRoot>> root = TableRoot::Open(fs, dir);
  LAKE_REQUIRE_OK(root);
  return std::move(*root);
}

// A fresh root holding the table, open as the writer.
struct OpenTableRoot {
  testing::TempDir dir;
  io::PosixFileSystem fs;
  std::unique_ptr<TableRoot> root;
  OpenTableRoot() {
    CreateTable(fs, dir.path());
    root = OpenOn(fs, dir.path());
  }
};

// The operation ids of the pending checkpoints under `dir`.
// The operations of the root's pending appends: checkpoint files, and
// checkpoint records of the table log (versions in the log).
std::vector<std::string> PendingIds(TableRoot& root) {
  std::vector<std::string> ids;
  absl::StatusOr<std::vector<table::PendingAppend>> pending = root.tables->PendingAppends();
  LAKE_CHECK_OK(pending);
  if (!pending.ok()) return {"PendingAppends failed"};
  for (const table::PendingAppend& p : *pending) ids.push_back(p.checkpoint.operation_id);
  return ids;
}

TEST_CASE("table append: a failure before the commit leaves no checkpoint; a retry appends once") {
  REQUIRE(failpoint::Enabled());
  std::vector<uint8_t> bytes = testing::RandomBytes(2000, 4);
  const std::vector<absl::Status> failures = StorageFailures();
  // Each step once, the failures in turn (a root per case costs time).
  for (size_t i = 0; i < kBeforeCommitCall.size(); ++i) {
    const std::string_view step = kBeforeCommitCall[i];
    const absl::Status& failure = failures[i % failures.size()];
    CAPTURE(std::string(step));
    CAPTURE(failure.ToString());
    OpenTableRoot t;
    std::unique_ptr<TableRoot>& root = t.root;
    failpoint::ClearAll();
    failpoint::Set(step, failpoint::Action::kCallback, [&] { return failure; });
    absl::Status inserted = InsertOne(*root, bytes);
    failpoint::ClearAll();
    CHECK(inserted.code() == failure.code());
    CHECK_FALSE(table::GetPendingOperationId(inserted).has_value());
    CHECK(PendingIds(*root).empty());
    // Recovery has nothing to commit.
    absl::StatusOr<std::vector<table::RecoveredAppend>> recovered = root->tables->Recover();
    LAKE_REQUIRE_OK(recovered);
    CHECK(recovered->empty());
    CHECK(root->Rows(kTable)->empty());
    // The caller runs it again: one row, and still one after recovery.
    LAKE_REQUIRE_OK(InsertOne(*root, bytes));
    LAKE_REQUIRE_OK(root->tables->Recover());
    CHECK(root->Rows(kTable)->size() == 1);
  }
}

TEST_CASE("table append as files: a failure before the commit leaves no fragment file behind") {
  REQUIRE(failpoint::Enabled());
  testing::ScopedVersionsAsFiles as_files;
  std::vector<uint8_t> bytes = testing::RandomBytes(2000, 5);
  for (std::string_view step : kBeforeCommitCall) {
    CAPTURE(std::string(step));
    OpenTableRoot t;
    failpoint::ClearAll();
    failpoint::Set(step, failpoint::Action::kError);
    absl::Status inserted = InsertOne(*t.root, bytes);
    failpoint::ClearAll();
    REQUIRE_FALSE(inserted.ok());
    REQUIRE_FALSE(table::GetPendingOperationId(inserted).has_value());
    // Nothing references the fragment it wrote: it is gone with the append.
    const std::string data_dir = t.dir.Join("tables/robots/episodes/data");
    if (std::filesystem::exists(data_dir)) CHECK(testing::FilesUnder(data_dir).empty());
  }
}

TEST_CASE("table append: a power loss after a failure before the commit brings no checkpoint back") {
  REQUIRE(failpoint::Enabled());
  std::vector<uint8_t> bytes = testing::RandomBytes(2000, 5);
  for (std::string_view step : kBeforeCommitCall) {
    CAPTURE(std::string(step));
    PowerLossRoot r;
    {
      testing::FaultInjectionFileSystem fs(r.posix, r.backups);
      auto root = OpenOn(fs, r.root_dir);
      failpoint::ClearAll();
      failpoint::Set(step, failpoint::Action::kCallback,
                     [] { return absl::ResourceExhaustedError("write: No space left on device"); });
      absl::Status inserted = InsertOne(*root, bytes);
      failpoint::ClearAll();
      CHECK(absl::IsResourceExhausted(inserted));
      fs.Crash();  // the caller was told: now the power goes
    }
    auto root = OpenOn(r.posix, r.root_dir);
    absl::StatusOr<std::vector<table::RecoveredAppend>> recovered = root->tables->Recover();
    LAKE_REQUIRE_OK(recovered);
    CHECK(recovered->empty());
    CHECK(root->Rows(kTable)->empty());
  }
}

TEST_CASE("table append: a failure that may have committed names its operation, kept for recovery") {
  REQUIRE(failpoint::Enabled());
  std::vector<uint8_t> bytes = testing::RandomBytes(2000, 6);
  // The registry's synced write failing after it reached the log, and the
  // steps after the commit.
  for (std::string_view step : {registry::kCommitWrittenFailpoint,
                                std::string_view("table_append.committed"),
                                std::string_view("table_append.removing_checkpoint")}) {
    CAPTURE(std::string(step));
    OpenTableRoot t;
    std::unique_ptr<TableRoot>& root = t.root;
    failpoint::ClearAll();
    failpoint::Set(step, failpoint::Action::kError);
    absl::Status inserted = InsertOne(*root, bytes);
    failpoint::ClearAll();
    std::optional<std::string> pending = table::GetPendingOperationId(inserted);
    REQUIRE(pending.has_value());
    // An I/O failure, and no invitation to retry.
    CHECK(absl::IsUnknown(inserted));
    CHECK(std::string(inserted.message()).find(*pending) != std::string::npos);
    CHECK(PendingIds(*root) == std::vector<std::string>{*pending});
    absl::StatusOr<std::vector<table::RecoveredAppend>> recovered = root->tables->Recover();
    LAKE_REQUIRE_OK(recovered);
    REQUIRE(recovered->size() == 1);
    CHECK((*recovered)[0].operation_id == *pending);
    CHECK((*recovered)[0].result == table::RecoveredAppend::Result::kAlreadyCommitted);
    CHECK(root->Rows(kTable)->size() == 1);
    CHECK(PendingIds(*root).empty());
  }
}

TEST_CASE("table append as files: a checkpoint whose directory sync failed is pending, and recovery commits it") {
  REQUIRE(failpoint::Enabled());
  // A checkpoint file's (versions as files); a checkpoint record has no
  // directory sync.
  testing::ScopedVersionsAsFiles as_files;
  OpenTableRoot t;
  std::unique_ptr<TableRoot>& root = t.root;
  // Every file of the append is renamed into place, then its directory
  // sync fails: the checkpoint may or may not outlive a power loss.
  failpoint::ClearAll();
  failpoint::Set("whole_file.renamed", failpoint::Action::kError);
  absl::Status inserted = InsertOne(*root, testing::RandomBytes(2000, 7));
  failpoint::ClearAll();
  std::optional<std::string> pending = table::GetPendingOperationId(inserted);
  REQUIRE(pending.has_value());
  CHECK_FALSE(absl::IsUnavailable(inserted));  // not "try again"
  CHECK(PendingIds(*root) == std::vector<std::string>{*pending});
  CHECK(root->Rows(kTable)->empty());
  absl::StatusOr<std::vector<table::RecoveredAppend>> recovered = root->tables->Recover();
  LAKE_REQUIRE_OK(recovered);
  REQUIRE(recovered->size() == 1);
  CHECK((*recovered)[0].result == table::RecoveredAppend::Result::kCommitted);
  CHECK(root->Rows(kTable)->size() == 1);
}

TEST_CASE("table append: recovery running beside a failing append never replays it") {
  REQUIRE(failpoint::Enabled());
  OpenTableRoot t;
  std::unique_ptr<TableRoot>& root = t.root;
  std::thread recovery;
  absl::StatusOr<std::vector<table::RecoveredAppend>> recovered;
  failpoint::ClearAll();
  // The checkpoint is published; before the append fails, a recovery
  // starts and finds it.
  failpoint::Set("table_append.fragment_written", failpoint::Action::kCallback, [&] {
    recovery = std::thread([&] { recovered = root->tables->Recover(); });
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    return absl::ResourceExhaustedError("write: No space left on device");
  });
  absl::Status inserted = InsertOne(*root, testing::RandomBytes(2000, 8));
  failpoint::ClearAll();
  recovery.join();
  CHECK(absl::IsResourceExhausted(inserted));
  LAKE_REQUIRE_OK(recovered);
  for (const table::RecoveredAppend& r : *recovered) {
    CAPTURE(r.message);
    CHECK(r.result != table::RecoveredAppend::Result::kCommitted);
  }
  CHECK(root->Rows(kTable)->empty());
}

// ---- deferred commits: a power loss loses the registry's unsynced writes ----

// The boot the appends below ran in; the recovery runs in this machine's.
constexpr char kEarlierBoot[] = "boot-before-the-power-loss";

registry::RegistryOptions OnEarlierBoot(const testing::RegistryPowerLoss& power) {
  registry::RegistryOptions options;
  options.boot_id = kEarlierBoot;
  options.env = power.env();
  return options;
}

absl::Status InsertEpisode(TableRoot& root, const std::string& episode,
                           const std::vector<uint8_t>& bytes) {
  testing::MemorySource source(bytes);
  return root
      .Insert(kInsert, {CellValue{episode}, sql::FileFromSource{&source, "video/mp4"}})
      .status();
}

// The episodes of the table once the root is opened as the machine's next
// boot opens it (which redoes the lost commits), sorted; and the registry
// then holds no mark of another boot, and a second opening changes nothing.
std::vector<std::string> EpisodesAfterRestart(const std::string& dir) {
  std::vector<std::string> episodes;
  absl::StatusOr<io::FileSystem*> fs = io::DefaultFileSystem();
  REQUIRE(fs.ok());
  for (int opening = 0; opening < 2; ++opening) {
    absl::StatusOr<std::unique_ptr<TableRoot>> root = TableRoot::Open(**fs, dir);
    LAKE_REQUIRE_OK(root);
    CHECK((*root)->registry->DeferredMarksFromOtherBoots()->empty());
    auto rows = (*root)->Rows(kTable);
    LAKE_REQUIRE_OK(rows);
    std::vector<std::string> now;
    for (const auto& row : *rows) now.push_back(std::get<std::string>(row[0]));
    std::sort(now.begin(), now.end());
    if (opening == 1) CHECK(now == episodes);
    episodes = now;
    absl::StatusOr<registry::TableRecord> table =
        (*root)->tables->GetTable(*table::ParseTableName(kTable));
    LAKE_REQUIRE_OK(table);
    CHECK(table->current_version == episodes.size());  // one version per row, in order
  }
  return episodes;
}

using Episodes = std::vector<std::string>;

// The table's current version in the registry as the power loss left it,
// read as the earlier boot reads it: nothing is redone.
uint64_t VersionLeftByThePowerLoss(const std::string& dir) {
  absl::StatusOr<std::unique_ptr<registry::Registry>> registry = registry::Registry::Open(
      dir + "/registry", dir + "/writer.lock", {.boot_id = kEarlierBoot});
  LAKE_REQUIRE_OK(registry);
  absl::StatusOr<registry::TableRecord> table =
      (*registry)->GetTable(*table::ParseTableName(kTable));
  LAKE_REQUIRE_OK(table);
  return table->current_version;
}


// A root holding the table whose registry can lose power too.
struct DeferredPowerLossRoot : PowerLossRoot {
  testing::RegistryPowerLoss power;

  // Opens the root on a fault-injecting file system (its registry on
  // `power`, in the earlier boot), runs `write`, and then the power goes,
  // unless `write` made it go.
  void WriteThenLosePower(
      const std::function<void(TableRoot&, testing::FaultInjectionFileSystem&)>& write) {
    {
      testing::FaultInjectionFileSystem fs(posix, backups);
      absl::StatusOr<std::unique_ptr<TableRoot>> root = TableRoot::Open(
          fs, root_dir, testing::DefaultTableStoreOptions(), OnEarlierBoot(power));
      LAKE_REQUIRE_OK(root);
      write(**root, fs);
      if (!fs.crashed()) fs.Crash();
      power.Crash();
    }
    power.DropUnsynced();
  }
};

TEST_CASE("deferred commit: a power loss at each step of a later append recovers it on the next boot") {
  REQUIRE(failpoint::Enabled());
  testing::ScopedVersionsInTableLog in_log;
  for (std::string_view step : AppendSteps(testing::VersionLayout::kTableLog)) {
    CAPTURE(std::string(step));
    DeferredPowerLossRoot r;
    r.WriteThenLosePower([&](TableRoot& root, testing::FaultInjectionFileSystem& fs) {
      // The table's first deferred commit is synced (it marks the table).
      LAKE_REQUIRE_OK(InsertEpisode(root, "e1", testing::RandomBytes(2000, 11)));
      failpoint::ClearAll();
      failpoint::Set(step, failpoint::Action::kCallback, [&] {
        fs.Crash();
        r.power.Crash();
        return absl::UnavailableError("power lost");
      });
      CHECK_FALSE(InsertEpisode(root, "e2", testing::RandomBytes(2000, 12)).ok());
      failpoint::ClearAll();
    });
    Episodes episodes = EpisodesAfterRestart(r.root_dir);
    if (BeforeCheckpoint(step) || (CheckpointRacing(step) && episodes.size() == 1)) {
      CHECK(episodes == Episodes{"e1"});
    } else {
      CHECK(episodes == Episodes{"e1", "e2"});
    }
  }
}

TEST_CASE("deferred commit: every append acknowledged before a power loss is there after it") {
  testing::ScopedVersionsInTableLog in_log;
  DeferredPowerLossRoot r;
  Episodes acknowledged;
  r.WriteThenLosePower([&](TableRoot& root, testing::FaultInjectionFileSystem&) {
    for (int i = 1; i <= 5; ++i) {
      std::string episode = absl::StrCat("e", i);
      LAKE_REQUIRE_OK(InsertEpisode(root, episode, testing::RandomBytes(2000, 20 + i)));
      acknowledged.push_back(episode);
    }
  });
  // The power loss took the registry back to the first commit (the synced
  // one that marked the table): the four after it are redone.
  CHECK(VersionLeftByThePowerLoss(r.root_dir) == 1);
  CHECK(EpisodesAfterRestart(r.root_dir) == acknowledged);
}

TEST_CASE("deferred commit: a second writer's appends, deferred by the owner, are redone too") {
  testing::ScopedVersionsInTableLog in_log;
  DeferredPowerLossRoot r;
  Episodes acknowledged;
  r.WriteThenLosePower([&](TableRoot& owner, testing::FaultInjectionFileSystem& fs) {
    absl::StatusOr<std::unique_ptr<TableRoot>> second = TableRoot::Open(
        fs, r.root_dir, testing::DefaultTableStoreOptions(), OnEarlierBoot(r.power));
    LAKE_REQUIRE_OK(second);
    REQUIRE(owner.registry->IsOwner());
    REQUIRE_FALSE((*second)->registry->IsOwner());
    for (int i = 1; i <= 3; ++i) {
      std::string episode = absl::StrCat("e", i);
      LAKE_REQUIRE_OK(InsertEpisode(**second, episode, testing::RandomBytes(2000, 70 + i)));
      acknowledged.push_back(episode);
    }
  });
  // The owner synced the first forwarded commit (it marked the table) and
  // deferred the two after it: the power loss took them.
  CHECK(VersionLeftByThePowerLoss(r.root_dir) == 1);
  CHECK(EpisodesAfterRestart(r.root_dir) == acknowledged);
}

TEST_CASE("deferred commit: a crash keeps every commit; a power loss in the same boot after it too") {
  testing::ScopedVersionsInTableLog in_log;
  DeferredPowerLossRoot r;
  // A writer is killed after two deferred commits: the page cache keeps
  // them, and the next owner's open makes them durable.
  testing::RunKilledAt("table_append.prepared", r.root_dir, [&](TableRoot& root) {
    failpoint::ClearAll();
    if (!InsertEpisode(root, "e1", testing::RandomBytes(2000, 31)).ok()) ::_exit(20);
    if (!InsertEpisode(root, "e2", testing::RandomBytes(2000, 32)).ok()) ::_exit(21);
    failpoint::Set("table_append.prepared", failpoint::Action::kKill);
    (void)InsertEpisode(root, "never", testing::RandomBytes(2000, 33));
  });
  // The next writer, in the same boot, writes two more; then the power goes.
  r.WriteThenLosePower([&](TableRoot& root, testing::FaultInjectionFileSystem&) {
    LAKE_REQUIRE_OK(InsertEpisode(root, "e3", testing::RandomBytes(2000, 34)));
    LAKE_REQUIRE_OK(InsertEpisode(root, "e4", testing::RandomBytes(2000, 35)));
  });
  CHECK(EpisodesAfterRestart(r.root_dir) == Episodes{"e1", "e2", "e3", "e4"});
}

TEST_CASE("deferred commit: a collection after a power loss keeps the objects of the redone appends") {
  testing::ScopedVersionsInTableLog in_log;
  DeferredPowerLossRoot r;
  r.WriteThenLosePower([&](TableRoot& root, testing::FaultInjectionFileSystem&) {
    for (int i = 1; i <= 3; ++i) {
      LAKE_REQUIRE_OK(
          InsertEpisode(root, absl::StrCat("e", i), testing::RandomBytes(2000, 60 + i)));
    }
  });
  // The collector's root opens the table store first, which redoes them.
  testing::GcTestRoot collector(nullptr, r.root_dir);
  collector.AgeEverything(absl::Hours(24 * 30));
  absl::StatusOr<gc::PlanSummary> plan = collector.Plan();
  LAKE_REQUIRE_OK(plan);
  LAKE_REQUIRE_OK(gc::ApplyPlan(collector.View(), plan->manifest.plan_id, gc::ApplyOptions()));
  auto rows = collector.tables().Rows(kTable);
  LAKE_REQUIRE_OK(rows);
  REQUIRE(rows->size() == 3);
  for (const auto& row : *rows) CHECK(collector.Exists(std::get<DataLocation>(row[1])));
}

TEST_CASE("deferred commit: a writer that closes leaves nothing to redo") {
  testing::ScopedVersionsInTableLog in_log;
  PowerLossRoot r;
  testing::RegistryPowerLoss power;
  {
    absl::StatusOr<std::unique_ptr<TableRoot>> root =
        TableRoot::Open(r.posix, r.root_dir, testing::DefaultTableStoreOptions(),
                        OnEarlierBoot(power));
    LAKE_REQUIRE_OK(root);
    LAKE_REQUIRE_OK(InsertEpisode(**root, "e1", testing::RandomBytes(2000, 41)));
    LAKE_REQUIRE_OK(InsertEpisode(**root, "e2", testing::RandomBytes(2000, 42)));
  }
  power.Crash();  // after the close: it synced and cleared its mark
  power.DropUnsynced();
  absl::StatusOr<std::unique_ptr<registry::Registry>> registry = registry::Registry::Open(
      r.root_dir + "/registry", r.root_dir + "/writer.lock", {.boot_id = "another-boot"});
  LAKE_REQUIRE_OK(registry);
  CHECK((*registry)->DeferredMarksFromOtherBoots()->empty());
  CHECK((*registry)->GetTable(*table::ParseTableName(kTable))->current_version == 2);
}

TEST_CASE("deferred commit: a follower refuses to read a root whose commits a restart may have lost") {
  testing::ScopedVersionsInTableLog in_log;
  DeferredPowerLossRoot r;
  r.WriteThenLosePower([&](TableRoot& root, testing::FaultInjectionFileSystem&) {
    LAKE_REQUIRE_OK(InsertEpisode(root, "e1", testing::RandomBytes(2000, 51)));
    LAKE_REQUIRE_OK(InsertEpisode(root, "e2", testing::RandomBytes(2000, 52)));
  });
  absl::StatusOr<std::unique_ptr<TableRoot>> follower = TableRoot::Open(
      r.posix, r.root_dir, testing::DefaultTableStoreOptions(), {.read_only = true});
  CHECK(absl::IsFailedPrecondition(follower.status()));
  CHECK(absl::StrContains(follower.status().message(), "before this machine restarted"));
  // Once a writer has opened the root, followers read it all.
  CHECK(EpisodesAfterRestart(r.root_dir) == Episodes{"e1", "e2"});
  follower = TableRoot::Open(r.posix, r.root_dir, testing::DefaultTableStoreOptions(),
                             {.read_only = true});
  LAKE_REQUIRE_OK(follower);
  CHECK((*follower)->Rows(kTable)->size() == 2);
}

// ---- group commit (engine/table/commit_queue.h) ----

// The episode ids of `version` (the current one when 0), in row order.
std::vector<std::string> EpisodeIds(TableRoot& root, uint64_t version = 0) {
  auto rows = version == 0 ? root.Rows(kTable) : root.Rows(kTable, version);
  LAKE_CHECK_OK(rows);
  std::vector<std::string> ids;
  if (!rows.ok()) return ids;
  for (const auto& row : *rows) ids.push_back(std::get<std::string>(row[0]));
  return ids;
}

// A root whose writer was killed at `step` of appending episode e1.
struct KilledAppendRoot {
  explicit KilledAppendRoot(std::string_view step) {
    CreateTable(fs, dir.path());
    testing::RunKilledAt(step, dir.path(), [&](TableRoot& root) {
      (void)InsertEpisode(root, "e1", testing::RandomBytes(3000, 21));
    });
  }
  testing::ScopedVersionsInTableLog in_log;
  testing::TempDir dir;
  io::PosixFileSystem fs;
};

TEST_CASE("group commit: a writer killed once its append is queued leaves it to the next, which commits it first") {
  REQUIRE(failpoint::Enabled());
  // Its records written, not synced; its commit queued; no one settles it.
  KilledAppendRoot killed(table::kCommitQueueQueuedFailpoint);
  std::unique_ptr<TableRoot> root = OpenOn(killed.fs, killed.dir.path());
  // The next append syncs what is queued before it and commits in queue
  // order: the killed writer's first.
  LAKE_REQUIRE_OK(InsertEpisode(*root, "e2", testing::RandomBytes(3000, 22)));
  CHECK(EpisodeIds(*root, 1) == std::vector<std::string>{"e1"});
  CHECK(EpisodeIds(*root) == std::vector<std::string>{"e1", "e2"});
  CHECK(root->StageObjects().size() == 2);
  CHECK(PendingIds(*root).empty());
  absl::StatusOr<std::vector<table::RecoveredAppend>> recovered = root->tables->Recover();
  LAKE_REQUIRE_OK(recovered);
  CHECK(recovered->empty());
}

TEST_CASE("group commit: a commit that is no append settles the queue first") {
  REQUIRE(failpoint::Enabled());
  KilledAppendRoot killed(table::kCommitQueueQueuedFailpoint);
  std::unique_ptr<TableRoot> root = OpenOn(killed.fs, killed.dir.path());
  // A recovery takes the turn quiescent: the queued append commits from
  // the queue, and no checkpoint is left for recovery to replay.
  absl::StatusOr<std::vector<table::RecoveredAppend>> recovered = root->tables->Recover();
  LAKE_REQUIRE_OK(recovered);
  CHECK(recovered->empty());
  CHECK(EpisodeIds(*root) == std::vector<std::string>{"e1"});
  CHECK(PendingIds(*root).empty());
}

TEST_CASE("group commit: after a restart, an append still queued is recovered from its checkpoint, once") {
  REQUIRE(failpoint::Enabled());
  // Killed between its registry commit and its settlement: queued still,
  // and committed.
  KilledAppendRoot killed(table::kCommitQueueCommittedFailpoint);
  // The next boot empties the queue; the append is there once.
  registry::RegistryOptions next_boot;
  next_boot.boot_id = "the-next-boot";
  absl::StatusOr<std::unique_ptr<TableRoot>> root = TableRoot::Open(
      killed.fs, killed.dir.path(), testing::DefaultTableStoreOptions(), next_boot);
  LAKE_REQUIRE_OK(root);
  absl::StatusOr<std::vector<table::RecoveredAppend>> recovered = (*root)->tables->Recover();
  LAKE_REQUIRE_OK(recovered);
  CHECK(EpisodeIds(**root) == std::vector<std::string>{"e1"});
  CHECK(PendingIds(**root).empty());
  LAKE_REQUIRE_OK(InsertEpisode(**root, "e2", testing::RandomBytes(3000, 25)));
  CHECK(EpisodeIds(**root) == std::vector<std::string>{"e1", "e2"});
}

}  // namespace
}  // namespace lake
