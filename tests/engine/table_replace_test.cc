// Replace-where (INSERT INTO … REPLACE WHERE …, TableStore::ReplaceWhere):
// the matching rows deleted and the new ones appended in one version, one
// reference delta with both its removals and its additions, a commit that
// lands after the base was read refused as a conflict, and crash safety at
// each step — a child SIGKILLed there and a simulated power loss there —
// after which the table is at the old version with every old row or at the
// new one with exactly the replaced rows, and no reference is lost. A
// collection planned meanwhile never plans an object a retained version
// references.
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <thread>

#include "base/failpoint.h"
#include "engine/gc/plan_writer.h"
#include "engine/table/reference_delta_format.h"
#include "engine/table/table_store.h"
#include "io/posix/posix_file_system.h"
#include "registry/commit_errors.h"
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
using testing::CurrentUris;
using testing::CurrentVersion;
using testing::OpenTableRootOrStop;
using testing::TableRoot;
using testing::Uris;

constexpr char kTable[] = "robots.episodes";
// Replaces e2 and e5 (n = 2, 5) with r2 and r5 (n = 20, 50), new videos.
constexpr char kReplace[] =
    "INSERT INTO robots.episodes REPLACE WHERE n IN (?, ?) (episode_id, n, video) "
    "VALUES (?, ?, ?), (?, ?, ?)";

table::TableName Name() { return *table::ParseTableName(kTable); }

std::vector<std::string> SortedIds(TableRoot& root, std::optional<uint64_t> version = std::nullopt) {
  absl::StatusOr<std::vector<std::vector<CellValue>>> rows = root.Rows(kTable, version);
  LAKE_REQUIRE_OK(rows);
  std::vector<std::string> ids;
  for (const auto& row : *rows) ids.push_back(std::get<std::string>(row[0]));
  std::sort(ids.begin(), ids.end());
  return ids;
}

// The uris of the FILE cells of the current version's rows.
std::vector<std::string> RowUris(TableRoot& root) {
  absl::StatusOr<std::vector<std::vector<CellValue>>> rows = root.Rows(kTable);
  LAKE_REQUIRE_OK(rows);
  std::vector<DataLocation> locations;
  for (const auto& row : *rows) {
    if (const auto* l = std::get_if<DataLocation>(&row[2])) locations.push_back(*l);
  }
  return Uris(locations);
}

// The bytes and sources of a replace-where's two new videos.
struct NewVideos {
  std::vector<std::vector<uint8_t>> bytes = {testing::RandomBytes(400, 200),
                                             testing::RandomBytes(400, 500)};
  std::vector<testing::MemorySource> sources = {testing::MemorySource(bytes[0]),
                                                testing::MemorySource(bytes[1])};
  std::vector<sql::StatementParameter> Params() {
    return {CellValue{int64_t{2}}, CellValue{int64_t{5}},
            CellValue{std::string("r2")}, CellValue{int64_t{20}},
            sql::FileFromSource{&sources[0], "video/mp4"},
            CellValue{std::string("r5")}, CellValue{int64_t{50}},
            sql::FileFromSource{&sources[1], "video/mp4"}};
  }
};

// A root whose table holds e1..e6 (n = 1..6) in two fragments (versions 1
// and 2), each row with a video of its own.
struct ReplaceFixture {
  testing::TempDir dir;
  std::string root_dir = dir.Join("root");
  std::string backups = dir.Join("backups");
  io::PosixFileSystem posix;
  std::vector<DataLocation> videos;

  ReplaceFixture() {
    std::filesystem::create_directories(backups);
    std::unique_ptr<TableRoot> root = OpenTableRootOrStop(posix, root_dir);
    absl::StatusOr<std::vector<DataLocation>> created = testing::CreateSixEpisodes(*root);
    LAKE_REQUIRE_OK(created);
    videos = *std::move(created);
    REQUIRE(videos.size() == 6);
  }

