// gc_bench: the work of bench/gc (issue 20, item 14 a-c), one step per
// invocation so that each measured step runs in a process of its own
// (its peak RSS is its own). Linked against lake_core (the engine without
// the C ABI). Every step prints "key=value" lines for bench/gc.
//
//   gc_bench tables ROOT TABLES APPENDS ROWS
//       a root whose TABLES tables each get APPENDS appends of ROWS rows,
//       each row a FILE cell naming an object that need not exist
//       (appended through the table store, without checkpoints)
//   gc_bench live-index ROOT BUDGET_MIB
//       the whole live-index build: every table's lineage walked, every
//       delta read and its digest verified, spilled and merged
//   gc_bench dump-uris ROOT OUT
//       the same references as text, one URI a line (for `sort -u`)
//   gc_bench stage ROOT OBJECTS REFERENCED
//       OBJECTS empty files made directly in the stage, modified 30 days
//       ago; REFERENCED of them named by a table's rows
//   gc_bench plan ROOT BUDGET_MIB        a full plan (cutoff 7 days)
//   gc_bench apply ROOT PLAN_ID          apply it
//   gc_bench candidates ROOT PLAN_ID OUT  the plan's candidate paths, a line each
//   gc_bench s3-put BUCKET PREFIX N THREADS    N empty objects by direct PUTs
//   gc_bench s3-list BUCKET PREFIX STREAMS     the stage's inventory listing alone,
//       on STREAMS concurrent ListObjectsV2 streams (1: the serial listing)
//   gc_bench s3-plan ROOT BUCKET PREFIX BUDGET_MIB / s3-apply ROOT BUCKET PREFIX PLAN_ID
#include <sys/resource.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "bench/bench_status.h"
#include "engine/gc/gc_root.h"
#include "engine/gc/live_index.h"
#include "engine/gc/live_references.h"
#include "engine/gc/plan_apply.h"
#include "engine/gc/plan_reader.h"
#include "engine/gc/plan_writer.h"
#include "engine/gc/root_identity.h"
#include "engine/local/local_object_store.h"
#include "engine/location_uri.h"
#include "engine/managed_key.h"
#include "engine/s3/s3_object_store.h"
#include "engine/sha256.h"
#include "engine/stage_descriptor.h"
#include "engine/table/table_store.h"
#include "io/s3http/s3_endpoint.h"
#include "registry/registry.h"
#include "spill/spill_sorter.h"

namespace {

using lake::bench::Clock;
using lake::bench::Die;
using lake::bench::Must;
using lake::bench::Seconds;

void PrintRss() {
  struct rusage usage;
  ::getrusage(RUSAGE_SELF, &usage);
  std::printf("peak_rss_bytes=%lld\n", static_cast<long long>(usage.ru_maxrss) * 1024);
}

lake::io::FileSystem& Fs() { return *Must(lake::io::DefaultFileSystem(), "file system"); }

// A root's local stage, registry and table store.
struct LocalRoot {
  std::string dir;
  std::unique_ptr<lake::ManagedStage> stage;
  std::unique_ptr<lake::registry::Registry> registry;
  std::unique_ptr<lake::table::TableStore> tables;
  std::string root_id;

