// Crash safety of garbage collection: a child process SIGKILLed, and a
// simulated power loss (the fault-injecting file system drops what was not
// fsynced), at every step of a plan's publication and of an apply; then the
// collection runs again as a restarted process would, and exactly the
// planned objects and table files are gone — nothing else.
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <tuple>
#include <vector>

#include "base/failpoint.h"
#include "engine/gc/plan_apply.h"
#include "engine/gc/plan_reader.h"
#include "engine/gc/plan_writer.h"
#include "engine/location_uri.h"
#include "engine/table/table_log_format.h"
#include "io/posix/posix_file_system.h"
#include "io/whole_file.h"
#include "tests/support/fault_injection_file_system.h"
#include "tests/support/gc_fixture.h"
#include "tests/support/status_checks.h"

namespace lake::gc {
namespace {

using testing::GcTestRoot;

using testing::CollectableFiles;

// A root with three referenced objects and five orphans, and a table
// ns.seg whose table log rolled: segment 1 holds only what an expired
// version named (the collector's), segment 2 is the active one; its plans
// use pages of two entries. Its versions are files of their own (the
// table log holds only DELETE's deletion vectors, one a segment), so that
// a plan holds table files, a segment and objects alike. Every scene of a process is the same
// root at the same path (its locations name that path), restored from a
// snapshot made once: no step pays for the registry's and inserts' syncs.
struct CrashScene {
  io::PosixFileSystem posix;
  std::string root_dir;
  std::string backups;

  CrashScene() : root_dir(Pristine().path() + "/root"), backups(Pristine().path() + "/backups") {
    std::filesystem::remove_all(root_dir);
    std::filesystem::remove_all(backups);
    std::filesystem::create_directories(backups);
    std::filesystem::copy(Pristine().path() + "/snapshot", root_dir,
                          std::filesystem::copy_options::recursive);
  }

  static const testing::TempDir& Pristine() {
    static testing::TempDir* dir = [] {
      auto* made = new testing::TempDir();
      std::string root_dir = made->path() + "/root";
      std::filesystem::create_directories(root_dir);
      {
        io::PosixFileSystem posix;
        table::TableStoreOptions rolling = testing::DefaultTableStoreOptions();
        rolling.table_log_segment_bytes = 1;  // every DELETE but a log's first rolls
        rolling.versions_in_table_log = false;
        GcTestRoot root(&posix, root_dir, rolling);
        root.CreateTable("ns.t");
        for (int i = 0; i < 3; ++i) {
          root.InsertLocation("ns.t", "r" + std::to_string(i), root.Put());
        }
        for (int i = 0; i < 5; ++i) root.Put();
        root.CreateTable("ns.seg");
        LAKE_REQUIRE_OK(root.tables().Insert(
            "INSERT INTO ns.seg (id, f) VALUES (?, ?), (?, ?), (?, ?)",
            {table::CellValue{std::string("a")}, table::CellValue{root.Put()},
             table::CellValue{std::string("b")}, table::CellValue{root.Put()},
             table::CellValue{std::string("c")}, table::CellValue{root.Put()}}));
        for (std::string id : {"a", "b"}) {
          LAKE_REQUIRE_OK(root.tables().Delete("DELETE FROM ns.seg WHERE id = ?",
                                               {table::CellValue{id}}));
        }
        LAKE_REQUIRE_OK(root.tables().tables->Expire(table::TableName{"ns", "seg"},
                                                     {.keep_last = 1}));
      }
      std::filesystem::copy(root_dir, made->path() + "/snapshot",
                            std::filesystem::copy_options::recursive);
      return made;
    }();
    return *dir;
  }

