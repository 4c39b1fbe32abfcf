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
#include <array>
#include <filesystem>
#include <fstream>
#include <set>

#include "base/failpoint.h"
#include "engine/table/deletion_vector_format.h"
#include "engine/table/table_log_format.h"
#include "engine/table/table_store.h"
#include "io/posix/posix_file_system.h"
#include "tests/support/episodes_table.h"
#include "tests/support/fault_injection_file_system.h"
#include "tests/support/stage_fixture.h"
#include "tests/support/status_checks.h"
#include "tests/support/table_fixture.h"
#include "tests/support/test_files.h"

namespace lake {
namespace {

using table::CellValue;
using testing::CurrentUris;
using testing::CurrentVersion;
using testing::OpenTableRootOrStop;
using testing::TableRoot;
using testing::Uris;

constexpr char kTable[] = "robots.episodes";
constexpr char kInsert[] = "INSERT INTO robots.episodes (episode_id, n, video) VALUES (?, ?, ?)";

table::TableName Name() { return *table::ParseTableName(kTable); }

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

// The deletion vector files of the table directory (data/*.del): a DELETE
// writes none any more, its vectors are records of the table log.
std::vector<std::string> VectorFiles(TableRoot& root) {
  std::vector<std::string> files = testing::FilesUnder(root.tables->TableDir(Name()));
  std::erase_if(files, [](const std::string& file) {
    return std::filesystem::path(file).extension() != table::kDeletionVectorSuffix;
  });
  return files;
}

// The records of the table's log (table_log_format.h), in order.
// The deletion vectors in the table's log (its other records are the
// versions' fragments, deltas and manifests).
std::vector<table::TableLogAddress> LogRecords(TableRoot& root) {
  std::vector<table::TableLogAddress> records;
  std::string log_dir = root.tables->TableDir(Name()) + "/" + std::string(table::kTableLogDir);
  if (!std::filesystem::exists(log_dir)) return records;
  std::vector<uint64_t> segments;
  for (const auto& entry : std::filesystem::directory_iterator(log_dir)) {
    std::optional<uint64_t> segment =
        table::ParseTableLogSegmentName(entry.path().filename().string());
    if (segment) segments.push_back(*segment);
  }
  std::sort(segments.begin(), segments.end());
  for (uint64_t segment : segments) {
    std::vector<uint8_t> bytes = testing::ReadFile(
        root.tables->TableDir(Name()) + "/" + table::TableLogSegmentRelativePath(segment));
    absl::StatusOr<table::TableLogScan> scan = table::ScanTableLogRecords(
        std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), segment,
        table::kTableLogSegmentHeaderBytes);
    LAKE_REQUIRE_OK(scan);
    for (const table::TableLogAddress& address : scan->records) {
      absl::StatusOr<table::TableLogRecord> record = table::DecodeTableLogRecord(
          std::string_view(reinterpret_cast<const char*>(bytes.data()) + address.offset,
                           table::TableLogRecordBytes(address.payload_bytes)),
          address);
      LAKE_REQUIRE_OK(record);
      if (record->kind == table::TableLogRecordKind::kDeletionVector) records.push_back(address);
    }
  }
  return records;
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
    std::unique_ptr<TableRoot> root = OpenTableRootOrStop(posix, root_dir);
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
    std::unique_ptr<TableRoot> root = OpenTableRootOrStop(posix, root_dir);
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
  std::unique_ptr<TableRoot> root = OpenTableRootOrStop(f.posix, f.root_dir);
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
  // One vector per touched fragment: records of the table log, no files.
  CHECK(LogRecords(*root).size() == 2);
  CHECK(VectorFiles(*root).empty());
}

TEST_CASE("AS OF VERSION of the version before a DELETE still reads the deleted rows") {
  DeleteFixture f;
  std::unique_ptr<TableRoot> root = OpenTableRootOrStop(f.posix, f.root_dir);
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
  std::unique_ptr<TableRoot> root = OpenTableRootOrStop(f.posix, f.root_dir);
  absl::StatusOr<table::DeleteOutcome> deleted = root->Delete("DELETE FROM robots.episodes");
  LAKE_REQUIRE_OK(deleted);
  CHECK(deleted->deleted_rows == 6);
  CHECK(Ids(*root).empty());
  absl::StatusOr<std::unique_ptr<table::TableScan>> scan = root->tables->Scan(Name(), 3);
  LAKE_REQUIRE_OK(scan);
  CHECK((*scan)->fragment_count() == 0);
  CHECK((*scan)->total_rows() == 0);
  CHECK(LogRecords(*root).empty());
  CHECK(CurrentUris(*root).empty());
  // An empty table takes rows again.
  InsertOne(*root, "e7", 7);
  CHECK(Ids(*root) == std::vector<std::string>{"e7"});
}

TEST_CASE("a DELETE whose WHERE matches nothing commits no version") {
  DeleteFixture f;
  std::unique_ptr<TableRoot> root = OpenTableRootOrStop(f.posix, f.root_dir);
  absl::StatusOr<table::DeleteOutcome> deleted = root->Delete(
      "DELETE FROM robots.episodes WHERE n > ?", {CellValue{int64_t{100}}});
  LAKE_REQUIRE_OK(deleted);
  CHECK(deleted->deleted_rows == 0);
  CHECK(deleted->version == 2);
  CHECK(deleted->operation_id.empty());
  CHECK(CurrentVersion(*root) == 2);
  CHECK(LogRecords(*root).empty());
}

TEST_CASE("a DELETE on a fragment with deleted rows deletes and counts only the new ones") {
  DeleteFixture f;
  std::unique_ptr<TableRoot> root = OpenTableRootOrStop(f.posix, f.root_dir);
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
  std::unique_ptr<TableRoot> root = OpenTableRootOrStop(f.posix, f.root_dir);
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
  std::unique_ptr<TableRoot> root = OpenTableRootOrStop(f.posix, f.root_dir);
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

// Appends episodes `a` (n = `na`) and `b` (n = `nb`) in one fragment,
// referencing the existing objects `va` and `vb`.
void InsertTwoReferencing(TableRoot& root, const std::string& a, int64_t na, const DataLocation& va,
                          const std::string& b, int64_t nb, const DataLocation& vb) {
  LAKE_REQUIRE_OK(root.Insert(
      "INSERT INTO robots.episodes (episode_id, n, video) VALUES (?, ?, ?), (?, ?, ?)",
      {CellValue{a}, CellValue{na}, CellValue{va}, CellValue{b}, CellValue{nb}, CellValue{vb}}));
}

bool HasUri(const std::vector<std::string>& uris, const std::string& uri) {
  return std::find(uris.begin(), uris.end(), uri) != uris.end();
}

TEST_CASE("a location a live row of a fragment the DELETE touches still holds stays referenced") {
  DeleteFixture f;
  std::unique_ptr<TableRoot> root = OpenTableRootOrStop(f.posix, f.root_dir);
  // e7 and e8, one fragment, both reference e1's video.
  InsertTwoReferencing(*root, "e7", 7, f.videos[0], "e8", 8, f.videos[0]);
  LAKE_REQUIRE_OK(root->Delete("DELETE FROM robots.episodes WHERE n IN (?, ?)",
                               {CellValue{int64_t{1}}, CellValue{int64_t{7}}}));
  CHECK(HasUri(CurrentUris(*root), f.videos[0].uri));  // e8 holds it
  CHECK(CurrentUris(*root).size() == 6);
  LAKE_REQUIRE_OK(root->Delete("DELETE FROM robots.episodes WHERE n = ?", {CellValue{int64_t{8}}}));
  CHECK(!HasUri(CurrentUris(*root), f.videos[0].uri));
  CHECK(CurrentUris(*root).size() == 5);
}

TEST_CASE("a location released in one fragment and held live by another it touches stays") {
  DeleteFixture f;
  std::unique_ptr<TableRoot> root = OpenTableRootOrStop(f.posix, f.root_dir);
  // e7 references e2's video, e8 e3's: e2 and e8 go, e7 and e3 stay.
  InsertTwoReferencing(*root, "e7", 7, f.videos[1], "e8", 8, f.videos[2]);
  LAKE_REQUIRE_OK(root->Delete("DELETE FROM robots.episodes WHERE n IN (?, ?)",
                               {CellValue{int64_t{2}}, CellValue{int64_t{8}}}));
  std::vector<std::string> uris = CurrentUris(*root);
  CHECK(HasUri(uris, f.videos[1].uri));
  CHECK(HasUri(uris, f.videos[2].uri));
  CHECK(uris.size() == 6);
  // Then every row holding them goes, both fragments touched again.
  LAKE_REQUIRE_OK(root->Delete("DELETE FROM robots.episodes WHERE n IN (?, ?)",
                               {CellValue{int64_t{3}}, CellValue{int64_t{7}}}));
  uris = CurrentUris(*root);
  CHECK(!HasUri(uris, f.videos[1].uri));
  CHECK(!HasUri(uris, f.videos[2].uri));
  CHECK(uris.size() == 4);
}

TEST_CASE("a DELETE whose WHERE reads the FILE column releases the location it matched") {
  DeleteFixture f;
  std::unique_ptr<TableRoot> root = OpenTableRootOrStop(f.posix, f.root_dir);
  absl::StatusOr<table::DeleteOutcome> deleted =
      root->Delete("DELETE FROM robots.episodes WHERE video = ?", {CellValue{f.videos[1]}});
  LAKE_REQUIRE_OK(deleted);
  CHECK(deleted->deleted_rows == 1);
  CHECK(Ids(*root) == std::vector<std::string>{"e1", "e3", "e4", "e5", "e6"});
  std::vector<std::string> uris = CurrentUris(*root);
  CHECK(!HasUri(uris, f.videos[1].uri));
  CHECK(uris.size() == 5);
}

TEST_CASE("a removed location added again by a later row is referenced again") {
  DeleteFixture f;
  std::unique_ptr<TableRoot> root = OpenTableRootOrStop(f.posix, f.root_dir);
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
  std::unique_ptr<TableRoot> root = OpenTableRootOrStop(f.posix, f.root_dir);
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
  std::unique_ptr<TableRoot> root = OpenTableRootOrStop(f.posix, f.root_dir);
  LAKE_REQUIRE_OK(root->Delete("DELETE FROM robots.episodes WHERE n = ?", {CellValue{int64_t{2}}}));
  std::vector<table::TableLogAddress> records = LogRecords(*root);
  REQUIRE(records.size() == 1);
  const table::TableLogAddress at = records[0];
  const std::string segment =
      root->tables->TableDir(Name()) + "/" + table::TableLogSegmentRelativePath(at.segment);
  std::vector<uint8_t> original = testing::ReadFile(segment);
  auto write_at = [&](uint64_t offset, std::string_view bytes) {
    std::fstream out(segment, std::ios::in | std::ios::out | std::ios::binary);
    out.seekp(static_cast<std::streamoff>(offset));
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  };
  const size_t payload = at.offset + table::kTableLogRecordHeaderBytes;
  write_at(payload + at.payload_bytes / 2,
           std::string(1, static_cast<char>(original[payload + at.payload_bytes / 2] ^ 1)));
  CHECK(absl::IsDataLoss(root->Rows(kTable).status()));
  // A valid record of a vector of another row set in its place: its
  // checksum holds, its SHA-256 is not the manifest's.
  absl::StatusOr<table::DeletionVector> vector = table::DecodeDeletionVector(
      std::string(original.begin() + payload, original.begin() + payload + at.payload_bytes));
  LAKE_REQUIRE_OK(vector);
  vector->deleted_rows = {0};
  absl::StatusOr<std::string> other = table::EncodeDeletionVector(*vector);
  LAKE_REQUIRE_OK(other);
  std::string record;
  table::AppendTableLogRecord(
      at.segment, table::TableLogRecord{table::TableLogRecordKind::kDeletionVector, 3, *other},
      &record);
  write_at(at.offset, record);
  CHECK(absl::IsDataLoss(root->Rows(kTable).status()));
  // The version before it never reads the vector.
  CHECK(Ids(*root, 2).size() == 6);
  // A missing segment fails closed too.
  std::filesystem::remove(segment);
  CHECK(absl::IsDataLoss(root->Rows(kTable).status()));
}

// ---- Crash safety ----

constexpr char kDeleteTwo[] = "DELETE FROM robots.episodes WHERE n IN (?, ?)";
// Every step of a DELETE, in order: its own, and between the first two the
// table log's (its records written, not yet synced).
constexpr std::array<std::string_view, 5> kDeleteSteps = {
    table::kTableDeleteFailpoints[0], table::kTableLogWrittenFailpoint,
    table::kTableDeleteFailpoints[1], table::kTableDeleteFailpoints[2],
    table::kTableDeleteFailpoints[3]};
// The index in kDeleteSteps of the registry's commit.
constexpr size_t kDeleteCommitStep = 4;
std::vector<CellValue> TwoAndFive() { return {CellValue{int64_t{2}}, CellValue{int64_t{5}}}; }

TEST_CASE("DELETE: the failpoint list names every step a DELETE passes, in order") {
  REQUIRE(failpoint::Enabled());
  DeleteFixture f;
  failpoint::ClearAll();
  {
    std::unique_ptr<TableRoot> root = OpenTableRootOrStop(f.posix, f.root_dir);
    LAKE_REQUIRE_OK(root->Delete(kDeleteTwo, TwoAndFive()));
  }
  for (std::string_view step : kDeleteSteps) {
    CAPTURE(std::string(step));
    CHECK(failpoint::HitCount(step) == 1);
  }
  failpoint::ClearAll();
}

TEST_CASE("DELETE: a failure before the commit leaves the version and names no vector") {
  REQUIRE(failpoint::Enabled());
  for (size_t i = 0; i < kDeleteCommitStep; ++i) {
    std::string_view step = kDeleteSteps[i];
    CAPTURE(std::string(step));
    DeleteFixture f;
    std::unique_ptr<TableRoot> root = OpenTableRootOrStop(f.posix, f.root_dir);
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

void DeleteKilledAtEachStep() {
  REQUIRE(failpoint::Enabled());
  for (size_t i = 0; i < kDeleteSteps.size(); ++i) {
    std::string_view step = kDeleteSteps[i];
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
    f.CheckWholeOrNothing(/*must_have_happened=*/i >= kDeleteCommitStep);
  }
}

void DeletePowerLossAtEachStep() {
  REQUIRE(failpoint::Enabled());
  for (size_t i = 0; i < kDeleteSteps.size(); ++i) {
    std::string_view step = kDeleteSteps[i];
    CAPTURE(std::string(step));
    DeleteFixture f;
    {
      testing::FaultInjectionFileSystem fs(f.posix, f.backups);
      std::unique_ptr<TableRoot> root = OpenTableRootOrStop(fs, f.root_dir);
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
    f.CheckWholeOrNothing(/*must_have_happened=*/i >= kDeleteCommitStep);
  }
}

void DeleteKilledRerunPowerLoss() {
  REQUIRE(failpoint::Enabled());
  // Killed with its records written and unsynced, then (a new process)
  // run again, which appends after them, and the power lost before or
  // after its commit.
  for (size_t lost_at : {size_t{1}, size_t{3}, kDeleteCommitStep}) {
    CAPTURE(std::string(kDeleteSteps[lost_at]));
    DeleteFixture f;
    pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      failpoint::ClearAll();
      failpoint::Set(table::kTableLogWrittenFailpoint, failpoint::Action::kKill);
      absl::StatusOr<std::unique_ptr<TableRoot>> root = TableRoot::Open(f.posix, f.root_dir);
      if (!root.ok()) ::_exit(11);
      (void)(*root)->Delete(kDeleteTwo, TwoAndFive());
      ::_exit(13);
    }
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    REQUIRE(WIFSIGNALED(status));
    {
      testing::FaultInjectionFileSystem fs(f.posix, f.backups);
      std::unique_ptr<TableRoot> root = OpenTableRootOrStop(fs, f.root_dir);
      CHECK(CurrentVersion(*root) == 2);
      failpoint::ClearAll();
      failpoint::Set(kDeleteSteps[lost_at], failpoint::Action::kCallback, [&] {
        fs.Crash();
        return absl::UnavailableError("power lost");
      });
      CHECK_FALSE(root->Delete(kDeleteTwo, TwoAndFive()).ok());
      failpoint::ClearAll();
      CHECK(fs.crashed());
    }
    f.CheckWholeOrNothing(/*must_have_happened=*/lost_at >= kDeleteCommitStep);
  }
}

TEST_CASE("DELETE as files: a child SIGKILLed at each step leaves the DELETE whole or not at all") {
  testing::ScopedVersionsAsFiles as_files;
  DeleteKilledAtEachStep();
}

TEST_CASE("DELETE in the table log: a child SIGKILLed at each step leaves the DELETE whole or not at all") {
  testing::ScopedVersionsInTableLog in_log;
  DeleteKilledAtEachStep();
}

TEST_CASE("DELETE as files: a power loss at each step leaves the DELETE whole or not at all") {
  testing::ScopedVersionsAsFiles as_files;
  DeletePowerLossAtEachStep();
}

TEST_CASE("DELETE in the table log: a power loss at each step leaves the DELETE whole or not at all") {
  testing::ScopedVersionsInTableLog in_log;
  DeletePowerLossAtEachStep();
}

TEST_CASE("DELETE as files: killed, reopened, run again and a power loss: whole or not at all") {
  testing::ScopedVersionsAsFiles as_files;
  DeleteKilledRerunPowerLoss();
}

TEST_CASE("DELETE in the table log: killed, reopened, run again and a power loss: whole or not at all") {
  testing::ScopedVersionsInTableLog in_log;
  DeleteKilledRerunPowerLoss();
}

TEST_CASE("DELETE, replace-where and compaction in the table log write records, no files") {
  testing::ScopedVersionsInTableLog in_log;
  DeleteFixture f;
  std::unique_ptr<TableRoot> root = OpenTableRootOrStop(f.posix, f.root_dir);
  LAKE_REQUIRE_OK(root->Delete(kDeleteTwo, TwoAndFive()));  // version 3
  std::vector<uint8_t> bytes = testing::RandomBytes(500, 77);
  testing::MemorySource source(bytes);
  LAKE_REQUIRE_OK(root->Replace(
      "INSERT INTO robots.episodes REPLACE WHERE n = ? (episode_id, n, video) VALUES (?, ?, ?)",
      {CellValue{int64_t{1}}, CellValue{"e7"}, CellValue{int64_t{7}},
       sql::FileFromSource{&source, "video/mp4"}}));  // version 4
  absl::StatusOr<std::optional<table::AppendOutcome>> compacted = root->tables->Compact(Name());
  LAKE_REQUIRE_OK(compacted);
  REQUIRE(compacted->has_value());  // version 5
  CHECK(CurrentVersion(*root) == 5);
  CHECK(Ids(*root) == std::vector<std::string>{"e3", "e4", "e6", "e7"});
  CHECK(Ids(*root, 2).size() == 6);
  CHECK(Ids(*root, 3) == std::vector<std::string>{"e1", "e3", "e4", "e6"});
  // Every version's fragment, delta, manifest and vectors: one segment.
  CHECK(testing::FilesUnder(root->tables->TableDir(Name())) ==
        std::vector<std::string>{table::TableLogSegmentRelativePath(1)});
  absl::StatusOr<std::vector<registry::VersionRecord>> versions = root->tables->ListVersions(Name());
  LAKE_REQUIRE_OK(versions);
  for (const registry::VersionRecord& v : *versions) CHECK(table::IsTableLogPath(v.manifest_path));
  // The references are the live rows' locations.
  CHECK(CurrentUris(*root).size() == 4);
  absl::StatusOr<std::vector<std::vector<CellValue>>> rows = root->Rows(kTable);
  LAKE_REQUIRE_OK(rows);
  std::set<std::string> live;
  for (const auto& row : *rows) live.insert(std::get<DataLocation>(row[2]).uri);
  std::vector<std::string> uris = CurrentUris(*root);
  CHECK(std::set<std::string>(uris.begin(), uris.end()) == live);
}

}  // namespace
}  // namespace lake
