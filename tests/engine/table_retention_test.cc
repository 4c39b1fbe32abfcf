// Retention (TableStore::Expire, tags): which versions an expiry retires,
// that a retired version reads as NotFound (never wrong rows), what
// `describe` tells per tag, and crash safety at each step of an expiry —
// a child SIGKILLed there and a simulated power loss there — after which
// the expiry happened whole or not at all, and every retained version
// reads its rows.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "base/failpoint.h"
#include "engine/table/manifest_chain.h"
#include "engine/table/table_store.h"
#include "io/posix/posix_file_system.h"
#include "registry/registry.h"
#include "tests/support/episodes_table.h"
#include "tests/support/fault_injection_file_system.h"
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

// The episode ids of `version`, in order.
std::vector<std::string> Ids(TableRoot& root, uint64_t version) {
  absl::StatusOr<std::vector<std::vector<CellValue>>> rows = root.Rows(kEpisodesTable, version);
  LAKE_REQUIRE_OK(rows);
  std::vector<std::string> ids;
  for (const auto& row : *rows) ids.push_back(std::get<std::string>(row[0]));
  return ids;
}

std::vector<uint64_t> Retired(TableRoot& root) {
  absl::StatusOr<std::vector<registry::RetiredVersionRecord>> retired =
      root.tables->ListRetiredVersions(EpisodesTableName());
  LAKE_REQUIRE_OK(retired);
  std::vector<uint64_t> out;
  for (const auto& r : *retired) out.push_back(r.version);
  return out;
}

// A root whose table has versions 1..5 (one row each), version 2 tagged.
struct RetentionFixture : testing::CrashTestRoot {
  RetentionFixture() {
    std::unique_ptr<TableRoot> root = OpenTableRootOrStop(posix, root_dir);
    CreateEpisodesTable(*root);
    for (int i = 1; i <= 5; ++i) InsertEpisode(*root, "e" + std::to_string(i), i, 500);
    LAKE_REQUIRE_OK(root->tables->TagVersion(EpisodesTableName(), "golden", 2));
  }

  // After an expiry with --keep-last 2 that completed or crashed: either
  // nothing or exactly versions 1 and 3 are retired; every retained version
  // reads its own rows; a retired one is NotFound.
  void CheckWholeOrNothing(bool must_have_happened) {
    std::unique_ptr<TableRoot> root = OpenTableRootOrStop(posix, root_dir);
    std::vector<uint64_t> retired = Retired(*root);
    if (must_have_happened) REQUIRE(retired == std::vector<uint64_t>{1, 3});
    CHECK((retired.empty() || retired == std::vector<uint64_t>{1, 3}));
    for (uint64_t v = 1; v <= 5; ++v) {
      CAPTURE(v);
      bool gone = std::find(retired.begin(), retired.end(), v) != retired.end();
      if (gone) {
        CHECK(absl::IsNotFound(root->Rows(kEpisodesTable, v).status()));
      } else {
        std::vector<std::string> expected;
        for (uint64_t i = 1; i <= v; ++i) expected.push_back("e" + std::to_string(i));
        CHECK(Ids(*root, v) == expected);
      }
    }
    // The references are whole, from the reference base when there is one.
    absl::StatusOr<std::vector<DataLocation>> refs = root->References(kEpisodesTable);
    LAKE_REQUIRE_OK(refs);
    CHECK(refs->size() == 5);
    // The expiry runs again to the same end: version 2's snapshot is the base.
    LAKE_REQUIRE_OK(root->tables->Expire(EpisodesTableName(), {.keep_last = 2}));
    CHECK(Retired(*root) == std::vector<uint64_t>{1, 3});
    absl::StatusOr<registry::TableRecord> table = root->tables->GetTable(EpisodesTableName());
    LAKE_REQUIRE_OK(table);
    absl::StatusOr<std::optional<registry::ReferenceBaseRecord>> base =
        root->registry->GetReferenceBase(table->table_id);
    LAKE_REQUIRE_OK(base);
    REQUIRE(base->has_value());
    CHECK((*base)->version == 2);
    CHECK(root->References(kEpisodesTable)->size() == 5);
  }
};