  static PlanOptions Options() {
    PlanOptions options = GcTestRoot::ShortCutoff();
    options.page_entries = 2;
    return options;
  }
};

// Plans (when `plan_id` is empty) and applies on the real file system, and
// checks that exactly the plan's candidates are gone from `before`.
void FinishAndCheck(const std::string& root_dir, std::string plan_id,
                    const std::set<std::string>& before) {
  io::PosixFileSystem posix;
  GcTestRoot root(&posix, root_dir);
  if (plan_id.empty()) {
    absl::StatusOr<PlanSummary> plan = root.Plan(CrashScene::Options());
    LAKE_REQUIRE_OK(plan);
    plan_id = plan->manifest.plan_id;
  }
  std::vector<std::string> planned = root.PlannedUris(plan_id);
  absl::StatusOr<ApplyProgress> done = ApplyPlan(root.View(), plan_id, ApplyOptions());
  LAKE_REQUIRE_OK(done);
  CHECK(done->state == ApplyProgress::State::kDone);
  std::set<std::string> expected = before;
  for (const std::string& uri : planned) expected.erase(testing::PathOfFileUri(uri));
  CHECK(CollectableFiles(root_dir) == expected);
  // The five orphans and the objects of the two rows ns.seg deleted (the
  // versions holding them expired), and of ns.seg the rolled segment and
  // the files of its expired versions.
  size_t objects = 0;
  for (const std::string& uri : planned) objects += uri.find("/stage/objects/") != std::string::npos;
  CHECK(objects == 7);
  std::string log_dir = root_dir + "/tables/ns/seg/";
  auto planned_path = [&](const std::string& path) {
    return std::find(planned.begin(), planned.end(), FormatFileUri(path)) != planned.end();
  };
  CHECK(planned_path(log_dir + table::TableLogSegmentRelativePath(1)));
  CHECK_FALSE(planned_path(log_dir + table::TableLogSegmentRelativePath(2)));
  CHECK(std::filesystem::exists(log_dir + table::TableLogSegmentRelativePath(2)));
  absl::StatusOr<std::vector<std::vector<table::CellValue>>> rows = root.tables().Rows("ns.t");
  LAKE_REQUIRE_OK(rows);
  CHECK(rows->size() == 3);
  absl::StatusOr<std::vector<std::vector<table::CellValue>>> left = root.tables().Rows("ns.seg");
  LAKE_REQUIRE_OK(left);
  CHECK(left->size() == 1);
  // No draft is left behind once a plan ran after the crash.
  absl::StatusOr<std::vector<std::string>> plans = ListPlans(posix, root_dir);
  LAKE_REQUIRE_OK(plans);
  for (const auto& e : std::filesystem::directory_iterator(root_dir + "/gc/plans")) {
    CHECK(std::filesystem::exists(e.path() / "manifest.json"));
  }
}

// The steps a plan's publication passes: its own, then the manifest's
// durable write.
std::vector<std::string_view> PlanSteps() {
  std::vector<std::string_view> steps(kPlanFailpoints.begin(), kPlanFailpoints.end());
  steps.insert(steps.end() - 1, io::kWholeFileFailpoints.begin(), io::kWholeFileFailpoints.end());
  return steps;
}

// An apply of the scene's three pages with a checkpoint every
// `checkpoint_pages` pages and never by time: with 1, after each page; with
// 2, after page 2 and after page 3, so a crash after page 1 repeats it.
// Either way each checkpoint step is passed twice.
ApplyOptions CheckpointEvery(uint64_t checkpoint_pages) {
  ApplyOptions options;
  options.checkpoint_pages = checkpoint_pages;
  options.checkpoint_interval = absl::InfiniteDuration();
  return options;
}

// The steps an apply passes, and how many times each (hit 1 and, for the
// per-page and per-checkpoint ones, hit 2 too), with a checkpoint after
// every page and after every two.
std::vector<std::tuple<std::string_view, int, uint64_t>> ApplySteps() {
  std::vector<std::pair<std::string_view, int>> steps;
  for (std::string_view step : kApplyFailpoints) {
    steps.push_back({step, 1});
    if (step != kApplyFailpoints[0]) steps.push_back({step, 2});
  }
  for (std::string_view step : io::kWholeFileFailpoints) steps.push_back({step, 2});
  std::vector<std::tuple<std::string_view, int, uint64_t>> cases;
  for (uint64_t checkpoint_pages : {1, 2}) {
    for (auto [step, hit] : steps) cases.push_back({step, hit, checkpoint_pages});
  }
  return cases;
}

// Runs `body` in a child killed at the `hit`-th pass of `step`.
void RunKilledAt(std::string_view step, int hit, const std::function<void()>& body) {
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    failpoint::ClearAll();
    auto hits = std::make_shared<int>(0);
    failpoint::Set(step, failpoint::Action::kCallback, [hits, hit] {
      if (++*hits == hit) ::raise(SIGKILL);
      return absl::OkStatus();
    });
    body();
    ::_exit(13);  // the step should have killed us
  }
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGKILL);
}

TEST_CASE("gc crash: a plan SIGKILLed at each step of its publication; the next plan is whole") {
  REQUIRE(failpoint::Enabled());
  for (std::string_view step : PlanSteps()) {
    CAPTURE(std::string(step));
    CrashScene scene;
    std::set<std::string> before = CollectableFiles(scene.root_dir);
    RunKilledAt(step, 1, [&] {
      io::PosixFileSystem posix;
      GcTestRoot root(&posix, scene.root_dir);
      (void)root.Plan(CrashScene::Options());
    });
    // A plan the crash left is either absent, a draft (no manifest), or
    // whole: every page verifies.
    absl::StatusOr<std::vector<std::string>> plans = ListPlans(scene.posix, scene.root_dir);
    LAKE_REQUIRE_OK(plans);
    for (const std::string& id : *plans) {
      absl::StatusOr<PlanManifest> manifest = ReadPlanManifest(scene.posix, scene.root_dir, id);
      LAKE_REQUIRE_OK(manifest);
      LAKE_CHECK_OK(ForEachPlanPage(scene.posix, scene.root_dir, *manifest,
                                    [](const PlanPage&, const std::string&) {
                                      return absl::OkStatus();
                                    }));
    }
    CHECK(CollectableFiles(scene.root_dir) == before);
    FinishAndCheck(scene.root_dir, "", before);
  }
}

