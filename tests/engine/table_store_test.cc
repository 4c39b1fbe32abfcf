// Tables end to end below the C ABI: create, INSERT with FILE uploads and
// existing locations, scans and time travel, the version CAS race, SQL
// errors that leave no trace, compaction, the reference journal, and
// append recovery.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>

#include "absl/strings/str_cat.h"
#include "engine/managed_key.h"
#include "engine/operation_id.h"
#include "engine/stage_descriptor.h"
#include "engine/table/append_checkpoint_format.h"
#include "engine/table/append_checkpoint_store.h"
#include "engine/table/fragment_format.h"
#include "engine/table/manifest_chain.h"
#include "engine/table/manifest_format.h"
#include "registry/commit_errors.h"
#include "spill/spill_sorter.h"
#include "tests/support/stage_fixture.h"
#include "tests/support/status_checks.h"
#include "tests/support/table_fixture.h"
#include "tests/support/test_files.h"

namespace lake {
namespace {

using table::CellValue;
using testing::TableRoot;

constexpr char kEpisodes[] = "robots.episodes";
constexpr char kInsert[] =
    "INSERT INTO robots.episodes (episode_id, n, video) VALUES (?, ?, ?)";

std::unique_ptr<TableRoot> OpenRoot(const std::string& dir) {
  absl::StatusOr<io::FileSystem*> fs = io::DefaultFileSystem();
  REQUIRE(fs.ok());
  absl::StatusOr<std::unique_ptr<TableRoot>> root = TableRoot::Open(**fs, dir);
  LAKE_REQUIRE_OK(root);
  return std::move(*root);
}

void CreateEpisodes(TableRoot& root) {
  table::Schema schema;
  schema.columns = {{"episode_id", table::ColumnType::kUtf8},
                    {"n", table::ColumnType::kInt64},
                    {"video", table::ColumnType::kFile}};
  LAKE_REQUIRE_OK(root.tables->CreateTable(*table::ParseTableName(kEpisodes), schema));
}

struct Source {
  std::vector<uint8_t> bytes;
  testing::MemorySource source;
  explicit Source(size_t n, uint64_t seed) : bytes(testing::RandomBytes(n, seed)), source(bytes) {}
};

std::vector<sql::StatementParameter> Episode(const std::string& id, int64_t n, Source& video) {
  return {CellValue{id}, CellValue{n}, sql::FileFromSource{&video.source, "video/mp4"}};
}

// Two one-row batches, ("r0", 0) and ("r1", 1), each with a video of 2000
// bytes (seeds `first_seed` and the next) already uploaded: appends
// prepared on the version read, not yet committed.
std::vector<table::ColumnBatch> TwoUploadedRows(TableRoot& root, const table::Schema& schema,
                                                uint64_t first_seed) {
  std::vector<table::ColumnBatch> batches;
  for (int i = 0; i < 2; ++i) {
    Source video(2000, first_seed + i);
    absl::StatusOr<DataLocation> location = root.stage->Upload(video.source, {});
    LAKE_REQUIRE_OK(location);
    table::ColumnBatch batch = table::ColumnBatch::Empty(schema);
    LAKE_REQUIRE_OK(batch.AppendRow({CellValue{absl::StrCat("r", i)}, CellValue{int64_t{i}},
                                     CellValue{*location}}));
    batches.push_back(std::move(batch));
  }
  return batches;
}

// Appends `count` one-row versions "e<i>", n = i, each with its own video
// (one fragment each, in order).
void AppendOneRowFragments(TableRoot& root, int count, uint64_t seed,
                           std::vector<std::unique_ptr<Source>>& sources) {
  for (int i = 0; i < count; ++i) {
    sources.push_back(std::make_unique<Source>(40 + i, seed + i));
    LAKE_REQUIRE_OK(root.Insert(kInsert, Episode(absl::StrCat("e", i), i, *sources.back())));
  }
}

// Where the fragments of robots.episodes lie (table log records, or
// files), in append order: as the newest manifest lists them (the order a
// scan reads them in).
std::vector<testing::TablePathBytes> EpisodeFragmentFiles(TableRoot& root) {
  const std::string table_dir = root.tables->TableDir(*table::ParseTableName(kEpisodes));
  absl::StatusOr<registry::TableRecord> table =
      root.tables->GetTable(*table::ParseTableName(kEpisodes));
  LAKE_REQUIRE_OK(table);
  REQUIRE(table->current_version > 0);
  std::vector<testing::TablePathBytes> fragments;
  for (const table::FragmentRef& fragment :
       testing::ManifestOf(root, kEpisodes, table->current_version).fragments) {
    fragments.push_back(testing::LocateTablePath(table_dir, fragment.path));
  }
  return fragments;
}

// Overwrites one byte of what `at` locates, `offset` bytes from `whence`.
void DamageByte(const testing::TablePathBytes& at, std::streamoff offset,
                std::ios::seekdir whence) {
  testing::DamageTableByte(at, offset, whence);
}

TEST_CASE("tables: an INSERT uploads its FILE, appends one version, and the row reads back") {
  testing::TempDir dir;
  auto root = OpenRoot(dir.path());
  CreateEpisodes(*root);
  Source video(100000, 1);
  absl::StatusOr<table::AppendOutcome> outcome = root->Insert(kInsert, Episode("ep-1", 7, video));
  LAKE_REQUIRE_OK(outcome);
  CHECK(outcome->version == 1);
  CHECK(outcome->rows == 1);
  auto rows = root->Rows(kEpisodes);
  LAKE_REQUIRE_OK(rows);
  REQUIRE(rows->size() == 1);
  CHECK(std::get<std::string>((*rows)[0][0]) == "ep-1");
  CHECK(std::get<int64_t>((*rows)[0][1]) == 7);
  const DataLocation& location = std::get<DataLocation>((*rows)[0][2]);
  CHECK(location.size_bytes == 100000);
  CHECK(location.sha256 == testing::Sha256Hex(video.bytes));
  CHECK(location.content_type == "video/mp4");
  // The object is readable, verified, through the stage.
  absl::StatusOr<std::unique_ptr<ObjectReader>> reader = root->stage->OpenVerified(location);
  LAKE_REQUIRE_OK(reader);
  std::vector<uint8_t> back;
  LAKE_CHECK_OK(testing::ReadAll(**reader, &back));
  CHECK(back == video.bytes);
  // Its reference is in the journal.
  auto refs = root->References(kEpisodes);
  LAKE_REQUIRE_OK(refs);
  REQUIRE(refs->size() == 1);
  CHECK((*refs)[0] == location);
  // No checkpoint is left behind.
  CHECK(testing::CheckpointFilesExceptSpares(dir.Join("checkpoints")).empty());
}

TEST_CASE("tables: each version sees exactly its rows (time travel), WHERE and LIMIT") {
  testing::TempDir dir;
  auto root = OpenRoot(dir.path());
  CreateEpisodes(*root);
  std::vector<std::unique_ptr<Source>> sources;
  for (int i = 1; i <= 3; ++i) {
    sources.push_back(std::make_unique<Source>(1000 * i, 10 + i));
    LAKE_REQUIRE_OK(root->Insert(
        "INSERT INTO robots.episodes (episode_id, n, video) VALUES (?, ?, ?), (?, ?, ?)",
        {CellValue{absl::StrCat("a", i)}, CellValue{int64_t{i}},
         sql::FileFromSource{&sources.back()->source, ""}, CellValue{absl::StrCat("b", i)},
         CellValue{int64_t{i * 10}}, CellValue{}}));
  }
  for (uint64_t v = 0; v <= 3; ++v) {
    CAPTURE(v);
    auto rows = root->Rows(kEpisodes, v);
    LAKE_REQUIRE_OK(rows);
    CHECK(rows->size() == 2 * v);
  }
  CHECK(absl::IsNotFound(root->Rows(kEpisodes, 4).status()));
  auto b2 = root->Query("SELECT n FROM robots.episodes WHERE episode_id = ?", {CellValue{"b2"}});
  LAKE_REQUIRE_OK(b2);
  REQUIRE(b2->size() == 1);
  CHECK(std::get<int64_t>((*b2)[0][0]) == 20);
  auto limited = root->Query("SELECT episode_id FROM robots.episodes LIMIT 3");
  LAKE_REQUIRE_OK(limited);
  CHECK(limited->size() == 3);
  auto nulls = root->Query("SELECT video FROM robots.episodes WHERE n = ?", {CellValue{int64_t{30}}});
  LAKE_REQUIRE_OK(nulls);
  REQUIRE(nulls->size() == 1);
  CHECK(std::holds_alternative<std::monostate>((*nulls)[0][0]));
  // Three references: the NULL FILE cells add none.
  auto refs = root->References(kEpisodes);
  LAKE_REQUIRE_OK(refs);
  CHECK(refs->size() == 3);
}

TEST_CASE("tables: a WHERE with comparisons, IN, IS NULL, OR and NOT selects across fragments") {
  testing::TempDir dir;
  auto root = OpenRoot(dir.path());
  CreateEpisodes(*root);
  std::vector<std::unique_ptr<Source>> sources;
  AppendOneRowFragments(*root, 5, 70, sources);  // e0..e4, n = 0..4, one fragment each
  auto ids = [&](const std::string& where, std::vector<CellValue> params) {
    auto rows = root->Query("SELECT episode_id FROM robots.episodes WHERE " + where, std::move(params));
    REQUIRE_MESSAGE(rows.ok(), rows.status().ToString());
    std::vector<std::string> out;
    for (const auto& row : *rows) out.push_back(std::get<std::string>(row[0]));
    return out;
  };
  CHECK(ids("n >= ? AND n < ?", {int64_t{1}, int64_t{3}}) == std::vector<std::string>{"e1", "e2"});
  CHECK(ids("n IN (?, ?) OR episode_id = ?", {int64_t{0}, int64_t{4}, std::string("e2")}) ==
        std::vector<std::string>{"e0", "e2", "e4"});
  CHECK(ids("NOT (n > ?) AND video IS NOT NULL", {int64_t{1}}) == std::vector<std::string>{"e0", "e1"});
  CHECK(ids("video IS NULL", {}).empty());
}

TEST_CASE("tables: SELECT count(*) counts a version's rows, or the rows its WHERE keeps") {
  testing::TempDir dir;
  auto root = OpenRoot(dir.path());
  CreateEpisodes(*root);
  std::vector<std::unique_ptr<Source>> sources;
  AppendOneRowFragments(*root, 4, 80, sources);
  auto count = [&](const std::string& sql, std::vector<CellValue> params) -> int64_t {
    auto rows = root->Query(sql, std::move(params));
    REQUIRE_MESSAGE(rows.ok(), rows.status().ToString());
    REQUIRE(rows->size() == 1);
    return std::get<int64_t>((*rows)[0][0]);
  };
  CHECK(count("SELECT count(*) FROM robots.episodes", {}) == 4);
  CHECK(count("SELECT COUNT(*) FROM robots.episodes AS OF VERSION 2", {}) == 2);
  CHECK(count("SELECT count(*) FROM robots.episodes AS OF VERSION 0", {}) == 0);
  CHECK(count("SELECT count(*) FROM robots.episodes WHERE n > ?", {int64_t{1}}) == 2);
  CHECK(count("SELECT count(*) FROM robots.episodes WHERE n = ?", {int64_t{9}}) == 0);
  auto none = root->Query("SELECT count(*) FROM robots.episodes LIMIT 0");
  LAKE_REQUIRE_OK(none);
  CHECK(none->empty());
}

TEST_CASE("tables: ORDER BY sorts across fragments, as top-k with a LIMIT and through the spill without") {
  testing::TempDir dir;
  auto root = OpenRoot(dir.path());
  CreateEpisodes(*root);
  std::vector<std::unique_ptr<Source>> sources;
  AppendOneRowFragments(*root, 6, 90, sources);  // e0..e5, n = 0..5
  LAKE_REQUIRE_OK(root->Insert("INSERT INTO robots.episodes (episode_id) VALUES (?), (?)",
                               {CellValue{"x"}, CellValue{"y"}}));  // n null
  auto ids = [&](const std::string& sql, const sql::QueryOptions& options) {
    auto rows = root->Query(sql, {CellValue{int64_t{1}}}, options);
    REQUIRE_MESSAGE(rows.ok(), rows.status().ToString());
    std::vector<std::string> out;
    for (const auto& row : *rows) out.push_back(std::get<std::string>(row[0]));
    return out;
  };
  sql::QueryOptions spill;  // a sort that must spill even 8 rows
  spill.sort.block_bytes = 4096;
  spill::SpillOptions spill_options;
  spill_options.block_bytes = 4096;
  spill.sort.memory_bytes = spill::SpillSorter::MinimumBudget(spill_options);
  spill.sort.max_top_k_rows = 2;
  for (const sql::QueryOptions& options : {sql::QueryOptions{}, spill}) {
    CHECK(ids("SELECT episode_id FROM robots.episodes WHERE n >= ? ORDER BY n DESC LIMIT 3", options) ==
          std::vector<std::string>{"e5", "e4", "e3"});
    CHECK(ids("SELECT episode_id FROM robots.episodes WHERE n >= ? OR n IS NULL ORDER BY n", options) ==
          std::vector<std::string>{"e1", "e2", "e3", "e4", "e5", "x", "y"});
    CHECK(ids("SELECT episode_id FROM robots.episodes WHERE n != ? ORDER BY episode_id DESC", options) ==
          std::vector<std::string>{"e5", "e4", "e3", "e2", "e0"});
  }
  // Every sort removed its spill.
  std::vector<std::string> left;
  if (std::filesystem::exists(dir.Join("sort"))) {
    for (const auto& entry : std::filesystem::directory_iterator(dir.Join("sort"))) {
      left.push_back(entry.path().string());
    }
  }
  CHECK(left.empty());
}

// Runs `sql` with `params`; its rows' count and the fragment files it read.
struct QueryReads {
  size_t rows = 0;
  size_t fragments_opened = 0;
};
QueryReads RunCounting(TableRoot& root, const std::string& sql, std::vector<CellValue> params) {
  absl::StatusOr<std::unique_ptr<sql::PreparedStatement>> stmt = sql::PreparedStatement::Prepare(*root.tables, sql);
  LAKE_REQUIRE_OK(stmt);
  for (size_t i = 0; i < params.size(); ++i) LAKE_REQUIRE_OK((*stmt)->Bind(i + 1, params[i]));
  absl::StatusOr<std::unique_ptr<sql::QueryResult>> result = (*stmt)->ExecuteQuery();
  LAKE_REQUIRE_OK(result);
  QueryReads reads;
  for (;;) {
    absl::StatusOr<std::optional<table::ColumnBatch>> batch = (*result)->Next();
    LAKE_REQUIRE_OK(batch);
    if (!batch->has_value()) break;
    reads.rows += (*batch)->num_rows;
  }
  reads.fragments_opened = (*result)->fragments_opened();
  return reads;
}

TEST_CASE("tables: a scan never opens a fragment whose statistics the WHERE cannot match") {
  testing::TempDir dir;
  auto root = OpenRoot(dir.path());
  CreateEpisodes(*root);
  std::vector<std::unique_ptr<Source>> sources;
  AppendOneRowFragments(*root, 6, 100, sources);  // e0..e5, n = 0..5: one fragment each
  auto reads = [&](const std::string& where, std::vector<CellValue> params) {
    return RunCounting(*root, "SELECT episode_id FROM robots.episodes WHERE " + where, std::move(params));
  };
  QueryReads all = RunCounting(*root, "SELECT * FROM robots.episodes", {});
  CHECK(all.rows == 6);
  CHECK(all.fragments_opened == 6);
  QueryReads one = reads("n = ?", {int64_t{3}});
  CHECK(one.rows == 1);
  CHECK(one.fragments_opened == 1);
  QueryReads range = reads("n > ? AND n <= ?", {int64_t{1}, int64_t{3}});
  CHECK(range.rows == 2);
  CHECK(range.fragments_opened == 2);
  QueryReads text = reads("episode_id IN (?, ?) OR n < ?", {std::string("e5"), std::string("zz"), int64_t{1}});
  CHECK(text.rows == 2);
  CHECK(text.fragments_opened == 2);
  QueryReads none = reads("video IS NULL", {});
  CHECK(none.rows == 0);
  CHECK(none.fragments_opened == 0);
  QueryReads null_parameter = reads("n = ?", {std::monostate{}});
  CHECK(null_parameter.fragments_opened == 0);
  // NOT and != need every fragment whose values differ.
  QueryReads negated = reads("NOT n = ?", {int64_t{0}});
  CHECK(negated.rows == 5);
  CHECK(negated.fragments_opened == 5);
  // count(*) with a WHERE skips the same way; without one it opens nothing.
  QueryReads counted = RunCounting(*root, "SELECT count(*) FROM robots.episodes WHERE n >= ?", {int64_t{4}});
  CHECK(counted.fragments_opened == 2);
  CHECK(RunCounting(*root, "SELECT count(*) FROM robots.episodes", {}).fragments_opened == 0);
}

// Each version's manifest of robots.episodes (its own, not resolved),
// decoded, in version order.
std::vector<table::ManifestFile> EpisodeManifestFiles(TableRoot& root, uint64_t versions) {
  const std::string table_dir = root.tables->TableDir(*table::ParseTableName(kEpisodes));
  std::vector<table::ManifestFile> files;
  for (uint64_t v = 1; v <= versions; ++v) {
    absl::StatusOr<table::ManifestFile> file = table::DecodeManifestFile(
        testing::ReadTablePathBytes(table_dir, testing::ManifestPathOf(root, kEpisodes, v)));
    LAKE_REQUIRE_OK(file);
    files.push_back(*std::move(file));
  }
  return files;
}

TEST_CASE("tables: an append's manifest is a link holding the fragments since its base, or a checkpoint") {
  testing::TempDir dir;
  std::vector<std::unique_ptr<Source>> sources;
  auto root = OpenRoot(dir.path());
  CreateEpisodes(*root);
  constexpr int kAppends = 60;
  AppendOneRowFragments(*root, kAppends, 300, sources);
  size_t links = 0;
  for (const table::ManifestFile& file : EpisodeManifestFiles(*root, kAppends)) {
    const table::ManifestLink* link = std::get_if<table::ManifestLink>(&file);
    if (link == nullptr) continue;
    ++links;
    CHECK(link->removed.empty());
    // One per version since its base, the version at p - lowbit(p).
    CHECK(link->added.size() == table::ManifestChainLowBit(link->chain_position));
  }
  CHECK(links >= kAppends / 2);
  // Every version reads its own rows through its chain.
  for (int v = 1; v <= kAppends; v += 7) {
    CAPTURE(v);
    absl::StatusOr<std::vector<std::vector<CellValue>>> rows = root->Rows(kEpisodes, v);
    LAKE_REQUIRE_OK(rows);
    CHECK(rows->size() == static_cast<size_t>(v));
  }
}

TEST_CASE("tables: a compaction's manifest is a checkpoint; appends after it link to it") {
  testing::TempDir dir;
  std::vector<std::unique_ptr<Source>> sources;
  auto root = OpenRoot(dir.path());
  CreateEpisodes(*root);
  AppendOneRowFragments(*root, 30, 400, sources);
  absl::StatusOr<std::optional<table::AppendOutcome>> compacted =
      root->tables->Compact(*table::ParseTableName(kEpisodes));
  LAKE_REQUIRE_OK(compacted);
  REQUIRE(compacted->has_value());
  CHECK((*compacted)->version == 31);
  AppendOneRowFragments(*root, 30, 500, sources);  // versions 32..61
  std::vector<table::ManifestFile> files = EpisodeManifestFiles(*root, 61);
  REQUIRE(std::holds_alternative<table::Manifest>(files[30]));
  CHECK(std::get<table::Manifest>(files[30]).fragments.size() == 1);
  CHECK(root->Rows(kEpisodes, 31)->size() == 30);
  CHECK(root->Rows(kEpisodes)->size() == 60);
}

TEST_CASE("tables: a store that committed a version links the next one without reading the chain") {
  testing::TempDir dir;
  std::vector<std::unique_ptr<Source>> sources;
  auto root = OpenRoot(dir.path());
  CreateEpisodes(*root);
  AppendOneRowFragments(*root, 40, 600, sources);
  // The chain behind version 40 is damaged: this store appends on what it
  // committed, and the new version (its chain unreadable) is still a link.
  std::vector<table::ManifestFile> files = EpisodeManifestFiles(*root, 40);
  REQUIRE(std::holds_alternative<table::ManifestLink>(files[39]));
  const std::string table_dir = root->tables->TableDir(*table::ParseTableName(kEpisodes));
  for (uint64_t v = 1; v < 40; ++v) {
    DamageByte(testing::LocateTablePath(table_dir, testing::ManifestPathOf(*root, kEpisodes, v)), 0,
               std::ios::beg);
  }
  AppendOneRowFragments(*root, 1, 700, sources);  // version 41
  absl::StatusOr<table::ManifestFile> file = table::DecodeManifestFile(
      testing::ReadTablePathBytes(table_dir, testing::ManifestPathOf(*root, kEpisodes, 41)));
  LAKE_REQUIRE_OK(file);
  CHECK(std::holds_alternative<table::ManifestLink>(*file));
  // A new store must walk the chain: the missing link fails closed.
  auto reopened = OpenRoot(dir.path());
  CHECK(absl::IsDataLoss(reopened->Rows(kEpisodes).status()));
}

TEST_CASE("tables: a table whose manifests are format 1 files stays readable; its old fragments are always opened") {
  testing::TempDir dir;
  std::vector<std::unique_ptr<Source>> sources;
  {
    // Versions 1 and 2 as files, as lakes before the table log wrote them;
    // version 3 (below) in the table log.
    testing::ScopedVersionsAsFiles as_files;
    auto root = OpenRoot(dir.path());
    CreateEpisodes(*root);
    AppendOneRowFragments(*root, 2, 110, sources);  // versions 1 and 2
  }
  // Version 2's manifest as a lake before statistics wrote it.
  const std::string path = dir.path() + "/tables/robots/episodes/" + table::ManifestRelativePath(2);
  absl::StatusOr<io::FileSystem*> fs = io::DefaultFileSystem();
  LAKE_REQUIRE_OK(fs);
  table::ManifestChainReader reader(**fs, dir.path() + "/tables/robots/episodes");
  absl::StatusOr<const table::ResolvedManifest*> resolved =
      reader.Resolve(2, table::ManifestRelativePath(2));
  LAKE_REQUIRE_OK(resolved);
  std::optional<table::Manifest> manifest = (*resolved)->manifest;
  CHECK(manifest->format_version == table::kManifestFormatVersion);
  manifest->format_version = table::kManifestFormatVersionV1;
  for (table::FragmentRef& fragment : manifest->fragments) fragment.statistics.reset();
  absl::StatusOr<std::string> v1 = table::EncodeManifest(*manifest);
  LAKE_REQUIRE_OK(v1);
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << *v1;
  }
  auto root = OpenRoot(dir.path());
  sources.push_back(std::make_unique<Source>(50, 120));
  LAKE_REQUIRE_OK(root->Insert(kInsert, Episode("e2", 2, *sources.back())));  // version 3, on the v1 parent
  QueryReads match = RunCounting(*root, "SELECT episode_id FROM robots.episodes WHERE n = ?", {int64_t{2}});
  CHECK(match.rows == 1);
  CHECK(match.fragments_opened == 3);  // the two without statistics, and the match
  QueryReads old = RunCounting(*root, "SELECT episode_id FROM robots.episodes AS OF VERSION 2 WHERE n = ?",
                               {int64_t{1}});
  CHECK(old.rows == 1);
  CHECK(old.fragments_opened == 2);
  QueryReads miss = RunCounting(*root, "SELECT episode_id FROM robots.episodes WHERE n = ?", {int64_t{9}});
  CHECK(miss.rows == 0);
  CHECK(miss.fragments_opened == 2);
}

TEST_CASE("tables: an existing location is appended without an upload; outsiders are refused") {
  testing::TempDir dir;
  auto root = OpenRoot(dir.path());
  CreateEpisodes(*root);
  std::vector<uint8_t> bytes = testing::RandomBytes(5000, 3);
  testing::MemorySource source(bytes);
  absl::StatusOr<DataLocation> uploaded = root->stage->Upload(source, {});
  LAKE_REQUIRE_OK(uploaded);
  LAKE_REQUIRE_OK(root->Insert(kInsert, {CellValue{"x"}, CellValue{int64_t{1}}, CellValue{*uploaded}}));
  CHECK(root->StageObjects().size() == 1);
  // A wrong size is refused before anything is appended.
  DataLocation wrong = *uploaded;
  wrong.size_bytes = 4999;
  absl::Status refused =
      root->Insert(kInsert, {CellValue{"y"}, CellValue{int64_t{2}}, CellValue{wrong}}).status();
  CHECK(absl::IsDataLoss(refused));
  // A location outside the stage is refused at bind time.
  absl::StatusOr<DataLocation> outside = MakeDataLocation(
      "file:///etc/passwd", "text/plain", 10, std::string(64, 'a'));
  LAKE_REQUIRE_OK(outside);
  CHECK(absl::IsInvalidArgument(
      root->Insert(kInsert, {CellValue{"z"}, CellValue{int64_t{3}}, CellValue{*outside}}).status()));
  absl::StatusOr<registry::TableRecord> table =
      root->tables->GetTable(*table::ParseTableName(kEpisodes));
  LAKE_REQUIRE_OK(table);
  CHECK(table->current_version == 1);
}

TEST_CASE("tables: every SQL error is refused before any upload and leaves nothing behind") {
  testing::TempDir dir;
  auto root = OpenRoot(dir.path());
  CreateEpisodes(*root);
  Source video(1000, 4);
  struct Case {
    std::string sql;
    size_t params;
    std::string message;
  };
  std::vector<Case> cases = {
      {"INSERT INTO robots.episodes (episode_id, nope, video) VALUES (?, ?, ?)", 3, "nope"},
      {"INSERT INTO robots.missing (episode_id) VALUES (?)", 1, "missing"},
      {"UPDATE robots.episodes SET n = 1", 0, "UPDATE"},
      {"INSERT INTO robots.episodes (episode_id, n, video) VALUES (?, ?)", 2, "3 columns"},
      {"INSERT INTO robots.episodes (episode_id, n, video) VALUES (?, 42, ?)", 2, "42"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.sql);
    absl::Status status = root->Insert(c.sql, {}).status();
    CHECK_FALSE(status.ok());
    CHECK(std::string(status.message()).find(c.message) != std::string::npos);
  }
  // A wrongly typed parameter, bound after a FILE: nothing is uploaded.
  absl::Status typed = root->Insert(kInsert, {CellValue{"e"}, CellValue{"not a number"},
                                              sql::FileFromSource{&video.source, ""}})
                           .status();
  CHECK(absl::IsInvalidArgument(typed));
  // Too few parameters.
  CHECK(absl::IsInvalidArgument(root->Insert(kInsert, {CellValue{"e"}}).status()));
  // A missing file path is found before anything is uploaded.
  Source other(1000, 5);
  absl::Status missing =
      root->Insert("INSERT INTO robots.episodes (video, episode_id) VALUES (?, ?), (?, ?)",
                   {sql::FileFromSource{&other.source, ""}, CellValue{"a"},
                    sql::FileFromPath{dir.Join("no-such-file"), ""}, CellValue{"b"}})
          .status();
  CHECK(absl::IsNotFound(missing));
  CHECK(root->StageObjects().empty());
  CHECK(video.source.delivered() == 0);
  CHECK(other.source.delivered() == 0);
  absl::StatusOr<registry::TableRecord> table =
      root->tables->GetTable(*table::ParseTableName(kEpisodes));
  LAKE_REQUIRE_OK(table);
  CHECK(table->current_version == 0);
}

TEST_CASE("tables: an invalid SELECT is refused, naming its token or column, before any file is read") {
  testing::TempDir dir;
  auto root = OpenRoot(dir.path());
  CreateEpisodes(*root);
  std::vector<std::unique_ptr<Source>> sources;
  AppendOneRowFragments(*root, 2, 130, sources);
  // Every fragment file made unreadable: a query that read one would fail with DataLoss.
  for (const testing::TablePathBytes& fragment : EpisodeFragmentFiles(*root)) DamageByte(fragment, 0, std::ios::beg);
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"SELECT * FROM robots.episodes WHERE n => ?", "found '>' at offset 39"},
      {"SELECT * FROM robots.episodes WHERE (n = ?", "found end of statement at offset 42"},
      {"SELECT * FROM robots.episodes WHERE n IN ()", "expected ?, found ')' at offset 42"},
      {"SELECT * FROM robots.episodes WHERE video < ?", "column 'video' is a file"},
      {"SELECT * FROM robots.episodes ORDER BY video", "ORDER BY does not apply"},
      {"SELECT * FROM robots.episodes ORDER BY nope DESC", "no column 'nope'"},
      {"SELECT count(*) FROM robots.episodes ORDER BY n", "offset 37"},
  };
  for (const auto& [sql, message] : cases) {
    CAPTURE(sql);
    absl::Status status = root->Query(sql, {CellValue{int64_t{1}}}).status();
    CHECK(absl::IsInvalidArgument(status));
    CHECK(std::string(status.message()).find(message) != std::string::npos);
  }
  // A parameter of the wrong type or one missing: refused before the scan.
  CHECK(absl::IsInvalidArgument(
      root->Query("SELECT * FROM robots.episodes WHERE n > ? ORDER BY n", {CellValue{"x"}}).status()));
  CHECK(absl::IsInvalidArgument(
      root->Query("SELECT * FROM robots.episodes WHERE n IN (?, ?) ORDER BY n", {CellValue{int64_t{1}}}).status()));
  CHECK(!std::filesystem::exists(dir.Join("sort")));
  // The damage is real: a valid query that reads a fragment finds it.
  CHECK(absl::IsDataLoss(root->Query("SELECT * FROM robots.episodes").status()));
}