  explicit LocalRoot(const std::string& root_dir, bool with_tables = true) : dir(root_dir) {
    stage = std::make_unique<lake::ManagedStage>(
        Must(lake::LocalObjectStore::Open(Fs(), dir + "/stage", ""), "stage"));
    registry = Must(lake::registry::Registry::Open(dir + "/registry", dir + "/writer.lock"),
                    "registry");
    if (with_tables) {
      lake::table::TableStoreOptions options;
      options.append_checkpoints = false;
      tables = Must(lake::table::TableStore::Open(Fs(), dir, *registry, *stage, Descriptor(),
                                                  options),
                    "table store");
    }
    root_id = Must(lake::gc::EnsureRootIdentity(Fs(), dir, stage->store()), "root identity");
  }
  static std::string Descriptor() { return lake::StageDescriptorToJson(lake::StageDescriptor{}); }
  lake::gc::GcRoot View() {
    return lake::gc::GcRoot{Fs(), dir, *stage, registry.get(), Descriptor(), root_id};
  }
  std::string StageRoot() {
    return static_cast<lake::LocalObjectStore&>(stage->store()).paths().root();
  }
};

lake::table::Schema FileSchema() {
  lake::table::Schema schema;
  schema.columns = {{"f", lake::table::ColumnType::kFile}};
  return schema;
}

// Appends `rows` rows naming `uris[from..from+rows)` to `table`.
void Append(LocalRoot& root, const lake::table::TableName& name,
            const std::vector<std::string>& uris, size_t from, size_t rows) {
  lake::table::ColumnBatch batch = lake::table::ColumnBatch::Empty(FileSchema());
  static const std::string kEmptySha = lake::Sha256Hex("");
  for (size_t i = 0; i < rows; ++i) {
    lake::DataLocation location;
    location.uri = uris[from + i];
    location.content_type = "application/octet-stream";
    location.size_bytes = 0;
    location.sha256 = kEmptySha;
    std::vector<lake::table::CellValue> row{lake::table::CellValue{location}};
    Must(batch.AppendRow(row), "row");
  }
  lake::registry::TableRecord record = Must(root.tables->GetTable(name), "table");
  Must(root.tables->AppendBatch(record, batch).status(), "append");
}

int Tables(const std::string& dir, size_t tables, size_t appends, size_t rows) {
  LocalRoot root(dir);
  auto began = Clock::now();
  std::vector<std::string> uris(rows);
  for (size_t t = 0; t < tables; ++t) {
    lake::table::TableName name{"bench", absl::StrCat("t", t)};
    Must(root.tables->CreateTable(name, FileSchema()).status(), "create table");
    for (size_t a = 0; a < appends; ++a) {
      for (size_t r = 0; r < rows; ++r) {
        uris[r] = lake::FormatFileUri(root.StageRoot() + "/" + lake::NewManagedObjectKey(""));
      }
      Append(root, name, uris, 0, rows);
    }
    std::fprintf(stderr, "\rtables %zu/%zu", t + 1, tables);
  }
  std::fprintf(stderr, "\n");
  std::printf("setup_seconds=%.3f\nreferences=%zu\n", Seconds(began), tables * appends * rows);
  return 0;
}

int LiveIndex(const std::string& dir, uint64_t budget_mib) {
  LocalRoot root(dir, /*with_tables=*/false);
  auto began = Clock::now();
  lake::gc::LiveIndexOptions options;
  options.temp_dir = dir + "/gc/tmp";
  options.run_id = lake::NewUuidV7();
  options.memory_budget = budget_mib << 20;
  options.now = absl::Now();
  options.lease_expiry = absl::Hours(1);
  std::unique_ptr<lake::gc::LiveIndex> index =
      Must(lake::gc::LiveIndex::Build(root.View(), options), "live index");
  uint64_t unique = 0;
  while (Must(index->Next(), "merge")) ++unique;
  std::printf("live_index_seconds=%.3f\nreferences_read=%llu\nunique_uris=%llu\n"
              "spill_budget_peak_bytes=%llu\n",
              Seconds(began), static_cast<unsigned long long>(index->references()),
              static_cast<unsigned long long>(unique),
              static_cast<unsigned long long>(index->budget_peak()));
  PrintRss();
  return 0;
}

int DumpUris(const std::string& dir, const std::string& out_path) {
  LocalRoot root(dir, /*with_tables=*/false);
  std::FILE* out = std::fopen(out_path.c_str(), "w");
  if (out == nullptr) return 1;
  std::vector<char> buffer(1 << 20);
  std::setvbuf(out, buffer.data(), _IOFBF, buffer.size());
  Must(lake::gc::ForEachLiveReference(
           root.View(), absl::Now(), absl::Hours(1), absl::InfinitePast(),
           [&](std::string_view uri, const lake::DataLocation* location, const lake::gc::Referrer&) {
             if (location != nullptr) {
               std::fwrite(uri.data(), 1, uri.size(), out);
               std::fputc('\n', out);
             }
             return absl::OkStatus();
           }),
       "live references");
  return std::fclose(out) == 0 ? 0 : 1;
}

int Stage(const std::string& dir, size_t objects, size_t referenced) {
  LocalRoot root(dir);
  auto began = Clock::now();
  std::string stage_root = root.StageRoot();
  struct timespec times[2];
  times[0] = times[1] = absl::ToTimespec(absl::Now() - absl::Hours(24 * 30));
  std::vector<std::string> uris;
  uris.reserve(referenced);
  for (size_t i = 0; i < objects; ++i) {
    std::string key = lake::NewManagedObjectKey("");
    std::string path = stage_root + "/" + key;
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0 && errno == ENOENT) {
      ::mkdir((stage_root + "/" + std::string(lake::ShardOfKey(key))).c_str(), 0755);
      fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    }
    if (fd < 0) return 1;
    ::futimens(fd, times);
    ::close(fd);
    if (i % 2 == 0 && uris.size() < referenced) uris.push_back(lake::FormatFileUri(path));
  }
  double files_seconds = Seconds(began);
  lake::table::TableName name{"bench", "refs"};
  Must(root.tables->CreateTable(name, FileSchema()).status(), "create table");
  for (size_t from = 0; from < uris.size(); from += 1000) {
    Append(root, name, uris, from, std::min<size_t>(1000, uris.size() - from));
  }
  std::printf("stage_files_seconds=%.3f\nstage_setup_seconds=%.3f\nobjects=%zu\nreferenced=%zu\n",
              files_seconds, Seconds(began), objects, uris.size());
  return 0;
}