  // After kReplace at version 2 completed or crashed: the table is at
  // version 2 with every row, or at 3 with e1, e3, e4, e6, r2 and r5;
  // version 2 reads every row either way; the current references are
  // exactly the rows' locations, each an object of the stage; nothing is
  // left to recover; and the replace-where run again (when it did not
  // happen) gives version 3 with exactly that result.
  void CheckWholeOrNothing(bool must_have_happened) {
    std::unique_ptr<TableRoot> root = OpenTableRootOrStop(posix, root_dir);
    absl::StatusOr<std::vector<table::RecoveredAppend>> recovered = root->tables->Recover();
    LAKE_REQUIRE_OK(recovered);
    CHECK(recovered->empty());
    const uint64_t version = CurrentVersion(*root);
    if (must_have_happened) REQUIRE(version == 3);
    REQUIRE((version == 2 || version == 3));
    const std::vector<std::string> all = {"e1", "e2", "e3", "e4", "e5", "e6"};
    const std::vector<std::string> replaced = {"e1", "e3", "e4", "e6", "r2", "r5"};
    CHECK(SortedIds(*root, 2) == all);
    CHECK(SortedIds(*root) == (version == 3 ? replaced : all));
    CheckReferencesExist(*root);
    if (version == 2) {
      NewVideos fresh;
      absl::StatusOr<table::ReplaceOutcome> again = root->Replace(kReplace, fresh.Params());
      LAKE_REQUIRE_OK(again);
      CHECK(again->deleted_rows == 2);
      CHECK(again->inserted_rows == 2);
      CHECK(CurrentVersion(*root) == 3);
      CHECK(SortedIds(*root) == replaced);
      CheckReferencesExist(*root);
    }
  }

  // The current references are exactly the live rows' locations, and the
  // stage holds each.
  static void CheckReferencesExist(TableRoot& root) {
    std::vector<std::string> current = CurrentUris(root);
    CHECK(current == RowUris(root));
    std::vector<std::string> objects = root.StageObjects();
    for (const std::string& uri : current) {
      CAPTURE(uri);
      CHECK(std::find(objects.begin(), objects.end(), uri) != objects.end());
    }
  }
};

TEST_CASE("a replace-where deletes the matching rows and appends the new ones in one version") {
  ReplaceFixture f;
  std::unique_ptr<TableRoot> root = OpenTableRootOrStop(f.posix, f.root_dir);
  NewVideos fresh;
  absl::StatusOr<table::ReplaceOutcome> replaced = root->Replace(kReplace, fresh.Params());
  LAKE_REQUIRE_OK(replaced);
  CHECK(replaced->version == 3);
  CHECK(replaced->deleted_rows == 2);
  CHECK(replaced->inserted_rows == 2);
  CHECK(SortedIds(*root) == std::vector<std::string>{"e1", "e3", "e4", "e6", "r2", "r5"});
  // The version before it still reads the old rows.
  CHECK(SortedIds(*root, 2) == std::vector<std::string>{"e1", "e2", "e3", "e4", "e5", "e6"});
}

TEST_CASE("a replace-where's delta removes the replaced rows' locations and adds the new ones") {
  ReplaceFixture f;
  std::unique_ptr<TableRoot> root = OpenTableRootOrStop(f.posix, f.root_dir);
  NewVideos fresh;
  LAKE_REQUIRE_OK(root->Replace(kReplace, fresh.Params()));
  std::vector<std::string> uris = CurrentUris(*root);
  CHECK(uris.size() == 6);
  CHECK(uris == RowUris(*root));
  CHECK(std::find(uris.begin(), uris.end(), f.videos[1].uri) == uris.end());
  CHECK(std::find(uris.begin(), uris.end(), f.videos[4].uri) == uris.end());
  // The union over the lineage holds the old and the new.
  CHECK(Uris(*root->References(kTable)).size() == 8);
  // One delta of version 3 holds both lists.
  absl::StatusOr<table::ReferenceDelta> delta = table::DecodeReferenceDelta(
      testing::ReadTablePathBytes(root->tables->TableDir(Name()),
                                  testing::ManifestOf(*root, kTable, 3).reference_delta_path));
  LAKE_REQUIRE_OK(delta);
  CHECK(delta->parent_version == 2);
  CHECK(Uris(delta->removed) == Uris({f.videos[1], f.videos[4]}));
  CHECK(delta->added.size() == 2);
  for (const DataLocation& added : delta->added) {
    CHECK(std::find(uris.begin(), uris.end(), added.uri) != uris.end());
  }
}