TEST_CASE("gc crash: an apply SIGKILLed at each step resumes; exactly the plan is deleted") {
  REQUIRE(failpoint::Enabled());
  for (auto [step, hit, checkpoint_pages] : ApplySteps()) {
    CAPTURE(std::string(step));
    CAPTURE(hit);
    CAPTURE(checkpoint_pages);
    CrashScene scene;
    std::set<std::string> before = CollectableFiles(scene.root_dir);
    std::string plan_id;
    {
      GcTestRoot root(&scene.posix, scene.root_dir);
      absl::StatusOr<PlanSummary> plan = root.Plan(CrashScene::Options());
      LAKE_REQUIRE_OK(plan);
      plan_id = plan->manifest.plan_id;
    }
    RunKilledAt(step, hit, [&, checkpoint_pages = checkpoint_pages] {
      io::PosixFileSystem posix;
      GcTestRoot root(&posix, scene.root_dir);
      (void)ApplyPlan(root.View(), plan_id, CheckpointEvery(checkpoint_pages));
    });
    FinishAndCheck(scene.root_dir, plan_id, before);
  }
}

TEST_CASE("gc crash: a power loss at each step of a plan's publication leaves no torn plan") {
  REQUIRE(failpoint::Enabled());
  for (std::string_view step : PlanSteps()) {
    for (bool torn : {false, true}) {
      // Before the pages are sealed nothing of the plan is meant to be
      // durable: a torn crash there shows nothing a plain one does not.
      if (torn && (step == kPlanFailpoints[0] || step == kPlanFailpoints[1] ||
                   step == kPlanFailpoints[2])) {
        continue;
      }
      CAPTURE(std::string(step));
      CAPTURE(torn);
      CrashScene scene;
      std::set<std::string> before = CollectableFiles(scene.root_dir);
      {
        testing::FaultInjectionFileSystem fs(scene.posix, scene.backups);
        GcTestRoot root(&fs, scene.root_dir);
        failpoint::ClearAll();
        failpoint::Set(step, failpoint::Action::kCallback, [&] {
          if (torn) {
            fs.CrashTorn(7);
          } else {
            fs.Crash();
          }
          return absl::UnavailableError("power lost");
        });
        CHECK_FALSE(root.Plan(CrashScene::Options()).ok());
        failpoint::ClearAll();
        CHECK(fs.crashed());
        root.Close();
      }
      absl::StatusOr<std::vector<std::string>> plans = ListPlans(scene.posix, scene.root_dir);
      LAKE_REQUIRE_OK(plans);
      for (const std::string& id : *plans) {
        absl::StatusOr<PlanManifest> manifest =
            ReadPlanManifest(scene.posix, scene.root_dir, id);
        LAKE_REQUIRE_OK(manifest);
        LAKE_CHECK_OK(ForEachPlanPage(scene.posix, scene.root_dir, *manifest,
                                      [](const PlanPage&, const std::string&) {
                                        return absl::OkStatus();
                                      }));
      }
      FinishAndCheck(scene.root_dir, "", before);
    }
  }
}

TEST_CASE("gc crash: a power loss at each step of an apply resumes; exactly the plan goes") {
  REQUIRE(failpoint::Enabled());
  for (auto [step, hit, checkpoint_pages] : ApplySteps()) {
    CAPTURE(std::string(step));
    CAPTURE(hit);
    CAPTURE(checkpoint_pages);
    CrashScene scene;
    std::set<std::string> before = CollectableFiles(scene.root_dir);
    std::string plan_id;
    {
      GcTestRoot root(&scene.posix, scene.root_dir);
      absl::StatusOr<PlanSummary> plan = root.Plan(CrashScene::Options());
      LAKE_REQUIRE_OK(plan);
      plan_id = plan->manifest.plan_id;
    }
    {
      testing::FaultInjectionFileSystem fs(scene.posix, scene.backups);
      GcTestRoot root(&fs, scene.root_dir);
      failpoint::ClearAll();
      int hits = 0;
      failpoint::Set(step, failpoint::Action::kCallback, [&, hit = hit] {
        if (++hits != hit) return absl::OkStatus();
        fs.Crash();
        return absl::UnavailableError("power lost");
      });
      absl::StatusOr<ApplyProgress> applied =
          ApplyPlan(root.View(), plan_id, CheckpointEvery(checkpoint_pages));
      failpoint::ClearAll();
      CHECK_FALSE(applied.ok());
      CHECK(fs.crashed());
      root.Close();
    }
    FinishAndCheck(scene.root_dir, plan_id, before);
  }
}

}  // namespace
}  // namespace lake::gc
