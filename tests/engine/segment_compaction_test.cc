// Segment compaction (TableStore::CompactSegments, segment_rewrite.h): a
// new version that copies the current version's records out of the
// table log's mostly-dead rolled segments, so that the collector takes
// them once the versions before it expire. Its rows and their order stay;
// a mostly-live segment is left alone; the collector takes a rewritten
// segment after the expiry and not before; a child SIGKILLed, a power
// lost or a collection racing at each step leaves the table at the old
// version or the new, every retained version reading its rows.
//
// The scene: each version's records roll a segment of their own (a roll
// bound under one version's records), and version i inserts row r<i-1>
// with an object of its own, so segment i holds version i's append
// checkpoint, fragment, reference delta and manifest.
#include <doctest/doctest.h>
#include <algorithm>
#include <filesystem>

#include "base/failpoint.h"
#include "engine/gc/plan_apply.h"
#include "engine/gc/plan_writer.h"
#include "engine/location_uri.h"
#include "engine/table/manifest_chain.h"
#include "engine/table/segment_rewrite.h"
#include "engine/table/table_log.h"
#include "engine/table/table_store.h"
#include "io/posix/posix_file_system.h"
#include "tests/support/fault_injection_file_system.h"
#include "tests/support/episodes_table.h"
#include "tests/support/gc_fixture.h"
#include "tests/support/stage_fixture.h"
#include "tests/support/status_checks.h"
#include "tests/support/test_files.h"

