// Crash safety of the append path (table_store.h), at each of its steps,
// twice: a child process SIGKILLed there, and a simulated power loss there
// (the fault-injecting file system drops everything lake had not fsynced).
// Then recovery as a restarted process runs it, and the invariants:
//   - a crash before the checkpoint: zero new rows, the version unchanged,
//     the uploaded object present but unreferenced;
//   - a crash at any later step: exactly one new row after recovery, and
//     still exactly one object in the stage (no second upload);
//   - no checkpoint is left after recovery.
// The registry is RocksDB, which writes through its own file layer: a
// simulated power loss cannot drop its unsynced writes, and its commits are
// synced writes (sync = true), so what it acknowledged is what survives.
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>

#include "base/failpoint.h"
#include "io/posix/posix_file_system.h"
#include "tests/support/fault_injection_file_system.h"
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
  if (BeforeCheckpoint(step)) {
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

TEST_CASE("table append: a child SIGKILLed at each step recovers to zero or one row, one upload") {
  REQUIRE(failpoint::Enabled());
  std::vector<uint8_t> bytes = testing::RandomBytes(300000, 2);
  for (std::string_view step : table::kTableAppendFailpoints) {
    CAPTURE(std::string(step));
    testing::TempDir dir;
    io::PosixFileSystem posix;
    CreateTable(posix, dir.path());
    pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      failpoint::ClearAll();
      failpoint::Set(step, failpoint::Action::kKill);
      absl::StatusOr<io::FileSystem*> fs = io::DefaultFileSystem();
      if (!fs.ok()) ::_exit(10);
      absl::StatusOr<std::unique_ptr<TableRoot>> root = TableRoot::Open(**fs, dir.path());
      if (!root.ok()) ::_exit(11);
      (void)InsertOne(**root, bytes);
      ::_exit(13);  // the failpoint should have killed us
    }
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    REQUIRE(WIFSIGNALED(status));
    CHECK(WTERMSIG(status) == SIGKILL);
    RecoverAndCheck(dir.path(), step, bytes);
  }
}

TEST_CASE("table append: a power loss at each step recovers to zero or one row, one upload") {
  REQUIRE(failpoint::Enabled());
  std::vector<uint8_t> bytes = testing::RandomBytes(300000, 3);
  for (std::string_view step : table::kTableAppendFailpoints) {
    CAPTURE(std::string(step));
    testing::TempDir dir;
    std::filesystem::create_directory(dir.Join("backups"));
    std::string root_dir = dir.Join("root");
    io::PosixFileSystem base;
    CreateTable(base, root_dir);
    {
      testing::FaultInjectionFileSystem fs(base, dir.Join("backups"));
      absl::StatusOr<std::unique_ptr<TableRoot>> root = TableRoot::Open(fs, root_dir);
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
    RecoverAndCheck(root_dir, step, bytes);
  }
}

}  // namespace
}  // namespace lake