TEST_CASE("tables: an append of a batch built elsewhere refuses a FILE cell outside the stage") {
  testing::TempDir dir;
  auto root = OpenRoot(dir.path());
  CreateEpisodes(*root);
  absl::StatusOr<registry::TableRecord> table =
      root->tables->GetTable(*table::ParseTableName(kEpisodes));
  LAKE_REQUIRE_OK(table);
  absl::StatusOr<DataLocation> outside = MakeDataLocation(
      "file:///etc/passwd", "text/plain", 10, std::string(64, 'a'));
  LAKE_REQUIRE_OK(outside);
  table::ColumnBatch batch = table::ColumnBatch::Empty(table->schema);
  LAKE_REQUIRE_OK(batch.AppendRow({CellValue{"z"}, CellValue{int64_t{3}}, CellValue{*outside}}));
  absl::Status refused = root->tables->AppendBatch(*table, batch).status();
  CHECK(absl::IsInvalidArgument(refused));
  CHECK(std::string(refused.message()).find("/etc/passwd") != std::string::npos);
  absl::StatusOr<registry::TableRecord> after = root->tables->GetTable(table->name);
  LAKE_REQUIRE_OK(after);
  CHECK(after->current_version == table->current_version);
}

TEST_CASE("tables: two appends racing the CAS from one version: one commits, one conflicts") {
  testing::TempDir dir;
  auto root = OpenRoot(dir.path());
  CreateEpisodes(*root);
  absl::StatusOr<registry::TableRecord> table =
      root->tables->GetTable(*table::ParseTableName(kEpisodes));
  LAKE_REQUIRE_OK(table);
  // Both prepared against version 0, uploads done.
  std::vector<table::ColumnBatch> batches = TwoUploadedRows(*root, table->schema, 20);
  std::vector<absl::StatusOr<table::AppendOutcome>> outcomes(2, absl::UnknownError("unset"));
  std::thread a([&] { outcomes[0] = root->tables->AppendBatch(*table, batches[0]); });
  std::thread b([&] { outcomes[1] = root->tables->AppendBatch(*table, batches[1]); });
  a.join();
  b.join();
  int won = outcomes[0].ok() + outcomes[1].ok();
  CHECK(won == 1);
  const absl::Status& lost = outcomes[0].ok() ? outcomes[1].status() : outcomes[0].status();
  CHECK(absl::IsAborted(lost));
  CHECK(registry::GetVersionConflict(lost).has_value());
  auto rows = root->Rows(kEpisodes);
  LAKE_REQUIRE_OK(rows);
  CHECK(rows->size() == 1);
  // The loser's object stays in the stage, unreferenced; no checkpoint is left.
  CHECK(root->StageObjects().size() == 2);
  auto refs = root->References(kEpisodes);
  LAKE_REQUIRE_OK(refs);
  CHECK(refs->size() == 1);
  CHECK(testing::CheckpointFilesExceptSpares(dir.Join("checkpoints")).empty());
}