namespace lake::gc {
namespace {

using table::CellValue;
using testing::GcTestRoot;

// Under any version's records: every version after a segment's first
// rolls a new one.
constexpr uint64_t kRollEveryVersion = table::kTableLogSegmentHeaderBytes + 64;

table::TableStoreOptions RollingOptions(
    uint32_t checkpoint_interval = 1) {  // 1: full manifests only
  table::TableStoreOptions options = testing::DefaultTableStoreOptions();
  options.versions_in_table_log = true;
  options.table_log_segment_bytes = kRollEveryVersion;
  options.manifest_checkpoint_interval = checkpoint_interval;
  return options;
}

const table::TableName& Name() {
  static const table::TableName name{"ns", "t"};
  return name;
}

const std::vector<std::string>& ThreeIds() {
  static const std::vector<std::string> ids = {"r0", "r1", "r2"};
  return ids;
}

// Versions 1..3, each inserting one row (r0, r1, r2) in segments 1..3.
void ThreeVersionsThreeSegments(GcTestRoot& root) {
  root.CreateTable("ns.t");
  for (const std::string& id : ThreeIds()) root.InsertLocation("ns.t", id, root.Put());
}

std::vector<uint64_t> Segments(GcTestRoot& root) {
  absl::StatusOr<std::vector<uint64_t>> segments =
      table::ListTableLogSegments(root.fs(), root.tables().tables->TableDir(Name()));
  LAKE_REQUIRE_OK(segments);
  return *segments;
}

bool SegmentExists(GcTestRoot& root, uint64_t segment) {
  return std::filesystem::exists(root.tables().tables->TableDir(Name()) + "/" +
                                 table::TableLogSegmentRelativePath(segment));
}

// The ids of `version` (current when nullopt), in order.
std::vector<std::string> Ids(GcTestRoot& root, std::optional<uint64_t> version = std::nullopt) {
  absl::StatusOr<std::vector<std::vector<CellValue>>> rows = root.tables().Rows("ns.t", version);
  LAKE_REQUIRE_OK(rows);
  std::vector<std::string> ids;
  for (const auto& row : *rows) ids.push_back(std::get<std::string>(row[0]));
  return ids;
}

uint64_t CurrentVersion(GcTestRoot& root) {
  absl::StatusOr<registry::TableRecord> table = root.tables().tables->GetTable(Name());
  LAKE_REQUIRE_OK(table);
  return table->current_version;
}

// The current version's manifest, resolved.
table::ResolvedManifest Current(GcTestRoot& root) {
  absl::StatusOr<registry::TableRecord> table = root.tables().tables->GetTable(Name());
  LAKE_REQUIRE_OK(table);
  table::ManifestChainReader reader(root.fs(), root.tables().tables->TableDir(Name()));
  absl::StatusOr<const table::ResolvedManifest*> resolved =
      reader.Resolve(table->current_version, table->manifest_path);
  LAKE_REQUIRE_OK(resolved);
  return **resolved;
}

uint64_t SegmentOf(const std::string& path) {
  absl::StatusOr<table::TableLogAddress> address = table::ParseTableLogAddress(path);
  LAKE_REQUIRE_OK(address);
  return address->segment;
}

std::optional<table::SegmentUse> UseOf(GcTestRoot& root, uint64_t segment) {
  absl::StatusOr<std::vector<table::SegmentUse>> uses =
      root.tables().tables->DescribeSegments(Name());
  LAKE_REQUIRE_OK(uses);
  for (const table::SegmentUse& use : *uses) {
    if (use.segment == segment) return use;
  }
  return std::nullopt;
}

// Plans and applies a whole collection with cutoff zero.
void Collect(GcTestRoot& root) {
  absl::StatusOr<PlanSummary> plan = root.Plan();
  LAKE_REQUIRE_OK(plan);
  LAKE_REQUIRE_OK(ApplyPlan(root.View(), plan->manifest.plan_id, {}));
}

void ExpireAllButCurrent(GcTestRoot& root) {
  LAKE_REQUIRE_OK(root.tables().tables->Expire(Name(), {.keep_last = 1}));
}

// Requires segments 1 and 2 rolled, with a live record, and mostly dead
// or not as `mostly_dead` says.
void RequireFirstTwoSegments(GcTestRoot& root, bool mostly_dead) {
  for (uint64_t segment : {1, 2}) {
    std::optional<table::SegmentUse> use = UseOf(root, segment);
    REQUIRE(use.has_value());
    CAPTURE(segment);
    CAPTURE(use->live_bytes);
    CAPTURE(use->file_bytes);
    REQUIRE(use->live_bytes > 0);
    REQUIRE(table::IsMostlyDeadSegment(use->live_bytes, use->file_bytes) == mostly_dead);
  }
}

// Segments 1 and 2 mostly dead: versions 1 and 2 expired, so each holds
// one live record, its version's fragment, which version 3 lists.
void TwoMostlyDeadSegments(GcTestRoot& root) {
  ThreeVersionsThreeSegments(root);
  REQUIRE(Segments(root) == std::vector<uint64_t>{1, 2, 3});
  ExpireAllButCurrent(root);
  RequireFirstTwoSegments(root, /*mostly_dead=*/true);
}

absl::StatusOr<std::optional<table::SegmentCompactionOutcome>> CompactSegments(GcTestRoot& root) {
  return root.tables().tables->CompactSegments(Name());
}

TEST_CASE("segment compaction: the mostly-dead threshold is live bytes under half the file") {
  CHECK(table::IsMostlyDeadSegment(49, 100));
  CHECK_FALSE(table::IsMostlyDeadSegment(50, 100));
  CHECK_FALSE(table::IsMostlyDeadSegment(100, 100));
  CHECK(table::IsMostlyDeadSegment(0, 100));
}

TEST_CASE("segment compaction: a segment's live bytes are the records retained versions name") {
  GcTestRoot root(nullptr, "", RollingOptions());
  ThreeVersionsThreeSegments(root);
  // Retained, version 1 names its manifest, delta and fragment in
  // segment 1; only its append checkpoint there is dead.
  std::optional<table::SegmentUse> before = UseOf(root, 1);
  REQUIRE(before.has_value());
  CHECK_FALSE(UseOf(root, 3).has_value());  // the active segment is not rolled
  ExpireAllButCurrent(root);
  std::optional<table::SegmentUse> after = UseOf(root, 1);
  REQUIRE(after.has_value());
  // Expired, only its fragment is live: version 3 lists it.
  const table::ResolvedManifest current = Current(root);
  REQUIRE(current.manifest.fragments.size() == 3);
  absl::StatusOr<table::TableLogAddress> fragment =
      table::ParseTableLogAddress(current.manifest.fragments[0].path);
  LAKE_REQUIRE_OK(fragment);
  CHECK(fragment->segment == 1);
  CHECK(after->live_bytes == table::TableLogRecordBytes(fragment->payload_bytes));
  CHECK(after->live_bytes < before->live_bytes);
  CHECK(after->file_bytes == before->file_bytes);
}

TEST_CASE("segment compaction keeps the rows and their order and copies only the mostly-dead segments' fragments") {
  GcTestRoot root(nullptr, "", RollingOptions());
  TwoMostlyDeadSegments(root);
  const table::ResolvedManifest before = Current(root);
  absl::StatusOr<std::vector<DataLocation>> references_before =
      root.tables().CurrentReferences("ns.t");
  LAKE_REQUIRE_OK(references_before);

  absl::StatusOr<std::optional<table::SegmentCompactionOutcome>> compacted = CompactSegments(root);
  LAKE_REQUIRE_OK(compacted);
  REQUIRE(compacted->has_value());
  const table::SegmentCompactionOutcome& outcome = **compacted;
  CHECK(outcome.version == 4);
  CHECK(outcome.copied_fragments == 2);
  CHECK(outcome.copied_vectors == 0);
  REQUIRE(outcome.rewritten.size() == 2);
  CHECK(outcome.rewritten[0].segment == 1);
  CHECK(outcome.rewritten[1].segment == 2);

  CHECK(Ids(root) == ThreeIds());
  CHECK(Ids(root, 3) == ThreeIds());
  const table::ResolvedManifest after = Current(root);
  REQUIRE(after.manifest.fragments.size() == 3);
  const uint64_t active = Segments(root).back();
  for (size_t i = 0; i < 3; ++i) {
    CAPTURE(i);
    const table::FragmentRef& was = before.manifest.fragments[i];
    const table::FragmentRef& is = after.manifest.fragments[i];
    // The same fragment, byte for byte: only where it lives changed.
    CHECK(is.sha256 == was.sha256);
    CHECK(is.rows == was.rows);
    CHECK(is.size_bytes == was.size_bytes);
    CHECK(is.statistics == was.statistics);
    if (i < 2) {
      CHECK(SegmentOf(is.path) == active);
    } else {
      CHECK(is.path == was.path);  // segment 3 was the active one: left
    }
  }
  // An empty reference delta: the same references.
  absl::StatusOr<std::vector<DataLocation>> references_after =
      root.tables().CurrentReferences("ns.t");
  LAKE_REQUIRE_OK(references_after);
  CHECK(*references_after == *references_before);
}

TEST_CASE("segment compaction leaves a mostly-live segment alone") {
  // Rows of 64 KiB each, no append checkpoints: a segment's fragment is
  // most of it, live while version 3 lists it, even once versions 1 and 2
  // (their manifests and deltas there) expire.
  table::TableStoreOptions options = RollingOptions();
  options.append_checkpoints = false;
  GcTestRoot root(nullptr, "", options);
  table::Schema schema;
  schema.columns = {{"id", table::ColumnType::kUtf8}, {"blob", table::ColumnType::kBinary}};
  LAKE_REQUIRE_OK(root.tables().tables->CreateTable(Name(), schema));
  uint64_t seed = 1;
  for (const std::string& id : ThreeIds()) {
    std::vector<uint8_t> bytes = testing::RandomBytes(64 << 10, seed++);  // incompressible
    LAKE_REQUIRE_OK(root.tables().Insert(
        "INSERT INTO ns.t (id, blob) VALUES (?, ?)",
        {CellValue{id}, CellValue{table::Binary{std::string(bytes.begin(), bytes.end())}}}));
  }
  REQUIRE(Segments(root) == std::vector<uint64_t>{1, 2, 3});
  ExpireAllButCurrent(root);
  RequireFirstTwoSegments(root, /*mostly_dead=*/false);
  const table::ResolvedManifest before = Current(root);
  absl::StatusOr<std::optional<table::SegmentCompactionOutcome>> compacted = CompactSegments(root);
  LAKE_REQUIRE_OK(compacted);
  CHECK_FALSE(compacted->has_value());
  CHECK(CurrentVersion(root) == 3);
  CHECK(Current(root).manifest.fragments == before.manifest.fragments);
}

TEST_CASE("segment compaction rewrites nothing while no rolled segment is mostly dead or named") {
  GcTestRoot root(nullptr, "", RollingOptions());
  root.CreateTable("ns.t");
  // One version: its segment is the active one.
  root.InsertLocation("ns.t", "r0", root.Put());
  absl::StatusOr<std::optional<table::SegmentCompactionOutcome>> compacted = CompactSegments(root);
  LAKE_REQUIRE_OK(compacted);
  CHECK_FALSE(compacted->has_value());
  CHECK(CurrentVersion(root) == 1);
}

TEST_CASE("segment compaction writes a full manifest, so no link keeps a rewritten segment") {
  GcTestRoot root(nullptr, "", RollingOptions(table::kMaxManifestChainLength + 1));
  root.CreateTable("ns.t");
  std::vector<std::string> ids;
  for (int i = 0; i < 12; ++i) {  // enough fragments that a link is cheaper than a full list
    ids.push_back("r" + std::to_string(i));
    root.InsertLocation("ns.t", ids.back(), root.Put());
  }
  // Version 12 links to older manifests, in older segments.
  REQUIRE(Current(root).chain_files.size() > 1);
  ExpireAllButCurrent(root);
  absl::StatusOr<std::optional<table::SegmentCompactionOutcome>> compacted = CompactSegments(root);
  LAKE_REQUIRE_OK(compacted);
  REQUIRE(compacted->has_value());
  CHECK(CurrentVersion(root) == 13);
  const table::ResolvedManifest after = Current(root);
  CHECK(after.chain_files.size() == 1);
  CHECK(SegmentOf(after.chain_files[0]) == Segments(root).back());
  CHECK(Ids(root) == ids);
}

TEST_CASE("segment compaction with versions as files copies the records to the log and its manifest to a file") {
  testing::TempDir dir;
  {
    GcTestRoot root(nullptr, dir.path(), RollingOptions());
    TwoMostlyDeadSegments(root);
  }
  table::TableStoreOptions as_files = RollingOptions();
  as_files.versions_in_table_log = false;
  GcTestRoot root(nullptr, dir.path(), as_files);
  absl::StatusOr<std::optional<table::SegmentCompactionOutcome>> compacted = CompactSegments(root);
  LAKE_REQUIRE_OK(compacted);
  REQUIRE(compacted->has_value());
  CHECK((*compacted)->copied_fragments == 2);
  CHECK(testing::ManifestPathOf(root.tables(), "ns.t", 4) == table::ManifestRelativePath(4));
  const table::ResolvedManifest after = Current(root);
  REQUIRE(after.manifest.fragments.size() == 3);
  for (size_t i = 0; i < 2; ++i) CHECK(SegmentOf(after.manifest.fragments[i].path) > 3);
  CHECK(Ids(root) == ThreeIds());
  // Versions 1..3 expired, no retained version names a record in segments
  // 1 and 2.
  ExpireAllButCurrent(root);
  for (uint64_t segment : {1, 2}) {
    std::optional<table::SegmentUse> use = UseOf(root, segment);
    REQUIRE(use.has_value());
    CHECK(use->live_bytes == 0);
  }
}

TEST_CASE("gc takes a rewritten segment once the versions before the segment compaction expire, not before") {
  GcTestRoot root(nullptr, "", RollingOptions());
  TwoMostlyDeadSegments(root);
  absl::StatusOr<std::optional<table::SegmentCompactionOutcome>> compacted = CompactSegments(root);
  LAKE_REQUIRE_OK(compacted);
  REQUIRE(compacted->has_value());
  root.AgeEverything(absl::Hours(48));
  // Version 3 is retained and names its fragments there.
  Collect(root);
  CHECK(SegmentExists(root, 1));
  CHECK(SegmentExists(root, 2));
  CHECK(Ids(root, 3) == ThreeIds());
  ExpireAllButCurrent(root);
  Collect(root);
  CHECK_FALSE(SegmentExists(root, 1));
  CHECK_FALSE(SegmentExists(root, 2));
  CHECK(Ids(root) == ThreeIds());
  absl::StatusOr<std::vector<DataLocation>> references = root.tables().CurrentReferences("ns.t");
  LAKE_REQUIRE_OK(references);
  CHECK(references->size() == 3);
  for (const DataLocation& location : *references) CHECK(root.Exists(location));
}

TEST_CASE("gc keeps a rewritten segment while a tagged version before the segment compaction names a record in it") {
  GcTestRoot root(nullptr, "", RollingOptions());
  TwoMostlyDeadSegments(root);
  LAKE_REQUIRE_OK(root.tables().tables->TagVersion(Name(), "golden", 3));
  absl::StatusOr<std::optional<table::SegmentCompactionOutcome>> compacted = CompactSegments(root);
  LAKE_REQUIRE_OK(compacted);
  REQUIRE(compacted->has_value());
  ExpireAllButCurrent(root);
  root.AgeEverything(absl::Hours(48));
  Collect(root);
  CHECK(SegmentExists(root, 1));
  CHECK(SegmentExists(root, 2));
  CHECK(Ids(root, 3) == ThreeIds());
  LAKE_REQUIRE_OK(root.tables().tables->UntagVersion(Name(), "golden"));
  ExpireAllButCurrent(root);
  Collect(root);
  CHECK_FALSE(SegmentExists(root, 1));
  CHECK_FALSE(SegmentExists(root, 2));
  CHECK(Ids(root) == ThreeIds());
}

// The steps of a segment compaction, in order, with the table log's
// write before its sync among them.
const std::vector<std::string_view>& Steps() {
  static const std::vector<std::string_view> steps = {
      table::kSegmentCompactionFailpoints[0], table::kSegmentCompactionFailpoints[1],
      table::kTableLogWrittenFailpoint, table::kSegmentCompactionFailpoints[2],
      table::kSegmentCompactionFailpoints[3]};
  return steps;
}
// The index in Steps() of the first step after the registry's commit.
constexpr size_t kCommittedStep = 4;

TEST_CASE("segment compaction: an append committed while the segments are measured keeps its row, after the others") {
  REQUIRE(failpoint::Enabled());
  GcTestRoot root(nullptr, "", RollingOptions());
  TwoMostlyDeadSegments(root);
  failpoint::ClearAll();
  failpoint::Set(table::kSegmentCompactionFailpoints[0], failpoint::Action::kCallback, [&] {
    root.InsertLocation("ns.t", "r3", root.Put());  // version 4, before the commit turn
    return absl::OkStatus();
  });
  absl::StatusOr<std::optional<table::SegmentCompactionOutcome>> compacted = CompactSegments(root);
  failpoint::ClearAll();
  LAKE_REQUIRE_OK(compacted);
  REQUIRE(compacted->has_value());
  CHECK((*compacted)->version == 5);  // built on version 4
  CHECK((*compacted)->copied_fragments == 2);
  CHECK(Ids(root) == std::vector<std::string>{"r0", "r1", "r2", "r3"});
  CHECK(Ids(root, 4) == std::vector<std::string>{"r0", "r1", "r2", "r3"});
}

TEST_CASE("segment compaction: the failpoint list names every step it passes, in order") {
  REQUIRE(failpoint::Enabled());
  GcTestRoot root(nullptr, "", RollingOptions());
  TwoMostlyDeadSegments(root);
  failpoint::ClearAll();
  LAKE_REQUIRE_OK(CompactSegments(root));
  for (std::string_view step : Steps()) {
    CAPTURE(std::string(step));
    CHECK(failpoint::HitCount(step) == 1);
  }
  failpoint::ClearAll();
}

// A root at version 3 with segments 1 and 2 mostly dead, on disk under a
// temporary directory, beside the backups a fault-injecting file system keeps.
struct CrashScene : testing::CrashTestRoot {
  CrashScene() {
    GcTestRoot root(nullptr, root_dir, RollingOptions());
    TwoMostlyDeadSegments(root);
  }

