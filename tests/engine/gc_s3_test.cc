// Garbage collection of an S3 stage against the project's RGW server: the
// owner marker is a key under the prefix, plans list with ListObjectsV2,
// apply deletes with DeleteObjects — through a fault proxy that fails some
// of a request's keys and drops a connection mid-page — and exactly the
// planned objects go.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "engine/events/blob_references.h"
#include "engine/events/experiment_store.h"
#include "engine/gc/page_deleter.h"
#include "engine/gc/plan_apply.h"
#include "engine/gc/plan_reader.h"
#include "engine/gc/plan_writer.h"
#include "engine/gc/root_identity.h"
#include "engine/stage_descriptor.h"
#include "tests/support/fault_http_proxy.h"
#include "tests/support/s3_fixture.h"
#include "tests/support/stage_fixture.h"
#include "tests/support/status_checks.h"
#include "tests/support/test_files.h"

namespace lake::gc {
namespace {

using testing::Fault;
using testing::FaultHttpProxy;
using testing::RequestMatcher;
using testing::S3Fixture;
using testing::S3FixtureOptions;

io::FileSystem& Fs() { return **io::DefaultFileSystem(); }

// A root directory whose stage is an S3 fixture's bucket, reached through
// a fault proxy; its event log keeps some objects alive.
struct S3Root {
  FaultHttpProxy proxy{{testing::TestEndpoint(), testing::TestCredentials()}};
  S3Fixture fixture{[&] {
    S3FixtureOptions options;
    options.endpoint = proxy.url();
    return options;
  }()};
  testing::TempDir dir;
  std::string root_id;
  std::vector<DataLocation> live;
  std::vector<DataLocation> orphans;

  S3Root(int live_count, int orphan_count) {
    absl::StatusOr<std::string> id = EnsureRootIdentity(Fs(), dir.path(), fixture.stage().store());
    REQUIRE(id.ok());
    root_id = *id;
    for (int i = 0; i < live_count; ++i) live.push_back(Upload(i));
    for (int i = 0; i < orphan_count; ++i) orphans.push_back(Upload(100 + i));
    events::ExperimentStore store(Fs(), dir.path());
    REQUIRE(store.Create("p", "x").ok());
    std::string shard_dir = store.ShardsDir("p", "x") + "/shard-1";
    std::filesystem::create_directories(shard_dir);
    absl::StatusOr<std::unique_ptr<events::ShardBlobJournal>> journal =
        events::ShardBlobJournal::Open(Fs(), shard_dir, "shard-1");
    REQUIRE(journal.ok());
    REQUIRE((*journal)->Record(live).ok());
  }

  DataLocation Upload(int seed) {
    absl::StatusOr<DataLocation> location = fixture.UploadBytes(testing::RandomBytes(64, seed + 1));
    REQUIRE(location.ok());
    return *location;
  }

  GcRoot View() {
    StageDescriptor descriptor;
    descriptor.kind = StageDescriptor::Kind::kS3;
    descriptor.bucket = fixture.bucket();
    descriptor.prefix = "lake-data";
    return GcRoot{Fs(), dir.path(), fixture.stage(), nullptr, StageDescriptorToJson(descriptor),
                  root_id};
  }

  std::set<std::string> StoredUris() {
    std::set<std::string> uris;
    REQUIRE(fixture.stage().List([&](const ListedObject& o) {
      uris.insert(o.uri);
      return true;
    }).ok());
    return uris;
  }

  // The bucket goes with the root (through no proxy: faults are done).
  ~S3Root() {
    S3FixtureOptions direct;
    std::unique_ptr<ManagedStage> stage = fixture.OpenAnother(direct);
    absl::Status removed = testing::RemoveBucket(
        static_cast<S3ObjectStore&>(stage->store()).client(), fixture.bucket());
    CHECK_MESSAGE(removed.ok(), removed.ToString());
  }

  std::string Plan(size_t page_entries, size_t list_streams = kDefaultListStreams) {
    PlanOptions options;
    options.list_streams = list_streams;
    options.cutoff = absl::ZeroDuration();
    options.allow_short_cutoff = true;
    options.memory_budget = uint64_t{16} << 20;
    options.page_entries = page_entries;
    absl::StatusOr<PlanSummary> plan = WritePlan(View(), options);
    REQUIRE_MESSAGE(plan.ok(), plan.status().ToString());
    return plan->manifest.plan_id;
  }