TEST_CASE("expire --keep-last retires the older versions, never the current nor a tagged one") {
  RetentionFixture f;
  std::unique_ptr<TableRoot> root = OpenTableRootOrStop(f.posix, f.root_dir);
  absl::StatusOr<table::ExpireOutcome> outcome =
      root->tables->Expire(EpisodesTableName(), {.keep_last = 2});
  LAKE_REQUIRE_OK(outcome);
  CHECK(outcome->retired == std::vector<uint64_t>{1, 3});
  CHECK(outcome->current_version == 5);
  CHECK(Retired(*root) == std::vector<uint64_t>{1, 3});
  CHECK(Ids(*root, 2) == std::vector<std::string>{"e1", "e2"});
  CHECK(Ids(*root, 4) == std::vector<std::string>{"e1", "e2", "e3", "e4"});
  CHECK(Ids(*root, 5).size() == 5);
  // Nothing more is due.
  CHECK(root->tables->Expire(EpisodesTableName(), {.keep_last = 2})->retired.empty());
  // --keep-last 1 leaves the current version and the tagged one only.
  CHECK(root->tables->Expire(EpisodesTableName(), {.keep_last = 1})->retired ==
        std::vector<uint64_t>{4});
}

TEST_CASE("expire writes the snapshot of the oldest retained version; references replay from it") {
  RetentionFixture f;
  std::unique_ptr<TableRoot> root = OpenTableRootOrStop(f.posix, f.root_dir);
  absl::StatusOr<std::vector<DataLocation>> before = root->References(kEpisodesTable);
  LAKE_REQUIRE_OK(before);
  std::string dir = root->tables->TableDir(EpisodesTableName());
  std::vector<testing::TablePathBytes> deltas_to_base;
  for (uint64_t v = 1; v <= 4; ++v) {
    deltas_to_base.push_back(testing::LocateTablePath(
        dir, testing::ManifestOf(*root, kEpisodesTable, v).reference_delta_path));
  }
  LAKE_REQUIRE_OK(root->tables->UntagVersion(EpisodesTableName(), "golden"));
  LAKE_REQUIRE_OK(root->tables->Expire(EpisodesTableName(), {.keep_last = 2}));  // retires 1..3
  uint64_t table_id = root->tables->GetTable(EpisodesTableName())->table_id;
  absl::StatusOr<std::optional<registry::ReferenceBaseRecord>> base =
      root->registry->GetReferenceBase(table_id);
  LAKE_REQUIRE_OK(base);
  REQUIRE(base->has_value());
  CHECK((*base)->version == 4);
  // The deltas up to the base are no longer read: the snapshot stands for
  // them, damaged or not.
  for (const testing::TablePathBytes& delta : deltas_to_base) {
    testing::DamageTableByte(delta, 0, std::ios::beg);
  }
  absl::StatusOr<std::vector<DataLocation>> after = root->References(kEpisodesTable);
  LAKE_REQUIRE_OK(after);
  std::vector<DataLocation> sorted_before = *before, sorted_after = *after;
  table::CanonicalizeReferences(&sorted_before);
  table::CanonicalizeReferences(&sorted_after);
  CHECK(sorted_after == sorted_before);
  // A damaged snapshot fails the replay closed.
  std::string snapshot = dir + "/" + table::ReferenceSnapshotRelativePath(4);
  std::filesystem::resize_file(snapshot, std::filesystem::file_size(snapshot) - 1);
  CHECK(absl::IsDataLoss(root->References(kEpisodesTable).status()));
}