  // After a segment compaction completed or crashed: the table is at
  // version 3 or 4 with the same rows in the same order and the same
  // references, version 3 reads them too, and running it again commits
  // version 4 when it was not (at version 4 it may take segment 3, which
  // version 4's write rolled: the roll bound is under one version's
  // records); then, the versions before expired, gc takes segments 1 and 2.
  void CheckWholeOrNothing(bool must_have_happened) {
    GcTestRoot root(nullptr, root_dir, RollingOptions());
    const uint64_t version = CurrentVersion(root);
    if (must_have_happened) REQUIRE(version == 4);
    REQUIRE((version == 3 || version == 4));
    CHECK(Ids(root) == ThreeIds());
    CHECK(Ids(root, 3) == ThreeIds());
    absl::StatusOr<std::vector<DataLocation>> references = root.tables().CurrentReferences("ns.t");
    LAKE_REQUIRE_OK(references);
    CHECK(references->size() == 3);
    absl::StatusOr<std::optional<table::SegmentCompactionOutcome>> again = CompactSegments(root);
    LAKE_REQUIRE_OK(again);
    if (version == 3) {
      REQUIRE(again->has_value());
      CHECK((*again)->version == 4);
    }
    CHECK(Ids(root) == ThreeIds());
    ExpireAllButCurrent(root);
    Collect(root);
    CHECK_FALSE(SegmentExists(root, 1));
    CHECK_FALSE(SegmentExists(root, 2));
    CHECK(Ids(root) == ThreeIds());
  }
};

// Sets the options every TableRoot opens with (a forked child's too) to
// RollingOptions() for its lifetime.
class ScopedRollingOptions {
 public:
  ScopedRollingOptions() : was_(testing::DefaultTableStoreOptions()) {
    testing::DefaultTableStoreOptions() = RollingOptions();
  }
  ~ScopedRollingOptions() { testing::DefaultTableStoreOptions() = was_; }
  ScopedRollingOptions(const ScopedRollingOptions&) = delete;
  ScopedRollingOptions& operator=(const ScopedRollingOptions&) = delete;

