// Garbage collection through include/lake.h only, against the shared
// library: the root's identity, plan, show, status, apply and verify.
#include <doctest/doctest.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <string.h>

#include <filesystem>
#include <functional>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "lake.h"
#include "gc_client.h"

namespace {

using namespace lake_gc_client;  // gc_client.h: what the C ABI gc tests share

// Plans and applies with a cutoff of zero: every unreferenced object goes.
GcOptions ShortCutoff() { return CutoffOptions(0); }

Db Open(const std::string& root, const char* tenant = nullptr) {
  lake_stage_options* opts = nullptr;
  if (tenant != nullptr) {
    opts = lake_stage_options_new();
    REQUIRE(lake_stage_options_set_tenant(opts, tenant, nullptr) == LAKE_OK);
  }
  lake_db* db = nullptr;
  lake_error* err = nullptr;
  lake_status status = lake_db_open(root.c_str(), opts, &db, &err);
  lake_stage_options_free(opts);
  REQUIRE_MESSAGE(status == LAKE_OK, Message(err));
  return Db(db);
}

lake_location* Put(lake_db* db, const std::string& bytes) {
  std::string path = std::string(getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp") + "/lake-gc-put-" +
                     std::to_string(::getpid());
  std::ofstream(path, std::ios::binary) << bytes;
  lake_location* loc = nullptr;
  lake_error* err = nullptr;
  lake_status status = lake_stage_upload_path(lake_db_stage(db), path.c_str(), nullptr, &loc, &err);
  std::filesystem::remove(path);
  REQUIRE_MESSAGE(status == LAKE_OK, Message(err));
  return loc;
}

std::string PathOf(const lake_location* loc) {
  return std::string(lake_location_uri(loc)).substr(strlen("file://"));
}

TEST_CASE("gc C ABI: a writer's open gives a new root an id and marks its stage; a follower "
          "writes neither") {
  Scratch dir{"lake-cabi-gc"};
  std::string root = dir.path + "/root";
  {
    Db db = Open(root);
    const char* columns[] = {"f:file"};
    REQUIRE(lake_table_create(db.get(), "ns.t", columns, 1, nullptr) == LAKE_OK);
  }
  CHECK(std::filesystem::exists(root + "/root_id.json"));
  CHECK(std::filesystem::exists(root + "/stage/_lake/owner"));
  // A root from before identities: a follower leaves it so, a writer marks it.
  for (const char* gone : {"/root_id.json", "/stage/_lake/owner", "/gc/owner.confirmed"}) {
    std::filesystem::remove(root + gone);
  }
  lake_db* follower = nullptr;
  REQUIRE(lake_db_open_follower(root.c_str(), 0, &follower, nullptr) == LAKE_OK);
  char* json = nullptr;
  lake_error* err = nullptr;
  CHECK(lake_gc_plan(follower, nullptr, &json, &err) == LAKE_INVALID_ARGUMENT);
  CHECK(Message(err).find("open it once as a writer") != std::string::npos);
  lake_db_free(follower);
  CHECK_FALSE(std::filesystem::exists(root + "/root_id.json"));
  CHECK_FALSE(std::filesystem::exists(root + "/stage/_lake/owner"));
  Open(root);
  CHECK(std::filesystem::exists(root + "/root_id.json"));
  CHECK(std::filesystem::exists(root + "/stage/_lake/owner"));
}

TEST_CASE("gc C ABI: plan, show, status and apply delete exactly the unreferenced objects") {
  Scratch dir{"lake-cabi-gc"};
  Db db = Open(dir.path + "/root");
  const char* columns[] = {"f:file"};
  REQUIRE(lake_table_create(db.get(), "ns.t", columns, 1, nullptr) == LAKE_OK);
  lake_location* kept = Put(db.get(), "kept bytes");
  lake_location* orphan = Put(db.get(), "orphan bytes");
  InsertLocation(db.get(), kept);

  GcOptions opts = ShortCutoff();
  std::string plan_json;
  REQUIRE_MESSAGE(Plan(db.get(), opts.get(), &plan_json) == LAKE_OK, plan_json);
  std::string plan_id = Field(plan_json, "plan_id");
  CHECK(Field(plan_json, "objects") == "1");
  CHECK(Field(plan_json, "bytes") == "12");
  CHECK(plan_json.find("\"tenants\":[{\"bytes\":12,\"objects\":1,\"tenant\":\"\"}]") !=
        std::string::npos);

  CandidateList list;
  char* shown = nullptr;
  REQUIRE(lake_gc_show(db.get(), plan_id.c_str(), &CandidateList::Collect, &list, &shown,
                       nullptr) == LAKE_OK);
  CHECK(list.uris == std::vector<std::string>{lake_location_uri(orphan)});
  CHECK(list.kinds == std::vector<std::string>{"object"});
  CHECK(Field(shown, "state") == "planned");
  lake_string_free(shown);

  char* status = nullptr;
  REQUIRE(lake_gc_status(db.get(), nullptr, &status, nullptr) == LAKE_OK);
  CHECK(Field(status, "plan_id") == plan_id);
  lake_string_free(status);

  std::string applied;
  REQUIRE_MESSAGE(Apply(db.get(), plan_id, opts.get(), &applied) == LAKE_OK, applied);
  CHECK(Field(applied, "state") == "done");
  CHECK(Field(applied, "objects_deleted") == "1");
  CHECK_FALSE(std::filesystem::exists(PathOf(orphan)));
  CHECK(std::filesystem::exists(PathOf(kept)));
  lake_location_free(kept);
  lake_location_free(orphan);
}

TEST_CASE("gc C ABI: a tenant-scoped db, a short cutoff and a tiny budget are refused") {
  Scratch dir{"lake-cabi-gc"};
  std::string root = dir.path + "/root";
  Open(root);
  Db tenant = Open(root, "acme");
  char* json = nullptr;
  lake_error* err = nullptr;
  CHECK(lake_gc_plan(tenant.get(), nullptr, &json, &err) == LAKE_INVALID_ARGUMENT);
  CHECK(Message(err).find("whole root") != std::string::npos);
  Db db = Open(root);
  GcOptions opts(lake_gc_options_new());
  lake_gc_options_set_cutoff_seconds(opts.get(), 3600);
  err = nullptr;
  CHECK(lake_gc_plan(db.get(), opts.get(), &json, &err) == LAKE_INVALID_ARGUMENT);
  CHECK(Message(err).find("allow") != std::string::npos);
  err = nullptr;
  CHECK(lake_gc_options_set_memory_budget(opts.get(), 1024, &err) == LAKE_INVALID_ARGUMENT);
  lake_error_free(err);
}

struct Progress {
  std::vector<std::string> phases;
  static void Record(void* ctx, const char* phase, uint64_t, uint64_t) {
    auto* p = static_cast<Progress*>(ctx);
    if (p->phases.empty() || p->phases.back() != phase) p->phases.push_back(phase);
  }
};

TEST_CASE("gc C ABI: progress reports the phases; a cancelled token stops the plan") {
  Scratch dir{"lake-cabi-gc"};
  Db db = Open(dir.path + "/root");
  lake_location_free(Put(db.get(), "x"));
  GcOptions opts = ShortCutoff();
  Progress progress;
  lake_gc_options_set_progress(opts.get(), &Progress::Record, &progress);
  char* json = nullptr;
  REQUIRE(lake_gc_plan(db.get(), opts.get(), &json, nullptr) == LAKE_OK);
  lake_string_free(json);
  CHECK(progress.phases ==
        std::vector<std::string>{"listing", "indexing", "merging", "sealing"});
  lake_cancel_token* token = lake_cancel_token_new();
  lake_cancel_token_cancel(token);
  lake_gc_options_set_cancel_token(opts.get(), token);
  CHECK(lake_gc_plan(db.get(), opts.get(), &json, nullptr) == LAKE_CANCELLED);
  lake_cancel_token_free(token);
}

struct Problems {
  std::vector<std::string> lines;
  static int Collect(void* ctx, const lake_gc_problem* p) {
    std::string line = std::string(p->problem) + " " + p->uri;
    for (size_t i = 0; i < p->referrer_count; ++i) line += std::string(" | ") + p->referrers[i];
    static_cast<Problems*>(ctx)->lines.push_back(line);
    return 0;
  }
};

TEST_CASE("gc C ABI: verify reports a missing referenced object with its table version") {
  Scratch dir{"lake-cabi-gc"};
  Db db = Open(dir.path + "/root");
  const char* columns[] = {"f:file"};
  REQUIRE(lake_table_create(db.get(), "ns.t", columns, 1, nullptr) == LAKE_OK);
  lake_location* loc = Put(db.get(), "soon gone");
  InsertLocation(db.get(), loc);
  std::filesystem::remove(PathOf(loc));
  Problems problems;
  char* json = nullptr;
  REQUIRE(lake_gc_verify(db.get(), 0, nullptr, &Problems::Collect, &problems, &json, nullptr) ==
          LAKE_OK);
  CHECK(Field(json, "problems") == "1");
  lake_string_free(json);
  CHECK(problems.lines ==
        std::vector<std::string>{std::string("missing ") + lake_location_uri(loc) +
                                 " | table ns.t version 1"});
  lake_location_free(loc);
}

TEST_CASE("gc C ABI: an INSERT by the writer's handle between plan and apply voids the plan") {
  Scratch dir{"lake-cabi-gc"};
  std::string root = dir.path + "/root";
  Db writer = Open(root);
  const char* columns[] = {"f:file"};
  REQUIRE(lake_table_create(writer.get(), "ns.t", columns, 1, nullptr) == LAKE_OK);
  lake_location* orphan = Put(writer.get(), "planned, then bound");
  // The collection runs on another handle while the writer keeps its lock.
  Db collector = Open(root);
  GcOptions opts = ShortCutoff();
  std::string planned;
  REQUIRE_MESSAGE(Plan(collector.get(), opts.get(), &planned) == LAKE_OK, planned);
  std::string plan_id = Field(planned, "plan_id");
  InsertLocation(writer.get(), orphan);
  std::string message;
  CHECK(Apply(collector.get(), plan_id, opts.get(), &message) == LAKE_CONFLICT);
  CHECK(message.find("void") != std::string::npos);
  char* json = nullptr;
  CHECK(std::filesystem::exists(PathOf(orphan)));
  REQUIRE(lake_gc_status(collector.get(), plan_id.c_str(), &json, nullptr) == LAKE_OK);
  CHECK(Field(json, "state") == "voided");
  lake_string_free(json);
  lake_location_free(orphan);
}

// The stress of items 9 and 12: a process of its own adds references to
// planned objects (INSERTs with an existing location; event batches naming
// a blob_location) while the collector applies plans, re-planning whenever
// a plan is voided. Whatever the interleaving, no committed row or event
// may name an object the collection deleted.
constexpr char kBindChild[] = "gc C ABI child process: binds every listed location";
constexpr char kBlobChild[] =
    "gc C ABI child process: appends an event naming every listed location";

// The listed locations a stress child references, one JSON a line.
std::vector<std::string> StressLocations(const std::string& root) {
  std::vector<std::string> locations;
  std::ifstream in(root + ".locations");
  for (std::string line; std::getline(in, line);) locations.push_back(line);
  return locations;
}

// What a stress child does after each reference it tried to add: the
// collector starts once a few are committed, so the rest race it; then
// bursts of 15 commits, each followed by a pause with room for a plan and
// its apply (a refused attempt, whose object is gone, is not paused after).
void PaceStressChild(const std::string& root, int committed, bool just_committed) {
  if (committed == 10 && just_committed) std::ofstream(root + ".ready") << "ready";
  usleep(just_committed && committed % 15 == 0 ? 600000 : 5000);
}

TEST_CASE(kBindChild * doctest::skip()) {
  const char* root = getenv("LAKE_CABI_CHILD_ROOT");
  REQUIRE(root != nullptr);
  Db writer = Open(root);
  int bound = 0;
  for (const std::string& json : StressLocations(root)) {
    lake_location* loc = nullptr;
    REQUIRE(lake_location_from_json(json.data(), json.size(), &loc, nullptr) == LAKE_OK);
    lake_statement* stmt = nullptr;
    REQUIRE(lake_db_prepare(writer.get(), "INSERT INTO ns.t (f) VALUES (?)", &stmt, nullptr) ==
            LAKE_OK);
    REQUIRE(lake_statement_bind_location(stmt, 1, loc, nullptr) == LAKE_OK);
    lake_error* err = nullptr;
    // Refused when the collection deleted it first: that is the point.
    bool committed = lake_statement_insert(stmt, nullptr, nullptr, &err) == LAKE_OK;
    if (committed) ++bound;
    lake_error_free(err);
    lake_statement_free(stmt);
    lake_location_free(loc);
    PaceStressChild(root, bound, committed);
  }
  std::ofstream(std::string(root) + ".bound") << bound;
}

// One batch: item `item` created and its blob field set to `loc`
// (whose size and digest the event states).
std::string BlobBatch(const std::string& item, const lake_location* loc) {
  return R"({"item_id":")" + item + R"(","item_seq":1,"checkpoint_id":")" + item +
         R"(","event_type":"ITEM_CREATED","writer_epoch":"w"})" + "\n" + R"({"item_id":")" +
         item + R"(","item_seq":2,"checkpoint_id":")" + item +
         R"(","event_type":"FIELD_SET","field_name":"img","value_kind":"blob",)" +
         R"("blob_location":)" + lake_location_json(loc) + R"(,"payload_size":)" +
         std::to_string(lake_location_size_bytes(loc)) + R"(,"payload_checksum":")" +
         lake_location_sha256(loc) + R"(","writer_epoch":"w"})" + "\n";
}

