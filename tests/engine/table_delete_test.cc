// DELETE (TableStore::Delete through a prepared statement): which rows a
// new version drops and which an older one still reads, the removal
// reference delta and its replay, compaction after a DELETE, a damaged
// deletion vector, and crash safety at each step of a DELETE — a child
// SIGKILLed there and a simulated power loss there — after which the
// DELETE happened whole or not at all, every version reads its rows, and
// running it again converges.
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "base/failpoint.h"
#include "engine/table/deletion_vector_format.h"
#include "engine/table/table_store.h"
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
constexpr char kInsert[] = "INSERT INTO robots.episodes (episode_id, n, video) VALUES (?, ?, ?)";

table::TableName Name() { return *table::ParseTableName(kTable); }

std::unique_ptr<TableRoot> OpenOn(io::FileSystem& fs, const std::string& dir) {
  absl::StatusOr<std::unique_ptr<TableRoot>> root = TableRoot::Open(fs, dir);
  LAKE_REQUIRE_OK(root);
  return std::move(*root);
}

// Appends episode `id` with n = `n` and a new 300-byte video; returns the
// video's location.
DataLocation InsertOne(TableRoot& root, const std::string& id, int64_t n) {
  std::vector<uint8_t> bytes = testing::RandomBytes(300, static_cast<uint64_t>(n) + 1000);
  testing::MemorySource source(bytes);
  LAKE_REQUIRE_OK(root.Insert(kInsert, {CellValue{id}, CellValue{n},
                                        sql::FileFromSource{&source, "video/mp4"}}));
  absl::StatusOr<std::vector<std::vector<CellValue>>> rows =
      root.Query("SELECT video FROM robots.episodes WHERE episode_id = ?", {CellValue{id}});
  LAKE_REQUIRE_OK(rows);
  REQUIRE(!rows->empty());
  return std::get<DataLocation>(rows->back()[0]);
}

// Appends episode `id` referencing the existing object `video`.
void InsertReferencing(TableRoot& root, const std::string& id, int64_t n,
                       const DataLocation& video) {
  LAKE_REQUIRE_OK(root.Insert(kInsert, {CellValue{id}, CellValue{n}, CellValue{video}}));
}

// The episode ids of `version` (current when nullopt), in order.
std::vector<std::string> Ids(TableRoot& root, std::optional<uint64_t> version = std::nullopt) {
  absl::StatusOr<std::vector<std::vector<CellValue>>> rows = root.Rows(kTable, version);
  LAKE_REQUIRE_OK(rows);
  std::vector<std::string> ids;
  for (const auto& row : *rows) ids.push_back(std::get<std::string>(row[0]));
  return ids;
}

uint64_t CurrentVersion(TableRoot& root) {
  absl::StatusOr<registry::TableRecord> table = root.tables->GetTable(Name());
  LAKE_REQUIRE_OK(table);
  return table->current_version;
}

std::vector<std::string> Uris(const std::vector<DataLocation>& locations) {
  std::vector<std::string> uris;
  for (const DataLocation& l : locations) uris.push_back(l.uri);
  std::sort(uris.begin(), uris.end());
  uris.erase(std::unique(uris.begin(), uris.end()), uris.end());
  return uris;
}

std::vector<std::string> CurrentUris(TableRoot& root) {
  absl::StatusOr<std::vector<DataLocation>> refs = root.CurrentReferences(kTable);
  LAKE_REQUIRE_OK(refs);
  return Uris(*refs);
}

// The deletion vector files of the table directory.
std::vector<std::string> VectorFiles(TableRoot& root) {
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(
           root.tables->TableDir(Name()) + "/" + std::string(table::kTableDataDir))) {
    if (entry.path().extension() == table::kDeletionVectorSuffix) {
      files.push_back(entry.path().string());
    }
  }
  return files;
}

// A root whose table holds e1..e6 (n = 1..6) in two fragments (versions 1
// and 2: e1..e3, then e4..e6, each row with a video of its own).
struct DeleteFixture {
  testing::TempDir dir;
  std::string root_dir = dir.Join("root");
  std::string backups = dir.Join("backups");
  io::PosixFileSystem posix;
  std::vector<DataLocation> videos;

  DeleteFixture() {
    std::filesystem::create_directories(backups);
    std::unique_ptr<TableRoot> root = OpenOn(posix, root_dir);
    absl::StatusOr<std::vector<DataLocation>> created = testing::CreateSixEpisodes(*root);
    LAKE_REQUIRE_OK(created);
    videos = *std::move(created);
    REQUIRE(videos.size() == 6);
  }