TEST_CASE("tables: appends on the current version from one read version both commit, one after the other") {
  testing::TempDir dir;
  auto root = OpenRoot(dir.path());
  CreateEpisodes(*root);
  absl::StatusOr<registry::TableRecord> table =
      root->tables->GetTable(*table::ParseTableName(kEpisodes));
  LAKE_REQUIRE_OK(table);
  // Both prepared against version 0, uploads done: INSERTs add rows and
  // read nothing, so the second goes on the first's version.
  std::vector<table::ColumnBatch> batches = TwoUploadedRows(*root, table->schema, 30);
  std::vector<absl::StatusOr<table::AppendOutcome>> outcomes(2, absl::UnknownError("unset"));
  std::thread a([&] {
    outcomes[0] = root->tables->AppendBatch(*table, batches[0], table::AppendBase::kCurrent);
  });
  std::thread b([&] {
    outcomes[1] = root->tables->AppendBatch(*table, batches[1], table::AppendBase::kCurrent);
  });
  a.join();
  b.join();
  LAKE_REQUIRE_OK(outcomes[0]);
  LAKE_REQUIRE_OK(outcomes[1]);
  CHECK(std::min(outcomes[0]->version, outcomes[1]->version) == 1);
  CHECK(std::max(outcomes[0]->version, outcomes[1]->version) == 2);
  auto rows = root->Rows(kEpisodes);
  LAKE_REQUIRE_OK(rows);
  CHECK(rows->size() == 2);
  // Each version's delta adds its own batch's reference: both are live.
  auto refs = root->References(kEpisodes);
  LAKE_REQUIRE_OK(refs);
  CHECK(refs->size() == 2);
  CHECK(testing::CheckpointFilesExceptSpares(dir.Join("checkpoints")).empty());
}

