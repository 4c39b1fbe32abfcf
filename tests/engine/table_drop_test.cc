// Dropping a table (TableStore::DropTable): the table leaves the registry at
// once, its directory moves to tables/.dropped/<id>, and its name starts
// empty again. Crash safety at each step of the drop, twice: a child process
// SIGKILLed there, and a simulated power loss there (the fault-injecting
// file system drops everything lake had not fsynced). Then the next writer
// open, and the invariants:
//   - the table is gone from the registry, with its dropped record;
//   - its directory is at tables/.dropped/<id> with every file it had, and
//     nothing is left under its name;
//   - what it referenced can still be read (the collector's live walk);
//   - a new table of the same name starts empty and takes rows.
#include <doctest/doctest.h>

#include <filesystem>

#include "base/failpoint.h"
#include "engine/table/table_store.h"
#include "io/posix/posix_file_system.h"
#include "registry/registry.h"
#include "tests/support/episodes_table.h"
#include "tests/support/fault_injection_file_system.h"
#include "tests/support/stage_fixture.h"
#include "tests/support/status_checks.h"
#include "tests/support/table_fixture.h"
#include "tests/support/test_files.h"

namespace lake {
namespace {

using table::CellValue;
using testing::CreateEpisodesTable;
using testing::EpisodesTableName;
using testing::InsertEpisode;
using testing::kEpisodesInsert;
using testing::kEpisodesTable;
using testing::OpenTableRootOrStop;
using testing::TableRoot;

// A root with the table holding one row, and what it looked like.
struct DropFixture : testing::CrashTestRoot {
  uint64_t table_id = 0;
  DataLocation referenced;
  std::vector<std::string> files;

  DropFixture() {
    std::unique_ptr<TableRoot> root = OpenTableRootOrStop(posix, root_dir);
    CreateEpisodesTable(*root);
    referenced = InsertEpisode(*root, "e1", 1);
    table_id = root->tables->GetTable(EpisodesTableName())->table_id;
    // Its table log segment (or, as files, a manifest, a delta and a fragment).
    files = testing::FilesUnder(root->tables->TableDir(EpisodesTableName()));
    REQUIRE(!files.empty());
  }
  std::string NameDir() const { return table::TableDirectory(root_dir, EpisodesTableName()); }
  std::string DroppedDir() const { return table::DroppedTableDirectory(root_dir, table_id); }