 private:
  table::TableStoreOptions was_;
};

TEST_CASE("segment compaction: a child SIGKILLed at each step leaves it whole or not at all") {
  REQUIRE(failpoint::Enabled());
  for (size_t i = 0; i < Steps().size(); ++i) {
    std::string_view step = Steps()[i];
    CAPTURE(std::string(step));
    CrashScene scene;
    {
      ScopedRollingOptions rolling;
      testing::RunKilledAt(step, scene.root_dir, [](testing::TableRoot& root) {
        (void)root.tables->CompactSegments(Name());
      });
    }
    scene.CheckWholeOrNothing(/*must_have_happened=*/i >= kCommittedStep);
  }
}

TEST_CASE("segment compaction: a power loss at each step leaves it whole or not at all") {
  REQUIRE(failpoint::Enabled());
  for (size_t i = 0; i < Steps().size(); ++i) {
    std::string_view step = Steps()[i];
    CAPTURE(std::string(step));
    CrashScene scene;
    {
      testing::FaultInjectionFileSystem fs(scene.posix, scene.backups);
      absl::StatusOr<std::unique_ptr<testing::TableRoot>> root =
          testing::TableRoot::Open(fs, scene.root_dir, RollingOptions());
      LAKE_REQUIRE_OK(root);
      failpoint::ClearAll();
      failpoint::Set(step, failpoint::Action::kCallback, [&] {
        fs.Crash();
        return absl::UnavailableError("power lost");
      });
      absl::Status compacted = (*root)->tables->CompactSegments(Name()).status();
      failpoint::ClearAll();
      CHECK_FALSE(compacted.ok());
      CHECK(fs.crashed());
    }
    scene.CheckWholeOrNothing(/*must_have_happened=*/i >= kCommittedStep);
  }
}

TEST_CASE("segment compaction: an append killed before its commit stays pending through it and recovers once") {
  REQUIRE(failpoint::Enabled());
  CrashScene scene;
  {
    // Its records (checkpoint included) durable in a segment of their own,
    // past the watermark of version 3; the registry never heard of it.
    // (Queued, a later writer's turn would commit it: one at a time.)
    ScopedRollingOptions rolling;
    testing::ScopedGroupCommitOff one_at_a_time;
    testing::RunKilledAt("table_append.reference_delta_written", scene.root_dir,
                         [](testing::TableRoot& root) {
                           std::vector<uint8_t> bytes = testing::RandomBytes(500, 77);
                           testing::MemorySource source(bytes);
                           (void)root.Insert("INSERT INTO ns.t (id, f) VALUES (?, ?)",
                                             {CellValue{std::string("r3")},
                                              sql::FileFromSource{&source, "video/mp4"}});
                         });
  }
  GcTestRoot root(nullptr, scene.root_dir, RollingOptions());
  auto replayable = [&] {
    absl::StatusOr<std::vector<table::PendingAppend>> pending =
        root.tables().tables->PendingAppends();
    LAKE_REQUIRE_OK(pending);
    return std::count_if(pending->begin(), pending->end(), [](const table::PendingAppend& p) {
      return p.state == table::PendingAppend::State::kReplayable;
    });
  };
  REQUIRE(replayable() == 1);
  absl::StatusOr<std::optional<table::SegmentCompactionOutcome>> compacted = CompactSegments(root);
  LAKE_REQUIRE_OK(compacted);
  REQUIRE(compacted->has_value());
  CHECK((*compacted)->version == 4);
  CHECK(Ids(root) == ThreeIds());
  // Carried past the compaction's manifest: still pending, and recovery
  // commits it once, after the compaction.
  CHECK(replayable() == 1);
  absl::StatusOr<std::vector<table::RecoveredAppend>> recovered = root.tables().tables->Recover();
  LAKE_REQUIRE_OK(recovered);
  REQUIRE(recovered->size() == 1);
  CHECK(recovered->front().result == table::RecoveredAppend::Result::kCommitted);
  CHECK(recovered->front().version == 5);
  const std::vector<std::string> four = {"r0", "r1", "r2", "r3"};
  CHECK(Ids(root) == four);
  CHECK(replayable() == 0);
  absl::StatusOr<std::vector<table::RecoveredAppend>> again = root.tables().tables->Recover();
  LAKE_REQUIRE_OK(again);
  for (const table::RecoveredAppend& r : *again) {
    CHECK(r.result != table::RecoveredAppend::Result::kCommitted);
  }
  // The compacted segments go once the versions before expire; every row
  // stays, once.
  ExpireAllButCurrent(root);
  Collect(root);
  CHECK_FALSE(SegmentExists(root, 1));
  CHECK_FALSE(SegmentExists(root, 2));
  CHECK(Ids(root) == four);
  absl::StatusOr<std::vector<DataLocation>> references = root.tables().CurrentReferences("ns.t");
  LAKE_REQUIRE_OK(references);
  CHECK(references->size() == 4);
}

TEST_CASE("segment compaction: a failure before the commit leaves the version") {
  REQUIRE(failpoint::Enabled());
  for (size_t i = 0; i < kCommittedStep; ++i) {
    std::string_view step = Steps()[i];
    CAPTURE(std::string(step));
    CrashScene scene;
    {
      GcTestRoot root(nullptr, scene.root_dir, RollingOptions());
      failpoint::ClearAll();
      failpoint::Set(step, failpoint::Action::kError);
      CHECK_FALSE(CompactSegments(root).ok());
      failpoint::ClearAll();
      CHECK(CurrentVersion(root) == 3);
    }
    scene.CheckWholeOrNothing(/*must_have_happened=*/false);
  }
}

TEST_CASE("gc racing a segment compaction at each step never takes a segment a retained version names") {
  REQUIRE(failpoint::Enabled());
  for (std::string_view step : Steps()) {
    CAPTURE(std::string(step));
    GcTestRoot root(nullptr, "", RollingOptions());
    TwoMostlyDeadSegments(root);
    root.AgeEverything(absl::Hours(48));
    absl::StatusOr<std::optional<table::SegmentCompactionOutcome>> compacted;
    absl::Status collected =
        testing::CollectAtStep(root, step, [&] { compacted = CompactSegments(root); });
    CAPTURE(collected.ToString());
    LAKE_REQUIRE_OK(compacted);
    REQUIRE(compacted->has_value());
    // Version 3 is retained: its segments stay, through another collection too.
    CHECK(SegmentExists(root, 1));
    CHECK(SegmentExists(root, 2));
    Collect(root);
    CHECK(Ids(root, 3) == ThreeIds());
    CHECK(Ids(root) == ThreeIds());
    CHECK(SegmentExists(root, Segments(root).back()));
  }
}

}  // namespace
}  // namespace lake::gc