void PrintPlan(const lake::gc::PlanSummary& plan, double seconds) {
  std::printf("plan_seconds=%.3f\nplan_id=%s\ncandidates=%llu\nlisted=%llu\nlive=%llu\n", seconds,
              plan.manifest.plan_id.c_str(),
              static_cast<unsigned long long>(plan.manifest.candidates()),
              static_cast<unsigned long long>(plan.listed_objects + plan.listed_table_files),
              static_cast<unsigned long long>(plan.live_references));
}

int Plan(const std::string& dir, uint64_t budget_mib) {
  LocalRoot root(dir, /*with_tables=*/false);
  lake::gc::PlanOptions options;
  options.memory_budget = budget_mib << 20;
  auto began = Clock::now();
  lake::gc::PlanSummary plan = Must(lake::gc::WritePlan(root.View(), options), "plan");
  PrintPlan(plan, Seconds(began));
  PrintRss();
  return 0;
}

// The paths of a plan's candidates, one a line (for the `find -delete` copy).
int Candidates(const std::string& dir, const std::string& plan_id, const std::string& out_path) {
  std::FILE* out = std::fopen(out_path.c_str(), "w");
  if (out == nullptr) return 1;
  lake::gc::PlanManifest manifest =
      Must(lake::gc::ReadPlanManifest(Fs(), dir, plan_id), "manifest");
  Must(lake::gc::ForEachPlanPage(Fs(), dir, manifest,
                                 [&](const lake::gc::PlanPage& page, const std::string&) {
                                   for (const lake::gc::Candidate& c : page.entries) {
                                     absl::StatusOr<lake::ParsedUri> parsed =
                                         lake::ParseLocationUri(c.uri);
                                     if (!parsed.ok()) return parsed.status();
                                     std::fprintf(out, "%s\n", parsed->path.c_str());
                                   }
                                   return absl::OkStatus();
                                 }),
       "pages");
  return std::fclose(out) == 0 ? 0 : 1;
}

int Apply(const std::string& dir, const std::string& plan_id) {
  LocalRoot root(dir, /*with_tables=*/false);
  auto began = Clock::now();
  lake::gc::ApplyProgress done =
      Must(lake::gc::ApplyPlan(root.View(), plan_id, lake::gc::ApplyOptions()), "apply");
  std::printf("apply_seconds=%.3f\ndeleted=%llu\n", Seconds(began),
              static_cast<unsigned long long>(done.objects_deleted));
  PrintRss();
  return 0;
}

std::unique_ptr<lake::S3ObjectStore> OpenS3(const std::string& bucket, const std::string& prefix) {
  lake::S3StageOptions options;
  options.bucket = bucket;
  options.prefix = prefix;
  const char* endpoint = std::getenv("AWS_ENDPOINT_URL");
  options.endpoint = Must(lake::s3http::ParseS3Endpoint(endpoint ? endpoint : "", true), "endpoint");
  const char* region = std::getenv("AWS_REGION");
  options.region = region ? region : "us-east-1";
  return Must(lake::S3ObjectStore::Open(options, nullptr), "S3 stage");
}

int S3Put(const std::string& bucket, const std::string& prefix, size_t n, size_t threads) {
  std::unique_ptr<lake::S3ObjectStore> store = OpenS3(bucket, prefix);
  // The bucket may exist (a second run); a new one is made otherwise.
  (void)store->client().CreateBucket(bucket);
  auto began = Clock::now();
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  auto work = [&] {
    for (size_t i = next++; i < n && !failed; i = next++) {
      std::string key = store->layout().NewObjectKey();
      if (!store->client().PutObject(bucket, key, {}, std::string(lake::s3http::kEmptyPayloadSha256),
                                     "application/octet-stream").ok()) {
        failed = true;
      }
    }
  };
  std::vector<std::thread> pool;
  for (size_t t = 0; t < threads; ++t) pool.emplace_back(work);
  for (std::thread& t : pool) t.join();
  if (failed) return 1;
  std::printf("s3_put_seconds=%.3f\nobjects=%zu\n", Seconds(began), n);
  return 0;
}