  // The invariants after a completed or crashed drop, once a writer opened.
  void CheckDropped() {
    absl::StatusOr<io::FileSystem*> fs = io::DefaultFileSystem();
    REQUIRE(fs.ok());
    std::unique_ptr<TableRoot> root = OpenTableRootOrStop(**fs, root_dir);
    CHECK(absl::IsNotFound(root->tables->GetTable(EpisodesTableName()).status()));
    absl::StatusOr<std::vector<registry::DroppedTableRecord>> dropped =
        root->registry->ListDroppedTables();
    LAKE_REQUIRE_OK(dropped);
    REQUIRE(dropped->size() == 1);
    CHECK((*dropped)[0].table.table_id == table_id);
    CHECK(testing::FilesUnder(DroppedDir()) == files);
    CHECK_FALSE(std::filesystem::exists(NameDir()));
    // What it referenced still reads through the reference journal.
    absl::StatusOr<std::vector<registry::VersionRecord>> versions =
        root->registry->ListDroppedTableVersions(table_id);
    LAKE_REQUIRE_OK(versions);
    std::vector<table::LineageEdge> edges;
    for (const registry::VersionRecord& v : *versions) {
      edges.push_back({v.parent_version, v.version, v.reference_delta_sha256, v.manifest_path});
    }
    std::vector<DataLocation> refs;
    LAKE_CHECK_OK(table::EnumerateReferences(
        **fs, DroppedDir(), edges,
        [&](uint64_t, const std::vector<DataLocation>& chunk) -> absl::Status {
          refs.insert(refs.end(), chunk.begin(), chunk.end());
          return absl::OkStatus();
        }));
    CHECK(refs == std::vector<DataLocation>{referenced});
    // The name starts empty and takes rows.
    CreateEpisodesTable(*root);
    CHECK(root->Rows(kEpisodesTable)->empty());
    InsertEpisode(*root, "e2", 2);
    CHECK(root->Rows(kEpisodesTable)->size() == 1);
    CHECK(testing::FilesUnder(DroppedDir()) == files);
  }
};

TEST_CASE("table drop: the table leaves the registry; its directory moves aside, whole") {
  DropFixture f;
  {
    std::unique_ptr<TableRoot> root = OpenTableRootOrStop(f.posix, f.root_dir);
    absl::StatusOr<registry::DroppedTableRecord> dropped =
        root->tables->DropTable(EpisodesTableName());
    LAKE_REQUIRE_OK(dropped);
    CHECK(dropped->table.table_id == f.table_id);
    CHECK(absl::IsNotFound(root->tables->GetTable(EpisodesTableName()).status()));
    CHECK(root->tables->ListTables()->empty());
    CHECK(absl::IsNotFound(root->Rows(kEpisodesTable).status()));
    CHECK(testing::FilesUnder(f.DroppedDir()) == f.files);
  }
  f.CheckDropped();
}

TEST_CASE("table drop: an unknown table is NotFound and changes nothing") {
  DropFixture f;
  std::unique_ptr<TableRoot> root = OpenTableRootOrStop(f.posix, f.root_dir);
  CHECK(absl::IsNotFound(root->tables->DropTable(*table::ParseTableName("robots.nope")).status()));
  CHECK(root->Rows(kEpisodesTable)->size() == 1);
  CHECK(testing::FilesUnder(f.NameDir()) == f.files);
}

TEST_CASE("table drop: an INSERT into a dropped table fails NotFound and commits nothing") {
  DropFixture f;
  std::unique_ptr<TableRoot> root = OpenTableRootOrStop(f.posix, f.root_dir);
  LAKE_REQUIRE_OK(root->tables->DropTable(EpisodesTableName()));
  std::vector<uint8_t> bytes = testing::RandomBytes(1000, 9);
  testing::MemorySource source(bytes);
  absl::Status inserted =
      root->Insert(kEpisodesInsert, {CellValue{"late"}, sql::FileFromSource{&source, "video/mp4"}})
          .status();
  CHECK(absl::IsNotFound(inserted));
  CHECK(testing::FilesUnder(f.DroppedDir()) == f.files);
  CHECK_FALSE(std::filesystem::exists(f.NameDir()));
}

TEST_CASE("table drop: the failpoint list names every step a drop passes, in order") {
  REQUIRE(failpoint::Enabled());
  DropFixture f;
  failpoint::ClearAll();
  {
    std::unique_ptr<TableRoot> root = OpenTableRootOrStop(f.posix, f.root_dir);
    LAKE_REQUIRE_OK(root->tables->DropTable(EpisodesTableName()));
  }
  for (std::string_view step : table::kTableDropFailpoints) {
    CAPTURE(std::string(step));
    CHECK(failpoint::HitCount(step) == 1);
  }
  failpoint::ClearAll();
}

TEST_CASE("table drop: a child SIGKILLed at each step leaves the table dropped, whole") {
  REQUIRE(failpoint::Enabled());
  for (std::string_view step : table::kTableDropFailpoints) {
    CAPTURE(std::string(step));
    DropFixture f;
    testing::RunKilledAt(step, f.root_dir, [](TableRoot& root) {
      (void)root.tables->DropTable(EpisodesTableName());
    });
    f.CheckDropped();
  }
}

TEST_CASE("table drop: a power loss at each step leaves the table dropped, whole") {
  REQUIRE(failpoint::Enabled());
  for (std::string_view step : table::kTableDropFailpoints) {
    CAPTURE(std::string(step));
    DropFixture f;
    {
      testing::FaultInjectionFileSystem fs(f.posix, f.backups);
      std::unique_ptr<TableRoot> root = OpenTableRootOrStop(fs, f.root_dir);
      failpoint::ClearAll();
      failpoint::Set(step, failpoint::Action::kCallback, [&] {
        fs.Crash();
        return absl::UnavailableError("power lost");
      });
      absl::Status dropped = root->tables->DropTable(EpisodesTableName()).status();
      failpoint::ClearAll();
      CHECK_FALSE(dropped.ok());
      CHECK(fs.crashed());
    }
    f.CheckDropped();
  }
}

TEST_CASE("table drop: killed before its move, reopened, the name reused, then a power loss") {
  REQUIRE(failpoint::Enabled());
  DropFixture f;
  testing::RunKilledAt(table::kTableDropFailpoints[0], f.root_dir,
                       [](TableRoot& root) { (void)root.tables->DropTable(EpisodesTableName()); });
  // The directory is still under the table's name, owned by no table.
  CHECK(testing::FilesUnder(f.NameDir()) == f.files);
  DataLocation second;
  {
    testing::FaultInjectionFileSystem fs(f.posix, f.backups);
    std::unique_ptr<TableRoot> root = OpenTableRootOrStop(fs, f.root_dir);
    CreateEpisodesTable(*root);
    second = InsertEpisode(*root, "e2", 2);
    fs.Crash();
  }
  std::unique_ptr<TableRoot> root = OpenTableRootOrStop(f.posix, f.root_dir);
  CHECK(testing::FilesUnder(f.DroppedDir()) == f.files);
  absl::StatusOr<std::vector<std::vector<CellValue>>> rows = root->Rows(kEpisodesTable);
  LAKE_REQUIRE_OK(rows);
  REQUIRE(rows->size() == 1);
  CHECK(std::get<DataLocation>((*rows)[0][1]) == second);
}

}  // namespace
}  // namespace lake
