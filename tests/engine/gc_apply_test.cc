// Applying a deletion plan (engine/gc/plan_apply.h): exactly the planned
// objects and table files go; a plan that does not verify deletes nothing;
// a root that changed since the plan voids it.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <set>

#include "base/cancel_token.h"
#include "base/failpoint.h"
#include "engine/gc/apply_progress_store.h"
#include "engine/gc/gc_layout.h"
#include "engine/gc/page_deleter.h"
#include "engine/gc/pin_store.h"
#include "engine/gc/plan_apply.h"
#include "engine/gc/plan_reader.h"
#include "engine/location_uri.h"
#include "tests/support/gc_fixture.h"
#include "tests/support/status_checks.h"

namespace lake::gc {
namespace {

using testing::GcTestRoot;

// A root with referenced objects, orphans and a failed append's files.
struct Scene {
  GcTestRoot root;
  std::vector<DataLocation> referenced;
  std::vector<DataLocation> orphans;

  explicit Scene(int orphan_count = 5) {
    root.CreateTable("ns.t");
    for (int i = 0; i < 3; ++i) {
      referenced.push_back(root.Put());
      root.InsertLocation("ns.t", "r" + std::to_string(i), referenced.back());
    }
    for (int i = 0; i < orphan_count; ++i) orphans.push_back(root.Put());
  }
};

ApplyOptions NoOptions() { return ApplyOptions(); }

// Plans `scene` with one candidate a page (a page per orphan); the plan id.
std::string PlanOnePerPage(Scene& scene) {
  PlanOptions options = GcTestRoot::ShortCutoff();
  options.page_entries = 1;
  absl::StatusOr<PlanSummary> plan = scene.root.Plan(options);
  LAKE_REQUIRE_OK(plan);
  REQUIRE(plan->manifest.pages == scene.orphans.size());
  return plan->manifest.plan_id;
}

TEST_CASE("gc apply: exactly the planned objects are deleted, and the plan is done") {
  Scene scene;
  PlanOptions options = GcTestRoot::ShortCutoff();
  options.page_entries = 2;
  absl::StatusOr<PlanSummary> plan = scene.root.Plan(options);
  LAKE_REQUIRE_OK(plan);
  std::vector<std::string> planned = scene.root.PlannedUris(plan->manifest.plan_id);
  std::set<std::string> before = testing::CollectableFiles(scene.root.root_dir());
  absl::StatusOr<ApplyProgress> done =
      ApplyPlan(scene.root.View(), plan->manifest.plan_id, NoOptions());
  LAKE_REQUIRE_OK(done);
  CHECK(done->state == ApplyProgress::State::kDone);
  CHECK(done->objects_deleted == scene.orphans.size());
  CHECK(done->pages_done == plan->manifest.pages);
  std::set<std::string> expected = before;
  for (const std::string& uri : planned) expected.erase(testing::PathOfFileUri(uri));
  CHECK(testing::CollectableFiles(scene.root.root_dir()) == expected);
  for (const DataLocation& orphan : scene.orphans) CHECK(!scene.root.Exists(orphan));
  // What is referenced still reads back.
  absl::StatusOr<std::vector<std::vector<table::CellValue>>> rows =
      scene.root.tables().Rows("ns.t");
  LAKE_REQUIRE_OK(rows);
  CHECK(rows->size() == 3);
  for (const DataLocation& kept : scene.referenced) CHECK(scene.root.Exists(kept));
}

TEST_CASE("gc apply: applying a finished plan again changes nothing") {
  Scene scene;
  absl::StatusOr<PlanSummary> plan = scene.root.Plan();
  LAKE_REQUIRE_OK(plan);
  LAKE_REQUIRE_OK(ApplyPlan(scene.root.View(), plan->manifest.plan_id, NoOptions()));
  DataLocation later_orphan = scene.root.Put();
  absl::StatusOr<ApplyProgress> again =
      ApplyPlan(scene.root.View(), plan->manifest.plan_id, NoOptions());
  LAKE_REQUIRE_OK(again);
  CHECK(again->state == ApplyProgress::State::kDone);
  CHECK(scene.root.Exists(later_orphan));
}

TEST_CASE("gc apply: an INSERT between plan and apply voids the plan; nothing is deleted") {
  Scene scene;
  absl::StatusOr<PlanSummary> plan = scene.root.Plan();
  LAKE_REQUIRE_OK(plan);
  // Binds a planned object to a new row (as --location does).
  scene.root.InsertLocation("ns.t", "late", scene.orphans[0]);
  absl::StatusOr<ApplyProgress> applied =
      ApplyPlan(scene.root.View(), plan->manifest.plan_id, NoOptions());
  CHECK(absl::IsAborted(applied.status()));
  CHECK(IsPlanVoided(applied.status()));
  CHECK(std::string(applied.status().message()).find("a table was created or committed") !=
        std::string::npos);
  for (const DataLocation& orphan : scene.orphans) CHECK(scene.root.Exists(orphan));
  // The plan stays void.
  absl::StatusOr<std::optional<ApplyProgress>> progress =
      LoadApplyProgress(scene.root.fs(), scene.root.root_dir(), plan->manifest.plan_id);
  LAKE_REQUIRE_OK(progress);
  REQUIRE(progress->has_value());
  CHECK((*progress)->state == ApplyProgress::State::kVoided);
  CHECK(IsPlanVoided(ApplyPlan(scene.root.View(), plan->manifest.plan_id, NoOptions()).status()));
}

TEST_CASE("gc apply: a pin made after the plan voids it; the pinned object stays") {
  Scene scene;
  absl::StatusOr<PlanSummary> plan = scene.root.Plan();
  LAKE_REQUIRE_OK(plan);
  LAKE_REQUIRE_OK(
      Pin(scene.root.fs(), scene.root.root_dir(), *scene.root.tables().stage, scene.orphans[1]));
  absl::StatusOr<ApplyProgress> applied =
      ApplyPlan(scene.root.View(), plan->manifest.plan_id, NoOptions());
  CHECK(IsPlanVoided(applied.status()));
  CHECK(std::string(applied.status().message()).find("pin") != std::string::npos);
  for (const DataLocation& orphan : scene.orphans) CHECK(scene.root.Exists(orphan));
}

TEST_CASE("gc apply: a commit between two pages stops the apply after the page before it") {
  REQUIRE(failpoint::Enabled());
  Scene scene(4);
  std::string plan_id = PlanOnePerPage(scene);
  std::vector<std::string> planned = scene.root.PlannedUris(plan_id);
  REQUIRE(planned.size() == 4);
  failpoint::ClearAll();
  int pages = 0;
  failpoint::Set(kApplyFailpoints[4], failpoint::Action::kCallback, [&] {
    if (++pages == 1) scene.root.InsertLocation("ns.t", "late", scene.referenced[0]);
    return absl::OkStatus();
  });
  absl::StatusOr<ApplyProgress> applied =
      ApplyPlan(scene.root.View(), plan_id, NoOptions());
  failpoint::ClearAll();
  CHECK(IsPlanVoided(applied.status()));
  CHECK(!scene.root.FileExists(planned[0]));
  for (size_t i = 1; i < planned.size(); ++i) CHECK(scene.root.FileExists(planned[i]));
}

TEST_CASE("gc apply: a tampered page or manifest fails before any delete") {
  for (std::string what : {"page", "manifest", "missing page"}) {
    CAPTURE(what);
    Scene scene(6);
    PlanOptions options = GcTestRoot::ShortCutoff();
    options.page_entries = 2;
    absl::StatusOr<PlanSummary> plan = scene.root.Plan(options);
    LAKE_REQUIRE_OK(plan);
    std::string plan_dir = PlanDirOf(scene.root.root_dir(), plan->manifest.plan_id);
    std::set<std::string> before = testing::CollectableFiles(scene.root.root_dir());
    std::string target;
    if (what == "manifest") {
      target = plan_dir + "/manifest.json";
    } else {
      // The last page of the chain: every other page would verify first.
      std::vector<std::string> pages;
      LAKE_REQUIRE_OK(ForEachPlanPage(scene.root.fs(), scene.root.root_dir(), plan->manifest,
                                      [&](const PlanPage&, const std::string& sha) {
                                        pages.push_back(sha);
                                        return absl::OkStatus();
                                      }));
      target = PagePath(plan_dir, pages.back());
    }
    if (what == "missing page") {
      std::filesystem::remove(target);
    } else {
      std::vector<uint8_t> bytes = testing::ReadFile(target);
      bytes[bytes.size() / 3] ^= 0x02;
      std::filesystem::remove(target);
      testing::WriteFile(target, bytes);
    }
    absl::StatusOr<ApplyProgress> applied =
        ApplyPlan(scene.root.View(), plan->manifest.plan_id, NoOptions());
    CHECK(absl::IsDataLoss(applied.status()));
    CHECK(testing::CollectableFiles(scene.root.root_dir()) == before);
  }
}

TEST_CASE("gc apply: a page swapped after the plan was verified is refused by its hash") {
  REQUIRE(failpoint::Enabled());
  Scene scene(4);
  PlanOptions options = GcTestRoot::ShortCutoff();
  options.page_entries = 2;
  absl::StatusOr<PlanSummary> plan = scene.root.Plan(options);
  LAKE_REQUIRE_OK(plan);
  std::string plan_dir = PlanDirOf(scene.root.root_dir(), plan->manifest.plan_id);
  std::vector<std::pair<PlanPage, std::string>> pages;
  LAKE_REQUIRE_OK(ForEachPlanPage(scene.root.fs(), scene.root.root_dir(), plan->manifest,
                                  [&](const PlanPage& page, const std::string& sha) {
                                    pages.push_back({page, sha});
                                    return absl::OkStatus();
                                  }));
  REQUIRE(pages.size() == 2);
  DataLocation referenced = scene.referenced[0];
  failpoint::ClearAll();
  failpoint::Set(kApplyFailpoints[0], failpoint::Action::kCallback, [&] {
    // A valid page in the same place, naming a referenced object instead.
    PlanPage forged = pages[1].first;
    forged.entries[0].uri = referenced.uri;
    std::sort(forged.entries.begin(), forged.entries.end(),
              [](const Candidate& a, const Candidate& b) { return a.uri < b.uri; });
    absl::StatusOr<EncodedPlanPage> encoded = EncodePlanPage(forged);
    REQUIRE(encoded.ok());
    std::string path = PagePath(plan_dir, pages[1].second);
    std::filesystem::remove(path);
    testing::WriteFile(path, std::vector<uint8_t>(encoded->bytes.begin(), encoded->bytes.end()));
    return absl::OkStatus();
  });
  absl::StatusOr<ApplyProgress> applied =
      ApplyPlan(scene.root.View(), plan->manifest.plan_id, NoOptions());
  failpoint::ClearAll();
  CHECK(absl::IsDataLoss(applied.status()));
  CHECK(scene.root.Exists(referenced));
}

TEST_CASE("gc apply: a plan of another root, an unknown plan, or a draft is refused") {
  Scene scene;
  absl::StatusOr<PlanSummary> plan = scene.root.Plan();
  LAKE_REQUIRE_OK(plan);
  GcRoot other = scene.root.View();
  other.root_id = "01890a5d-ac96-774b-bcce-b302099a8058";
  CHECK(absl::IsInvalidArgument(ApplyPlan(other, plan->manifest.plan_id, NoOptions()).status()));
  CHECK(absl::IsNotFound(
      ApplyPlan(scene.root.View(), "01890a5d-ac96-774b-bcce-b302099a8059", NoOptions()).status()));
  CHECK(absl::IsInvalidArgument(ApplyPlan(scene.root.View(), "not-a-plan", NoOptions()).status()));
  // Without its manifest a plan is a draft.
  std::filesystem::remove(PlanDirOf(scene.root.root_dir(), plan->manifest.plan_id) +
                          "/manifest.json");
  CHECK(absl::IsNotFound(
      ApplyPlan(scene.root.View(), plan->manifest.plan_id, NoOptions()).status()));
  for (const DataLocation& orphan : scene.orphans) CHECK(scene.root.Exists(orphan));
}

TEST_CASE("gc apply: a stage whose owner marker changed since the plan is refused") {
  Scene scene;
  absl::StatusOr<PlanSummary> plan = scene.root.Plan();
  LAKE_REQUIRE_OK(plan);
  std::filesystem::remove(scene.root.root_dir() + "/stage/_lake/owner");
  CHECK(absl::IsFailedPrecondition(
      ApplyPlan(scene.root.View(), plan->manifest.plan_id, NoOptions()).status()));
  for (const DataLocation& orphan : scene.orphans) CHECK(scene.root.Exists(orphan));
}

TEST_CASE("gc apply: an empty plan is done at once") {
  GcTestRoot root;
  absl::StatusOr<PlanSummary> plan = root.Plan();
  LAKE_REQUIRE_OK(plan);
  CHECK(plan->manifest.pages == 0);
  absl::StatusOr<ApplyProgress> done = ApplyPlan(root.View(), plan->manifest.plan_id, NoOptions());
  LAKE_REQUIRE_OK(done);
  CHECK(done->state == ApplyProgress::State::kDone);
}

TEST_CASE("gc apply: a page's local removals on two threads remove every name, and sync") {
  GcTestRoot root;
  // 600 objects over several shard directories: enough names for two
  // threads (a thread takes at least 256).
  std::vector<Candidate> entries;
  std::vector<std::string> paths;
  for (int i = 0; i < 600; ++i) {
    DataLocation made = root.Put(1, i);
    paths.push_back(testing::PathOfFileUri(made.uri));
    Candidate c;
    c.uri = made.uri;
    entries.push_back(c);
  }
  std::sort(entries.begin(), entries.end(),
            [](const Candidate& a, const Candidate& b) { return a.uri < b.uri; });
  std::set<std::string> directories;
  for (const std::string& path : paths) {
    directories.insert(std::filesystem::path(path).parent_path().string());
  }
  REQUIRE(directories.size() > 2);
  DeleteOptions options;
  options.threads = 2;
  PendingSyncs syncs;
  LAKE_REQUIRE_OK(RemoveStageObjects(root.View(), entries, options, &syncs));
  for (const std::string& path : paths) CHECK_FALSE(std::filesystem::exists(path));
  LAKE_CHECK_OK(syncs.Sync());
  // A repeated page: every name already gone is success.
  LAKE_CHECK_OK(RemoveStageObjects(root.View(), entries, options, &syncs));
}

// A plan of five pages of one orphan each, applied with a checkpoint every
// `checkpoint_pages` pages or `interval`; how many checkpoints wrote their
// progress record, and the record's pages_done as each was written.
std::vector<uint64_t> CheckpointedPages(uint64_t checkpoint_pages, absl::Duration interval) {
  Scene scene(5);
  std::string plan_id = PlanOnePerPage(scene);
  std::vector<uint64_t> recorded;
  failpoint::ClearAll();
  failpoint::Set(kApplyFailpoints[3], failpoint::Action::kCallback, [&] {
    absl::StatusOr<std::optional<ApplyProgress>> record =
        LoadApplyProgress(scene.root.fs(), scene.root.root_dir(), plan_id);
    if (record.ok() && record->has_value()) recorded.push_back((*record)->pages_done);
    return absl::OkStatus();
  });
  ApplyOptions options;
  options.checkpoint_pages = checkpoint_pages;
  options.checkpoint_interval = interval;
  absl::StatusOr<ApplyProgress> done = ApplyPlan(scene.root.View(), plan_id, options);
  failpoint::ClearAll();
  LAKE_REQUIRE_OK(done);
  CHECK(done->pages_done == 5);
  for (const DataLocation& orphan : scene.orphans) CHECK_FALSE(scene.root.Exists(orphan));
  return recorded;
}

TEST_CASE("gc apply: the progress record advances every checkpoint_pages pages and at the end") {
  REQUIRE(failpoint::Enabled());
  CHECK(CheckpointedPages(2, absl::InfiniteDuration()) == std::vector<uint64_t>{2, 4, 5});
  CHECK(CheckpointedPages(1, absl::InfiniteDuration()) == std::vector<uint64_t>{1, 2, 3, 4, 5});
}

TEST_CASE("gc apply: a checkpoint interval that has passed checkpoints every page") {
  REQUIRE(failpoint::Enabled());
  CHECK(CheckpointedPages(kCheckpointPages, absl::ZeroDuration()) ==
        std::vector<uint64_t>{1, 2, 3, 4, 5});
}

TEST_CASE("gc apply: a cancelled apply records the pages it removed before it returns") {
  REQUIRE(failpoint::Enabled());
  Scene scene(5);
  std::string plan_id = PlanOnePerPage(scene);
  CancelToken cancel;
  int pages = 0;
  failpoint::ClearAll();
  failpoint::Set(kApplyFailpoints[4], failpoint::Action::kCallback, [&] {
    if (++pages == 2) cancel.Cancel();
    return absl::OkStatus();
  });
  ApplyOptions options;
  options.cancel = &cancel;
  options.checkpoint_interval = absl::InfiniteDuration();  // no checkpoint but the last
  absl::StatusOr<ApplyProgress> cancelled =
      ApplyPlan(scene.root.View(), plan_id, options);
  failpoint::ClearAll();
  CHECK(absl::IsCancelled(cancelled.status()));
  absl::StatusOr<std::optional<ApplyProgress>> record =
      LoadApplyProgress(scene.root.fs(), scene.root.root_dir(), plan_id);
  LAKE_REQUIRE_OK(record);
  REQUIRE(record->has_value());
  CHECK((*record)->pages_done == 2);
  CHECK((*record)->objects_deleted == 2);
  CHECK((*record)->state == ApplyProgress::State::kApplying);
}

TEST_CASE("gc apply: pending syncs hold each directory once, however many pages touched it") {
  GcTestRoot root;
  std::vector<Candidate> first;
  std::vector<Candidate> second;
  std::set<std::string> directories;
  std::set<std::string> first_directories;
  std::set<std::string> second_directories;
  for (int i = 0; i < 200; ++i) {
    DataLocation made = root.Put(1, i);
    std::string dir =
        std::filesystem::path(testing::PathOfFileUri(made.uri)).parent_path().string();
    directories.insert(dir);
    Candidate c;
    c.uri = made.uri;
    (i % 2 == 0 ? first : second).push_back(c);
    (i % 2 == 0 ? first_directories : second_directories).insert(dir);
  }
  // Some directory is touched by both "pages".
  REQUIRE(directories.size() < first_directories.size() + second_directories.size());
  auto by_uri = [](const Candidate& a, const Candidate& b) { return a.uri < b.uri; };
  std::sort(first.begin(), first.end(), by_uri);
  std::sort(second.begin(), second.end(), by_uri);
  DeleteOptions options;
  PendingSyncs syncs;
  LAKE_REQUIRE_OK(RemoveStageObjects(root.View(), first, options, &syncs));
  PendingSyncs more;
  LAKE_REQUIRE_OK(RemoveStageObjects(root.View(), second, options, &more));
  syncs.Absorb(std::move(more));
  CHECK(syncs.size() == directories.size());
  LAKE_CHECK_OK(syncs.Sync());
  CHECK(syncs.size() == 0);
}

TEST_CASE("gc apply: a progress record's temporary that a crash left goes with the next record") {
  Scene scene;
  absl::StatusOr<PlanSummary> plan = scene.root.Plan();
  LAKE_REQUIRE_OK(plan);
  std::string dir = ProgressDirOf(scene.root.root_dir(), plan->manifest.plan_id);
  std::filesystem::create_directories(dir);
  std::string left = dir + "/00000000000000000001.progress.0190a8f0-0000-7000-8000-000000000001.tmp";
  testing::WriteFile(left, {1, 2});
  LAKE_REQUIRE_OK(ApplyPlan(scene.root.View(), plan->manifest.plan_id, NoOptions()));
  CHECK_FALSE(std::filesystem::exists(left));
  CHECK(testing::FilesUnder(dir).size() == 1);  // the final record alone
}

}  // namespace
}  // namespace lake::gc