  void CheckExactlyOrphansGone() {
    std::set<std::string> expected;
    for (const DataLocation& l : live) expected.insert(l.uri);
    CHECK(StoredUris() == expected);
  }
};

// Every candidate of a published plan, in chain order.
std::vector<Candidate> PlannedCandidates(const std::string& root_dir, const std::string& plan_id,
                                         PlanManifest* manifest_out) {
  absl::StatusOr<PlanManifest> manifest = ReadPlanManifest(Fs(), root_dir, plan_id);
  REQUIRE(manifest.ok());
  *manifest_out = *manifest;
  std::vector<Candidate> candidates;
  LAKE_REQUIRE_OK(ForEachPlanPage(Fs(), root_dir, *manifest,
                                  [&](const PlanPage& page, const std::string&) {
                                    candidates.insert(candidates.end(), page.entries.begin(),
                                                      page.entries.end());
                                    return absl::OkStatus();
                                  }));
  return candidates;
}

bool IsDeleteObjects(const testing::ProxiedRequest& r) {
  return r.method == "POST" && absl::StrContains(r.query, "delete");
}

TEST_CASE("gc on S3: the owner marker is a key under the prefix; a second root is refused") {
  S3Root root(0, 0);
  LAKE_CHECK_OK(CheckStageOwnership(root.fixture.stage().store(), root.root_id));
  absl::StatusOr<s3http::ObjectInfo> marker =
      root.fixture.client().HeadObject(root.fixture.bucket(), "lake-data/_lake/owner");
  LAKE_CHECK_OK(marker);
  testing::TempDir other;
  absl::StatusOr<std::string> second =
      EnsureRootIdentity(Fs(), other.path(), root.fixture.stage().store());
  LAKE_REQUIRE_OK(second);
  CHECK(absl::IsFailedPrecondition(CheckStageOwnership(root.fixture.stage().store(), *second)));
  CHECK(absl::IsFailedPrecondition(
      CheckStageOwnership(root.fixture.stage().store(), root.root_id)));
}

TEST_CASE("gc on S3: a plan listed on parallel streams holds exactly the serial listing's "
          "candidates") {
  S3Root root(3, 40);
  // A tenant's orphan too: its keys lie in the last key range.
  S3FixtureOptions tenant;
  tenant.tenant = "acme";
  std::vector<uint8_t> payload = testing::RandomBytes(64, 999);
  testing::MemorySource bytes(payload);
  absl::StatusOr<DataLocation> tenant_orphan =
      root.fixture.OpenAnother(tenant)->Upload(bytes, UploadOptions());
  LAKE_REQUIRE_OK(tenant_orphan);
  PlanManifest serial_manifest, parallel_manifest;
  std::vector<Candidate> serial =
      PlannedCandidates(root.dir.path(), root.Plan(7, /*list_streams=*/1), &serial_manifest);
  std::vector<Candidate> parallel =
      PlannedCandidates(root.dir.path(), root.Plan(7, /*list_streams=*/8), &parallel_manifest);
  CHECK(serial.size() == 41);
  CHECK(parallel == serial);
  CHECK(parallel_manifest.objects == serial_manifest.objects);
  CHECK(parallel_manifest.object_bytes == serial_manifest.object_bytes);
  CHECK(parallel_manifest.pages == serial_manifest.pages);
  std::set<std::string> expected = {tenant_orphan->uri};
  for (const DataLocation& l : root.orphans) expected.insert(l.uri);
  std::set<std::string> planned;
  for (const Candidate& c : parallel) planned.insert(c.uri);
  CHECK(planned == expected);
}

TEST_CASE("gc on S3: plan lists the bucket, apply deletes exactly the orphans") {
  S3Root root(3, 5);
  std::string plan_id = root.Plan(2);
  absl::StatusOr<ApplyProgress> done = ApplyPlan(root.View(), plan_id, ApplyOptions());
  LAKE_REQUIRE_OK(done);
  CHECK(done->objects_deleted == 5);
  root.CheckExactlyOrphansGone();
  int deletes = 0;
  for (const auto& r : root.proxy.Requests()) deletes += IsDeleteObjects(r) ? 1 : 0;
  CHECK(deletes == 3);  // one DeleteObjects per page
}

TEST_CASE("gc on S3: a page's keys go in concurrent requests, each key in exactly one") {
  S3Root root(1, 6);
  std::vector<Candidate> entries;
  for (const DataLocation& orphan : root.orphans) {
    Candidate c;
    c.kind = CandidateKind::kStageObject;
    c.uri = orphan.uri;
    entries.push_back(c);
  }
  DeleteOptions options;
  options.concurrency = 3;
  options.min_keys_per_request = 2;
  root.proxy.ClearLog();
  PendingSyncs syncs;
  LAKE_REQUIRE_OK(RemoveStageObjects(root.View(), entries, options, &syncs));
  std::vector<std::string> bodies;
  for (const auto& r : root.proxy.Requests()) {
    if (IsDeleteObjects(r)) bodies.push_back(r.body);
  }
  CHECK(bodies.size() == 3);
  for (const DataLocation& orphan : root.orphans) {
    std::string key = orphan.uri.substr(orphan.uri.find("lake-data/"));
    int named = 0;
    for (const std::string& body : bodies) named += absl::StrContains(body, key) ? 1 : 0;
    CHECK(named == 1);
  }
  root.CheckExactlyOrphansGone();
}

TEST_CASE("gc on S3: a page with fewer keys than a request's least goes in one request") {
  S3Root root(0, 3);
  std::vector<Candidate> entries;
  for (const DataLocation& orphan : root.orphans) {
    Candidate c;
    c.uri = orphan.uri;
    entries.push_back(c);
  }
  DeleteOptions options;
  options.concurrency = 8;
  options.min_keys_per_request = 125;
  root.proxy.ClearLog();
  PendingSyncs syncs;
  LAKE_REQUIRE_OK(RemoveStageObjects(root.View(), entries, options, &syncs));
  int requests = 0;
  for (const auto& r : root.proxy.Requests()) requests += IsDeleteObjects(r) ? 1 : 0;
  CHECK(requests == 1);
  root.CheckExactlyOrphansGone();
}

TEST_CASE("gc on S3: keys a DeleteObjects failed are retried alone; exactly the orphans go") {
  S3Root root(2, 4);
  std::string plan_id = root.Plan(1000);
  // The first DeleteObjects reports two of its keys failed (the server did
  // delete them; the retry of those two finds them gone, which succeeds).
  std::string failing_a = root.orphans[0].uri.substr(root.orphans[0].uri.find("lake-data/"));
  std::string failing_b = root.orphans[2].uri.substr(root.orphans[2].uri.find("lake-data/"));
  int rule = root.proxy.AddRule(
      RequestMatcher{"POST", "", "delete", std::nullopt, nullptr},
      Fault::ReplaceBody(absl::StrCat(
          "<?xml version=\"1.0\" encoding=\"UTF-8\"?><DeleteResult>",
          "<Error><Key>", failing_a, "</Key><Code>InternalError</Code><Message>x</Message></Error>",
          "<Error><Key>", failing_b, "</Key><Code>SlowDown</Code></Error></DeleteResult>")),
      1);
  root.proxy.ClearLog();
  absl::StatusOr<ApplyProgress> done = ApplyPlan(root.View(), plan_id, ApplyOptions());
  LAKE_REQUIRE_OK(done);
  CHECK(root.proxy.fired(rule) == 1);
  std::vector<std::string> bodies;
  for (const auto& r : root.proxy.Requests()) {
    if (IsDeleteObjects(r)) bodies.push_back(r.body);
  }
  REQUIRE(bodies.size() == 2);
  // The retry names exactly the two keys that failed.
  CHECK(absl::StrContains(bodies[1], failing_a));
  CHECK(absl::StrContains(bodies[1], failing_b));
  CHECK_FALSE(absl::StrContains(bodies[1], root.orphans[1].uri.substr(
                                               root.orphans[1].uri.find("lake-data/"))));
  root.CheckExactlyOrphansGone();
}

TEST_CASE("gc on S3: a key that keeps failing stops the apply; run again, it resumes") {
  S3Root root(1, 3);
  std::string plan_id = root.Plan(1000);
  std::string stuck = root.orphans[1].uri.substr(root.orphans[1].uri.find("lake-data/"));
  root.proxy.AddRule(RequestMatcher{"POST", "", "delete", std::nullopt, nullptr},
                     Fault::ReplaceBody(absl::StrCat("<DeleteResult><Error><Key>", stuck,
                                                     "</Key><Code>AccessDenied</Code></Error>"
                                                     "</DeleteResult>")),
                     testing::kEveryRequest);
  absl::StatusOr<ApplyProgress> failed = ApplyPlan(root.View(), plan_id, ApplyOptions());
  CHECK(absl::IsUnavailable(failed.status()));
  CHECK(absl::StrContains(failed.status().message(), stuck));
  root.proxy.ClearRules();
  absl::StatusOr<ApplyProgress> done = ApplyPlan(root.View(), plan_id, ApplyOptions());
  LAKE_REQUIRE_OK(done);
  root.CheckExactlyOrphansGone();
}

TEST_CASE("gc on S3: a connection dropped mid-page is retried; exactly the orphans go") {
  S3Root root(2, 3);
  std::string plan_id = root.Plan(1000);
  int rule = root.proxy.AddRule(RequestMatcher{"POST", "", "delete", std::nullopt, nullptr},
                                Fault::ResetAfterBodyBytes(5), 1);
  absl::StatusOr<ApplyProgress> done = ApplyPlan(root.View(), plan_id, ApplyOptions());
  LAKE_REQUIRE_OK(done);
  CHECK(root.proxy.fired(rule) == 1);
  root.CheckExactlyOrphansGone();
}

TEST_CASE("gc on S3: --max-deletes-per-second paces the deletes") {
  S3Root root(0, 6);
  std::string plan_id = root.Plan(1000);
  ApplyOptions options;
  options.max_deletes_per_second = 10;
  absl::Time began = absl::Now();
  LAKE_REQUIRE_OK(ApplyPlan(root.View(), plan_id, options));
  CHECK(absl::Now() - began >= absl::Milliseconds(550));
  int deletes = 0;
  for (const auto& r : root.proxy.Requests()) deletes += IsDeleteObjects(r) ? 1 : 0;
  CHECK(deletes == 1);
  root.CheckExactlyOrphansGone();
}

}  // namespace
}  // namespace lake::gc