TEST_CASE("tables: compaction merges fragments into one version with the same rows") {
  testing::TempDir dir;
  auto root = OpenRoot(dir.path());
  CreateEpisodes(*root);
  std::vector<std::unique_ptr<Source>> sources;
  for (int i = 0; i < 4; ++i) {
    sources.push_back(std::make_unique<Source>(100 + i, 30 + i));
    LAKE_REQUIRE_OK(root->Insert(kInsert, Episode(absl::StrCat("e", i), i, *sources.back())));
  }
  auto before = root->Rows(kEpisodes);
  LAKE_REQUIRE_OK(before);
  absl::StatusOr<std::optional<table::AppendOutcome>> compacted =
      root->tables->Compact(*table::ParseTableName(kEpisodes));
  LAKE_REQUIRE_OK(compacted);
  REQUIRE(compacted->has_value());
  CHECK((*compacted)->version == 5);
  auto after = root->Rows(kEpisodes);
  LAKE_REQUIRE_OK(after);
  CHECK(*after == *before);
  absl::StatusOr<std::unique_ptr<table::TableScan>> scan =
      root->tables->Scan(*table::ParseTableName(kEpisodes), std::nullopt);
  LAKE_REQUIRE_OK(scan);
  CHECK((*scan)->fragment_count() == 1);
  // The lineage still enumerates the four references (the compaction edge adds none).
  auto refs = root->References(kEpisodes);
  LAKE_REQUIRE_OK(refs);
  CHECK(refs->size() == 4);
  // Version 4 is still readable as it was.
  auto v4 = root->Rows(kEpisodes, 4);
  LAKE_REQUIRE_OK(v4);
  CHECK(*v4 == *before);
  // A single fragment: nothing to do.
  absl::StatusOr<std::optional<table::AppendOutcome>> again =
      root->tables->Compact(*table::ParseTableName(kEpisodes));
  LAKE_REQUIRE_OK(again);
  CHECK_FALSE(again->has_value());
}