TEST_CASE(kBlobChild * doctest::skip()) {
  const char* root = getenv("LAKE_CABI_CHILD_ROOT");
  REQUIRE(root != nullptr);
  Db writer = Open(root);
  lake_event_log* raw_log = nullptr;
  REQUIRE(lake_event_log_open(writer.get(), "p", "x", 1, &raw_log, nullptr) == LAKE_OK);
  int appended_batches = 0, index = 0;
  for (const std::string& json : StressLocations(root)) {
    lake_location* loc = nullptr;
    REQUIRE(lake_location_from_json(json.data(), json.size(), &loc, nullptr) == LAKE_OK);
    const std::string batch = BlobBatch("item" + std::to_string(index++), loc);
    uint64_t appended = 0;
    lake_error* err = nullptr;
    // Refused (NOT_FOUND) when the collection deleted it first.
    lake_status status =
        lake_event_log_append_jsonl(raw_log, batch.data(), batch.size(), &appended, nullptr, &err);
    if (status == LAKE_OK) {
      REQUIRE(appended == 2);
      ++appended_batches;
    } else {
      REQUIRE_MESSAGE(status == LAKE_NOT_FOUND, lake_error_message(err));
      REQUIRE(appended == 0);
    }
    lake_error_free(err);
    lake_location_free(loc);
    PaceStressChild(root, appended_batches, status == LAKE_OK);
  }
  lake_event_log_free(raw_log);
  std::ofstream(std::string(root) + ".bound") << appended_batches;
}