TEST_CASE("expire --older-than retires only versions committed before the bound") {
  RetentionFixture f;
  std::unique_ptr<TableRoot> root = OpenTableRootOrStop(f.posix, f.root_dir);
  CHECK(root->tables->Expire(EpisodesTableName(), {.older_than = absl::Hours(1)})->retired.empty());
  absl::StatusOr<table::ExpireOutcome> all_old =
      root->tables->Expire(EpisodesTableName(), {.older_than = absl::ZeroDuration()});
  LAKE_REQUIRE_OK(all_old);
  CHECK(all_old->retired == std::vector<uint64_t>{1, 3, 4});
}

TEST_CASE("expire needs a bound; keep-last 0 and an unknown table are refused") {
  RetentionFixture f;
  std::unique_ptr<TableRoot> root = OpenTableRootOrStop(f.posix, f.root_dir);
  CHECK(absl::IsInvalidArgument(root->tables->Expire(EpisodesTableName(), {}).status()));
  CHECK(absl::IsInvalidArgument(
      root->tables->Expire(EpisodesTableName(), {.keep_last = 0}).status()));
  CHECK(absl::IsNotFound(
      root->tables->Expire(*table::ParseTableName("robots.nope"), {.keep_last = 1}).status()));
  CHECK(Retired(*root).empty());
}

TEST_CASE("a scan AS OF an expired version is NotFound naming the expiry, never rows") {
  RetentionFixture f;
  std::unique_ptr<TableRoot> root = OpenTableRootOrStop(f.posix, f.root_dir);
  LAKE_REQUIRE_OK(root->tables->Expire(EpisodesTableName(), {.keep_last = 2}));
  absl::StatusOr<std::vector<std::vector<CellValue>>> rows =
      root->Query("SELECT episode_id FROM robots.episodes AS OF VERSION 3");
  REQUIRE(absl::IsNotFound(rows.status()));
  CHECK(rows.status().message().find("version 3 of robots.episodes was expired") !=
        std::string_view::npos);
  CHECK(root->Query("SELECT episode_id FROM robots.episodes AS OF VERSION 2")->size() == 2);
}

TEST_CASE("a scan begun before its version expired and was collected is NotFound, not DataLoss") {
  RetentionFixture f;
  std::unique_ptr<TableRoot> root = OpenTableRootOrStop(f.posix, f.root_dir);
  absl::StatusOr<std::unique_ptr<table::TableScan>> scan =
      root->tables->Scan(EpisodesTableName(), 3);
  LAKE_REQUIRE_OK(scan);
  LAKE_REQUIRE_OK(root->tables->Expire(EpisodesTableName(), {.keep_last = 2}));
  // The collector removed every file a fragment lies in — a data file, or
  // the table log segment holding its record — as a plan past the cutoff
  // would remove those only retired versions need.
  const std::string dir = root->tables->TableDir(EpisodesTableName());
  std::set<std::string> fragment_files;
  for (const table::FragmentRef& fragment : testing::ManifestOf(*root, kEpisodesTable, 5).fragments) {
    fragment_files.insert(testing::LocateTablePath(dir, fragment.path).file);
  }
  for (const std::string& file : fragment_files) REQUIRE(std::filesystem::remove(file));
  absl::StatusOr<std::optional<table::ColumnBatch>> batch = (*scan)->Next();
  CHECK(absl::IsNotFound(batch.status()));
  // A retained version that lost its files is damage, as before.
  CHECK(absl::IsDataLoss(root->Rows(kEpisodesTable, 4).status()));
}

TEST_CASE("a tagged version cannot expire until untagged; an expired one cannot be tagged") {
  RetentionFixture f;
  std::unique_ptr<TableRoot> root = OpenTableRootOrStop(f.posix, f.root_dir);
  CHECK(absl::IsAlreadyExists(root->tables->TagVersion(EpisodesTableName(), "golden", 3).status()));
  LAKE_REQUIRE_OK(root->tables->Expire(EpisodesTableName(), {.keep_last = 1}));
  CHECK(Retired(*root) == std::vector<uint64_t>{1, 3, 4});
  CHECK(absl::IsNotFound(root->tables->TagVersion(EpisodesTableName(), "late", 3).status()));
  LAKE_REQUIRE_OK(root->tables->UntagVersion(EpisodesTableName(), "golden"));
  CHECK(absl::IsNotFound(root->tables->UntagVersion(EpisodesTableName(), "golden")));
  CHECK(root->tables->Expire(EpisodesTableName(), {.keep_last = 1})->retired ==
        std::vector<uint64_t>{2});
  CHECK(absl::IsNotFound(root->Rows(kEpisodesTable, 2).status()));
}