TEST_CASE("tables: a scan returns fragments in order while it reads ahead; a damaged one fails in its place") {
  testing::TempDir dir;
  auto root = OpenRoot(dir.path());
  CreateEpisodes(*root);
  std::vector<std::unique_ptr<Source>> sources;
  const int kFragments = 6;
  AppendOneRowFragments(*root, kFragments, 60, sources);
  const table::TableName name = *table::ParseTableName(kEpisodes);
  auto scan_rows = [&](int wanted_ok) {
    absl::StatusOr<std::unique_ptr<table::TableScan>> scan = root->tables->Scan(name, std::nullopt);
    LAKE_REQUIRE_OK(scan);
    REQUIRE((*scan)->fragment_count() == kFragments);
    for (int i = 0; i < wanted_ok; ++i) {
      absl::StatusOr<std::optional<table::ColumnBatch>> batch = (*scan)->Next();
      LAKE_REQUIRE_OK(batch);
      REQUIRE(batch->has_value());
      CHECK((*batch)->Cell(0, 0) == CellValue{absl::StrCat("e", i)});
    }
    return std::move(*scan);
  };
  // Every fragment, in order, then the end.
  std::unique_ptr<table::TableScan> whole = scan_rows(kFragments);
  absl::StatusOr<std::optional<table::ColumnBatch>> end = whole->Next();
  LAKE_REQUIRE_OK(end);
  CHECK_FALSE(end->has_value());
  // A scan dropped while it reads ahead.
  scan_rows(1).reset();

  // Damage the fourth fragment.
  std::vector<testing::TablePathBytes> fragments = EpisodeFragmentFiles(*root);
  REQUIRE(fragments.size() == kFragments);
  DamageByte(fragments[3], 40, std::ios::beg);
  std::unique_ptr<table::TableScan> damaged = scan_rows(3);
  absl::StatusOr<std::optional<table::ColumnBatch>> fourth = damaged->Next();
  CHECK(absl::IsDataLoss(fourth.status()));
}

