// Paths that add references to existing objects, against a collection:
// each holds the shared references lock (engine/gc/gc_locks.h) from its
// existence check to its commit — an INSERT binding an existing location,
// every append from its first table file, a pin — and never trusts a size
// it remembered from before a collection deleted objects. And pins
// (engine/gc/pin_store.h): protected until unpinned, checked, durable.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <thread>

#include "absl/strings/match.h"
#include "base/failpoint.h"
#include "engine/gc/gc_locks.h"
#include "engine/gc/lease_store.h"
#include "engine/gc/pin_store.h"
#include "engine/local/local_object_store.h"
#include "engine/sha256.h"
#include "io/posix/posix_file_system.h"
#include "tests/support/fault_injection_file_system.h"
#include "tests/support/stage_fixture.h"
#include "tests/support/status_checks.h"
#include "tests/support/table_fixture.h"
#include "tests/support/test_files.h"

namespace lake::gc {
namespace {

using table::CellValue;
using testing::TableRoot;

constexpr char kInsert[] = "INSERT INTO ml.clips (id, video) VALUES (?, ?)";
constexpr auto kBlockedFor = std::chrono::milliseconds(200);

struct Root {
  testing::TempDir dir;
  io::PosixFileSystem fs;
  std::unique_ptr<TableRoot> tables;

  Root() {
    absl::StatusOr<std::unique_ptr<TableRoot>> opened = TableRoot::Open(fs, dir.path());
    LAKE_REQUIRE_OK(opened);
    tables = std::move(*opened);
    tables->stage->set_leaser(LeaseStore::Open(fs, dir.path()));
    LAKE_REQUIRE_OK(tables->tables->CreateTable(
        table::TableName{"ml", "clips"},
        table::Schema{{{"id", table::ColumnType::kUtf8}, {"video", table::ColumnType::kFile}}}));
  }
  const std::string& path() const { return dir.path(); }
  ManagedStage& stage() { return *tables->stage; }