TEST_CASE("a replace-where whose WHERE matches nothing still appends its rows in one version") {
  ReplaceFixture f;
  std::unique_ptr<TableRoot> root = OpenTableRootOrStop(f.posix, f.root_dir);
  NewVideos fresh;
  std::vector<sql::StatementParameter> params = fresh.Params();
  params[0] = CellValue{int64_t{100}};
  params[1] = CellValue{int64_t{101}};
  absl::StatusOr<table::ReplaceOutcome> replaced = root->Replace(kReplace, std::move(params));
  LAKE_REQUIRE_OK(replaced);
  CHECK(replaced->version == 3);
  CHECK(replaced->deleted_rows == 0);
  CHECK(replaced->inserted_rows == 2);
  CHECK(SortedIds(*root).size() == 8);
  CHECK(CurrentUris(*root).size() == 8);
}

TEST_CASE("a replace-where into an empty table appends its rows") {
  ReplaceFixture f;
  std::unique_ptr<TableRoot> root = OpenTableRootOrStop(f.posix, f.root_dir);
  table::Schema schema;
  schema.columns = {{"id", table::ColumnType::kUtf8}, {"n", table::ColumnType::kInt64}};
  LAKE_REQUIRE_OK(root->tables->CreateTable(*table::ParseTableName("robots.empty"), schema));
  absl::StatusOr<table::ReplaceOutcome> replaced =
      root->Replace("INSERT INTO robots.empty REPLACE WHERE n = ? (id, n) VALUES (?, ?)",
                    {CellValue{int64_t{1}}, CellValue{std::string("a")}, CellValue{int64_t{1}}});
  LAKE_REQUIRE_OK(replaced);
  CHECK(replaced->version == 1);
  CHECK(replaced->deleted_rows == 0);
  CHECK(replaced->inserted_rows == 1);
  CHECK(root->Rows("robots.empty")->size() == 1);
}

TEST_CASE("a replace-where that binds a replaced row's own location keeps it referenced") {
  ReplaceFixture f;
  std::unique_ptr<TableRoot> root = OpenTableRootOrStop(f.posix, f.root_dir);
  absl::StatusOr<table::ReplaceOutcome> replaced = root->Replace(
      "INSERT INTO robots.episodes REPLACE WHERE n = ? (episode_id, n, video) VALUES (?, ?, ?)",
      {CellValue{int64_t{1}}, CellValue{std::string("e1b")}, CellValue{int64_t{10}},
       CellValue{f.videos[0]}});
  LAKE_REQUIRE_OK(replaced);
  CHECK(replaced->deleted_rows == 1);
  std::vector<std::string> uris = CurrentUris(*root);
  CHECK(std::find(uris.begin(), uris.end(), f.videos[0].uri) != uris.end());
  CHECK(uris.size() == 6);
  CHECK(uris == RowUris(*root));
}

TEST_CASE("a replace-where's parameters are checked before anything is uploaded or written") {
  ReplaceFixture f;
  std::unique_ptr<TableRoot> root = OpenTableRootOrStop(f.posix, f.root_dir);
  size_t objects = root->StageObjects().size();
  NewVideos fresh;
  std::vector<sql::StatementParameter> params = fresh.Params();
  params[0] = CellValue{std::string("not a number")};
  CHECK(absl::IsInvalidArgument(root->Replace(kReplace, std::move(params)).status()));
  // A FILE to upload in the WHERE is refused when bound.
  NewVideos other;
  params = other.Params();
  params[0] = sql::FileFromSource{&other.sources[0], ""};
  CHECK(absl::IsInvalidArgument(root->Replace(kReplace, std::move(params)).status()));
  CHECK(CurrentVersion(*root) == 2);
  CHECK(root->StageObjects().size() == objects);
}

// A source that, at its first read, lets `between` run (an append landing
// between the replace-where's read of its base and its commit), then reads
// `bytes`.
class InterposingSource final : public UploadSource {
 public:
  InterposingSource(const std::vector<uint8_t>& bytes, std::function<void()> between)
      : inner_(bytes), between_(std::move(between)) {}
  absl::StatusOr<size_t> Read(uint8_t* dst, size_t len) override {
    if (between_) {
      between_();
      between_ = nullptr;
    }
    return inner_.Read(dst, len);
  }

 private:
  testing::MemorySource inner_;
  std::function<void()> between_;
};