TEST_CASE("tables: a prefiltered scan decodes the filter's columns first and passes over rejected fragments") {
  testing::TempDir dir;
  auto root = OpenRoot(dir.path());
  CreateEpisodes(*root);
  std::vector<std::unique_ptr<Source>> sources;
  const int kFragments = 6;
  AppendOneRowFragments(*root, kFragments, 80, sources);
  const table::TableName name = *table::ParseTableName(kEpisodes);
  // Keeps the fragments whose n is even; records what it was shown.
  std::mutex mu;
  int calls = 0;
  bool only_n_decoded = true;
  table::ScanPrefilter even_n{{1}, [&](const table::ColumnBatch& partial) {
                                std::lock_guard<std::mutex> lock(mu);
                                ++calls;
                                only_n_decoded = only_n_decoded && partial.num_rows == 1 &&
                                                 partial.columns[0].size() == 0 &&
                                                 partial.columns[1].size() == 1 &&
                                                 partial.columns[2].size() == 0;
                                return partial.columns[1].int64s[0] % 2 == 0;
                              }};
  auto kept = [&](const table::ScanPrefilter& prefilter, int expected_batches) {
    absl::StatusOr<std::unique_ptr<table::TableScan>> scan =
        root->tables->Scan(name, std::nullopt, prefilter);
    LAKE_REQUIRE_OK(scan);
    std::vector<int64_t> ns;
    for (int i = 0; i < expected_batches; ++i) {
      absl::StatusOr<std::optional<table::ColumnBatch>> batch = (*scan)->Next();
      LAKE_REQUIRE_OK(batch);
      REQUIRE(batch->has_value());
      // A kept fragment comes whole.
      LAKE_CHECK_OK((*batch)->Validate());
      CHECK((*batch)->Cell(0, 0) == CellValue{absl::StrCat("e", (*batch)->columns[1].int64s[0])});
      ns.push_back((*batch)->columns[1].int64s[0]);
    }
    return std::make_pair(std::move(*scan), ns);
  };
  {
    auto [scan, ns] = kept(even_n, 3);
    CHECK(ns == std::vector<int64_t>{0, 2, 4});
    absl::StatusOr<std::optional<table::ColumnBatch>> end = scan->Next();
    LAKE_REQUIRE_OK(end);
    CHECK_FALSE(end->has_value());
    CHECK(calls == kFragments);
    CHECK(only_n_decoded);
  }
  // A prefilter that wants nothing ends the scan at once.
  table::ScanPrefilter nothing{{0, 2}, [](const table::ColumnBatch&) { return false; }};
  {
    auto [scan, ns] = kept(nothing, 0);
    absl::StatusOr<std::optional<table::ColumnBatch>> end = scan->Next();
    LAKE_REQUIRE_OK(end);
    CHECK_FALSE(end->has_value());
  }
  // A column the table does not have, or no test, is refused.
  CHECK(absl::IsInvalidArgument(
      root->tables->Scan(name, std::nullopt, table::ScanPrefilter{{3}, even_n.may_match}).status()));
  CHECK(absl::IsInvalidArgument(
      root->tables->Scan(name, std::nullopt, table::ScanPrefilter{{1}, nullptr}).status()));

  // A damaged fragment fails in its place even when the prefilter would
  // pass over it (its digest is checked before any column is decoded).
  std::vector<testing::TablePathBytes> fragments = EpisodeFragmentFiles(*root);
  REQUIRE(fragments.size() == kFragments);
  DamageByte(fragments[3], -30, std::ios::end);
  {
    auto [scan, ns] = kept(even_n, 2);
    CHECK(ns == std::vector<int64_t>{0, 2});
    absl::StatusOr<std::optional<table::ColumnBatch>> after_two = scan->Next();
    CHECK(absl::IsDataLoss(after_two.status()));
  }
  // SQL: a WHERE finds the rows of intact fragments and fails on the damaged one.
  auto two = root->Query("SELECT episode_id FROM robots.episodes WHERE n = ? LIMIT 1",
                         {CellValue{int64_t{2}}});
  LAKE_REQUIRE_OK(two);
  REQUIRE(two->size() == 1);
  CHECK(std::get<std::string>((*two)[0][0]) == "e2");
  CHECK(absl::IsDataLoss(
      root->Query("SELECT episode_id FROM robots.episodes WHERE n >= ?", {CellValue{int64_t{3}}})
          .status()));
  // A fragment whose statistics rule the WHERE out is never opened, damaged or not.
  auto five = root->Query("SELECT episode_id FROM robots.episodes WHERE n = ?", {CellValue{int64_t{5}}});
  LAKE_REQUIRE_OK(five);
  CHECK(five->size() == 1);
}