  // After DELETE … WHERE n IN (2, 5) at version 2 completed or crashed:
  // the table is at version 2 with every row, or at 3 without e2 and e5;
  // version 2 reads every row either way; the references replay; and the
  // DELETE run again converges on version 3 without e2 and e5.
  void CheckWholeOrNothing(bool must_have_happened) {
    std::unique_ptr<TableRoot> root = OpenOn(posix, root_dir);
    const uint64_t version = CurrentVersion(*root);
    if (must_have_happened) REQUIRE(version == 3);
    REQUIRE((version == 2 || version == 3));
    const std::vector<std::string> all = {"e1", "e2", "e3", "e4", "e5", "e6"};
    const std::vector<std::string> kept = {"e1", "e3", "e4", "e6"};
    CHECK(Ids(*root, 2) == all);
    CHECK(Ids(*root) == (version == 3 ? kept : all));
    CHECK(CurrentUris(*root).size() == (version == 3 ? 4u : 6u));
    absl::StatusOr<table::DeleteOutcome> again =
        root->Delete("DELETE FROM robots.episodes WHERE n IN (?, ?)",
                     {CellValue{int64_t{2}}, CellValue{int64_t{5}}});
    LAKE_REQUIRE_OK(again);
    CHECK(again->deleted_rows == (version == 3 ? 0u : 2u));
    CHECK(CurrentVersion(*root) == 3);
    CHECK(Ids(*root) == kept);
    CHECK(CurrentUris(*root).size() == 4);
  }
};

TEST_CASE("a scan of the version a DELETE commits skips the deleted rows") {
  DeleteFixture f;
  std::unique_ptr<TableRoot> root = OpenOn(f.posix, f.root_dir);
  absl::StatusOr<table::DeleteOutcome> deleted =
      root->Delete("DELETE FROM robots.episodes WHERE n >= ? AND n < ?",
                   {CellValue{int64_t{3}}, CellValue{int64_t{5}}});
  LAKE_REQUIRE_OK(deleted);
  CHECK(deleted->deleted_rows == 2);
  CHECK(deleted->version == 3);
  CHECK(Ids(*root) == std::vector<std::string>{"e1", "e2", "e5", "e6"});
  CHECK(root->Query("SELECT count(*) FROM robots.episodes")->at(0)[0] == CellValue{int64_t{4}});
  CHECK(root->Query("SELECT episode_id FROM robots.episodes WHERE n = ?",
                    {CellValue{int64_t{4}}})
            ->empty());
  // One vector per touched fragment, beside it.
  CHECK(VectorFiles(*root).size() == 2);
}

TEST_CASE("AS OF VERSION of the version before a DELETE still reads the deleted rows") {
  DeleteFixture f;
  std::unique_ptr<TableRoot> root = OpenOn(f.posix, f.root_dir);
  LAKE_REQUIRE_OK(root->Delete("DELETE FROM robots.episodes WHERE episode_id = ?",
                               {CellValue{std::string("e1")}}));
  CHECK(Ids(*root, 2) == std::vector<std::string>{"e1", "e2", "e3", "e4", "e5", "e6"});
  CHECK(root->Query("SELECT episode_id FROM robots.episodes AS OF VERSION 2 WHERE n = ?",
                    {CellValue{int64_t{1}}})
            ->size() == 1);
  CHECK(Ids(*root, 3) == std::vector<std::string>{"e2", "e3", "e4", "e5", "e6"});
}

TEST_CASE("DELETE without WHERE deletes every row and drops every fragment") {
  DeleteFixture f;
  std::unique_ptr<TableRoot> root = OpenOn(f.posix, f.root_dir);
  absl::StatusOr<table::DeleteOutcome> deleted = root->Delete("DELETE FROM robots.episodes");
  LAKE_REQUIRE_OK(deleted);
  CHECK(deleted->deleted_rows == 6);
  CHECK(Ids(*root).empty());
  absl::StatusOr<std::unique_ptr<table::TableScan>> scan = root->tables->Scan(Name(), 3);
  LAKE_REQUIRE_OK(scan);
  CHECK((*scan)->fragment_count() == 0);
  CHECK((*scan)->total_rows() == 0);
  CHECK(VectorFiles(*root).empty());
  CHECK(CurrentUris(*root).empty());
  // An empty table takes rows again.
  InsertOne(*root, "e7", 7);
  CHECK(Ids(*root) == std::vector<std::string>{"e7"});
}