TEST_CASE("describe per tag, versions as files: the files and bytes only that tag retains") {
  testing::ScopedVersionsAsFiles as_files;
  RetentionFixture f;
  std::unique_ptr<TableRoot> root = OpenTableRootOrStop(f.posix, f.root_dir);
  // Versions 1..5 all retained: every fragment of version 2 is listed by
  // later versions too; only its manifest is its own.
  absl::StatusOr<std::vector<table::TagRetention>> before =
      root->tables->DescribeTagRetention(EpisodesTableName());
  LAKE_REQUIRE_OK(before);
  REQUIRE(before->size() == 1);
  CHECK((*before)[0].tag.tag == "golden");
  CHECK((*before)[0].exclusive_files == 1);
  // Compacted, then expired: version 2's two fragments are its alone.
  LAKE_REQUIRE_OK(root->tables->Compact(EpisodesTableName()));
  LAKE_REQUIRE_OK(root->tables->Expire(EpisodesTableName(), {.keep_last = 1}));
  absl::StatusOr<std::vector<table::TagRetention>> after =
      root->tables->DescribeTagRetention(EpisodesTableName());
  LAKE_REQUIRE_OK(after);
  REQUIRE(after->size() == 1);
  CHECK((*after)[0].exclusive_files == 3);
  // Its manifest and the first two fragments (UUIDv7 names sort by time).
  std::string dir = root->tables->TableDir(EpisodesTableName());
  uint64_t bytes = std::filesystem::file_size(dir + "/" + table::ManifestRelativePath(2));
  std::vector<std::string> fragments;
  for (const auto& entry :
       std::filesystem::directory_iterator(dir + "/" + std::string(table::kTableDataDir))) {
    fragments.push_back(entry.path().string());
  }
  std::sort(fragments.begin(), fragments.end());
  REQUIRE(fragments.size() == 6);
  bytes += std::filesystem::file_size(fragments[0]) + std::filesystem::file_size(fragments[1]);
  CHECK((*after)[0].exclusive_bytes == bytes);
  // A second tag on the same version: neither retains it alone.
  LAKE_REQUIRE_OK(root->tables->TagVersion(EpisodesTableName(), "silver", 2));
  absl::StatusOr<std::vector<table::TagRetention>> both =
      root->tables->DescribeTagRetention(EpisodesTableName());
  LAKE_REQUIRE_OK(both);
  REQUIRE(both->size() == 2);
  for (const table::TagRetention& t : *both) {
    CHECK(t.exclusive_files == 0);
    CHECK(t.exclusive_bytes == 0);
  }
}

