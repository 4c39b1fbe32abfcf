// The local file interface, on both production backends: io_uring and the
// pread/pwrite fallback.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <unistd.h>

#include <filesystem>

#include "io/durable_paths.h"
#include "io/posix/posix_file_system.h"
#include "io/uring/uring_file_system.h"
#include "io/uring/uring_io_queue.h"
#include "tests/support/status_checks.h"
#include "tests/support/test_files.h"

namespace lake::io {
namespace {

std::vector<std::unique_ptr<FileSystem>> Backends() {
  std::vector<std::unique_ptr<FileSystem>> backends;
  backends.push_back(std::make_unique<PosixFileSystem>());
  if (UringUsable()) backends.push_back(std::make_unique<UringFileSystem>());
  return backends;
}

TEST_CASE("io_uring is usable on this machine (the default backend)") {
  CHECK(UringUsable());
  absl::StatusOr<FileSystem*> fs = DefaultFileSystem();
  LAKE_REQUIRE_OK(fs);
  const char* forced = std::getenv("LAKE_IO");
  std::string expected = forced != nullptr && std::string(forced) == "sync" ? "sync" : "io_uring";
  CHECK((*fs)->name() == expected);
}

TEST_CASE("queued writes and reads move exactly the bytes, in any completion order") {
  for (auto& fs : Backends()) {
    CAPTURE(std::string(fs->name()));
    testing::TempDir dir;
    std::string path = dir.Join("data");
    absl::StatusOr<std::unique_ptr<File>> file = fs->CreateNew(path, /*want_direct=*/false);
    LAKE_REQUIRE_OK(file);
    std::vector<uint8_t> bytes = testing::RandomBytes(8 * 65536, 1);
    absl::StatusOr<std::unique_ptr<IoQueue>> queue = fs->NewIoQueue(8);
    LAKE_REQUIRE_OK(queue);
    for (uint64_t i = 0; i < 8; ++i) {
      (*queue)->PrepareWrite(**file, bytes.data() + i * 65536, 65536, i * 65536, i);
    }
    std::vector<IoCompletion> done;
    while ((*queue)->in_flight() > 0) LAKE_REQUIRE_OK((*queue)->SubmitAndReap(1, &done));
    REQUIRE(done.size() == 8);
    for (const IoCompletion& c : done) CHECK(c.result == 65536);
    LAKE_REQUIRE_OK((*file)->Sync());
    CHECK(testing::ReadFile(path) == bytes);

    absl::StatusOr<std::unique_ptr<File>> reader = fs->OpenRead(path);
    LAKE_REQUIRE_OK(reader);
    std::vector<uint8_t> back(bytes.size() + 100);
    for (uint64_t i = 0; i < 8; ++i) {
      (*queue)->PrepareRead(**reader, back.data() + i * 65536, 65536, i * 65536, i,
                            i % 2 ? ReadHint::kOffload : ReadHint::kInline);
    }
    done.clear();
    while ((*queue)->in_flight() > 0) LAKE_REQUIRE_OK((*queue)->SubmitAndReap(1, &done));
    back.resize(bytes.size());
    CHECK(back == bytes);
    // A read at the end returns 0 bytes; one past it is short.
    uint8_t tail[10];
    (*queue)->PrepareRead(**reader, tail, 10, bytes.size() - 4, 42);
    done.clear();
    LAKE_REQUIRE_OK((*queue)->SubmitAndReap(1, &done));
    REQUIRE(done.size() == 1);
    CHECK(done[0].tag == 42);
    CHECK(done[0].result == 4);
  }
}

TEST_CASE("a failed operation completes with -errno instead of failing the queue") {
  for (auto& fs : Backends()) {
    CAPTURE(std::string(fs->name()));
    testing::TempDir dir;
    absl::StatusOr<std::unique_ptr<File>> file = fs->CreateNew(dir.Join("w"), false);
    LAKE_REQUIRE_OK(file);
    absl::StatusOr<std::unique_ptr<IoQueue>> queue = fs->NewIoQueue(2);
    LAKE_REQUIRE_OK(queue);
    uint8_t buf[16];
    (*queue)->PrepareRead(**file, buf, sizeof buf, 0, 7);  // write-only file
    std::vector<IoCompletion> done;
    LAKE_REQUIRE_OK((*queue)->SubmitAndReap(1, &done));
    REQUIRE(done.size() == 1);
    CHECK(done[0].result < 0);
  }
}

TEST_CASE("create is exclusive and rename never replaces") {
  for (auto& fs : Backends()) {
    testing::TempDir dir;
    LAKE_REQUIRE_OK(fs->CreateNew(dir.Join("a"), false));
    CHECK(absl::IsAlreadyExists(fs->CreateNew(dir.Join("a"), false).status()));
    LAKE_REQUIRE_OK(fs->CreateNew(dir.Join("b"), false));
    CHECK(absl::IsAlreadyExists(fs->RenameNoReplace(dir.Join("a"), dir.Join("b"))));
    LAKE_CHECK_OK(fs->RenameNoReplace(dir.Join("a"), dir.Join("c")));
    CHECK(absl::IsNotFound(fs->Stat(dir.Join("a")).status()));
  }
}

TEST_CASE("opening beneath a directory refuses escapes by path or by symlink") {
  for (auto& fs : Backends()) {
    testing::TempDir dir;
    std::filesystem::create_directories(dir.Join("root/sub"));
    testing::WriteFile(dir.Join("root/sub/in"), {1, 2, 3});
    testing::WriteFile(dir.Join("secret"), {4});
    std::filesystem::create_symlink(dir.Join("secret"), dir.Join("root/abs-link"));
    std::filesystem::create_symlink("../secret", dir.Join("root/rel-link"));
    std::filesystem::create_symlink("sub/in", dir.Join("root/inner-link"));
    absl::StatusOr<std::unique_ptr<File>> root = fs->OpenDirectory(dir.Join("root"));
    LAKE_REQUIRE_OK(root);
    LAKE_CHECK_OK(fs->OpenReadBeneath(**root, "sub/in"));
    LAKE_CHECK_OK(fs->OpenReadBeneath(**root, "inner-link"));
    for (std::string escape : {"../secret", "abs-link", "rel-link", "sub/../../secret"}) {
      CAPTURE(escape);
      CHECK(absl::IsPermissionDenied(fs->OpenReadBeneath(**root, escape).status()));
    }
    CHECK(absl::IsNotFound(fs->OpenReadBeneath(**root, "missing").status()));
  }
}

TEST_CASE("the flock of a live file keeps others from taking it") {
  PosixFileSystem fs;
  testing::TempDir dir;
  absl::StatusOr<std::unique_ptr<File>> owner = fs.CreateNew(dir.Join("x"), false);
  LAKE_REQUIRE_OK(owner);
  LAKE_REQUIRE_OK((*owner)->LockExclusive());
  absl::StatusOr<std::unique_ptr<File>> other = fs.OpenRead(dir.Join("x"));
  LAKE_REQUIRE_OK(other);
  absl::StatusOr<bool> taken = (*other)->TryLockExclusive();
  LAKE_REQUIRE_OK(taken);
  CHECK_FALSE(*taken);
  LAKE_REQUIRE_OK((*owner)->Close());
  taken = (*other)->TryLockExclusive();
  LAKE_REQUIRE_OK(taken);
  CHECK(*taken);
}

TEST_CASE("directories are created with their parents") {
  PosixFileSystem fs;
  testing::TempDir dir;
  LAKE_CHECK_OK(CreateDirectoriesDurably(fs, dir.Join("a/b/c")));
  LAKE_CHECK_OK(CreateDirectoriesDurably(fs, dir.Join("a/b/c")));
  CHECK(std::filesystem::is_directory(dir.Join("a/b/c")));
  testing::WriteFile(dir.Join("file"), {});
  CHECK(absl::IsFailedPrecondition(CreateDirectoriesDurably(fs, dir.Join("file"))));
  CHECK(ParentPath("/a/b") == "/a");
  CHECK(ParentPath("/a") == "/");
}

TEST_CASE("errno values become typed statuses") {
  PosixFileSystem fs;
  CHECK(absl::IsNotFound(fs.OpenRead("/nonexistent/file").status()));
  CHECK(absl::IsNotFound(fs.Stat("/nonexistent").status()));
}

}  // namespace
}  // namespace lake::io
