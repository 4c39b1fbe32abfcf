// Crash safety of the local upload path, at each of its named steps, twice:
// a child process SIGKILLed there, and a simulated power loss there (the
// fault-injecting file system drops everything not yet fsynced). After
// each: recovery on the real file system, cleanup of the staging area, and
// the invariant — the object is either absent or complete and verified,
// never partial, and no staging leftover survives the documented cleanup.
// Also the file system's other faults an upload must survive: a shard
// directory another process has not made durable yet, a partly failed
// allocate-ahead.
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <thread>

#include "absl/strings/str_format.h"
#include "base/failpoint.h"
#include "engine/file_upload_source.h"
#include "engine/local/local_object_store.h"
#include "engine/local/local_upload.h"
#include "engine/managed_stage.h"
#include "io/posix/posix_file_system.h"
#include "tests/support/fault_injection_file_system.h"
#include "tests/support/stage_fixture.h"
#include "tests/support/status_checks.h"

namespace lake {
namespace {

constexpr size_t kObjectBytes = 3 * kUploadChunkBytes + 4097;

struct Recovered {
  size_t staging_leftovers = 0;  // before cleanup
  std::vector<ListedObject> objects;
};

// Opens the stage again on the real file system, as a restarted process
// would, cleans the staging area and checks what is left.
Recovered RecoverAndCheck(const std::string& root, const std::vector<uint8_t>& bytes) {
  Recovered result;
  result.staging_leftovers = testing::FilesUnder(root + "/.staging").size();
  absl::StatusOr<io::FileSystem*> fs = io::DefaultFileSystem();
  REQUIRE(fs.ok());
  absl::StatusOr<std::unique_ptr<LocalObjectStore>> store =
      LocalObjectStore::Open(**fs, root, "");
  LAKE_REQUIRE_OK(store);
  ManagedStage stage(std::move(*store));
  // A killed process's io_uring requests are torn down asynchronously by
  // the kernel, which holds its file (and so its flock) until then: a
  // leftover may stay locked for a moment after the process is gone.
  uint64_t removed = 0;
  for (int attempt = 0; attempt < 500; ++attempt) {
    absl::StatusOr<uint64_t> now = stage.CleanStaging();
    LAKE_REQUIRE_OK(now);
    removed += *now;
    if (removed == result.staging_leftovers) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  CHECK(removed == result.staging_leftovers);
  CHECK(testing::FilesUnder(root + "/.staging").empty());
  LAKE_REQUIRE_OK(stage.List([&](const ListedObject& object) {
    result.objects.push_back(object);
    return true;
  }));
  // Every object that exists is complete: it verifies as the source bytes.
  for (const ListedObject& object : result.objects) {
    CHECK(object.size_bytes == bytes.size());
    absl::StatusOr<DataLocation> location = MakeDataLocation(
        object.uri, "application/octet-stream", bytes.size(), testing::Sha256Hex(bytes));
    LAKE_REQUIRE_OK(location);
    absl::StatusOr<std::unique_ptr<ObjectReader>> reader = stage.OpenVerified(*location);
    LAKE_REQUIRE_OK(reader);
    std::vector<uint8_t> out;
    LAKE_CHECK_OK(testing::ReadAll(**reader, &out));
    CHECK((*reader)->verified());
  }
  return result;
}

size_t StepIndex(std::string_view step) {
  for (size_t i = 0; i < kLocalUploadFailpoints.size(); ++i) {
    if (kLocalUploadFailpoints[i] == step) return i;
  }
  return kLocalUploadFailpoints.size();
}

bool RenamedBy(std::string_view step) {
  return StepIndex(step) >= StepIndex("local_upload.renamed");
}

TEST_CASE("the failpoint list names every step an upload passes, in order") {
  REQUIRE(failpoint::Enabled());
  failpoint::ClearAll();
  testing::StageFixture f;
  LAKE_REQUIRE_OK(f.UploadBytes(testing::RandomBytes(kObjectBytes, 1)));
  for (std::string_view step : kLocalUploadFailpoints) {
    CAPTURE(std::string(step));
    CHECK(failpoint::HitCount(step) >= 1);
  }
  failpoint::ClearAll();
}

// A stage in a scratch directory on the fault-injecting file system.
struct FaultStage {
  FaultStage() : fs(base, dir.Join("backups")) {
    std::filesystem::create_directory(dir.Join("backups"));
    absl::StatusOr<std::unique_ptr<LocalObjectStore>> store = LocalObjectStore::Open(fs, root, "");
    LAKE_REQUIRE_OK(store);
    stage = std::make_unique<ManagedStage>(std::move(*store));
  }
  testing::TempDir dir;
  io::PosixFileSystem base;
  testing::FaultInjectionFileSystem fs;
  std::string root = dir.Join("stage");
  std::unique_ptr<ManagedStage> stage;
};

TEST_CASE("a simulated power loss at each step leaves no partial object") {
  REQUIRE(failpoint::Enabled());
  std::vector<uint8_t> bytes = testing::RandomBytes(kObjectBytes, 2);
  for (std::string_view step : kLocalUploadFailpoints) {
    CAPTURE(std::string(step));
    FaultStage f;
    testing::WriteFile(f.dir.Join("source.bin"), bytes);
    failpoint::ClearAll();
    failpoint::Set(step, failpoint::Action::kCallback, [&] {
      f.fs.Crash();
      return absl::UnavailableError("power lost");
    });
    absl::StatusOr<std::unique_ptr<FileUploadSource>> source =
        FileUploadSource::Open(f.fs, f.dir.Join("source.bin"));
    LAKE_REQUIRE_OK(source);
    absl::StatusOr<DataLocation> location = f.stage->Upload(**source, {});
    failpoint::ClearAll();
    CHECK_FALSE(location.ok());
    CHECK(f.fs.crashed());
    f.stage.reset();
    Recovered recovered = RecoverAndCheck(f.root, bytes);
    // Until the rename is made durable by the directory fsync, the power
    // loss takes the upload away entirely; after it, the object survives.
    size_t expected = step == "local_upload.published" ? 1 : 0;
    CHECK(recovered.objects.size() == expected);
  }
}

TEST_CASE("a power loss after a successful upload keeps the object") {
  std::vector<uint8_t> bytes = testing::RandomBytes(kObjectBytes, 3);
  FaultStage f;
  testing::MemorySource source(bytes);
  LAKE_REQUIRE_OK(f.stage->Upload(source, {}));
  f.fs.Crash();
  f.stage.reset();
  CHECK(RecoverAndCheck(f.root, bytes).objects.size() == 1);
}

TEST_CASE("a power loss after a delete returned does not bring the object back") {
  std::vector<uint8_t> bytes = testing::RandomBytes(1000, 8);
  FaultStage f;
  testing::MemorySource source(bytes);
  absl::StatusOr<DataLocation> location = f.stage->Upload(source, {});
  LAKE_REQUIRE_OK(location);
  LAKE_REQUIRE_OK(f.stage->Delete(*location));
  f.fs.Crash();
  f.stage.reset();
  CHECK(RecoverAndCheck(f.root, bytes).objects.empty());
}

TEST_CASE("an object published into a shard directory another process just made survives a power loss") {
  std::vector<uint8_t> bytes = testing::RandomBytes(100000, 6);
  FaultStage f;
  // Another process has just made every shard directory and not yet
  // synced objects/ (it would, a moment later).
  for (int shard = 0; shard < 256; ++shard) {
    LAKE_REQUIRE_OK(f.fs.CreateDirectory(absl::StrFormat("%s/objects/%02x", f.root, shard)));
  }
  testing::MemorySource source(bytes);
  LAKE_REQUIRE_OK(f.stage->Upload(source, {}));
  f.fs.Crash();
  f.stage.reset();
  CHECK(RecoverAndCheck(f.root, bytes).objects.size() == 1);
}

TEST_CASE("after a partly failed allocate-ahead the published object is exactly its size") {
  // One full chunk allocates a chunk ahead; the disk fills at that range's
  // last extent, leaving the file extended past what the upload will hold.
  // The size is a multiple of the direct I/O block, so no padding is cut.
  std::vector<uint8_t> bytes = testing::RandomBytes(kUploadChunkBytes + 8192, 7);
  FaultStage f;
  f.fs.FailAllocationsPartway();
  testing::MemorySource source(bytes);
  absl::StatusOr<DataLocation> location = f.stage->Upload(source, {});
  LAKE_REQUIRE_OK(location);
  std::string objects = std::filesystem::canonical(f.root).string() + "/objects";
  std::vector<std::string> files = testing::FilesUnder(objects);
  REQUIRE(files.size() == 1);
  CHECK(std::filesystem::file_size(objects + "/" + files[0]) == bytes.size());
  absl::StatusOr<std::unique_ptr<ObjectReader>> reader = f.stage->OpenVerified(*location);
  LAKE_REQUIRE_OK(reader);
  std::vector<uint8_t> out;
  LAKE_CHECK_OK(testing::ReadAll(**reader, &out));
  CHECK(out == bytes);
}

// Runs an upload of `bytes` in a child process with `step` set to SIGKILL;
// returns the child's wait status.
int UploadInKilledChild(const std::string& root, const std::string& source_path,
                        std::string_view step) {
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    failpoint::ClearAll();
    failpoint::Set(step, failpoint::Action::kKill);
    absl::StatusOr<io::FileSystem*> fs = io::DefaultFileSystem();
    if (!fs.ok()) ::_exit(10);
    absl::StatusOr<std::unique_ptr<LocalObjectStore>> store = LocalObjectStore::Open(**fs, root, "");
    if (!store.ok()) ::_exit(11);
    ManagedStage stage(std::move(*store));
    absl::StatusOr<std::unique_ptr<FileUploadSource>> source =
        FileUploadSource::Open(**fs, source_path);
    if (!source.ok()) ::_exit(12);
    (void)stage.Upload(**source, {});
    ::_exit(13);  // the failpoint should have killed us
  }
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  return status;
}

TEST_CASE("a child SIGKILLed at each step leaves no partial object and a cleanable leftover") {
  REQUIRE(failpoint::Enabled());
  std::vector<uint8_t> bytes = testing::RandomBytes(kObjectBytes, 4);
  for (std::string_view step : kLocalUploadFailpoints) {
    CAPTURE(std::string(step));
    testing::TempDir dir;
    testing::WriteFile(dir.Join("source.bin"), bytes);
    std::string root = dir.Join("stage");
    int status = UploadInKilledChild(root, dir.Join("source.bin"), step);
    REQUIRE(WIFSIGNALED(status));
    CHECK(WTERMSIG(status) == SIGKILL);
    Recovered recovered = RecoverAndCheck(root, bytes);
    // SIGKILL loses no written data (the page cache survives the process):
    // once renamed, the object is complete; before, only a staging
    // leftover remains, recognisable by its name, and cleanup removed it.
    CHECK(recovered.objects.size() == (RenamedBy(step) ? 1u : 0u));
    CHECK(recovered.staging_leftovers == (RenamedBy(step) ? 0u : 1u));
  }
}

// A source that delivers slowly, so the parent can kill the child at an
// arbitrary moment mid-stream.
class SlowSource final : public UploadSource {
 public:
  explicit SlowSource(const std::vector<uint8_t>& bytes) : source_(bytes, 64 * 1024) {}
  absl::StatusOr<size_t> Read(uint8_t* dst, size_t len) override {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    return source_.Read(dst, len);
  }