TEST_CASE("describe per tag, versions as files: the manifest chain links only that tag's version needs count as its") {
  testing::ScopedVersionsAsFiles as_files;
  testing::TempDir dir;
  io::PosixFileSystem posix;
  std::unique_ptr<TableRoot> root = OpenTableRootOrStop(posix, dir.path());
  CreateEpisodesTable(*root);
  constexpr uint64_t kVersions = 40;
  for (uint64_t i = 1; i <= kVersions; ++i) InsertEpisode(*root, "e" + std::to_string(i), i, 500);
  // A version in the middle with manifest files of its chain that the
  // current version's chain does not share.
  const std::string table_dir = root->tables->TableDir(EpisodesTableName());
  auto chain_of = [&](uint64_t version) {
    table::ManifestChainReader reader(posix, table_dir);
    absl::StatusOr<const table::ResolvedManifest*> resolved =
        reader.Resolve(version, table::ManifestRelativePath(version));
    LAKE_REQUIRE_OK(resolved);
    return (*resolved)->chain_files;
  };
  const std::vector<std::string> current = chain_of(kVersions);
  auto own_chain_of = [&](uint64_t version) {
    std::vector<std::string> own;
    for (const std::string& file : chain_of(version)) {
      if (std::find(current.begin(), current.end(), file) == current.end()) own.push_back(file);
    }
    return own;
  };
  uint64_t tagged = kVersions - 1;
  while (tagged > 1 && own_chain_of(tagged).size() < 2) --tagged;
  const std::vector<std::string> chain = own_chain_of(tagged);
  REQUIRE(chain.size() >= 2);
  LAKE_REQUIRE_OK(root->tables->TagVersion(EpisodesTableName(), "golden", tagged));
  LAKE_REQUIRE_OK(root->tables->Expire(EpisodesTableName(), {.keep_last = 1}));
  absl::StatusOr<std::vector<table::TagRetention>> described =
      root->tables->DescribeTagRetention(EpisodesTableName());
  LAKE_REQUIRE_OK(described);
  REQUIRE(described->size() == 1);
  // Every fragment it lists, the current version lists too: only the
  // files of its chain the current one does not read are its own.
  CHECK((*described)[0].exclusive_files == chain.size());
  uint64_t bytes = 0;
  for (const std::string& file : chain) bytes += std::filesystem::file_size(table_dir + "/" + file);
  CHECK((*described)[0].exclusive_bytes == bytes);
}

TEST_CASE("expire: the failpoint list names every step an expiry passes, in order") {
  REQUIRE(failpoint::Enabled());
  RetentionFixture f;
  failpoint::ClearAll();
  {
    std::unique_ptr<TableRoot> root = OpenTableRootOrStop(f.posix, f.root_dir);
    LAKE_REQUIRE_OK(root->tables->Expire(EpisodesTableName(), {.keep_last = 2}));
  }
  for (std::string_view step : table::kTableExpireFailpoints) {
    CAPTURE(std::string(step));
    CHECK(failpoint::HitCount(step) == 1);
  }
  failpoint::ClearAll();
}

TEST_CASE("expire: a child SIGKILLed at each step leaves the expiry whole or not at all") {
  REQUIRE(failpoint::Enabled());
  for (size_t i = 0; i < table::kTableExpireFailpoints.size(); ++i) {
    std::string_view step = table::kTableExpireFailpoints[i];
    CAPTURE(std::string(step));
    RetentionFixture f;
    testing::RunKilledAt(step, f.root_dir, [](TableRoot& root) {
      (void)root.tables->Expire(EpisodesTableName(), {.keep_last = 2});
    });
    // Past the registry's synced write (the last step), the expiry is durable.
    f.CheckWholeOrNothing(/*must_have_happened=*/i >= 2);
  }
}

TEST_CASE("expire: a power loss at each step leaves the expiry whole or not at all") {
  REQUIRE(failpoint::Enabled());
  for (size_t i = 0; i < table::kTableExpireFailpoints.size(); ++i) {
    std::string_view step = table::kTableExpireFailpoints[i];
    CAPTURE(std::string(step));
    RetentionFixture f;
    {
      testing::FaultInjectionFileSystem fs(f.posix, f.backups);
      std::unique_ptr<TableRoot> root = OpenTableRootOrStop(fs, f.root_dir);
      failpoint::ClearAll();
      failpoint::Set(step, failpoint::Action::kCallback, [&] {
        fs.Crash();
        return absl::UnavailableError("power lost");
      });
      absl::Status expired = root->tables->Expire(EpisodesTableName(), {.keep_last = 2}).status();
      failpoint::ClearAll();
      CHECK_FALSE(expired.ok());
      CHECK(fs.crashed());
    }
    f.CheckWholeOrNothing(/*must_have_happened=*/i >= 2);
  }
}

}  // namespace
}  // namespace lake