TEST_CASE("an append another thread commits while a replace-where uploads is a conflict") {
  ReplaceFixture f;
  std::unique_ptr<TableRoot> root = OpenTableRootOrStop(f.posix, f.root_dir);
  std::vector<uint8_t> bytes = testing::RandomBytes(400, 77);
  InterposingSource source(bytes, [&] {
    std::thread other([&] {
      LAKE_CHECK_OK(root->Insert(
          "INSERT INTO robots.episodes (episode_id, n) VALUES (?, ?)",
          {CellValue{std::string("e7")}, CellValue{int64_t{7}}}));
    });
    other.join();
  });
  absl::StatusOr<table::ReplaceOutcome> replaced = root->Replace(
      "INSERT INTO robots.episodes REPLACE WHERE n = ? (episode_id, n, video) VALUES (?, ?, ?)",
      {CellValue{int64_t{2}}, CellValue{std::string("r2")}, CellValue{int64_t{20}},
       sql::FileFromSource{&source, "video/mp4"}});
  CHECK(absl::IsAborted(replaced.status()));
  CHECK(registry::GetVersionConflict(replaced.status()).has_value());
  // The append stands; nothing of the replace-where was committed.
  CHECK(CurrentVersion(*root) == 3);
  CHECK(SortedIds(*root) == std::vector<std::string>{"e1", "e2", "e3", "e4", "e5", "e6", "e7"});
}

TEST_CASE("a replace-where on a stale base commits nothing and leaves no file behind") {
  ReplaceFixture f;
  std::unique_ptr<TableRoot> root = OpenTableRootOrStop(f.posix, f.root_dir);
  absl::StatusOr<registry::TableRecord> base = root->tables->GetTable(Name());
  LAKE_REQUIRE_OK(base);
  LAKE_REQUIRE_OK(root->Delete("DELETE FROM robots.episodes WHERE n = ?", {CellValue{int64_t{6}}}));
  auto files = [&] { return testing::FilesUnder(root->tables->TableDir(Name())); };
  const auto before = files();
  table::ColumnBatch rows = table::ColumnBatch::Empty(base->schema);
  LAKE_REQUIRE_OK(rows.AppendRow({CellValue{std::string("r")}, CellValue{int64_t{9}},
                                  CellValue{std::monostate{}}}));
  CHECK(absl::IsAborted(root->tables->ReplaceWhere(*base, {}, rows).status()));
  CHECK(CurrentVersion(*root) == 3);
  CHECK(files() == before);
}

// ---- Crash safety ----

TEST_CASE("replace-where: the failpoint list names every step it passes, in order") {
  REQUIRE(failpoint::Enabled());
  ReplaceFixture f;
  failpoint::ClearAll();
  {
    std::unique_ptr<TableRoot> root = OpenTableRootOrStop(f.posix, f.root_dir);
    NewVideos fresh;
    LAKE_REQUIRE_OK(root->Replace(kReplace, fresh.Params()));
  }
  for (std::string_view step : table::kTableReplaceFailpoints) {
    CAPTURE(std::string(step));
    CHECK(failpoint::HitCount(step) == 1);
  }
  failpoint::ClearAll();
}

TEST_CASE("replace-where: a failure before the commit leaves the version and no table file") {
  REQUIRE(failpoint::Enabled());
  for (size_t i = 0; i + 1 < table::kTableReplaceFailpoints.size(); ++i) {
    std::string_view step = table::kTableReplaceFailpoints[i];
    CAPTURE(std::string(step));
    ReplaceFixture f;
    std::unique_ptr<TableRoot> root = OpenTableRootOrStop(f.posix, f.root_dir);
    auto files = [&] { return testing::FilesUnder(root->tables->TableDir(Name())); };
    const auto before = files();
    failpoint::ClearAll();
    failpoint::Set(step, failpoint::Action::kError);
    NewVideos fresh;
    CHECK_FALSE(root->Replace(kReplace, fresh.Params()).ok());
    failpoint::ClearAll();
    CHECK(CurrentVersion(*root) == 2);
    CHECK(files() == before);
    root.reset();
    f.CheckWholeOrNothing(/*must_have_happened=*/false);
  }
}

