// The table log's segments and the collector (engine/gc/inventory.h,
// live_references.h, table_log.h): a rolled segment is the collector's once
// no retained version names a record in it and the cutoff has passed since
// the commit that released its last one; the active segment never is; a
// dropped table's go with it; a collection racing a DELETE that writes or
// rolls a segment never takes one a commit names; and `describe` counts a
// tag's segments whole. (Crash safety of a collection that removes
// segments: gc_crash_test.cc, whose scene holds one.) The cases keep
// versions as files of their own, so that a segment holds DELETE's
// deletion vectors alone and a roll follows each DELETE, except the one
// that says its versions are in the table log.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>

#include "base/failpoint.h"
#include "engine/gc/inventory.h"
#include "engine/gc/plan_apply.h"
#include "engine/gc/plan_writer.h"
#include "engine/location_uri.h"
#include "engine/table/deletion_vector_format.h"
#include "engine/table/manifest_chain.h"
#include "engine/table/table_log.h"
#include "engine/table/table_store.h"
#include "tests/support/gc_fixture.h"
#include "tests/support/status_checks.h"

namespace lake::gc {
namespace {

using table::CellValue;
using testing::GcTestRoot;

// A roll bound under two deletion-vector records of a three-row fragment:
// every DELETE after the first of a segment rolls to a new one, and each
// segment is preallocated to this size (more than its one record).
constexpr uint64_t kOneRecordSegmentBytes =
    table::kTableLogSegmentHeaderBytes +
    table::TableLogRecordBytes(table::EncodedDeletionVectorBytes(3)) + 64;

table::TableStoreOptions RollingOptions(
    testing::VersionLayout layout = testing::VersionLayout::kFiles,
    uint64_t segment_bytes = kOneRecordSegmentBytes) {
  table::TableStoreOptions options = testing::DefaultTableStoreOptions();
  options.versions_in_table_log = layout == testing::VersionLayout::kTableLog;
  options.table_log_segment_bytes = segment_bytes;
  // Full manifests only: a version's manifest is its own file alone.
  options.manifest_checkpoint_interval = 1;
  return options;
}

const table::TableName& Name() {
  static const table::TableName name{"ns", "t"};
  return name;
}

// ns.t holding one fragment of rows a, b, c (version 1).
void CreateThreeRows(GcTestRoot& root) {
  root.CreateTable("ns.t");
  LAKE_REQUIRE_OK(root.tables().Insert(
      "INSERT INTO ns.t (id, f) VALUES (?, ?), (?, ?), (?, ?)",
      {CellValue{std::string("a")}, CellValue{root.Put()}, CellValue{std::string("b")},
       CellValue{root.Put()}, CellValue{std::string("c")}, CellValue{root.Put()}}));
}

void DeleteRow(GcTestRoot& root, const std::string& id) {
  absl::StatusOr<table::DeleteOutcome> deleted =
      root.tables().Delete("DELETE FROM ns.t WHERE id = ?", {CellValue{id}});
  LAKE_REQUIRE_OK(deleted);
  REQUIRE(deleted->deleted_rows == 1);
}

std::string SegmentPath(GcTestRoot& root, uint64_t segment) {
  return root.tables().tables->TableDir(Name()) + "/" + table::TableLogSegmentRelativePath(segment);
}

std::vector<uint64_t> Segments(GcTestRoot& root, const std::string& table_dir) {
  absl::StatusOr<std::vector<uint64_t>> segments =
      table::ListTableLogSegments(root.fs(), table_dir);
  LAKE_REQUIRE_OK(segments);
  return *segments;
}

std::vector<std::string> Planned(GcTestRoot& root, PlanOptions options = GcTestRoot::ShortCutoff()) {
  absl::StatusOr<PlanSummary> plan = root.Plan(options);
  LAKE_REQUIRE_OK(plan);
  return root.PlannedUris(plan->manifest.plan_id);
}

bool Contains(const std::vector<std::string>& uris, const std::string& path) {
  return std::find(uris.begin(), uris.end(), FormatFileUri(path)) != uris.end();
}

// Plans and applies a whole collection with cutoff zero.
void Collect(GcTestRoot& root) {
  absl::StatusOr<PlanSummary> plan = root.Plan();
  LAKE_REQUIRE_OK(plan);
  LAKE_REQUIRE_OK(ApplyPlan(root.View(), plan->manifest.plan_id, {}));
}

// Versions 1 (a, b, c), 2 (DELETE a: segment 1), 3 (DELETE b: segment 2).
void ThreeVersionsTwoSegments(GcTestRoot& root) {
  CreateThreeRows(root);
  DeleteRow(root, "a");
  DeleteRow(root, "b");
  REQUIRE(Segments(root, root.tables().tables->TableDir(Name())) == std::vector<uint64_t>{1, 2});
}

TEST_CASE("table log: a DELETE past the roll bound writes a new segment, the active one") {
  GcTestRoot root(nullptr, "", RollingOptions());
  ThreeVersionsTwoSegments(root);
  // Each segment is preallocated whole, past the one record it holds.
  CHECK(std::filesystem::file_size(SegmentPath(root, 1)) == kOneRecordSegmentBytes);
  CHECK(root.tables().Rows("ns.t", 2)->size() == 2);
  CHECK(root.tables().Rows("ns.t", 3)->size() == 1);
}

TEST_CASE("gc plan: a rolled segment is planned once the cutoff has passed since the expiry released it") {
  GcTestRoot root(nullptr, "", RollingOptions());
  ThreeVersionsTwoSegments(root);
  // Version 3 names its vector in segment 2 only: segment 1 is version 2's.
  absl::StatusOr<table::ExpireOutcome> expired =
      root.tables().tables->Expire(Name(), {.keep_last = 1});
  LAKE_REQUIRE_OK(expired);
  REQUIRE(expired->retired == std::vector<uint64_t>{1, 2});
  root.AgeEverything(absl::Hours(48));

  PlanOptions day = GcTestRoot::ShortCutoff();
  day.cutoff = absl::Hours(24);
  // Two days old, but released by the expiry a moment ago.
  CHECK_FALSE(Contains(Planned(root, day), SegmentPath(root, 1)));

  std::vector<std::string> late = Planned(root);  // cutoff zero: the expiry is past it
  CHECK(Contains(late, SegmentPath(root, 1)));
  CHECK_FALSE(Contains(late, SegmentPath(root, 2)));
  Collect(root);
  CHECK_FALSE(std::filesystem::exists(SegmentPath(root, 1)));
  CHECK(std::filesystem::exists(SegmentPath(root, 2)));
  absl::StatusOr<std::vector<std::vector<CellValue>>> rows = root.tables().Rows("ns.t");
  LAKE_REQUIRE_OK(rows);
  REQUIRE(rows->size() == 1);
  CHECK(std::get<std::string>((*rows)[0][0]) == "c");
}

TEST_CASE("gc plan: a rolled segment a tagged version names a record in survives") {
  GcTestRoot root(nullptr, "", RollingOptions());
  ThreeVersionsTwoSegments(root);
  LAKE_REQUIRE_OK(root.tables().tables->TagVersion(Name(), "golden", 2));
  LAKE_REQUIRE_OK(root.tables().tables->Expire(Name(), {.keep_last = 1}));
  root.AgeEverything(absl::Hours(48));
  CHECK_FALSE(Contains(Planned(root), SegmentPath(root, 1)));
  Collect(root);
  CHECK(root.tables().Rows("ns.t", 2)->size() == 2);
  // Untagged and expired, it goes.
  LAKE_REQUIRE_OK(root.tables().tables->UntagVersion(Name(), "golden"));
  LAKE_REQUIRE_OK(root.tables().tables->Expire(Name(), {.keep_last = 1}));
  Collect(root);
  CHECK_FALSE(std::filesystem::exists(SegmentPath(root, 1)));
  CHECK(root.tables().Rows("ns.t")->size() == 1);
}

TEST_CASE("gc plan: the active segment is never planned, even when no version names a record in it") {
  GcTestRoot root(nullptr, "", RollingOptions());
  CreateThreeRows(root);
  DeleteRow(root, "a");  // version 2: segment 1
  // Version 3: one new fragment without deleted rows, so no vector at all.
  LAKE_REQUIRE_OK(root.tables().tables->Compact(Name()));
  LAKE_REQUIRE_OK(root.tables().tables->Expire(Name(), {.keep_last = 1}));
  root.AgeEverything(absl::Hours(48));
  CHECK_FALSE(Contains(Planned(root), SegmentPath(root, 1)));
  Collect(root);
  REQUIRE(std::filesystem::exists(SegmentPath(root, 1)));
  // The next DELETE rolls to segment 2: segment 1 is then the collector's.
  DeleteRow(root, "b");
  std::vector<std::string> planned = Planned(root);
  CHECK(Contains(planned, SegmentPath(root, 1)));
  CHECK_FALSE(Contains(planned, SegmentPath(root, 2)));
  Collect(root);
  CHECK_FALSE(std::filesystem::exists(SegmentPath(root, 1)));
  CHECK(root.tables().Rows("ns.t")->size() == 1);
  CHECK(root.tables().Rows("ns.t", 3)->size() == 2);
}

TEST_CASE("gc plan: a compaction releases every record its version named; the rolled segments go once the versions before it expire") {
  GcTestRoot root(nullptr, "", RollingOptions());
  ThreeVersionsTwoSegments(root);
  LAKE_REQUIRE_OK(root.tables().tables->TagVersion(Name(), "golden", 3));
  absl::StatusOr<std::vector<std::vector<CellValue>>> before = root.tables().Rows("ns.t");
  LAKE_REQUIRE_OK(before);
  absl::StatusOr<std::vector<DataLocation>> references_before =
      root.tables().CurrentReferences("ns.t");
  LAKE_REQUIRE_OK(references_before);
  // Version 4: the live rows in one new fragment, no deletion vector.
  absl::StatusOr<std::optional<table::AppendOutcome>> compacted =
      root.tables().tables->Compact(Name());
  LAKE_REQUIRE_OK(compacted);
  REQUIRE(compacted->has_value());
  LAKE_REQUIRE_OK(root.tables().tables->Expire(Name(), {.keep_last = 1}));
  root.AgeEverything(absl::Hours(48));
  Collect(root);
  // Segment 1 (version 2's alone) is gone; segment 2 stays for golden.
  CHECK_FALSE(std::filesystem::exists(SegmentPath(root, 1)));
  CHECK(std::filesystem::exists(SegmentPath(root, 2)));
  CHECK(*root.tables().Rows("ns.t") == *before);
  CHECK(*root.tables().Rows("ns.t", 3) == *before);
  CHECK(root.tables().CurrentReferences("ns.t")->size() == references_before->size());
}

TEST_CASE("gc plan: with versions in the table log, expired versions' segments go once nothing retained needs a record in them") {
  GcTestRoot root(nullptr, "", RollingOptions(testing::VersionLayout::kTableLog));
  root.CreateTable("ns.t");
  std::vector<DataLocation> objects;
  for (int i = 0; i < 3; ++i) {
    objects.push_back(root.Put());
    root.InsertLocation("ns.t", "r" + std::to_string(i), objects.back());  // each its own segment
  }
  LAKE_REQUIRE_OK(root.tables().tables->Compact(Name()));  // version 4: segment 4
  const std::string table_dir = root.tables().tables->TableDir(Name());
  REQUIRE(Segments(root, table_dir) == std::vector<uint64_t>{1, 2, 3, 4});
  LAKE_REQUIRE_OK(root.tables().tables->TagVersion(Name(), "golden", 2));
  LAKE_REQUIRE_OK(root.tables().tables->Expire(Name(), {.keep_last = 1}));
  root.AgeEverything(absl::Hours(48));
  Collect(root);
  // All stay: golden's version 2 lists version 1's fragment record, and
  // it is the reference base now, so the reference deltas after it
  // (version 3's, a record of segment 3) replay the lineage.
  CHECK(Segments(root, table_dir) == std::vector<uint64_t>{1, 2, 3, 4});
  CHECK(root.tables().Rows("ns.t", 2)->size() == 2);
  CHECK(root.tables().Rows("ns.t")->size() == 3);
  CHECK(root.tables().CurrentReferences("ns.t")->size() == 3);
  for (const DataLocation& object : objects) CHECK(root.Exists(object));
  // Untagged and expired, version 2's segments go too.
  LAKE_REQUIRE_OK(root.tables().tables->UntagVersion(Name(), "golden"));
  LAKE_REQUIRE_OK(root.tables().tables->Expire(Name(), {.keep_last = 1}));
  Collect(root);
  CHECK(Segments(root, table_dir) == std::vector<uint64_t>{4});
  CHECK(root.tables().Rows("ns.t")->size() == 3);
}

TEST_CASE("gc inventory: a table's active segment is not listed; a dropped table's is") {
  GcTestRoot root(nullptr, "", RollingOptions());
  ThreeVersionsTwoSegments(root);
  const std::string table_dir = root.tables().tables->TableDir(Name());
  auto listed_segments = [&] {
    std::vector<std::string> segments;
    LAKE_CHECK_OK(ListTableFiles(root.View(), [&](const Candidate& c) {
      if (c.uri.find("/_log/") != std::string::npos) segments.push_back(c.uri);
      return absl::OkStatus();
    }));
    std::sort(segments.begin(), segments.end());
    return segments;
  };
  CHECK(listed_segments() == std::vector<std::string>{FormatFileUri(SegmentPath(root, 1))});
  absl::StatusOr<registry::DroppedTableRecord> dropped = root.tables().tables->DropTable(Name());
  LAKE_REQUIRE_OK(dropped);
  const std::string dropped_dir =
      table::DroppedTableDirectory(root.root_dir(), dropped->table.table_id);
  CHECK(listed_segments() ==
        std::vector<std::string>{
            FormatFileUri(dropped_dir + "/" + table::TableLogSegmentRelativePath(1)),
            FormatFileUri(dropped_dir + "/" + table::TableLogSegmentRelativePath(2))});
  // Either is a table file of the dropped table's directory.
  CHECK(TableOfTableFile(root.root_dir(), listed_segments()[1]) ==
        DroppedTableOwner(dropped->table.table_id));
}

TEST_CASE("gc plan: a dropped table's segments, the active one too, go once the cutoff has passed since the drop") {
  GcTestRoot root(nullptr, "", RollingOptions());
  ThreeVersionsTwoSegments(root);
  absl::StatusOr<registry::DroppedTableRecord> dropped = root.tables().tables->DropTable(Name());
  LAKE_REQUIRE_OK(dropped);
  const std::string dropped_dir =
      table::DroppedTableDirectory(root.root_dir(), dropped->table.table_id);
  root.AgeEverything(absl::Hours(48));
  PlanOptions day = GcTestRoot::ShortCutoff();
  day.cutoff = absl::Hours(24);
  std::vector<std::string> early = Planned(root, day);
  std::vector<std::string> late = Planned(root);
  for (uint64_t segment : {1, 2}) {
    std::string path = dropped_dir + "/" + table::TableLogSegmentRelativePath(segment);
    CAPTURE(path);
    CHECK_FALSE(Contains(early, path));
    CHECK(Contains(late, path));
  }
  Collect(root);
  CHECK(Segments(root, dropped_dir).empty());
}

TEST_CASE("gc plan: a roll's temporary file a crash left is planned; nothing names it") {
  GcTestRoot root(nullptr, "", RollingOptions());
  ThreeVersionsTwoSegments(root);
  std::string leftover = SegmentPath(root, 3) + ".0190b0c0-0000-7000-8000-000000000000.tmp";
  testing::WriteFile(leftover, std::vector<uint8_t>(64, 0));
  root.AgeEverything(absl::Hours(48));
  std::vector<std::string> planned = Planned(root);
  CHECK(Contains(planned, leftover));
  CHECK_FALSE(Contains(planned, SegmentPath(root, 1)));  // version 2 is retained
  CHECK_FALSE(Contains(planned, SegmentPath(root, 2)));
  Collect(root);
  CHECK_FALSE(std::filesystem::exists(leftover));
  CHECK(root.tables().Rows("ns.t", 2)->size() == 2);
}

// Every version the table retains reads its rows: every address a
// committed, retained version names is there.
void CheckRetainedVersionsRead(GcTestRoot& root) {
  absl::StatusOr<std::vector<registry::VersionRecord>> versions =
      root.tables().tables->ListVersions(Name());
  LAKE_REQUIRE_OK(versions);
  absl::StatusOr<std::vector<registry::RetiredVersionRecord>> retired =
      root.tables().tables->ListRetiredVersions(Name());
  LAKE_REQUIRE_OK(retired);
  for (const registry::VersionRecord& v : *versions) {
    bool is_retired = std::any_of(retired->begin(), retired->end(),
                                  [&](const auto& r) { return r.version == v.version; });
    if (is_retired) continue;
    CAPTURE(v.version);
    LAKE_CHECK_OK(root.tables().Rows("ns.t", v.version));
  }
}

TEST_CASE("gc racing a DELETE that writes its segment or rolls a new one never takes a segment a commit names") {
  REQUIRE(failpoint::Enabled());
  std::vector<std::string_view> steps(table::kTableDeleteFailpoints.begin(),
                                      table::kTableDeleteFailpoints.end());
  steps.push_back(table::kTableLogWrittenFailpoint);
  // The default bound: the DELETE appends to the active segment, which no
  // committed version names yet. The small one: it rolls a new segment.
  for (uint64_t segment_bytes : {table::kTableLogSegmentBytes, kOneRecordSegmentBytes}) {
    for (std::string_view step : steps) {
      CAPTURE(std::string(step));
      CAPTURE(segment_bytes);
      GcTestRoot root(nullptr, "", RollingOptions(testing::VersionLayout::kFiles, segment_bytes));
      CreateThreeRows(root);
      DeleteRow(root, "a");  // version 2: a vector in segment 1
      // Version 3 names no record: segment 1 holds only what version 2,
      // expired now, named.
      LAKE_REQUIRE_OK(root.tables().tables->Compact(Name()));
      LAKE_REQUIRE_OK(root.tables().tables->Expire(Name(), {.keep_last = 1}));
      root.AgeEverything(absl::Hours(48));
      absl::Status collected =
          testing::CollectAtStep(root, step, [&] { DeleteRow(root, "b"); });  // version 4
      CAPTURE(collected.ToString());
      CheckRetainedVersionsRead(root);
      absl::StatusOr<std::vector<std::vector<CellValue>>> rows = root.tables().Rows("ns.t");
      LAKE_REQUIRE_OK(rows);
      CHECK(rows->size() == 1);
      // The segment version 4 names is there, and stays through another
      // collection.
      uint64_t active = Segments(root, root.tables().tables->TableDir(Name())).back();
      CHECK(active == (segment_bytes == kOneRecordSegmentBytes ? 2u : 1u));
      Collect(root);
      CHECK(std::filesystem::exists(SegmentPath(root, active)));
      CheckRetainedVersionsRead(root);
    }
  }
}

TEST_CASE("describe per tag: a table log segment counts whole, and only when no other retained version names a record in it") {
  GcTestRoot root(nullptr, "", RollingOptions());
  CreateThreeRows(root);
  DeleteRow(root, "a");  // version 2: a vector in segment 1
  LAKE_REQUIRE_OK(root.tables().tables->TagVersion(Name(), "golden", 2));
  DeleteRow(root, "b");  // version 3: a vector of a and b in segment 2
  LAKE_REQUIRE_OK(root.tables().tables->Expire(Name(), {.keep_last = 1}));
  const std::string dir = root.tables().tables->TableDir(Name());
  auto size_of = [&](const std::string& file) { return std::filesystem::file_size(dir + "/" + file); };
  auto describe = [&] {
    absl::StatusOr<std::vector<table::TagRetention>> described =
        root.tables().tables->DescribeTagRetention(Name());
    LAKE_REQUIRE_OK(described);
    return *described;
  };
  // Golden alone keeps its manifest and segment 1 (the fragment is version
  // 3's too); the segment's bytes are its file's, not its record's.
  std::vector<table::TagRetention> first = describe();
  REQUIRE(first.size() == 1);
  CHECK(first[0].exclusive_files == 2);
  CHECK(first[0].exclusive_bytes ==
        size_of(table::ManifestRelativePath(2)) + size_of(table::TableLogSegmentRelativePath(1)));
  CHECK(size_of(table::TableLogSegmentRelativePath(1)) == kOneRecordSegmentBytes);

  // Version 4 (compacted) names no record; silver's version 3 alone names
  // segment 2, but that is the active segment, which never goes: not counted.
  LAKE_REQUIRE_OK(root.tables().tables->Compact(Name()));
  LAKE_REQUIRE_OK(root.tables().tables->TagVersion(Name(), "silver", 3));
  std::vector<table::TagRetention> second = describe();
  REQUIRE(second.size() == 2);
  for (const table::TagRetention& t : second) {
    CAPTURE(t.tag.tag);
    if (t.tag.tag == "golden") {
      CHECK(t.exclusive_files == 2);
    } else {
      // Its manifest only: the fragment is golden's too.
      CHECK(t.exclusive_files == 1);
      CHECK(t.exclusive_bytes == size_of(table::ManifestRelativePath(3)));
    }
  }
}

}  // namespace
}  // namespace lake::gc