TEST_CASE("a DELETE whose WHERE matches nothing commits no version") {
  DeleteFixture f;
  std::unique_ptr<TableRoot> root = OpenOn(f.posix, f.root_dir);
  absl::StatusOr<table::DeleteOutcome> deleted = root->Delete(
      "DELETE FROM robots.episodes WHERE n > ?", {CellValue{int64_t{100}}});
  LAKE_REQUIRE_OK(deleted);
  CHECK(deleted->deleted_rows == 0);
  CHECK(deleted->version == 2);
  CHECK(deleted->operation_id.empty());
  CHECK(CurrentVersion(*root) == 2);
  CHECK(VectorFiles(*root).empty());
}

TEST_CASE("a DELETE on a fragment with deleted rows deletes and counts only the new ones") {
  DeleteFixture f;
  std::unique_ptr<TableRoot> root = OpenOn(f.posix, f.root_dir);
  LAKE_REQUIRE_OK(root->Delete("DELETE FROM robots.episodes WHERE n = ?", {CellValue{int64_t{1}}}));
  absl::StatusOr<table::DeleteOutcome> second = root->Delete(
      "DELETE FROM robots.episodes WHERE n <= ?", {CellValue{int64_t{2}}});
  LAKE_REQUIRE_OK(second);
  CHECK(second->deleted_rows == 1);
  CHECK(Ids(*root) == std::vector<std::string>{"e3", "e4", "e5", "e6"});
  CHECK(Ids(*root, 3) == std::vector<std::string>{"e2", "e3", "e4", "e5", "e6"});
}

TEST_CASE("a DELETE's parameters are checked before anything is read or written") {
  DeleteFixture f;
  std::unique_ptr<TableRoot> root = OpenOn(f.posix, f.root_dir);
  CHECK(absl::IsInvalidArgument(
      root->Delete("DELETE FROM robots.episodes WHERE n = ?", {CellValue{std::string("x")}})
          .status()));
  CHECK(absl::IsInvalidArgument(root->Delete("DELETE FROM robots.episodes WHERE n = ?").status()));
  CHECK(absl::IsInvalidArgument(
      root->Delete("DELETE FROM robots.episodes WHERE nope = ?", {CellValue{int64_t{1}}})
          .status()));
  CHECK(CurrentVersion(*root) == 2);
}

TEST_CASE("a DELETE's delta removes the locations no remaining row references") {
  DeleteFixture f;
  std::unique_ptr<TableRoot> root = OpenOn(f.posix, f.root_dir);
  // e7 references e1's video too.
  InsertReferencing(*root, "e7", 7, f.videos[0]);
  LAKE_REQUIRE_OK(root->Delete("DELETE FROM robots.episodes WHERE n IN (?, ?)",
                               {CellValue{int64_t{1}}, CellValue{int64_t{2}}}));
  // e2's video went with its row; e1's stays for e7.
  std::vector<std::string> uris = CurrentUris(*root);
  CHECK(std::find(uris.begin(), uris.end(), f.videos[0].uri) != uris.end());
  CHECK(std::find(uris.begin(), uris.end(), f.videos[1].uri) == uris.end());
  CHECK(uris.size() == 5);
  LAKE_REQUIRE_OK(root->Delete("DELETE FROM robots.episodes WHERE n = ?", {CellValue{int64_t{7}}}));
  uris = CurrentUris(*root);
  CHECK(std::find(uris.begin(), uris.end(), f.videos[0].uri) == uris.end());
  CHECK(uris.size() == 4);
  // The union over the lineage (what retained versions held) still has both.
  CHECK(Uris(*root->References(kTable)).size() == 6);
}

TEST_CASE("a removed location added again by a later row is referenced again") {
  DeleteFixture f;
  std::unique_ptr<TableRoot> root = OpenOn(f.posix, f.root_dir);
  LAKE_REQUIRE_OK(root->Delete("DELETE FROM robots.episodes WHERE n = ?", {CellValue{int64_t{1}}}));
  std::vector<std::string> uris = CurrentUris(*root);
  CHECK(std::find(uris.begin(), uris.end(), f.videos[0].uri) == uris.end());
  InsertReferencing(*root, "e1-again", 8, f.videos[0]);
  uris = CurrentUris(*root);
  CHECK(std::find(uris.begin(), uris.end(), f.videos[0].uri) != uris.end());
  CHECK(uris.size() == 6);
}

