// Leases (engine/gc/lease_store.h): an upload's key is protected from before
// its first byte until its location is returned — in another process too,
// and after that process dies until the retention horizon; an INSERT's
// uploads until its append; an event writer's offloaded blobs until their
// batch. Also what dead processes leave, retirement of large files, and
// durability across power loss at every step.
#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/failpoint.h"
#include "engine/events/blob_references.h"
#include "engine/events/event_log.h"
#include "engine/events/log_stream_options.h"
#include "engine/events/stream_writer.h"
#include "engine/file_upload_source.h"
#include "engine/gc/lease_file_format.h"
#include "engine/gc/lease_store.h"
#include "engine/local/local_object_store.h"
#include "engine/managed_stage.h"
#include "io/posix/posix_file_system.h"
#include "tests/support/child_process.h"
#include "tests/support/fault_injection_file_system.h"
#include "tests/support/stage_fixture.h"
#include "tests/support/status_checks.h"
#include "tests/support/table_fixture.h"
#include "tests/support/test_files.h"

namespace lake::gc {
namespace {

using testing::ParentLink;
using testing::SteppedChild;

constexpr absl::Duration kHorizon = absl::Hours(7 * 24);

std::vector<std::string> Protected(io::FileSystem& fs, const std::string& root,
                                   absl::Time now = absl::Now()) {
  std::vector<std::string> uris;
  absl::Status s = ForEachProtectedUri(fs, root, now, kHorizon, [&](std::string_view uri) {
    uris.emplace_back(uri);
    return absl::OkStatus();
  });
  REQUIRE_MESSAGE(s.ok(), s.ToString());
  return uris;
}

bool Contains(const std::vector<std::string>& uris, const std::string& uri) {
  return std::find(uris.begin(), uris.end(), uri) != uris.end();
}

std::vector<std::string> LeaseFiles(const std::string& root) {
  std::vector<std::string> files;
  if (!testing::PathExists(LeasesDir(root))) return files;
  for (const std::string& name : testing::FilesUnder(LeasesDir(root))) {
    if (name.ends_with(kLeaseFileSuffix)) files.push_back(name);
  }
  return files;
}

// A root's local stage as lake_db opens it: its uploads leased.
std::unique_ptr<ManagedStage> LeasingStage(io::FileSystem& fs, const std::string& root) {
  absl::StatusOr<std::unique_ptr<LocalObjectStore>> store =
      LocalObjectStore::Open(fs, root + "/stage", "");
  if (!store.ok()) return nullptr;
  auto stage = std::make_unique<ManagedStage>(std::move(*store));
  stage->set_leaser(LeaseStore::Open(fs, root));
  return stage;
}

std::vector<std::string> StageObjects(const std::string& root) {
  std::vector<std::string> objects;
  std::string dir = std::filesystem::canonical(root + "/stage").string() + "/objects";
  for (const std::string& file : testing::FilesUnder(dir)) {
    objects.push_back("file://" + dir + "/" + file);
  }
  return objects;
}

TEST_CASE("a lease protects its key until it is released, and its file goes with the store") {
  testing::TempDir dir;
  io::PosixFileSystem fs;
  const std::string uri = "file:///srv/stage/objects/aa/x";
  {
    std::shared_ptr<LeaseStore> store = LeaseStore::Open(fs, dir.path());
    CHECK(LeaseFiles(dir.path()).empty());  // nothing before the first lease
    absl::StatusOr<std::unique_ptr<KeyLease>> lease = store->Lease(uri, LeaseDurability::kSynced);
    LAKE_REQUIRE_OK(lease);
    CHECK(Protected(fs, dir.path()) == std::vector<std::string>{uri});
    // A live process's lease never expires.
    CHECK(Protected(fs, dir.path(), absl::Now() + 100 * kHorizon) ==
          std::vector<std::string>{uri});
    lease->reset();
    CHECK(Protected(fs, dir.path()).empty());
    CHECK(LeaseFiles(dir.path()).size() == 1);
  }
  CHECK(LeaseFiles(dir.path()).empty());
}

TEST_CASE("leases taken and released from many threads at once are each recorded") {
  testing::TempDir dir;
  io::PosixFileSystem fs;
  std::shared_ptr<LeaseStore> store = LeaseStore::Open(fs, dir.path(), /*retire_bytes=*/2048);
  constexpr int kThreads = 4, kEach = 25;
  std::vector<std::vector<std::unique_ptr<KeyLease>>> held(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) {
        absl::StatusOr<std::unique_ptr<KeyLease>> lease =
            store->Lease(absl::StrCat("file:///a/", t, "/", i), LeaseDurability::kSynced);
        CHECK(lease.ok());
        if (i % 2 == 0) held[t].push_back(std::move(*lease));  // odd ones released at once
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  std::vector<std::string> expected;
  for (int t = 0; t < kThreads; ++t) {
    for (int i = 0; i < kEach; i += 2) expected.push_back(absl::StrCat("file:///a/", t, "/", i));
  }
  std::sort(expected.begin(), expected.end());
  CHECK(Protected(fs, dir.path()) == expected);
  held.clear();
  CHECK(Protected(fs, dir.path()).empty());
  CHECK(LeaseFiles(dir.path()).size() == 1);  // retired files went with their last lease
}

TEST_CASE("a lease is refused for what is not a location URI") {
  testing::TempDir dir;
  io::PosixFileSystem fs;
  std::shared_ptr<LeaseStore> store = LeaseStore::Open(fs, dir.path());
  CHECK_FALSE(store->Lease("", LeaseDurability::kSynced).ok());
  CHECK_FALSE(store->Lease("http://x/y", LeaseDurability::kSynced).ok());
  CHECK_FALSE(
      store->Lease("file:///" + std::string(kMaxLeaseUriBytes, 'a'), LeaseDurability::kSynced)
          .ok());
}

TEST_CASE("a local upload's key is leased before its first byte and released as it returns") {
  testing::TempDir dir;
  io::PosixFileSystem fs;
  std::unique_ptr<ManagedStage> stage = LeasingStage(fs, dir.path());
  REQUIRE(stage != nullptr);
  std::vector<uint8_t> bytes = testing::RandomBytes(3 << 20, 1);
  std::string chosen;
  size_t objects_when_chosen = 99;
  std::vector<std::string> protected_when_chosen;
  UploadOptions options;
  options.key_chosen = [&](const std::string& uri) {
    chosen = uri;
    objects_when_chosen = StageObjects(dir.path()).size();
    return absl::OkStatus();
  };
  // The first read of the source comes after the lease: check there.
  class ProbingSource final : public UploadSource {
   public:
    ProbingSource(const std::vector<uint8_t>& bytes, std::function<void()> first)
        : inner_(bytes), first_(std::move(first)) {}
    absl::StatusOr<size_t> Read(uint8_t* dst, size_t len) override {
      if (first_) std::exchange(first_, nullptr)();
      return inner_.Read(dst, len);
    }

   private:
    testing::MemorySource inner_;
    std::function<void()> first_;
  } source(bytes, [&] { protected_when_chosen = Protected(fs, dir.path()); });
  absl::StatusOr<DataLocation> location = stage->Upload(source, options);
  LAKE_REQUIRE_OK(location);
  CHECK(location->uri == chosen);
  CHECK(objects_when_chosen == 0);
  CHECK(protected_when_chosen == std::vector<std::string>{chosen});
  CHECK(Protected(fs, dir.path()).empty());
}

TEST_CASE("a push writer's key is leased from its start until its commit returns") {
  testing::TempDir dir;
  io::PosixFileSystem fs;
  std::unique_ptr<ManagedStage> stage = LeasingStage(fs, dir.path());
  absl::StatusOr<std::unique_ptr<LocationWriter>> writer = stage->NewWriter({});
  LAKE_REQUIRE_OK(writer);
  std::vector<std::string> leased = Protected(fs, dir.path());
  REQUIRE(leased.size() == 1);
  std::vector<uint8_t> bytes = testing::RandomBytes(1000, 2);
  LAKE_REQUIRE_OK((*writer)->Write(bytes.data(), bytes.size()));
  absl::StatusOr<LeasedLocation> committed = (*writer)->CommitLeased();
  LAKE_REQUIRE_OK(committed);
  CHECK(committed->location.uri == leased[0]);
  CHECK(Protected(fs, dir.path()) == leased);  // held by the caller now
  committed->lease.reset();
  CHECK(Protected(fs, dir.path()).empty());
}

TEST_CASE("a failed lease fails the upload before anything is stored") {
  testing::TempDir dir;
  io::PosixFileSystem fs;
  std::unique_ptr<ManagedStage> stage = LeasingStage(fs, dir.path());
  UploadOptions options;
  options.key_chosen = [](const std::string&) { return absl::UnavailableError("no lease"); };
  std::vector<uint8_t> bytes = testing::RandomBytes(1000, 3);
  testing::MemorySource source(bytes);
  absl::StatusOr<DataLocation> location = stage->Upload(source, options);
  CHECK(absl::IsUnavailable(location.status()));
  CHECK(source.delivered() == 0);
  CHECK(StageObjects(dir.path()).empty());
  CHECK(testing::FilesUnder(dir.Join("stage/.staging")).empty());
  CHECK(Protected(fs, dir.path()).empty());
}

// The child's upload: its first source read and the step before its
// location is returned stop for the parent; then it tells the URI it got.
int UploadStepByStep(const std::string& root, ParentLink& parent, bool stop_at_published) {
  io::PosixFileSystem fs;
  std::unique_ptr<ManagedStage> stage = LeasingStage(fs, root);
  if (stage == nullptr) return 10;
  failpoint::ClearAll();
  if (stop_at_published) {
    failpoint::Set("local_upload.published", failpoint::Action::kCallback, [&] {
      parent.Arrive();
      return absl::OkStatus();
    });
  }
  class GatedSource final : public UploadSource {
   public:
    GatedSource(const std::vector<uint8_t>& bytes, ParentLink& parent)
        : inner_(bytes), parent_(parent) {}
    absl::StatusOr<size_t> Read(uint8_t* dst, size_t len) override {
      if (!started_) {
        started_ = true;
        parent_.Arrive();  // nothing stored yet
      }
      return inner_.Read(dst, len);
    }

   private:
    testing::MemorySource inner_;
    ParentLink& parent_;
    bool started_ = false;
  };
  std::vector<uint8_t> bytes = testing::RandomBytes(2 << 20, 4);
  GatedSource source(bytes, parent);
  absl::StatusOr<DataLocation> location = stage->Upload(source, {});
  if (!location.ok()) return 11;
  testing::WriteFile(root + "/returned-uri",
                     std::vector<uint8_t>(location->uri.begin(), location->uri.end()));
  parent.Arrive();  // returned: its lease released
  return 0;
}

TEST_CASE("an upload in flight in another process is protected from before its first byte until it returns") {
  REQUIRE(failpoint::Enabled());
  testing::TempDir dir;
  io::PosixFileSystem fs;
  SteppedChild child([&](ParentLink& parent) {
    return UploadStepByStep(dir.path(), parent, /*stop_at_published=*/true);
  });
  REQUIRE(child.AwaitArrival());  // its source's first read
  std::vector<std::string> leased = Protected(fs, dir.path());
  REQUIRE(leased.size() == 1);
  CHECK(StageObjects(dir.path()).empty());
  child.Release();
  REQUIRE(child.AwaitArrival());  // published, about to return
  CHECK(StageObjects(dir.path()) == leased);
  CHECK(Protected(fs, dir.path(), absl::Now() + 2 * kHorizon) == leased);  // it lives
  child.Release();
  REQUIRE(child.AwaitArrival());  // returned
  std::vector<uint8_t> returned = testing::ReadFile(dir.Join("returned-uri"));
  CHECK(std::string(returned.begin(), returned.end()) == leased[0]);
  CHECK(Protected(fs, dir.path()).empty());
  child.Release();
  int status = child.Wait();
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK(LeaseFiles(dir.path()).empty());  // a clean exit leaves none
}

TEST_CASE("a SIGKILLed process's lease stays protected until the horizon, then its file is cleaned") {
  REQUIRE(failpoint::Enabled());
  testing::TempDir dir;
  io::PosixFileSystem fs;
  absl::Time killed_at;
  std::vector<std::string> leased;
  {
    SteppedChild child([&](ParentLink& parent) {
      return UploadStepByStep(dir.path(), parent, /*stop_at_published=*/true);
    });
    REQUIRE(child.AwaitArrival());
    child.Release();
    REQUIRE(child.AwaitArrival());  // published: the object exists, leased
    leased = Protected(fs, dir.path());
    REQUIRE(leased.size() == 1);
    killed_at = absl::Now();
    int status = child.Kill();
    REQUIRE(WIFSIGNALED(status));
  }
  CHECK(Protected(fs, dir.path()) == leased);
  CHECK(Protected(fs, dir.path(), killed_at + kHorizon - absl::Minutes(1)) == leased);
  CHECK(Protected(fs, dir.path(), killed_at + kHorizon + absl::Minutes(1)).empty());
  // Its file stays while it protects, and is removed once it no longer does.
  REQUIRE(LeaseFiles(dir.path()).size() == 1);
  absl::StatusOr<uint64_t> removed = RemoveDeadLeaseFiles(fs, dir.path(), absl::Now(), kHorizon);
  LAKE_REQUIRE_OK(removed);
  CHECK(*removed == 0);
  removed = RemoveDeadLeaseFiles(fs, dir.path(), killed_at + kHorizon + absl::Minutes(1),
                                 kHorizon);
  LAKE_REQUIRE_OK(removed);
  CHECK(*removed == 1);
  CHECK(LeaseFiles(dir.path()).empty());
}

TEST_CASE("a process that starts leasing removes the lease files dead processes left") {
  testing::TempDir dir;
  io::PosixFileSystem fs;
  // Two dead processes: one leased and died, one released everything. They
  // run one after the other, the holder first: a process that starts
  // leasing sweeps the files of processes already dead, so the releaser
  // must still live when the holder starts, and the holder (alive, its file
  // locked) is never swept by the releaser.
  SteppedChild holding([&](ParentLink& parent) {
    io::PosixFileSystem child_fs;
    std::shared_ptr<LeaseStore> store = LeaseStore::Open(child_fs, dir.path());
    absl::StatusOr<std::unique_ptr<KeyLease>> lease =
        store->Lease("file:///a/held", LeaseDurability::kSynced);
    if (!lease.ok()) return 10;
    parent.Arrive();
    return 0;
  });
  REQUIRE(holding.AwaitArrival());
  SteppedChild released([&](ParentLink&) {
    io::PosixFileSystem child_fs;
    std::shared_ptr<LeaseStore> store = LeaseStore::Open(child_fs, dir.path());
    absl::StatusOr<std::unique_ptr<KeyLease>> lease =
        store->Lease("file:///a/released", LeaseDurability::kSynced);
    if (!lease.ok()) return 10;
    lease->reset();
    ::_exit(0);  // dies without removing its file
  });
  REQUIRE(WIFEXITED(released.Wait()));
  holding.Kill();
  REQUIRE(LeaseFiles(dir.path()).size() == 2);
  std::shared_ptr<LeaseStore> store = LeaseStore::Open(fs, dir.path());
  absl::StatusOr<std::unique_ptr<KeyLease>> lease =
      store->Lease("file:///a/mine", LeaseDurability::kSynced);
  LAKE_REQUIRE_OK(lease);
  // The released one is gone; the unexpired one stays; ours is new.
  CHECK(LeaseFiles(dir.path()).size() == 2);
  CHECK(Protected(fs, dir.path()) ==
        std::vector<std::string>{"file:///a/held", "file:///a/mine"});
}

TEST_CASE("a full lease file is retired: new leases go to a new one, and it goes with its last lease") {
  testing::TempDir dir;
  io::PosixFileSystem fs;
  std::shared_ptr<LeaseStore> store = LeaseStore::Open(fs, dir.path(), /*retire_bytes=*/100);
  std::vector<std::unique_ptr<KeyLease>> leases;
  for (int i = 0; i < 12; ++i) {
    absl::StatusOr<std::unique_ptr<KeyLease>> lease =
        store->Lease(absl::StrCat("file:///a/", i), LeaseDurability::kSynced);
    LAKE_REQUIRE_OK(lease);
    leases.push_back(std::move(*lease));
  }
  size_t files = LeaseFiles(dir.path()).size();
  CHECK(files >= 3);
  CHECK(Protected(fs, dir.path()).size() == 12);
  leases.erase(leases.begin());  // the first file still holds others
  CHECK(LeaseFiles(dir.path()).size() == files);
  while (leases.size() > 1) leases.erase(leases.begin());
  CHECK(LeaseFiles(dir.path()).size() == 1);  // only the current file
  CHECK(Protected(fs, dir.path()) == std::vector<std::string>{"file:///a/11"});
}

TEST_CASE("a damaged lease file fails the protected list closed, naming the file") {
  testing::TempDir dir;
  io::PosixFileSystem fs;
  std::filesystem::create_directories(LeasesDir(dir.path()));
  std::string bytes = EncodeLeaseFileHeader(1);
  for (int i = 0; i < 1000; ++i) bytes += EncodeLeaseRecord(absl::StrCat("file:///a/", i), 1);
  bytes[kLeaseHeaderBytes + 3] ^= 0x10;
  std::string path = LeasesDir(dir.path()) + "/0190a0b0-0000-7000-8000-000000000000.lease";
  testing::WriteFile(path, std::vector<uint8_t>(bytes.begin(), bytes.end()));
  absl::Status s = ForEachProtectedUri(fs, dir.path(), absl::Now(), kHorizon,
                                       [](std::string_view) { return absl::OkStatus(); });
  CHECK(absl::IsDataLoss(s));
  CHECK(absl::StrContains(s.message(), path));
  // And it is never removed as a dead process's.
  LAKE_CHECK_OK(RemoveDeadLeaseFiles(fs, dir.path(), absl::Now() + 2 * kHorizon, kHorizon));
  CHECK(testing::PathExists(path));
}

TEST_CASE("a registered source's keys are protected too") {
  testing::TempDir dir;
  io::PosixFileSystem fs;
  static std::string registered_root;
  registered_root = dir.path();
  RegisterProtectedUriSource("upload checkpoints (test)",
                             [](io::FileSystem&, const std::string& root, absl::Time,
                                const std::function<absl::Status(std::string_view)>& emit) {
                               if (root != registered_root) return absl::OkStatus();
                               return emit("s3://b/p/objects/aa/resumable");
                             });
  CHECK(Protected(fs, dir.path()) == std::vector<std::string>{"s3://b/p/objects/aa/resumable"});
  registered_root.clear();
}

// ---- An INSERT's uploads ----

constexpr char kInsertClip[] = "INSERT INTO ml.clips (id, video) VALUES (?, ?)";

// The root's table ml.clips (id utf8, video file), its writer lock free.
void CreateClipsTable(io::FileSystem& fs, const std::string& root) {
  absl::StatusOr<std::unique_ptr<testing::TableRoot>> tables = testing::TableRoot::Open(fs, root);
  LAKE_REQUIRE_OK(tables);
  LAKE_REQUIRE_OK((*tables)->tables->CreateTable(
      table::TableName{"ml", "clips"},
      table::Schema{{{"id", table::ColumnType::kUtf8}, {"video", table::ColumnType::kFile}}}));
}

// The root's tables as a lake_db opens them, its uploads leased.
std::unique_ptr<testing::TableRoot> OpenLeasingTables(io::FileSystem& fs,
                                                      const std::string& root) {
  absl::StatusOr<std::unique_ptr<testing::TableRoot>> tables = testing::TableRoot::Open(fs, root);
  if (!tables.ok()) return nullptr;
  (*tables)->stage->set_leaser(LeaseStore::Open(fs, root));
  return std::move(*tables);
}

TEST_CASE("an INSERT's uploads are protected while it is stopped between its uploads and its checkpoint") {
  REQUIRE(failpoint::Enabled());
  testing::TempDir dir;
  io::PosixFileSystem fs;
  std::string root = dir.Join("root");
  CreateClipsTable(fs, root);
  testing::WriteFile(dir.Join("clip.bin"), testing::RandomBytes(1 << 20, 5));
  SteppedChild child([&](ParentLink& parent) {
    io::PosixFileSystem child_fs;
    std::unique_ptr<testing::TableRoot> tables = OpenLeasingTables(child_fs, root);
    if (tables == nullptr) return 10;
    failpoint::ClearAll();
    failpoint::Set("table_append.prepared", failpoint::Action::kCallback, [&] {
      parent.Arrive();  // uploaded; nothing of the append persisted yet
      return absl::OkStatus();
    });
    absl::StatusOr<table::AppendOutcome> outcome = tables->Insert(
        kInsertClip,
        {table::CellValue(std::string("c1")), sql::FileFromPath{dir.Join("clip.bin"), ""}});
    if (!outcome.ok()) return 11;
    parent.Arrive();  // committed
    return 0;
  });
  REQUIRE(child.AwaitArrival());
  std::vector<std::string> objects = StageObjects(root);
  REQUIRE(objects.size() == 1);
  CHECK(testing::FilesUnder(root + "/checkpoints").empty());
  CHECK(Protected(fs, root) == objects);
  child.Release();
  REQUIRE(child.AwaitArrival());  // committed: referenced, no longer leased
  CHECK(Protected(fs, root).empty());
  child.Release();
  CHECK(WEXITSTATUS(child.Wait()) == 0);
}

TEST_CASE("an INSERT killed between its uploads and its checkpoint leaves them protected until the horizon") {
  REQUIRE(failpoint::Enabled());
  testing::TempDir dir;
  io::PosixFileSystem fs;
  std::string root = dir.Join("root");
  CreateClipsTable(fs, root);
  testing::WriteFile(dir.Join("clip.bin"), testing::RandomBytes(1000, 6));
  SteppedChild child([&](ParentLink&) {
    io::PosixFileSystem child_fs;
    std::unique_ptr<testing::TableRoot> tables = OpenLeasingTables(child_fs, root);
    if (tables == nullptr) return 10;
    failpoint::ClearAll();
    failpoint::Set("table_append.prepared", failpoint::Action::kKill);
    (void)tables->Insert(
        kInsertClip,
        {table::CellValue(std::string("c1")), sql::FileFromPath{dir.Join("clip.bin"), ""}});
    return 11;
  });
  REQUIRE(WIFSIGNALED(child.Wait()));
  std::vector<std::string> objects = StageObjects(root);
  REQUIRE(objects.size() == 1);
  CHECK(Protected(fs, root) == objects);
  CHECK(Protected(fs, root, absl::Now() + kHorizon + absl::Minutes(1)).empty());
}

// ---- An event writer's offloaded blobs ----

TEST_CASE("an event writer's offloaded blob is leased until the batch naming it is appended") {
  testing::TempDir dir;
  io::PosixFileSystem fs;
  std::unique_ptr<ManagedStage> stage = LeasingStage(fs, dir.path());
  std::string shards = dir.Join("shards");
  absl::StatusOr<std::unique_ptr<events::EventLog>> log =
      events::EventLog::Open(fs, shards, /*writable=*/true);
  LAKE_REQUIRE_OK(log);
  absl::StatusOr<events::StreamWriter> writer =
      events::OpenStream("item", "w1", events::StreamIntoLog(**log, *stage), {});
  LAKE_REQUIRE_OK(writer);
  std::vector<uint8_t> big = testing::RandomBytes(events::kDefaultBlobInlineThreshold + 1, 7);
  LAKE_REQUIRE_OK(writer->FieldSet(
      "img", events::FieldValue::Blob(std::string(big.begin(), big.end())), {}));
  std::vector<std::string> leased = Protected(fs, dir.path());
  REQUIRE(leased.size() == 1);
  CHECK(StageObjects(dir.path()) == leased);  // stored, named only by a pending event
  LAKE_REQUIRE_OK(writer->Commit());
  CHECK(Protected(fs, dir.path()).empty());
  std::vector<std::string> recorded;
  LAKE_REQUIRE_OK(events::EnumerateEventLogReferences(
      fs, shards, [&](uint64_t, const std::vector<DataLocation>& locations) {
        for (const DataLocation& l : locations) recorded.push_back(l.uri);
        return absl::OkStatus();
      }));
  CHECK(recorded == leased);
}

// ---- Power loss ----

bool TakesLease(std::string_view step) { return step != "lease_store.release_written"; }

TEST_CASE("a power loss at each step of taking or releasing a lease loses no lease taken before") {
  REQUIRE(failpoint::Enabled());
  const std::string held_uri = "file:///a/held";
  const std::string other_uri = "file:///a/other";
  for (std::string_view step : kLeaseStoreFailpoints) {
    for (bool first_in_file : {true, false}) {
      // A release needs a lease taken before; a file is created only once.
      if (!TakesLease(step) && first_in_file) continue;
      if (step == "lease_store.file_created" && !first_in_file) continue;
      for (int torn_seed = 0; torn_seed <= 3; ++torn_seed) {
        CAPTURE(std::string(step));
        CAPTURE(first_in_file);
        CAPTURE(torn_seed);
        testing::TempDir dir;
        std::filesystem::create_directory(dir.Join("backups"));
        std::string root = dir.Join("root");
        std::filesystem::create_directory(root);
        io::PosixFileSystem base;
        {
          testing::FaultInjectionFileSystem fs(base, dir.Join("backups"));
          std::shared_ptr<LeaseStore> store = LeaseStore::Open(fs, root);
          std::unique_ptr<KeyLease> held;
          if (!first_in_file) {
            absl::StatusOr<std::unique_ptr<KeyLease>> lease =
                store->Lease(held_uri, LeaseDurability::kSynced);
            LAKE_REQUIRE_OK(lease);
            held = std::move(*lease);
          }
          std::unique_ptr<KeyLease> to_release;
          if (!TakesLease(step)) {
            absl::StatusOr<std::unique_ptr<KeyLease>> lease =
                store->Lease(other_uri, LeaseDurability::kSynced);
            LAKE_REQUIRE_OK(lease);
            to_release = std::move(*lease);
          }
          failpoint::ClearAll();
          failpoint::Set(step, failpoint::Action::kCallback, [&] {
            if (torn_seed == 0) {
              fs.Crash();
            } else {
              fs.CrashTorn(static_cast<uint64_t>(torn_seed));
            }
            return absl::UnavailableError("power lost");
          });
          if (TakesLease(step)) {
            CHECK_FALSE(store->Lease(other_uri, LeaseDurability::kSynced).ok());
          } else {
            to_release.reset();
          }
          CHECK(failpoint::HitCount(step) == 1);
          failpoint::ClearAll();
          REQUIRE(fs.crashed());
          // The process is gone: its leases, its store, its locks.
          held.reset();
          store.reset();
        }
        // What survived, read as a later process does.
        std::vector<std::string> now = Protected(base, root);
        if (!first_in_file) CHECK(Contains(now, held_uri));
        if (step == "lease_store.lease_synced") CHECK(Contains(now, other_uri));
        if (step == "lease_store.file_created") CHECK(now.empty());
        // A later process cleans up whatever it left once it protects nothing.
        absl::StatusOr<uint64_t> removed =
            RemoveDeadLeaseFiles(base, root, absl::Now() + 2 * kHorizon, kHorizon);
        LAKE_CHECK_OK(removed);
        CHECK(LeaseFiles(root).empty());
      }
    }
  }
}

// A root beside the backups a FaultInjectionFileSystem keeps.
struct PowerLossRoot {
  PowerLossRoot() {
    std::filesystem::create_directory(backups);
    std::filesystem::create_directory(root);
  }
  testing::TempDir dir;
  const std::string backups = dir.Join("backups");
  const std::string root = dir.Join("root");
  io::PosixFileSystem base;
};

TEST_CASE("an unsynced lease protects its key at once and goes with a power loss") {
  PowerLossRoot r;
  const std::string& root = r.root;
  io::PosixFileSystem& base = r.base;
  {
    testing::FaultInjectionFileSystem fs(base, r.backups);
    std::shared_ptr<LeaseStore> store = LeaseStore::Open(fs, root);
    absl::StatusOr<std::unique_ptr<KeyLease>> synced =
        store->Lease("file:///a/synced", LeaseDurability::kSynced);
    LAKE_REQUIRE_OK(synced);
    absl::StatusOr<std::unique_ptr<KeyLease>> unsynced =
        store->Lease("file:///a/unsynced", LeaseDurability::kUnsynced);
    LAKE_REQUIRE_OK(unsynced);
    CHECK(Protected(base, root) ==
          std::vector<std::string>{"file:///a/synced", "file:///a/unsynced"});
    fs.Crash();
    synced->reset();
    unsynced->reset();
    store.reset();
  }
  CHECK(Protected(base, root) == std::vector<std::string>{"file:///a/synced"});
}

TEST_CASE("a local upload's lease is not synced: a power loss ends the upload with it") {
  REQUIRE(failpoint::Enabled());
  PowerLossRoot r;
  const std::string& root = r.root;
  io::PosixFileSystem& base = r.base;
  {
    testing::FaultInjectionFileSystem fs(base, r.backups);
    std::unique_ptr<ManagedStage> stage = LeasingStage(fs, root);
    REQUIRE(stage != nullptr);
    CHECK_FALSE(stage->store().ResumesUploads());
    std::vector<std::string> protected_when_taken;
    failpoint::Set("lease_store.lease_synced", failpoint::Action::kCallback, [&] {
      protected_when_taken = Protected(base, root);
      fs.Crash();
      return absl::UnavailableError("power lost");
    });
    const std::vector<uint8_t> bytes = testing::RandomBytes(1000, 3);
    testing::MemorySource source(bytes);
    CHECK_FALSE(stage->Upload(source, {}).ok());
    failpoint::ClearAll();
    CHECK(protected_when_taken.size() == 1);
  }
  CHECK(Protected(base, root).empty());
}

}  // namespace
}  // namespace lake::gc