struct StressOutcome {
  int applied = 0;
  int voided = 0;
  int committed = 0;  // references the child committed
};

// Puts `objects` unreferenced objects into `root` (whose writer `prepare`
// readies), lists them for the child test case `child`, starts it, and
// collects with cutoff zero until the child is done or nothing is left
// to plan.
// `widen` (a LAKE_FAILPOINTS item) makes the child sleep between its
// existence checks and its commit, where a collection must not delete.
StressOutcome RaceCollectorAgainst(const std::string& root, const char* child, const char* widen,
                                   int objects, const std::function<void(lake_db*)>& prepare) {
  {
    Db writer = Open(root);
    prepare(writer.get());
    std::ofstream out(root + ".locations");
    for (int i = 0; i < objects; ++i) {
      lake_location* loc = Put(writer.get(), "object " + std::to_string(i));
      out << lake_location_json(loc) << "\n";
      lake_location_free(loc);
    }
  }
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    setenv("LAKE_CABI_CHILD_ROOT", root.c_str(), 1);
    setenv("LAKE_FAILPOINTS", widen, 1);
    int quiet = open("/dev/null", O_WRONLY);
    if (quiet >= 0) dup2(quiet, 1);
    std::string filter = std::string("--test-case=") + child;
    execl("/proc/self/exe", "c_abi_tests", "--no-skip", filter.c_str(), "--no-version",
          (char*)nullptr);
    _exit(127);
  }
  while (!std::filesystem::exists(root + ".ready")) usleep(1000);
  StressOutcome outcome;
  {
    Db collector = Open(root);  // a follower: the child holds the writer lock
    GcOptions opts = ShortCutoff();
    int status = 0;
    bool child_done = false;
    for (;;) {
      child_done = waitpid(pid, &status, WNOHANG) == pid;
      char* json = nullptr;
      lake_error* err = nullptr;
      lake_status planned = lake_gc_plan(collector.get(), opts.get(), &json, &err);
      if (planned == LAKE_CONFLICT) {  // the root changed while it was read: again
        Message(err);
        continue;
      }
      REQUIRE_MESSAGE(planned == LAKE_OK, Message(err));
      std::string plan_id = Field(json, "plan_id");
      std::string planned_objects = Field(json, "objects");
      lake_string_free(json);
      err = nullptr;
      lake_status result =
          lake_gc_apply(collector.get(), plan_id.c_str(), opts.get(), &json, &err);
      if (result == LAKE_OK) {
        ++outcome.applied;
        lake_string_free(json);
      } else {
        // Message (which frees err) runs only when the check fails.
        REQUIRE_MESSAGE(result == LAKE_CONFLICT, Message(err));
        lake_error_free(err);
        ++outcome.voided;
      }
      if (child_done || planned_objects == "0") break;
    }
    if (!child_done) REQUIRE(waitpid(pid, &status, 0) == pid);
    REQUIRE(WIFEXITED(status));
    REQUIRE(WEXITSTATUS(status) == 0);
  }
  std::ifstream(root + ".bound") >> outcome.committed;
  MESSAGE("applied ", outcome.applied, ", voided ", outcome.voided, ", committed ",
          outcome.committed, " of ", objects);
  return outcome;
}