int S3List(const std::string& bucket, const std::string& prefix, size_t streams) {
  std::unique_ptr<lake::S3ObjectStore> store = OpenS3(bucket, prefix);
  auto began = Clock::now();
  uint64_t listed = 0;
  Must(store->ListUnordered(streams, [&](const lake::ListedObject&) {
         ++listed;
         return true;
       }),
       "list");
  std::printf("list_seconds=%.3f\nlisted=%llu\n", Seconds(began),
              static_cast<unsigned long long>(listed));
  PrintRss();
  return 0;
}

struct S3Root {
  std::unique_ptr<lake::ManagedStage> stage;
  std::string descriptor;
  std::string root_id;
  std::string dir;
  S3Root(const std::string& root_dir, const std::string& bucket, const std::string& prefix)
      : dir(root_dir) {
    stage = std::make_unique<lake::ManagedStage>(OpenS3(bucket, prefix));
    lake::StageDescriptor d;
    d.kind = lake::StageDescriptor::Kind::kS3;
    d.bucket = bucket;
    d.prefix = prefix;
    descriptor = lake::StageDescriptorToJson(d);
    ::mkdir(root_dir.c_str(), 0755);
    root_id = Must(lake::gc::EnsureRootIdentity(Fs(), dir, stage->store()), "root identity");
  }
  lake::gc::GcRoot View() {
    return lake::gc::GcRoot{Fs(), dir, *stage, nullptr, descriptor, root_id};
  }
};

int S3Plan(const std::string& dir, const std::string& bucket, const std::string& prefix,
           uint64_t budget_mib) {
  S3Root root(dir, bucket, prefix);
  lake::gc::PlanOptions options;
  options.cutoff = absl::ZeroDuration();
  options.allow_short_cutoff = true;
  options.memory_budget = budget_mib << 20;
  auto began = Clock::now();
  lake::gc::PlanSummary plan = Must(lake::gc::WritePlan(root.View(), options), "plan");
  PrintPlan(plan, Seconds(began));
  return 0;
}

int S3Apply(const std::string& dir, const std::string& bucket, const std::string& prefix,
            const std::string& plan_id) {
  S3Root root(dir, bucket, prefix);
  auto began = Clock::now();
  lake::gc::ApplyProgress done =
      Must(lake::gc::ApplyPlan(root.View(), plan_id, lake::gc::ApplyOptions()), "apply");
  std::printf("apply_seconds=%.3f\ndeleted=%llu\n", Seconds(began),
              static_cast<unsigned long long>(done.objects_deleted));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> a(argv + 1, argv + argc);
  auto n = [&](size_t i) { return static_cast<size_t>(std::strtoull(a.at(i).c_str(), nullptr, 10)); };
  if (a.size() == 5 && a[0] == "tables") return Tables(a[1], n(2), n(3), n(4));
  if (a.size() == 3 && a[0] == "live-index") return LiveIndex(a[1], n(2));
  if (a.size() == 3 && a[0] == "dump-uris") return DumpUris(a[1], a[2]);
  if (a.size() == 4 && a[0] == "stage") return Stage(a[1], n(2), n(3));
  if (a.size() == 3 && a[0] == "plan") return Plan(a[1], n(2));
  if (a.size() == 3 && a[0] == "apply") return Apply(a[1], a[2]);
  if (a.size() == 4 && a[0] == "candidates") return Candidates(a[1], a[2], a[3]);
  if (a.size() == 5 && a[0] == "s3-put") return S3Put(a[1], a[2], n(3), n(4));
  if (a.size() == 4 && a[0] == "s3-list") return S3List(a[1], a[2], n(3));
  if (a.size() == 5 && a[0] == "s3-plan") return S3Plan(a[1], a[2], a[3], n(4));
  if (a.size() == 5 && a[0] == "s3-apply") return S3Apply(a[1], a[2], a[3], a[4]);
  std::fprintf(stderr, "usage: see bench/gc_bench.cc\n");
  return 2;
}