  DataLocation Upload(size_t n, uint64_t seed) {
    std::vector<uint8_t> bytes = testing::RandomBytes(n, seed);
    testing::MemorySource source(bytes);
    absl::StatusOr<DataLocation> location = stage().Upload(source, {});
    REQUIRE_MESSAGE(location.ok(), location.status().ToString());
    return *location;
  }
  absl::Status InsertExisting(const DataLocation& location) {
    return tables->Insert(kInsert, {CellValue{std::string("c")}, CellValue{location}}).status();
  }
  std::string PathOf(const DataLocation& location) const {
    return location.uri.substr(std::string_view("file://").size());
  }
  std::vector<std::string> Protected() {
    std::vector<std::string> uris;
    LAKE_REQUIRE_OK(ForEachProtectedUri(fs, path(), absl::Now(), absl::Hours(1),
                                        [&](std::string_view uri) {
                                          uris.emplace_back(uri);
                                          return absl::OkStatus();
                                        }));
    return uris;
  }
};

// What a collection's apply does with one object (gc-core's, in short):
// under the exclusive references lock, delete it.
void CollectWithApply(Root& root, const DataLocation& location) {
  absl::StatusOr<GcHold> hold = HoldReferencesExclusive(root.fs, root.path());
  LAKE_REQUIRE_OK(hold);
  REQUIRE(std::filesystem::remove(root.PathOf(location)));
}

// Runs `call` on a thread while a collection holds the references lock
// exclusively; true when it had not returned after kBlockedFor and
// returned once the lock was released. *status gets its result.
bool WaitsForCollection(Root& root, const std::function<absl::Status()>& call,
                        absl::Status* status) {
  absl::StatusOr<GcHold> apply = HoldReferencesExclusive(root.fs, root.path());
  LAKE_REQUIRE_OK(apply);
  std::atomic<bool> done{false};
  std::thread caller([&] {
    *status = call();
    done = true;
  });
  std::this_thread::sleep_for(kBlockedFor);
  bool waited = !done;
  *apply = GcHold();
  caller.join();
  return waited && done;
}

TEST_CASE("an INSERT binding an existing location waits while a collection deletes") {
  Root root;
  DataLocation location = root.Upload(1000, 1);
  absl::Status status;
  CHECK(WaitsForCollection(root, [&] { return root.InsertExisting(location); }, &status));
  LAKE_CHECK_OK(status);
}

TEST_CASE("a collection waits from an INSERT's check of an existing location to its commit") {
  REQUIRE(failpoint::Enabled());
  Root root;
  DataLocation location = root.Upload(1000, 10);
  // Stopped after its checks, before its append: an apply that starts now
  // must wait for the commit.
  std::atomic<bool> apply_held{false};
  bool apply_waited = false;
  std::thread apply;
  failpoint::ClearAll();
  failpoint::Set("table_append.prepared", failpoint::Action::kCallback, [&] {
    apply = std::thread([&] {
      io::PosixFileSystem fs;
      absl::StatusOr<GcHold> hold = HoldReferencesExclusive(fs, root.path());
      CHECK(hold.ok());
      apply_held = true;
    });
    std::this_thread::sleep_for(kBlockedFor);
    apply_waited = !apply_held;
    return absl::OkStatus();
  });
  absl::Status inserted = root.InsertExisting(location);
  failpoint::ClearAll();
  apply.join();
  LAKE_CHECK_OK(inserted);
  CHECK(apply_waited);
  CHECK(apply_held);
}

TEST_CASE("an append of plain rows waits while a collection deletes (it writes table files)") {
  Root root;
  LAKE_REQUIRE_OK(root.tables->tables->CreateTable(
      table::TableName{"ml", "notes"}, table::Schema{{{"id", table::ColumnType::kUtf8}}}));
  absl::Status status;
  CHECK(WaitsForCollection(
      root,
      [&] {
        return root.tables
            ->Insert("INSERT INTO ml.notes (id) VALUES (?)", {CellValue{std::string("n")}})
            .status();
      },
      &status));
  LAKE_CHECK_OK(status);
}

TEST_CASE("an INSERT binding a location a collection deleted since this process knew it is refused") {
  Root root;
  // Uploaded here: the stage remembers it exists, and with what size.
  DataLocation location = root.Upload(1000, 2);
  LAKE_REQUIRE_OK(root.InsertExisting(location));
  CollectWithApply(root, location);
  absl::Status refused = root.InsertExisting(location);
  CHECK(absl::IsNotFound(refused));
  absl::StatusOr<std::vector<std::vector<CellValue>>> rows = root.tables->Rows("ml.clips");
  LAKE_REQUIRE_OK(rows);
  CHECK(rows->size() == 1);  // only the INSERT from before the collection
}

TEST_CASE("a location known to exist is not checked on storage again while no collection ran") {
  Root root;
  DataLocation location = root.Upload(1000, 3);
  LAKE_REQUIRE_OK(root.InsertExisting(location));
  // Removed behind lake's back (not by a collection): the remembered size
  // still answers, as before collections existed.
  REQUIRE(std::filesystem::remove(root.PathOf(location)));
  LAKE_CHECK_OK(root.InsertExisting(location));
}

// ---- Pins ----

TEST_CASE("a pinned object is protected until unpinned, and the pin set digest follows") {
  Root root;
  DataLocation location = root.Upload(1000, 4);
  absl::StatusOr<std::string> empty = PinSetDigest(root.fs, root.path());
  LAKE_REQUIRE_OK(empty);
  CHECK(*empty == Sha256Hex(""));
  CHECK(root.Protected().empty());
  LAKE_REQUIRE_OK(Pin(root.fs, root.path(), root.stage(), location));
  LAKE_REQUIRE_OK(Pin(root.fs, root.path(), root.stage(), location));  // again: fine
  CHECK(root.Protected() == std::vector<std::string>{location.uri});
  absl::StatusOr<std::string> pinned = PinSetDigest(root.fs, root.path());
  LAKE_REQUIRE_OK(pinned);
  CHECK(*pinned != *empty);
  LAKE_REQUIRE_OK(Unpin(root.fs, root.path(), root.stage(), location));
  CHECK(root.Protected().empty());
  CHECK(*PinSetDigest(root.fs, root.path()) == *empty);
  CHECK(absl::IsNotFound(Unpin(root.fs, root.path(), root.stage(), location)));
}

TEST_CASE("pinning checks containment and existence, and a refusal pins nothing") {
  Root root;
  DataLocation location = root.Upload(1000, 5);
  DataLocation longer = location;
  longer.size_bytes = 1001;
  absl::StatusOr<DataLocation> outside =
      MakeDataLocation("file:///etc/passwd", "text/plain", 10, std::string(64, 'a'));
  LAKE_REQUIRE_OK(outside);
  DataLocation gone = root.Upload(1000, 6);
  CollectWithApply(root, gone);
  CHECK(testing::KindOf(Pin(root.fs, root.path(), root.stage(), longer)) ==
        IntegrityKind::kSizeShort);
  CHECK(testing::KindOf(Pin(root.fs, root.path(), root.stage(), *outside)) ==
        IntegrityKind::kInvalidLocation);
  CHECK(absl::IsNotFound(Pin(root.fs, root.path(), root.stage(), gone)));
  CHECK(testing::KindOf(Unpin(root.fs, root.path(), root.stage(), *outside)) ==
        IntegrityKind::kInvalidLocation);
  CHECK(root.Protected().empty());
}

TEST_CASE("pinning waits while a collection deletes") {
  Root root;
  DataLocation location = root.Upload(1000, 7);
  absl::Status status;
  CHECK(WaitsForCollection(root, [&] { return Pin(root.fs, root.path(), root.stage(), location); },
                           &status));
  LAKE_CHECK_OK(status);
}

TEST_CASE("a pin is durable when Pin returns, and an unpin when Unpin returns") {
  io::PosixFileSystem base;
  DataLocation location;
  for (bool unpin : {false, true}) {
    CAPTURE(unpin);
    testing::TempDir scratch;
    std::filesystem::create_directory(scratch.Join("backups"));
    std::string root = scratch.Join("root");
    std::filesystem::create_directories(root);
    {
      testing::FaultInjectionFileSystem fs(base, scratch.Join("backups"));
      absl::StatusOr<std::unique_ptr<LocalObjectStore>> store =
          LocalObjectStore::Open(fs, root + "/stage", "");
      LAKE_REQUIRE_OK(store);
      ManagedStage stage(std::move(*store));
      std::vector<uint8_t> bytes = testing::RandomBytes(1000, 8);
      testing::MemorySource source(bytes);
      absl::StatusOr<DataLocation> uploaded = stage.Upload(source, {});
      LAKE_REQUIRE_OK(uploaded);
      location = *uploaded;
      LAKE_REQUIRE_OK(Pin(fs, root, stage, location));
      if (unpin) LAKE_REQUIRE_OK(Unpin(fs, root, stage, location));
      fs.Crash();
    }
    std::vector<std::string> pinned;
    LAKE_REQUIRE_OK(ForEachPinnedUri(base, root, [&](std::string_view uri) {
      pinned.emplace_back(uri);
      return absl::OkStatus();
    }));
    CHECK(pinned == (unpin ? std::vector<std::string>{} : std::vector<std::string>{location.uri}));
  }
}

TEST_CASE("a damaged pin record fails the protected list closed, naming it") {
  Root root;
  DataLocation location = root.Upload(1000, 9);
  LAKE_REQUIRE_OK(Pin(root.fs, root.path(), root.stage(), location));
  std::vector<std::string> files = testing::FilesUnder(PinsDir(root.path()));
  REQUIRE(files.size() == 1);
  std::string path = PinsDir(root.path()) + "/" + files[0];
  std::vector<uint8_t> bytes = testing::ReadFile(path);
  bytes[20] ^= 1;
  testing::WriteFile(path, bytes);
  absl::Status s = ForEachProtectedUri(root.fs, root.path(), absl::Now(), absl::Hours(1),
                                       [](std::string_view) { return absl::OkStatus(); });
  CHECK(absl::IsDataLoss(s));
  CHECK(absl::StrContains(s.message(), path));
  CHECK(absl::IsDataLoss(PinSetDigest(root.fs, root.path()).status()));
  // Pinning it again mends it.
  LAKE_REQUIRE_OK(Pin(root.fs, root.path(), root.stage(), location));
  CHECK(root.Protected() == std::vector<std::string>{location.uri});
}

}  // namespace
}  // namespace lake::gc
