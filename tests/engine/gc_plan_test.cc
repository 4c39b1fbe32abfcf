// Making a deletion plan (engine/gc/plan_writer.h): what enters a plan and
// what never does, and that a plan that cannot read everything it must is
// never made.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <functional>

#include "base/failpoint.h"
#include "engine/events/blob_references.h"
#include "engine/events/experiment_store.h"
#include "engine/location_uri.h"
#include "engine/managed_key.h"
#include "engine/sha256.h"
#include "engine/gc/collector_guards.h"
#include "engine/gc/pin_store.h"
#include "engine/gc/live_references.h"
#include "engine/gc/plan_apply.h"
#include "engine/gc/plan_reader.h"
#include "engine/gc/plan_writer.h"
#include "engine/gc/root_fingerprint.h"
#include "engine/table/append_checkpoint_store.h"
#include "engine/table/fragment_format.h"
#include "engine/table/reference_journal.h"
#include "engine/table/manifest_chain.h"
#include "engine/table/table_log_format.h"
#include "engine/table/table_store.h"
#include "tests/support/gc_fixture.h"
#include "tests/support/status_checks.h"

namespace lake::gc {
namespace {

using testing::GcTestRoot;

bool Contains(const std::vector<std::string>& uris, const std::string& uri) {
  return std::find(uris.begin(), uris.end(), uri) != uris.end();
}

std::vector<std::string> StageUris(const std::vector<std::string>& uris) {
  std::vector<std::string> out;
  for (const std::string& uri : uris) {
    if (uri.find("/stage/objects/") != std::string::npos) out.push_back(uri);
  }
  return out;
}

// Records `location` in a new shard's blob journal of experiment p/x.
void RecordEventBlob(GcTestRoot& root, const DataLocation& location) {
  events::ExperimentStore store(root.fs(), root.root_dir());
  absl::StatusOr<events::ExperimentInfo> created = store.Create("p", "x");
  if (!created.ok()) REQUIRE(absl::IsAlreadyExists(created.status()));
  std::string shard_dir = store.ShardsDir("p", "x") + "/shard-1";
  std::filesystem::create_directories(shard_dir);
  absl::StatusOr<std::unique_ptr<events::ShardBlobJournal>> journal =
      events::ShardBlobJournal::Open(root.fs(), shard_dir, "shard-1");
  LAKE_REQUIRE_OK(journal);
  LAKE_REQUIRE_OK((*journal)->Record({location}));
}

// Publishes an append checkpoint whose batch holds `location` and that
// never commits.
void PublishPendingCheckpoint(GcTestRoot& root, const DataLocation& location) {
  table::Schema schema;
  schema.columns = {{"id", table::ColumnType::kUtf8}, {"f", table::ColumnType::kFile}};
  table::ColumnBatch batch = table::ColumnBatch::Empty(schema);
  LAKE_REQUIRE_OK(batch.AppendRow(
      std::vector<table::CellValue>{table::CellValue{std::string("pending")}, table::CellValue{location}}));
  absl::StatusOr<std::string> fragment = table::EncodeFragment(batch);
  LAKE_REQUIRE_OK(fragment);
  table::AppendCheckpoint checkpoint;
  checkpoint.operation_id = NewUuidV7();
  checkpoint.table_name = "ns.t";
  checkpoint.table_id = 1;
  checkpoint.stage_identity = testing::LocalStageIdentity(root.root_dir());
  checkpoint.batch = *fragment;
  checkpoint.batch_sha256 = Sha256Hex(*fragment);
  absl::StatusOr<table::AppendCheckpointStore> store =
      table::AppendCheckpointStore::Open(root.fs(), root.root_dir() + "/checkpoints");
  LAKE_REQUIRE_OK(store);
  LAKE_REQUIRE_OK(store->Publish(checkpoint));
}

TEST_CASE("gc plan: an unreferenced object is planned; a referenced one is not") {
  GcTestRoot root;
  root.CreateTable("ns.t");
  DataLocation kept = root.Put();
  DataLocation orphan = root.Put();
  root.InsertLocation("ns.t", "a", kept);
  absl::StatusOr<PlanSummary> plan = root.Plan();
  LAKE_REQUIRE_OK(plan);
  std::vector<std::string> uris = root.PlannedUris(plan->manifest.plan_id);
  CHECK(StageUris(uris) == std::vector<std::string>{orphan.uri});
  CHECK(plan->manifest.objects == 1);
  CHECK(plan->manifest.object_bytes == orphan.size_bytes);
  CHECK(plan->tenants[""].objects == 1);
  CHECK(plan->manifest.root_id == root.root_id());
  // Planning deletes nothing.
  CHECK(root.Exists(orphan));
}

TEST_CASE("gc plan: what only a dropped table referenced survives until the cutoff has passed since the drop") {
  GcTestRoot root;
  root.CreateTable("ns.t");
  root.CreateTable("ns.keep");
  DataLocation only_dropped = root.Put();
  DataLocation shared = root.Put();
  root.InsertLocation("ns.t", "a", only_dropped);
  root.InsertLocation("ns.t", "b", shared);
  root.InsertLocation("ns.keep", "b", shared);
  const size_t dropped_files =
      testing::FilesUnder(root.tables().tables->TableDir(*table::ParseTableName("ns.t"))).size();
  REQUIRE(dropped_files > 0);
  LAKE_REQUIRE_OK(root.tables().tables->DropTable(*table::ParseTableName("ns.t")));
  // Objects and table files two days old; the drop is now.
  root.AgeEverything(absl::Hours(48));

  PlanOptions day = GcTestRoot::ShortCutoff();
  day.cutoff = absl::Hours(24);
  absl::StatusOr<PlanSummary> early = root.Plan(day);
  LAKE_REQUIRE_OK(early);
  CHECK(StageUris(root.PlannedUris(early->manifest.plan_id)).empty());
  CHECK(early->manifest.table_files == 0);

  absl::StatusOr<PlanSummary> late = root.Plan();  // cutoff zero: the drop is past it
  LAKE_REQUIRE_OK(late);
  std::vector<std::string> uris = root.PlannedUris(late->manifest.plan_id);
  CHECK(StageUris(uris) == std::vector<std::string>{only_dropped.uri});
  // Every file of the dropped table (its table log segment, or per version
  // a manifest, a delta and a fragment), and no file of the table that stays.
  CHECK(late->manifest.table_files == dropped_files);
  for (const std::string& uri : uris) {
    if (uri.find("/tables/") == std::string::npos) continue;
    CAPTURE(uri);
    CHECK(uri.find("/tables/.dropped/") != std::string::npos);
  }
}

TEST_CASE("gc live walk: a table dropped before the release cutoff keeps nothing alive") {
  GcTestRoot root;
  root.CreateTable("ns.t");
  DataLocation dropped_ref = root.Put();
  root.InsertLocation("ns.t", "a", dropped_ref);
  LAKE_REQUIRE_OK(root.tables().tables->DropTable(*table::ParseTableName("ns.t")));
  auto live = [&](absl::Time released_before) {
    std::vector<std::string> uris;
    LAKE_CHECK_OK(ForEachLiveReference(
        root.View(), absl::Now(), absl::Hours(1), released_before,
        [&](std::string_view uri, const DataLocation*, const Referrer&) -> absl::Status {
          uris.emplace_back(uri);
          return absl::OkStatus();
        }));
    return uris;
  };
  CHECK(Contains(live(absl::InfinitePast()), dropped_ref.uri));
  CHECK(Contains(live(absl::Now() - absl::Hours(1)), dropped_ref.uri));
  CHECK_FALSE(Contains(live(absl::Now() + absl::Seconds(1)), dropped_ref.uri));
  CHECK_FALSE(Contains(live(absl::InfiniteFuture()), dropped_ref.uri));
}

TEST_CASE("gc plan: an object referenced only by an old version survives") {
  GcTestRoot root;
  root.CreateTable("ns.t");
  DataLocation old_ref = root.Put();
  DataLocation new_ref = root.Put();
  root.InsertLocation("ns.t", "a", old_ref);  // version 1's delta only
  root.InsertLocation("ns.t", "b", new_ref);  // version 2's delta only
  LAKE_REQUIRE_OK(root.tables().tables->Compact(*table::ParseTableName("ns.t")));
  absl::StatusOr<PlanSummary> plan = root.Plan();
  LAKE_REQUIRE_OK(plan);
  std::vector<std::string> uris = root.PlannedUris(plan->manifest.plan_id);
  CHECK(!Contains(uris, old_ref.uri));
  CHECK(!Contains(uris, new_ref.uri));
  // The fragments only the versions before the compaction name survive too.
  CHECK(plan->manifest.table_files == 0);
}

TEST_CASE("gc plan, versions as files: files only expired versions list are planned once the cutoff has passed since the expiry") {
  testing::ScopedVersionsAsFiles as_files;
  GcTestRoot root;
  root.CreateTable("ns.t");
  table::TableName name = *table::ParseTableName("ns.t");
  std::vector<DataLocation> refs;
  for (int i = 0; i < 3; ++i) {
    refs.push_back(root.Put());
    root.InsertLocation("ns.t", "r" + std::to_string(i), refs.back());  // versions 1..3
  }
  LAKE_REQUIRE_OK(root.tables().tables->Compact(name));  // version 4: one fragment
  LAKE_REQUIRE_OK(root.tables().tables->TagVersion(name, "golden", 2));
  absl::StatusOr<table::ExpireOutcome> expired =
      root.tables().tables->Expire(name, {.keep_last = 1});
  LAKE_REQUIRE_OK(expired);
  REQUIRE(expired->retired == std::vector<uint64_t>{1, 3});
  // Every file two days old; the expiry is now.
  root.AgeEverything(absl::Hours(48));

  PlanOptions day = GcTestRoot::ShortCutoff();
  day.cutoff = absl::Hours(24);
  absl::StatusOr<PlanSummary> early = root.Plan(day);
  LAKE_REQUIRE_OK(early);
  CHECK(early->manifest.table_files == 0);
  CHECK(StageUris(root.PlannedUris(early->manifest.plan_id)).empty());

  absl::StatusOr<PlanSummary> late = root.Plan();  // cutoff zero: the expiry is past it
  LAKE_REQUIRE_OK(late);
  std::vector<std::string> uris = root.PlannedUris(late->manifest.plan_id);
  // No object: the retained versions still reference all three.
  CHECK(StageUris(uris).empty());
  // Versions 1 and 3's manifests, the one fragment only version 3 listed
  // (version 2, retained, lists the first two), and version 1's delta.
  std::string dir = root.tables().tables->TableDir(name);
  std::vector<std::string> retained_files = {FormatFileUri(dir + "/" + table::ManifestRelativePath(2)),
                                             FormatFileUri(dir + "/" + table::ManifestRelativePath(4))};
  // The deltas after the reference base (version 2, the oldest retained)
  // and its snapshot stay; version 1's delta, before it, is the plan's.
  for (uint64_t v = 2; v <= 4; ++v) {
    retained_files.push_back(FormatFileUri(dir + "/" + table::ReferenceDeltaRelativePath(v)));
  }
  retained_files.push_back(FormatFileUri(dir + "/" + table::ReferenceSnapshotRelativePath(2)));
  std::vector<std::string> expected = {FormatFileUri(dir + "/" + table::ManifestRelativePath(1)),
                                       FormatFileUri(dir + "/" + table::ManifestRelativePath(3)),
                                       FormatFileUri(dir + "/" + table::ReferenceDeltaRelativePath(1))};
  CHECK(late->manifest.table_files == 4);
  for (const std::string& uri : expected) CHECK(Contains(uris, uri));
  for (const std::string& uri : retained_files) CHECK_FALSE(Contains(uris, uri));
  // Every retained version still reads all its rows after the plan is applied.
  LAKE_REQUIRE_OK(ApplyPlan(root.View(), late->manifest.plan_id, {}));
  CHECK(root.tables().Rows("ns.t", 2)->size() == 2);
  CHECK(root.tables().Rows("ns.t", 4)->size() == 3);
  CHECK(absl::IsNotFound(root.tables().Rows("ns.t", 3).status()));
  CHECK(root.tables().References("ns.t")->size() == 3);
}

void DeletedRowObjectSurvives() {
  GcTestRoot root;
  root.CreateTable("ns.t");
  DataLocation deleted = root.Put();
  DataLocation kept = root.Put();
  root.InsertLocation("ns.t", "a", deleted);
  root.InsertLocation("ns.t", "b", kept);
  absl::StatusOr<table::DeleteOutcome> outcome = root.tables().Delete(
      "DELETE FROM ns.t WHERE id = ?", {table::CellValue{std::string("a")}});
  LAKE_REQUIRE_OK(outcome);
  REQUIRE(outcome->deleted_rows == 1);
  root.AgeEverything(absl::Hours(48));
  absl::StatusOr<PlanSummary> plan = root.Plan();  // cutoff zero
  LAKE_REQUIRE_OK(plan);
  std::vector<std::string> uris = root.PlannedUris(plan->manifest.plan_id);
  // Version 2 (retained) still holds the deleted row and its object; the
  // deletion vector is a file of version 3.
  CHECK(StageUris(uris).empty());
  CHECK(plan->manifest.table_files == 0);
  LAKE_REQUIRE_OK(ApplyPlan(root.View(), plan->manifest.plan_id, {}));
  CHECK(root.tables().Rows("ns.t", 2)->size() == 2);
  CHECK(root.tables().Rows("ns.t")->size() == 1);
}

TEST_CASE("gc plan: a deleted row's object survives while a retained version references it, on either layout") {
  for (testing::VersionLayout layout : testing::kVersionLayouts) {
    CAPTURE(testing::VersionLayoutName(layout));
    testing::ScopedVersionLayout scoped(layout);
    DeletedRowObjectSurvives();
  }
}

TEST_CASE("gc plan: a deleted row's object is planned once the cutoff has passed since the versions holding it expired") {
  GcTestRoot root;
  root.CreateTable("ns.t");
  table::TableName name = *table::ParseTableName("ns.t");
  DataLocation deleted = root.Put();
  DataLocation kept = root.Put();
  root.InsertLocation("ns.t", "a", deleted);
  root.InsertLocation("ns.t", "b", kept);
  LAKE_REQUIRE_OK(root.tables().Delete("DELETE FROM ns.t WHERE id = ?",
                                       {table::CellValue{std::string("a")}}));
  // Versions 1 and 2 (the ones holding the row) expire now; version 3's
  // reference snapshot no longer lists the object.
  absl::StatusOr<table::ExpireOutcome> expired =
      root.tables().tables->Expire(name, {.keep_last = 1});
  LAKE_REQUIRE_OK(expired);
  REQUIRE(expired->retired == std::vector<uint64_t>{1, 2});
  root.AgeEverything(absl::Hours(48));

  PlanOptions day = GcTestRoot::ShortCutoff();
  day.cutoff = absl::Hours(24);
  absl::StatusOr<PlanSummary> early = root.Plan(day);
  LAKE_REQUIRE_OK(early);
  // The object is two days old, but its release (the expiry) is not.
  CHECK_FALSE(Contains(root.PlannedUris(early->manifest.plan_id), deleted.uri));

  absl::StatusOr<PlanSummary> late = root.Plan();  // cutoff zero: the expiry is past it
  LAKE_REQUIRE_OK(late);
  std::vector<std::string> uris = root.PlannedUris(late->manifest.plan_id);
  CHECK(Contains(uris, deleted.uri));
  CHECK_FALSE(Contains(uris, kept.uri));
  LAKE_REQUIRE_OK(ApplyPlan(root.View(), late->manifest.plan_id, {}));
  CHECK_FALSE(root.Exists(deleted));
  CHECK(root.Exists(kept));
  CHECK(root.tables().Rows("ns.t")->size() == 1);
  CHECK(root.tables().CurrentReferences("ns.t")->size() == 1);
}

TEST_CASE("gc plan: a table log's one segment, the active one, is never planned, even with every version but one expired") {
  GcTestRoot root;
  root.CreateTable("ns.t");
  table::TableName name = *table::ParseTableName("ns.t");
  // One fragment of three rows: each DELETE writes it a deletion vector.
  LAKE_REQUIRE_OK(root.tables().Insert(
      "INSERT INTO ns.t (id, f) VALUES (?, ?), (?, ?), (?, ?)",
      {table::CellValue{std::string("a")}, table::CellValue{root.Put()},
       table::CellValue{std::string("b")}, table::CellValue{root.Put()},
       table::CellValue{std::string("c")}, table::CellValue{root.Put()}}));
  LAKE_REQUIRE_OK(root.tables().Delete("DELETE FROM ns.t WHERE id = ?",
                                       {table::CellValue{std::string("a")}}));
  LAKE_REQUIRE_OK(root.tables().Delete("DELETE FROM ns.t WHERE id = ?",
                                       {table::CellValue{std::string("b")}}));
  LAKE_REQUIRE_OK(root.tables().tables->Expire(name, {.keep_last = 1}));
  root.AgeEverything(absl::Hours(48));
  absl::StatusOr<PlanSummary> plan = root.Plan();  // cutoff zero
  LAKE_REQUIRE_OK(plan);
  for (const std::string& uri : root.PlannedUris(plan->manifest.plan_id)) {
    CAPTURE(uri);
    CHECK(uri.find("/_log/") == std::string::npos);
  }
  LAKE_REQUIRE_OK(ApplyPlan(root.View(), plan->manifest.plan_id, {}));
  CHECK(std::filesystem::exists(root.tables().tables->TableDir(name) + "/" +
                                table::TableLogSegmentRelativePath(1)));
  absl::StatusOr<std::vector<std::vector<table::CellValue>>> rows = root.tables().Rows("ns.t");
  LAKE_REQUIRE_OK(rows);
  CHECK(rows->size() == 1);
}

void GcRacingDelete() {
  REQUIRE(failpoint::Enabled());
  for (std::string_view step : table::kTableDeleteFailpoints) {
    CAPTURE(std::string(step));
    GcTestRoot root;
    root.CreateTable("ns.t");
    std::vector<DataLocation> objects;
    for (int i = 0; i < 3; ++i) {
      objects.push_back(root.Put());
      root.InsertLocation("ns.t", "r" + std::to_string(i), objects.back());
    }
    root.AgeEverything(absl::Hours(48));
    // A whole collection (cutoff zero) starts while the DELETE is at `step`.
    absl::StatusOr<table::DeleteOutcome> outcome;
    absl::Status collected = testing::CollectAtStep(root, step, [&] {
      outcome = root.tables().Delete("DELETE FROM ns.t WHERE id = ?",
                                     {table::CellValue{std::string("r1")}});
    });
    LAKE_REQUIRE_OK(outcome);
    // Whatever the collection did (it may refuse a changed root), every
    // retained version reads all its rows and every object is there.
    CAPTURE(collected.ToString());
    CHECK(root.tables().Rows("ns.t", 3)->size() == 3);
    CHECK(root.tables().Rows("ns.t", 4)->size() == 2);
    for (const DataLocation& object : objects) CHECK(root.Exists(object));
    // A collection after it finds nothing to take either.
    absl::StatusOr<PlanSummary> after = root.Plan();
    LAKE_REQUIRE_OK(after);
    CHECK(StageUris(root.PlannedUris(after->manifest.plan_id)).empty());
    CHECK(after->manifest.table_files == 0);
  }
}

TEST_CASE("gc racing a DELETE at each of its steps never deletes what a retained version references, on either layout") {
  for (testing::VersionLayout layout : testing::kVersionLayouts) {
    CAPTURE(testing::VersionLayoutName(layout));
    testing::ScopedVersionLayout scoped(layout);
    GcRacingDelete();
  }
}

TEST_CASE("gc plan, versions as files: after an expiry, the manifest chain links a retained version needs survive; the rest are planned") {
  testing::ScopedVersionsAsFiles as_files;
  GcTestRoot root;
  root.CreateTable("ns.t");
  table::TableName name = *table::ParseTableName("ns.t");
  constexpr uint64_t kVersions = 20;
  for (uint64_t i = 0; i < kVersions; ++i) {
    root.InsertLocation("ns.t", "r" + std::to_string(i), root.Put());  // versions 1..14
  }
  // The tagged version's manifest is a link whose chain passes through
  // versions the expiry retires.
  std::string dir = root.tables().tables->TableDir(name);
  auto chain_of = [&](uint64_t version) {
    table::ManifestChainReader reader(root.fs(), dir);
    absl::StatusOr<const table::ResolvedManifest*> resolved =
        reader.Resolve(version, table::ManifestRelativePath(version));
    LAKE_REQUIRE_OK(resolved);
    return (*resolved)->chain_files;
  };
  uint64_t tagged = kVersions - 2;
  while (tagged > 1 && chain_of(tagged).size() < 2) --tagged;
  std::vector<std::string> tagged_chain = chain_of(tagged);
  REQUIRE(tagged_chain.size() >= 2);
  LAKE_REQUIRE_OK(root.tables().tables->TagVersion(name, "golden", tagged));
  absl::StatusOr<table::ExpireOutcome> expired =
      root.tables().tables->Expire(name, {.keep_last = 1});
  LAKE_REQUIRE_OK(expired);
  REQUIRE(expired->retired.size() == kVersions - 2);
  std::vector<std::string> needed = tagged_chain;
  for (const std::string& file : chain_of(kVersions)) needed.push_back(file);
  root.AgeEverything(absl::Hours(48));

  absl::StatusOr<PlanSummary> plan = root.Plan();  // cutoff zero: the expiry is past it
  LAKE_REQUIRE_OK(plan);
  std::vector<std::string> uris = root.PlannedUris(plan->manifest.plan_id);
  size_t planned_manifests = 0;
  for (uint64_t v = 1; v <= kVersions; ++v) {
    CAPTURE(v);
    std::string manifest = table::ManifestRelativePath(v);
    bool is_needed = std::find(needed.begin(), needed.end(), manifest) != needed.end();
    CHECK(Contains(uris, FormatFileUri(dir + "/" + manifest)) == !is_needed);
    if (!is_needed) ++planned_manifests;
  }
  CHECK(planned_manifests > 0);
  LAKE_REQUIRE_OK(ApplyPlan(root.View(), plan->manifest.plan_id, {}));
  // Every retained version still resolves and reads all its rows.
  CHECK(root.tables().Rows("ns.t", tagged)->size() == tagged);
  CHECK(root.tables().Rows("ns.t", kVersions)->size() == kVersions);
  for (const std::string& file : needed) CHECK(std::filesystem::exists(dir + "/" + file));
}

TEST_CASE("gc plan: an object referenced only by a pending append checkpoint survives") {
  GcTestRoot root;
  DataLocation pending = root.Put();
  DataLocation orphan = root.Put();
  PublishPendingCheckpoint(root, pending);
  absl::StatusOr<PlanSummary> plan = root.Plan();
  LAKE_REQUIRE_OK(plan);
  std::vector<std::string> uris = root.PlannedUris(plan->manifest.plan_id);
  CHECK(!Contains(uris, pending.uri));
  CHECK(Contains(uris, orphan.uri));
}

TEST_CASE("gc plan: an object referenced only by an event log's blob journal survives") {
  GcTestRoot root;
  DataLocation blob = root.Put();
  DataLocation orphan = root.Put();
  RecordEventBlob(root, blob);
  absl::StatusOr<PlanSummary> plan = root.Plan();
  LAKE_REQUIRE_OK(plan);
  std::vector<std::string> uris = root.PlannedUris(plan->manifest.plan_id);
  CHECK(!Contains(uris, blob.uri));
  CHECK(Contains(uris, orphan.uri));
}

TEST_CASE("gc plan: a pinned object survives; unpinned, it is planned") {
  GcTestRoot root;
  DataLocation pinned = root.Put();
  LAKE_REQUIRE_OK(Pin(root.fs(), root.root_dir(), *root.tables().stage, pinned));
  absl::StatusOr<PlanSummary> plan = root.Plan();
  LAKE_REQUIRE_OK(plan);
  CHECK(!Contains(root.PlannedUris(plan->manifest.plan_id), pinned.uri));
  LAKE_REQUIRE_OK(Unpin(root.fs(), root.root_dir(), *root.tables().stage, pinned));
  absl::StatusOr<PlanSummary> again = root.Plan();
  LAKE_REQUIRE_OK(again);
  CHECK(Contains(root.PlannedUris(again->manifest.plan_id), pinned.uri));
}

TEST_CASE("gc plan: a deleted experiment's blobs are planned") {
  GcTestRoot root;
  DataLocation blob = root.Put();
  RecordEventBlob(root, blob);
  events::ExperimentStore store(root.fs(), root.root_dir());
  LAKE_REQUIRE_OK(store.Delete("p", "x"));
  absl::StatusOr<PlanSummary> plan = root.Plan();
  LAKE_REQUIRE_OK(plan);
  CHECK(Contains(root.PlannedUris(plan->manifest.plan_id), blob.uri));
}

TEST_CASE("gc plan: a lost race's object is planned, only once past the cutoff") {
  GcTestRoot root;
  root.CreateTable("ns.t");
  absl::StatusOr<registry::TableRecord> before =
      root.tables().tables->GetTable(*table::ParseTableName("ns.t"));
  LAKE_REQUIRE_OK(before);
  DataLocation winner = root.Put();
  DataLocation loser = root.Put();
  root.InsertLocation("ns.t", "w", winner);
  // The loser prepared against version 0 and lost the compare-and-set.
  table::ColumnBatch batch = table::ColumnBatch::Empty(before->schema);
  LAKE_REQUIRE_OK(batch.AppendRow(
      std::vector<table::CellValue>{table::CellValue{std::string("l")}, table::CellValue{loser}}));
  CHECK(absl::IsAborted(root.tables().tables->AppendBatch(*before, batch).status()));
  PlanOptions week = PlanOptions();
  week.cutoff = absl::Hours(24);
  absl::StatusOr<PlanSummary> fresh = root.Plan(week);
  LAKE_REQUIRE_OK(fresh);
  CHECK(fresh->manifest.objects == 0);  // too young
  root.AgeEverything(absl::Hours(25));
  absl::StatusOr<PlanSummary> old = root.Plan(week);
  LAKE_REQUIRE_OK(old);
  CHECK(StageUris(root.PlannedUris(old->manifest.plan_id)) == std::vector<std::string>{loser.uri});
}

// A root whose table ns.t holds one committed row, then an INSERT of
// `failed` that failed after writing its version's manifest and delta.
void FailInsertAfterItsDelta(GcTestRoot& root, const DataLocation& failed) {
  root.CreateTable("ns.t");
  root.InsertLocation("ns.t", "a", root.Put());
  failpoint::ClearAll();
  failpoint::Set("table_append.reference_delta_written", failpoint::Action::kError);
  absl::StatusOr<table::AppendOutcome> outcome = root.tables().Insert(
      "INSERT INTO ns.t (id, f) VALUES (?, ?)",
      {table::CellValue{std::string("b")}, table::CellValue{failed}});
  failpoint::ClearAll();
  REQUIRE(!outcome.ok());
}

TEST_CASE("gc plan: a failed INSERT's object is planned, on either layout, and its version's files are; its records in the active table log segment are not") {
  REQUIRE(failpoint::Enabled());
  for (testing::VersionLayout layout : testing::kVersionLayouts) {
    CAPTURE(testing::VersionLayoutName(layout));
    testing::ScopedVersionLayout scoped(layout);
    GcTestRoot root;
    DataLocation failed = root.Put();
    FailInsertAfterItsDelta(root, failed);
    absl::StatusOr<PlanSummary> plan = root.Plan();
    LAKE_REQUIRE_OK(plan);
    std::vector<std::string> uris = root.PlannedUris(plan->manifest.plan_id);
    CHECK(StageUris(uris) == std::vector<std::string>{failed.uri});
    if (layout == testing::VersionLayout::kTableLog) {
      // Version 1's records share the segment with the failed append's:
      // the active segment is never planned.
      CHECK(plan->manifest.table_files == 0);
      CHECK(root.tables().Rows("ns.t")->size() == 1);
      continue;
    }
    // The failed append's manifest and delta of version 2; the append
    // removed its own fragment when it withdrew its checkpoint.
    CHECK(plan->manifest.table_files == 2);
    std::string table_dir = root.root_dir() + "/tables/ns/t/";
    CHECK(Contains(uris, FormatFileUri(table_dir + "_versions/00000000000000000002.manifest")));
    CHECK(Contains(uris, FormatFileUri(table_dir + "_lake/object_refs/00000000000000000002.refs")));
    // Committed version 1's files are not.
    CHECK(!Contains(uris, FormatFileUri(table_dir + "_versions/00000000000000000001.manifest")));
  }
}

// A plan over a root whose only version's reference delta `damage` broke
// fails closed, naming the table, and leaves no plan.
void PlanFailsOnBrokenDelta(const std::function<void(GcTestRoot&)>& damage) {
  GcTestRoot root;
  root.CreateTable("ns.t");
  root.InsertLocation("ns.t", "a", root.Put());
  root.Put();  // an orphan that must not be planned now
  damage(root);
  absl::StatusOr<PlanSummary> plan = root.Plan();
  CHECK(absl::IsDataLoss(plan.status()));
  CHECK(std::string(plan.status().message()).find("table ns.t") != std::string::npos);
  CHECK(std::string(plan.status().message()).find("nothing was deleted") != std::string::npos);
  absl::StatusOr<std::vector<std::string>> plans = ListPlans(root.fs(), root.root_dir());
  LAKE_REQUIRE_OK(plans);
  CHECK(plans->empty());
  bool no_plan_dirs = !std::filesystem::exists(root.root_dir() + "/gc/plans") ||
                      std::filesystem::is_empty(root.root_dir() + "/gc/plans");
  CHECK(no_plan_dirs);
}

TEST_CASE("gc plan: a corrupted reference delta fails the plan, on either layout; nothing is planned") {
  for (testing::VersionLayout layout : testing::kVersionLayouts) {
    CAPTURE(testing::VersionLayoutName(layout));
    testing::ScopedVersionLayout scoped(layout);
    PlanFailsOnBrokenDelta([](GcTestRoot& root) {
      testing::TablePathBytes delta = testing::LocateTablePath(
          root.root_dir() + "/tables/ns/t",
          testing::ManifestOf(root.tables(), "ns.t", 1).reference_delta_path);
      testing::DamageTableByte(delta, static_cast<std::streamoff>(delta.size / 2), std::ios::beg);
    });
  }
}

TEST_CASE("gc plan, versions as files: a missing reference delta file fails the plan; nothing is planned") {
  testing::ScopedVersionsAsFiles as_files;
  PlanFailsOnBrokenDelta([](GcTestRoot& root) {
    REQUIRE(std::filesystem::remove(root.root_dir() + "/tables/ns/t/" +
                                    table::ReferenceDeltaRelativePath(1)));
  });
}

TEST_CASE("gc plan: a damaged pending checkpoint fails the plan, naming recover --discard") {
  GcTestRoot root;
  PublishPendingCheckpoint(root, root.Put());
  for (const auto& entry : std::filesystem::directory_iterator(root.root_dir() + "/checkpoints")) {
    if (entry.path().extension() != ".append") continue;
    std::vector<uint8_t> bytes = testing::ReadFile(entry.path());
    bytes[bytes.size() / 2] ^= 1;
    std::filesystem::remove(entry.path());
    testing::WriteFile(entry.path(), bytes);
  }
  absl::StatusOr<PlanSummary> plan = root.Plan();
  CHECK(absl::IsDataLoss(plan.status()));
  CHECK(std::string(plan.status().message()).find("lake recover --discard") != std::string::npos);
}

TEST_CASE("gc plan: a chosen temporary directory keeps everything else it holds") {
  GcTestRoot root;
  root.Put();
  testing::TempDir temp;
  std::filesystem::create_directories(temp.Join("precious/inner"));
  testing::WriteFile(temp.Join("precious/inner/file"), {1, 2, 3});
  testing::WriteFile(temp.Join("other.lock"), {4});
  std::filesystem::create_directories(temp.Join("other"));
  PlanOptions options = GcTestRoot::ShortCutoff();
  options.temp_dir = temp.path();
  LAKE_REQUIRE_OK(root.Plan(options));
  CHECK(std::filesystem::exists(temp.Join("precious/inner/file")));
  CHECK(std::filesystem::exists(temp.Join("other")));
  CHECK(std::filesystem::exists(temp.Join("other.lock")));
}

TEST_CASE("gc plan: a cutoff under 24 hours is refused unless allowed") {
  GcTestRoot root;
  PlanOptions options;
  options.cutoff = absl::Hours(23);
  CHECK(absl::IsInvalidArgument(root.Plan(options).status()));
  options.allow_short_cutoff = true;
  LAKE_CHECK_OK(root.Plan(options));
}

TEST_CASE("gc plan: a second plan or apply at the same time is refused as a conflict") {
  GcTestRoot root;
  absl::StatusOr<std::unique_ptr<CollectorHold>> other =
      HoldCollectorRun(root.fs(), root.root_dir(), false);
  LAKE_REQUIRE_OK(other);
  CHECK(absl::IsAlreadyExists(root.Plan().status()));
}

TEST_CASE("gc plan: pages hold at most their entries, chained in URI order") {
  GcTestRoot root;
  std::vector<std::string> orphans;
  for (int i = 0; i < 7; ++i) orphans.push_back(root.Put().uri);
  std::sort(orphans.begin(), orphans.end());
  PlanOptions options = GcTestRoot::ShortCutoff();
  options.page_entries = 3;
  absl::StatusOr<PlanSummary> plan = root.Plan(options);
  LAKE_REQUIRE_OK(plan);
  CHECK(plan->manifest.pages == 3);
  CHECK(root.PlannedUris(plan->manifest.plan_id) == orphans);
}

TEST_CASE("gc plan: the plan binds the root fingerprint of its snapshot") {
  GcTestRoot root;
  root.CreateTable("ns.t");
  root.InsertLocation("ns.t", "a", root.Put());
  absl::StatusOr<PlanSummary> plan = root.Plan();
  LAKE_REQUIRE_OK(plan);
  absl::StatusOr<RootFingerprint> now =
      ComputeRootFingerprint(root.fs(), root.root_dir(), root.tables().registry.get());
  LAKE_REQUIRE_OK(now);
  CHECK(plan->manifest.fingerprint == now->combined);
  CHECK(plan->manifest.fingerprint_tables == now->tables);
}

TEST_CASE("gc plan: old plans beyond the newest few are removed by the next plan") {
  GcTestRoot root;
  for (size_t i = 0; i < kKeptPlans + 2; ++i) LAKE_REQUIRE_OK(root.Plan());
  absl::StatusOr<std::vector<std::string>> plans = ListPlans(root.fs(), root.root_dir());
  LAKE_REQUIRE_OK(plans);
  CHECK(plans->size() == kKeptPlans);
}

TEST_CASE("gc fingerprint: it changes with a table, a commit, an event blob, a checkpoint") {
  GcTestRoot root;
  auto now = [&] {
    absl::StatusOr<RootFingerprint> f =
        ComputeRootFingerprint(root.fs(), root.root_dir(), root.tables().registry.get());
    REQUIRE(f.ok());
    return *f;
  };
  RootFingerprint empty = now();
  root.Put();  // an upload adds no reference
  CHECK(now() == empty);
  root.CreateTable("ns.t");
  RootFingerprint with_table = now();
  CHECK(with_table.tables != empty.tables);
  root.InsertLocation("ns.t", "a", root.Put());
  RootFingerprint committed = now();
  CHECK(committed.tables != with_table.tables);
  CHECK(committed.combined != with_table.combined);
  RecordEventBlob(root, root.Put());
  RootFingerprint with_blob = now();
  CHECK(with_blob.event_logs != committed.event_logs);
  CHECK(with_blob.tables == committed.tables);
  PublishPendingCheckpoint(root, root.Put());
  RootFingerprint with_checkpoint = now();
  CHECK(with_checkpoint.pending_appends != with_blob.pending_appends);
  CHECK(with_checkpoint.DescribeChangeSince(with_blob).find("pending append") !=
        std::string::npos);
}

}  // namespace
}  // namespace lake::gc