TEST_CASE("a replay fails closed on a removal of what no earlier version holds") {
  DeleteFixture f;
  DataLocation stranger = f.videos[1];
  table::ReferenceReplay replay;
  LAKE_REQUIRE_OK(replay.Apply(1, {f.videos[0]}, /*removed=*/false));
  absl::Status status = replay.Apply(2, {stranger}, /*removed=*/true);
  CHECK(absl::IsDataLoss(status));
  CHECK(status.message().find("no earlier version references") != std::string_view::npos);
}

TEST_CASE("a replay fails closed on a delta that removes what it adds itself") {
  DeleteFixture f;
  table::ReferenceReplay replay;
  LAKE_REQUIRE_OK(replay.Apply(1, {f.videos[0]}, /*removed=*/false));
  LAKE_REQUIRE_OK(replay.Apply(2, {f.videos[1]}, /*removed=*/false));
  CHECK(absl::IsDataLoss(replay.Apply(2, {f.videos[1]}, /*removed=*/true)));
}

TEST_CASE("a removal cancels an earlier addition and a later addition restores it") {
  DeleteFixture f;
  table::ReferenceReplay replay;
  LAKE_REQUIRE_OK(replay.Apply(1, {f.videos[0], f.videos[1]}, false));
  LAKE_REQUIRE_OK(replay.Apply(2, {f.videos[0]}, true));
  LAKE_REQUIRE_OK(replay.Apply(3, {f.videos[0]}, false));
  std::vector<DataLocation> expected = {f.videos[0], f.videos[1]};
  table::CanonicalizeReferences(&expected);
  CHECK(std::move(replay).Take() == expected);
}

TEST_CASE("compaction after a DELETE drops the deleted rows and adds no reference") {
  DeleteFixture f;
  std::unique_ptr<TableRoot> root = OpenOn(f.posix, f.root_dir);
  LAKE_REQUIRE_OK(root->Delete("DELETE FROM robots.episodes WHERE n IN (?, ?)",
                               {CellValue{int64_t{2}}, CellValue{int64_t{5}}}));
  std::vector<std::string> before = CurrentUris(*root);
  absl::StatusOr<std::optional<table::AppendOutcome>> compacted = root->tables->Compact(Name());
  LAKE_REQUIRE_OK(compacted);
  REQUIRE(compacted->has_value());
  CHECK((*compacted)->rows == 4);
  CHECK(Ids(*root) == std::vector<std::string>{"e1", "e3", "e4", "e6"});
  absl::StatusOr<std::unique_ptr<table::TableScan>> scan = root->tables->Scan(Name(), 4);
  LAKE_REQUIRE_OK(scan);
  CHECK((*scan)->fragment_count() == 1);
  CHECK(CurrentUris(*root) == before);
  // One fragment with deleted rows is compacted too.
  LAKE_REQUIRE_OK(root->Delete("DELETE FROM robots.episodes WHERE n = ?", {CellValue{int64_t{1}}}));
  compacted = root->tables->Compact(Name());
  LAKE_REQUIRE_OK(compacted);
  REQUIRE(compacted->has_value());
  CHECK(Ids(*root) == std::vector<std::string>{"e3", "e4", "e6"});
  CHECK(Ids(*root, 2).size() == 6);
}

TEST_CASE("a damaged or replaced deletion vector fails the scan closed with DataLoss") {
  DeleteFixture f;
  std::unique_ptr<TableRoot> root = OpenOn(f.posix, f.root_dir);
  LAKE_REQUIRE_OK(root->Delete("DELETE FROM robots.episodes WHERE n = ?", {CellValue{int64_t{2}}}));
  std::vector<std::string> vectors = VectorFiles(*root);
  REQUIRE(vectors.size() == 1);
  std::vector<uint8_t> original = testing::ReadFile(vectors[0]);
  {
    std::vector<uint8_t> flipped = original;
    flipped[flipped.size() / 2] ^= 1;
    std::ofstream(vectors[0], std::ios::binary | std::ios::trunc)
        .write(reinterpret_cast<const char*>(flipped.data()), flipped.size());
  }
  absl::StatusOr<std::vector<std::vector<CellValue>>> rows = root->Rows(kTable);
  CHECK(absl::IsDataLoss(rows.status()));
  // A valid vector of another row set in its place: its digest is not the manifest's.
  absl::StatusOr<table::DeletionVector> vector =
      table::DecodeDeletionVector(std::string(original.begin(), original.end()));
  LAKE_REQUIRE_OK(vector);
  vector->deleted_rows = {0};
  absl::StatusOr<std::string> other = table::EncodeDeletionVector(*vector);
  LAKE_REQUIRE_OK(other);
  std::ofstream(vectors[0], std::ios::binary | std::ios::trunc) << *other;
  CHECK(absl::IsDataLoss(root->Rows(kTable).status()));
  std::filesystem::remove(vectors[0]);
  CHECK(absl::IsDataLoss(root->Rows(kTable).status()));
  // The version before it never read the vector.
  CHECK(Ids(*root, 2).size() == 6);
}