TEST_CASE("tables: a corrupted reference delta makes enumeration fail closed, on either layout") {
  for (testing::VersionLayout layout : testing::kVersionLayouts) {
    CAPTURE(testing::VersionLayoutName(layout));
    testing::ScopedVersionLayout scoped(layout);
    testing::TempDir dir;
    auto root = OpenRoot(dir.path());
    CreateEpisodes(*root);
    Source video(300, 40);
    LAKE_REQUIRE_OK(root->Insert(kInsert, Episode("c", 1, video)));
    LAKE_REQUIRE_OK(root->References(kEpisodes));
    const std::string table_dir = root->tables->TableDir(*table::ParseTableName(kEpisodes));
    DamageByte(testing::LocateTablePath(table_dir,
                                        testing::ManifestOf(*root, kEpisodes, 1).reference_delta_path),
               70, std::ios::beg);
    CHECK(absl::IsDataLoss(root->References(kEpisodes).status()));
  }
}

TEST_CASE("tables as files: a missing reference delta file makes enumeration fail closed") {
  testing::ScopedVersionsAsFiles as_files;
  testing::TempDir dir;
  auto root = OpenRoot(dir.path());
  CreateEpisodes(*root);
  Source video(300, 40);
  LAKE_REQUIRE_OK(root->Insert(kInsert, Episode("c", 1, video)));
  LAKE_REQUIRE_OK(root->References(kEpisodes));
  std::string delta = dir.Join("tables/robots/episodes/" + table::ReferenceDeltaRelativePath(1));
  REQUIRE(std::filesystem::remove(delta));
  CHECK(absl::IsDataLoss(root->References(kEpisodes).status()));
}

TEST_CASE("tables: a second writer root appends through the owner; a follower reads without a lock") {
  testing::TempDir dir;
  auto root = OpenRoot(dir.path());
  CreateEpisodes(*root);
  absl::StatusOr<io::FileSystem*> fs = io::DefaultFileSystem();
  REQUIRE(fs.ok());
  // Another writer of the same root (in another process it is the same):
  // it forwards its commits to the registry's owner.
  absl::StatusOr<std::unique_ptr<TableRoot>> second = TableRoot::Open(**fs, dir.path());
  LAKE_REQUIRE_OK(second);
  CHECK_FALSE((*second)->registry->IsOwner());
  registry::RegistryOptions options;
  options.read_only = true;
  options.follower_max_staleness = absl::ZeroDuration();
  absl::StatusOr<std::unique_ptr<registry::Registry>> follower = registry::Registry::Open(
      dir.Join("registry"), dir.Join("writer.lock"), options);
  LAKE_REQUIRE_OK(follower);
  Source video(300, 41);
  LAKE_REQUIRE_OK(root->Insert(kInsert, Episode("f", 1, video)));
  Source other(400, 42);
  absl::StatusOr<table::AppendOutcome> forwarded =
      (*second)->Insert(kInsert, Episode("g", 2, other));
  LAKE_REQUIRE_OK(forwarded);
  CHECK(forwarded->version == 2);
  absl::StatusOr<registry::TableRecord> seen =
      (*follower)->GetTable(*table::ParseTableName(kEpisodes));
  LAKE_REQUIRE_OK(seen);
  CHECK(seen->current_version == 2);
  auto rows = root->Rows(kEpisodes);
  LAKE_REQUIRE_OK(rows);
  CHECK(rows->size() == 2);
  auto refs = (*second)->References(kEpisodes);
  LAKE_REQUIRE_OK(refs);
  CHECK(refs->size() == 2);
}

// A checkpoint of one robots.episodes row (its video uploaded), as an
// append that crashed after publishing it leaves it.
table::AppendCheckpoint EpisodeCheckpoint(TableRoot& root, const testing::TempDir& dir,
                                          std::string operation_id) {
  absl::StatusOr<registry::TableRecord> table =
      root.tables->GetTable(*table::ParseTableName(kEpisodes));
  LAKE_REQUIRE_OK(table);
  Source video(700, 50);
  absl::StatusOr<DataLocation> location = root.stage->Upload(video.source, {});
  LAKE_REQUIRE_OK(location);
  table::ColumnBatch batch = table::ColumnBatch::Empty(table->schema);
  LAKE_REQUIRE_OK(batch.AppendRow({CellValue{"p"}, CellValue{int64_t{9}}, CellValue{*location}}));
  table::AppendCheckpoint checkpoint;
  checkpoint.operation_id = std::move(operation_id);
  checkpoint.table_name = kEpisodes;
  checkpoint.table_id = table->table_id;
  checkpoint.stage_identity = testing::LocalStageIdentity(dir.path());
  absl::StatusOr<std::string> encoded = table::EncodeFragment(batch);
  LAKE_REQUIRE_OK(encoded);
  checkpoint.batch = *encoded;
  checkpoint.batch_sha256 =
      testing::Sha256Hex(std::vector<uint8_t>(encoded->begin(), encoded->end()));
  return checkpoint;
}

table::AppendCheckpointStore CheckpointStore(TableRoot& root, const testing::TempDir& dir) {
  absl::StatusOr<table::AppendCheckpointStore> store =
      table::AppendCheckpointStore::Open(root.tables->fs(), dir.Join("checkpoints"));
  LAKE_REQUIRE_OK(store);
  return *store;
}

// A checkpoint file of `operation_id` whose bytes are no checkpoint.
void WriteDamagedCheckpoint(const testing::TempDir& dir, const std::string& operation_id) {
  testing::WriteFile(dir.Join("checkpoints/" + operation_id + ".append"), {1, 2, 3});
}

// A UUIDv7 from 2020: far past the 7-day horizon.
constexpr char kOldOperationId[] = "01700000-0000-7000-8000-000000000001";

TEST_CASE("tables: recovery replays a pending append once and rejects an expired one") {
  testing::TempDir dir;
  std::string operation_id;
  {
    auto root = OpenRoot(dir.path());
    CreateEpisodes(*root);
    // A checkpoint as a crashed append leaves it, and an expired one.
    table::AppendCheckpointStore store = CheckpointStore(*root, dir);
    table::AppendCheckpoint checkpoint = EpisodeCheckpoint(*root, dir, NewUuidV7());
    operation_id = checkpoint.operation_id;
    LAKE_REQUIRE_OK(store.Publish(checkpoint));
    table::AppendCheckpoint old = checkpoint;
    old.operation_id = kOldOperationId;
    LAKE_REQUIRE_OK(store.Publish(old));
  }
  auto root = OpenRoot(dir.path());
  absl::StatusOr<std::vector<table::PendingAppend>> pending = root->tables->PendingAppends();
  LAKE_REQUIRE_OK(pending);
  REQUIRE(pending->size() == 2);
  // Oldest first: the expired one, then the one to replay.
  CHECK((*pending)[0].state == table::PendingAppend::State::kExpired);
  CHECK((*pending)[1].checkpoint.operation_id == operation_id);
  CHECK((*pending)[1].state == table::PendingAppend::State::kReplayable);
  CHECK((*pending)[1].table == kEpisodes);
  absl::StatusOr<std::vector<table::RecoveredAppend>> recovered = root->tables->Recover();
  LAKE_REQUIRE_OK(recovered);
  REQUIRE(recovered->size() == 2);
  int committed = 0, expired = 0;
  for (const table::RecoveredAppend& r : *recovered) {
    if (r.result == table::RecoveredAppend::Result::kCommitted) {
      ++committed;
      CHECK(r.operation_id == operation_id);
      CHECK(r.version == 1);
    }
    if (r.result == table::RecoveredAppend::Result::kExpired) ++expired;
  }
  CHECK(committed == 1);
  CHECK(expired == 1);
  auto rows = root->Rows(kEpisodes);
  LAKE_REQUIRE_OK(rows);
  CHECK(rows->size() == 1);
  CHECK(testing::CheckpointFilesExceptSpares(dir.Join("checkpoints")).empty());
  // Recovering again finds nothing and appends nothing.
  absl::StatusOr<std::vector<table::RecoveredAppend>> again = root->tables->Recover();
  LAKE_REQUIRE_OK(again);
  CHECK(again->empty());
  CHECK(root->Rows(kEpisodes)->size() == 1);
}