TEST_CASE("replace-where: a child SIGKILLed at each step leaves it whole or not at all") {
  REQUIRE(failpoint::Enabled());
  for (size_t i = 0; i < table::kTableReplaceFailpoints.size(); ++i) {
    std::string_view step = table::kTableReplaceFailpoints[i];
    CAPTURE(std::string(step));
    ReplaceFixture f;
    pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      failpoint::ClearAll();
      failpoint::Set(step, failpoint::Action::kKill);
      absl::StatusOr<std::unique_ptr<TableRoot>> root = TableRoot::Open(f.posix, f.root_dir);
      if (!root.ok()) ::_exit(11);
      NewVideos fresh;
      (void)(*root)->Replace(kReplace, fresh.Params());
      ::_exit(13);  // the failpoint should have killed us
    }
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    REQUIRE(WIFSIGNALED(status));
    CHECK(WTERMSIG(status) == SIGKILL);
    // Past the registry's synced write (the last step), it is durable.
    f.CheckWholeOrNothing(/*must_have_happened=*/i + 1 == table::kTableReplaceFailpoints.size());
  }
}

TEST_CASE("replace-where: a power loss at each step leaves it whole or not at all") {
  REQUIRE(failpoint::Enabled());
  for (size_t i = 0; i < table::kTableReplaceFailpoints.size(); ++i) {
    std::string_view step = table::kTableReplaceFailpoints[i];
    CAPTURE(std::string(step));
    ReplaceFixture f;
    {
      testing::FaultInjectionFileSystem fs(f.posix, f.backups);
      std::unique_ptr<TableRoot> root = OpenTableRootOrStop(fs, f.root_dir);
      failpoint::ClearAll();
      failpoint::Set(step, failpoint::Action::kCallback, [&] {
        fs.Crash();
        return absl::UnavailableError("power lost");
      });
      NewVideos fresh;
      absl::Status replaced = root->Replace(kReplace, fresh.Params()).status();
      failpoint::ClearAll();
      CHECK_FALSE(replaced.ok());
      CHECK(fs.crashed());
    }
    f.CheckWholeOrNothing(/*must_have_happened=*/i + 1 == table::kTableReplaceFailpoints.size());
  }
}

TEST_CASE("gc racing a replace-where at each of its steps never deletes what a retained version references") {
  REQUIRE(failpoint::Enabled());
  for (std::string_view step : table::kTableReplaceFailpoints) {
    CAPTURE(std::string(step));
    testing::GcTestRoot root;
    root.CreateTable("ns.t");
    std::vector<DataLocation> objects;
    for (int i = 0; i < 3; ++i) {
      objects.push_back(root.Put(100, static_cast<uint64_t>(i) + 1));
      root.InsertLocation("ns.t", "r" + std::to_string(i), objects.back());
    }
    // The replacement row's object: in the stage, referenced by nothing yet.
    DataLocation fresh = root.Put(100, 99);
    objects.push_back(fresh);
    root.AgeEverything(absl::Hours(48));
    // A whole collection (cutoff zero) starts while the replace-where is at
    // `step`.
    absl::StatusOr<table::ReplaceOutcome> outcome;
    absl::Status collected = testing::CollectAtStep(root, step, [&] {
      outcome = root.tables().Replace(
          "INSERT INTO ns.t REPLACE WHERE id = ? (id, f) VALUES (?, ?)",
          {CellValue{std::string("r1")}, CellValue{std::string("r9")}, CellValue{fresh}});
    });
    LAKE_REQUIRE_OK(outcome);
    CHECK(outcome->version == 4);
    // Whatever the collection did (it may refuse a changed root), every
    // retained version reads all its rows and every object is there.
    CAPTURE(collected.ToString());
    CHECK(root.tables().Rows("ns.t", 3)->size() == 3);
    CHECK(root.tables().Rows("ns.t", 4)->size() == 3);
    for (const DataLocation& object : objects) CHECK(root.Exists(object));
    // A collection after it takes no object and no table file either.
    absl::StatusOr<gc::PlanSummary> after = root.Plan();
    LAKE_REQUIRE_OK(after);
    for (const std::string& uri : root.PlannedUris(after->manifest.plan_id)) {
      CHECK_MESSAGE(uri.find("/stage/objects/") == std::string::npos, uri);
    }
    CHECK(after->manifest.table_files == 0);
  }
}

}  // namespace
}  // namespace lake