// The invariant of the stress: every referenced object is there.
void CheckNothingReferencedIsMissing(const std::string& root) {
  Db after = Open(root);
  char* json = nullptr;
  Problems problems;
  REQUIRE(lake_gc_verify(after.get(), 0, nullptr, &Problems::Collect, &problems, &json,
                         nullptr) == LAKE_OK);
  CHECK(Field(json, "problems") == "0");
  CHECK(problems.lines.empty());
  lake_string_free(json);
}

TEST_CASE("gc C ABI: INSERTs of planned objects in another process racing apply never leave "
          "a row whose object is gone") {
  Scratch dir{"lake-cabi-gc"};
  std::string root = dir.path + "/root";
  StressOutcome outcome = RaceCollectorAgainst(
      root, kBindChild, "table_append.prepared=sleep:200", 120, [](lake_db* writer) {
    const char* columns[] = {"f:file"};
    REQUIRE(lake_table_create(writer, "ns.t", columns, 1, nullptr) == LAKE_OK);
  });
  CHECK(outcome.applied >= 1);
  CHECK(outcome.committed >= 10);
  CheckNothingReferencedIsMissing(root);
}

TEST_CASE("gc C ABI: event batches naming planned objects' blob_location in another process "
          "racing apply never leave an event whose blob is gone") {
  Scratch dir{"lake-cabi-gc"};
  std::string root = dir.path + "/root";
  StressOutcome outcome = RaceCollectorAgainst(
      root, kBlobChild, "event_append.blobs_checked=sleep:200", 90, [](lake_db* writer) {
    REQUIRE(lake_experiment_create(writer, "p", "x", nullptr) == LAKE_OK);
  });
  CHECK(outcome.applied >= 1);
  CHECK(outcome.committed >= 10);
  CheckNothingReferencedIsMissing(root);
  // Every batch the child appended folds to a blob that reads back whole.
  Db reader = Open(root);
  lake_event_log* raw_log = nullptr;
  REQUIRE(lake_event_log_open(reader.get(), "p", "x", 0, &raw_log, nullptr) == LAKE_OK);
  int readable = 0;
  for (int i = 0; i < 90; ++i) {
    lake_folded_item* item = nullptr;
    std::string id = "item" + std::to_string(i);
    REQUIRE(lake_event_log_fold(raw_log, id.c_str(), &item, nullptr) == LAKE_OK);
    if (item == nullptr) continue;  // refused: its object was collected first
    lake_reader* blob = nullptr;
    lake_error* err = nullptr;
    REQUIRE_MESSAGE(lake_folded_item_open_blob(raw_log, item, "img", 0, &blob, &err) == LAKE_OK,
                    Message(err));
    char buf[256];
    size_t n = 0;
    std::string bytes;
    while (lake_reader_read(blob, buf, sizeof buf, &n, nullptr) == LAKE_OK && n > 0) {
      bytes.append(buf, n);
    }
    CHECK(lake_reader_verified(blob) == 1);
    CHECK(bytes.starts_with("object "));
    lake_reader_free(blob);
    lake_folded_item_free(item);
    ++readable;
  }
  lake_event_log_free(raw_log);
  CHECK(readable == outcome.committed);
}

}  // namespace