// ---- Crash safety ----

constexpr char kDeleteTwo[] = "DELETE FROM robots.episodes WHERE n IN (?, ?)";
std::vector<CellValue> TwoAndFive() { return {CellValue{int64_t{2}}, CellValue{int64_t{5}}}; }

TEST_CASE("DELETE: the failpoint list names every step a DELETE passes, in order") {
  REQUIRE(failpoint::Enabled());
  DeleteFixture f;
  failpoint::ClearAll();
  {
    std::unique_ptr<TableRoot> root = OpenOn(f.posix, f.root_dir);
    LAKE_REQUIRE_OK(root->Delete(kDeleteTwo, TwoAndFive()));
  }
  for (std::string_view step : table::kTableDeleteFailpoints) {
    CAPTURE(std::string(step));
    CHECK(failpoint::HitCount(step) == 1);
  }
  failpoint::ClearAll();
}

TEST_CASE("DELETE: a failure before the commit leaves the version and no vector behind") {
  REQUIRE(failpoint::Enabled());
  for (size_t i = 0; i + 1 < table::kTableDeleteFailpoints.size(); ++i) {
    std::string_view step = table::kTableDeleteFailpoints[i];
    CAPTURE(std::string(step));
    DeleteFixture f;
    std::unique_ptr<TableRoot> root = OpenOn(f.posix, f.root_dir);
    failpoint::ClearAll();
    failpoint::Set(step, failpoint::Action::kError);
    CHECK_FALSE(root->Delete(kDeleteTwo, TwoAndFive()).ok());
    failpoint::ClearAll();
    CHECK(CurrentVersion(*root) == 2);
    CHECK(VectorFiles(*root).empty());
    root.reset();
    f.CheckWholeOrNothing(/*must_have_happened=*/false);
  }
}

TEST_CASE("DELETE: a child SIGKILLed at each step leaves the DELETE whole or not at all") {
  REQUIRE(failpoint::Enabled());
  for (size_t i = 0; i < table::kTableDeleteFailpoints.size(); ++i) {
    std::string_view step = table::kTableDeleteFailpoints[i];
    CAPTURE(std::string(step));
    DeleteFixture f;
    pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      failpoint::ClearAll();
      failpoint::Set(step, failpoint::Action::kKill);
      absl::StatusOr<std::unique_ptr<TableRoot>> root = TableRoot::Open(f.posix, f.root_dir);
      if (!root.ok()) ::_exit(11);
      (void)(*root)->Delete(kDeleteTwo, TwoAndFive());
      ::_exit(13);  // the failpoint should have killed us
    }
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    REQUIRE(WIFSIGNALED(status));
    CHECK(WTERMSIG(status) == SIGKILL);
    // Past the registry's synced write (the last step), the DELETE is durable.
    f.CheckWholeOrNothing(/*must_have_happened=*/i >= 3);
  }
}

TEST_CASE("DELETE: a power loss at each step leaves the DELETE whole or not at all") {
  REQUIRE(failpoint::Enabled());
  for (size_t i = 0; i < table::kTableDeleteFailpoints.size(); ++i) {
    std::string_view step = table::kTableDeleteFailpoints[i];
    CAPTURE(std::string(step));
    DeleteFixture f;
    {
      testing::FaultInjectionFileSystem fs(f.posix, f.backups);
      std::unique_ptr<TableRoot> root = OpenOn(fs, f.root_dir);
      failpoint::ClearAll();
      failpoint::Set(step, failpoint::Action::kCallback, [&] {
        fs.Crash();
        return absl::UnavailableError("power lost");
      });
      absl::Status deleted = root->Delete(kDeleteTwo, TwoAndFive()).status();
      failpoint::ClearAll();
      CHECK_FALSE(deleted.ok());
      CHECK(fs.crashed());
    }
    f.CheckWholeOrNothing(/*must_have_happened=*/i >= 3);
  }
}

}  // namespace
}  // namespace lake