TEST_CASE("tables: recovery reaches a pending append behind more than 1,024 stuck checkpoints") {
  testing::TempDir dir;
  auto root = OpenRoot(dir.path());
  CreateEpisodes(*root);
  // More stuck checkpoints (damaged, within the horizon) than one listing
  // holds, all older than the pending append.
  constexpr size_t kStuck = table::kMaxListedAppendCheckpoints + 1;
  for (size_t i = 0; i < kStuck; ++i) WriteDamagedCheckpoint(dir, NewUuidV7());
  table::AppendCheckpoint pending = EpisodeCheckpoint(*root, dir, NewUuidV7());
  LAKE_REQUIRE_OK(CheckpointStore(*root, dir).Publish(pending));

  absl::StatusOr<std::vector<table::RecoveredAppend>> recovered = root->tables->Recover();
  LAKE_REQUIRE_OK(recovered);
  REQUIRE(recovered->size() == kStuck + 1);
  for (size_t i = 0; i < kStuck; ++i) {
    CHECK((*recovered)[i].result == table::RecoveredAppend::Result::kRejected);
  }
  CHECK(recovered->back().operation_id == pending.operation_id);
  CHECK(recovered->back().result == table::RecoveredAppend::Result::kCommitted);
  CHECK(root->Rows(kEpisodes)->size() == 1);
  // The stuck ones are kept; listing them pages past the bound too.
  CHECK(testing::CheckpointFilesExceptSpares(dir.Join("checkpoints")).size() == kStuck);
  absl::StatusOr<std::vector<table::PendingAppend>> listed = root->tables->PendingAppends();
  LAKE_REQUIRE_OK(listed);
  CHECK(listed->size() == kStuck);
}

TEST_CASE("tables: a damaged checkpoint is dated by its name and expires like the others") {
  testing::TempDir dir;
  auto root = OpenRoot(dir.path());
  CreateEpisodes(*root);
  WriteDamagedCheckpoint(dir, kOldOperationId);
  const std::string recent = NewUuidV7();
  WriteDamagedCheckpoint(dir, recent);

  absl::StatusOr<std::vector<table::RecoveredAppend>> recovered = root->tables->Recover();
  LAKE_REQUIRE_OK(recovered);
  REQUIRE(recovered->size() == 2);
  CHECK((*recovered)[0].operation_id == kOldOperationId);
  CHECK((*recovered)[0].result == table::RecoveredAppend::Result::kExpired);
  CHECK((*recovered)[0].message.find("retention horizon") != std::string::npos);
  CHECK((*recovered)[1].operation_id == recent);
  CHECK((*recovered)[1].result == table::RecoveredAppend::Result::kRejected);
  CHECK((*recovered)[1].message.find("damaged") != std::string::npos);
  CHECK(testing::CheckpointFilesExceptSpares(dir.Join("checkpoints")) ==
        std::vector<std::string>{recent + ".append"});
}

TEST_CASE("tables: pending appends say what recovery would do with each, and why") {
  testing::TempDir dir;
  auto root = OpenRoot(dir.path());
  CreateEpisodes(*root);
  table::AppendCheckpointStore store = CheckpointStore(*root, dir);
  table::AppendCheckpoint replayable = EpisodeCheckpoint(*root, dir, NewUuidV7());
  table::AppendCheckpoint other_stage = EpisodeCheckpoint(*root, dir, NewUuidV7());
  StageDescriptor s3;
  s3.kind = StageDescriptor::Kind::kS3;
  s3.bucket = "other-bucket";
  s3.region = "us-east-1";
  s3.endpoint = "https://s3.example.com";
  other_stage.stage_identity = StageDescriptorToJson(s3);
  const std::string damaged = NewUuidV7();
  LAKE_REQUIRE_OK(store.Publish(replayable));
  LAKE_REQUIRE_OK(store.Publish(other_stage));
  WriteDamagedCheckpoint(dir, damaged);

  absl::StatusOr<std::vector<table::PendingAppend>> pending = root->tables->PendingAppends();
  LAKE_REQUIRE_OK(pending);
  REQUIRE(pending->size() == 3);
  using State = table::PendingAppend::State;
  CHECK((*pending)[0].checkpoint.operation_id == replayable.operation_id);
  CHECK((*pending)[0].state == State::kReplayable);
  CHECK((*pending)[0].reason.empty());
  CHECK((*pending)[1].checkpoint.operation_id == other_stage.operation_id);
  CHECK((*pending)[1].state == State::kStuck);
  CHECK((*pending)[1].table == kEpisodes);
  CHECK((*pending)[1].reason.find("written for the stage") != std::string::npos);
  CHECK((*pending)[2].checkpoint.operation_id == damaged);
  CHECK((*pending)[2].state == State::kStuck);
  CHECK((*pending)[2].reason.rfind("damaged: ", 0) == 0);
  CHECK(table::PendingAppendStateName(State::kStuck) == "stuck");
  // Listing changed nothing.
  CHECK(root->Rows(kEpisodes)->empty());
  CHECK(testing::CheckpointFilesExceptSpares(dir.Join("checkpoints")).size() == 3);
}

TEST_CASE("tables: a discarded checkpoint is moved aside, kept, and never replayed") {
  testing::TempDir dir;
  auto root = OpenRoot(dir.path());
  CreateEpisodes(*root);
  table::AppendCheckpoint checkpoint = EpisodeCheckpoint(*root, dir, NewUuidV7());
  LAKE_REQUIRE_OK(CheckpointStore(*root, dir).Publish(checkpoint));
  std::vector<uint8_t> bytes =
      testing::ReadFile(dir.Join("checkpoints/" + checkpoint.operation_id + ".append"));

  absl::StatusOr<std::string> moved = root->tables->DiscardPendingAppend(checkpoint.operation_id);
  LAKE_REQUIRE_OK(moved);
  CHECK(*moved == dir.Join("checkpoints/discarded/" + checkpoint.operation_id + ".append"));
  CHECK(testing::ReadFile(*moved) == bytes);
  CHECK(root->tables->PendingAppends()->empty());
  CHECK(root->tables->Recover()->empty());
  CHECK(root->Rows(kEpisodes)->empty());
  CHECK(testing::PathExists(*moved));  // recovery leaves it where it is
  // Nothing more to discard under that id; a bad id is refused.
  CHECK(absl::IsNotFound(root->tables->DiscardPendingAppend(checkpoint.operation_id).status()));
  CHECK(absl::IsInvalidArgument(root->tables->DiscardPendingAppend("../x").status()));
}

}  // namespace
}  // namespace lake