 private:
  testing::MemorySource source_;
};

TEST_CASE("a child SIGKILLed mid-stream leaves no partial object") {
  std::vector<uint8_t> bytes = testing::RandomBytes(8 * kUploadChunkBytes, 5);
  testing::TempDir dir;
  std::string root = dir.Join("stage");
  std::filesystem::create_directories(root + "/.staging");
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    absl::StatusOr<io::FileSystem*> fs = io::DefaultFileSystem();
    if (!fs.ok()) ::_exit(10);
    absl::StatusOr<std::unique_ptr<LocalObjectStore>> store = LocalObjectStore::Open(**fs, root, "");
    if (!store.ok()) ::_exit(11);
    ManagedStage stage(std::move(*store));
    SlowSource source(bytes);
    (void)stage.Upload(source, {});
    ::_exit(0);
  }
  // Wait until the staging file holds some bytes, then kill.
  bool started = false;
  for (int i = 0; i < 2000 && !started; ++i) {
    for (const std::string& name : testing::FilesUnder(root + "/.staging")) {
      if (std::filesystem::file_size(root + "/.staging/" + name) >= kUploadChunkBytes) {
        started = true;
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  REQUIRE(started);
  ::kill(pid, SIGKILL);
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFSIGNALED(status));
  Recovered recovered = RecoverAndCheck(root, bytes);
  CHECK(recovered.objects.empty());
  CHECK(recovered.staging_leftovers == 1);
}

}  // namespace
}  // namespace lake
