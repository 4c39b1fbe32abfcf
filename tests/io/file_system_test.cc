// The local file interface, on both production backends: io_uring and the
// pread/pwrite fallback.
#include <doctest/doctest.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <filesystem>

#include "io/durable_paths.h"
#include "io/posix/posix_file_system.h"
#include "io/uring/uring_file_system.h"
#include "io/uring/uring_io_queue.h"
#include "tests/support/status_checks.h"
#include "tests/support/syscall_refusal.h"
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

TEST_CASE("the written end is where a preallocation's unwritten blocks begin, or the size") {
  for (auto& fs : Backends()) {
    testing::TempDir dir;
    absl::StatusOr<std::unique_ptr<File>> file = fs->CreateNew(dir.Join("f"), false);
    LAKE_REQUIRE_OK(file);
    const std::string block(4096, 'x');
    LAKE_REQUIRE_OK((*file)->PWrite(reinterpret_cast<const uint8_t*>(block.data()), 100, 0));
    LAKE_REQUIRE_OK((*file)->Sync());
    // Fully written: the size.
    CHECK(*(*file)->NextUnwritten(0) == 100);
    CHECK(*(*file)->NextUnwritten(100) == 100);  // at the end: itself
    CHECK(*(*file)->NextUnwritten(5000) == 5000);  // past the end: itself
    if (!(*file)->Allocate(0, 1 << 20).ok()) continue;  // no preallocation here
    absl::StatusOr<uint64_t> after = (*file)->NextUnwritten(0);
    LAKE_REQUIRE_OK(after);
    // The written block, then unwritten ones (the size, where the file
    // system cannot tell them apart).
    CHECK((*after == 4096 || *after == (1 << 20)));
    if (*after == 4096) {
      LAKE_REQUIRE_OK((*file)->PWrite(reinterpret_cast<const uint8_t*>(block.data()), 4096, 4096));
      LAKE_REQUIRE_OK((*file)->Sync());
      CHECK(*(*file)->NextUnwritten(0) == 8192);
      CHECK(*(*file)->NextUnwritten(8192) == 8192);
    }
  }
}

// root/ with a file, a directory, symlinks that stay inside and symlinks
// that lead out to dir/secret.
struct BeneathTree {
  BeneathTree() {
    std::filesystem::create_directories(dir.Join("root/sub"));
    testing::WriteFile(dir.Join("root/sub/in"), {1, 2, 3});
    testing::WriteFile(dir.Join("secret"), {4});
    std::filesystem::create_symlink(dir.Join("secret"), dir.Join("root/abs-link"));
    std::filesystem::create_symlink("../secret", dir.Join("root/rel-link"));
    std::filesystem::create_symlink("sub/in", dir.Join("root/inner-link"));
    std::filesystem::create_directory_symlink(dir.path(), dir.Join("root/dir-link"));
  }
  testing::TempDir dir;
  static constexpr const char* kEscapes[] = {"../secret", "abs-link", "rel-link",
                                             "sub/../../secret", "dir-link/secret"};
};

// The first of OpenReadBeneath's and OpenDirectoryBeneath's promises that
// `fs` breaks on `tree` (1-based), or 0: for a test body that reports
// through an exit code.
int FirstBrokenBeneathPromise(FileSystem& fs, const BeneathTree& tree) {
  absl::StatusOr<std::unique_ptr<File>> root = fs.OpenDirectory(tree.dir.Join("root"));
  if (!root.ok()) return 1;
  if (!fs.OpenReadBeneath(**root, "sub/in").ok()) return 2;
  if (!fs.OpenReadBeneath(**root, "inner-link").ok()) return 3;
  for (const char* escape : BeneathTree::kEscapes) {
    if (!IsLeavesRoot(fs.OpenReadBeneath(**root, escape).status())) return 4;
  }
  if (!absl::IsNotFound(fs.OpenReadBeneath(**root, "missing").status())) return 5;
  if (!fs.OpenDirectoryBeneath(**root, "sub").ok()) return 6;
  if (!IsLeavesRoot(fs.OpenDirectoryBeneath(**root, "..").status())) return 7;
  if (!IsLeavesRoot(fs.OpenDirectoryBeneath(**root, "dir-link").status())) return 8;
  if (!absl::IsNotFound(fs.OpenDirectoryBeneath(**root, "sub/in").status())) return 9;
  return 0;
}

TEST_CASE("opening beneath a directory refuses escapes by path or by symlink") {
  for (auto& fs : Backends()) {
    CAPTURE(std::string(fs->name()));
    BeneathTree tree;
    absl::StatusOr<std::unique_ptr<File>> root = fs->OpenDirectory(tree.dir.Join("root"));
    LAKE_REQUIRE_OK(root);
    LAKE_CHECK_OK(fs->OpenReadBeneath(**root, "sub/in"));
    LAKE_CHECK_OK(fs->OpenReadBeneath(**root, "inner-link"));
    for (std::string escape : BeneathTree::kEscapes) {
      CAPTURE(escape);
      CHECK(IsLeavesRoot(fs->OpenReadBeneath(**root, escape).status()));
    }
    CHECK(absl::IsNotFound(fs->OpenReadBeneath(**root, "missing").status()));
    CHECK(FirstBrokenBeneathPromise(*fs, tree) == 0);
  }
}

TEST_CASE("where seccomp answers openat2 with EPERM, opening beneath resolves by path and still refuses escapes") {
  // Container runtimes' seccomp profiles that predate openat2 answer EPERM.
  for (auto& fs : Backends()) {
    CAPTURE(std::string(fs->name()));
    BeneathTree tree;
    int broken = testing::RunWithSyscallRefused(SYS_openat2, EPERM, [&] {
      absl::StatusOr<std::unique_ptr<File>> root = fs->OpenDirectory(tree.dir.Join("root"));
      if (!root.ok()) return 90;
      // The filter is in place: openat2 itself fails.
      struct open_how how = {};
      how.flags = O_RDONLY;
      if (::syscall(SYS_openat2, (*root)->fd(), "sub/in", &how, sizeof how) >= 0 || errno != EPERM) {
        return 91;
      }
      return FirstBrokenBeneathPromise(*fs, tree);
    });
    CHECK(broken == 0);
  }
}

TEST_CASE("a file the process may not open beneath a directory is PermissionDenied, not an escape") {
  // As root no file mode refuses a read; the kernel's EACCES comes from a
  // seccomp filter instead.
  for (auto& fs : Backends()) {
    CAPTURE(std::string(fs->name()));
    BeneathTree tree;
    int result = testing::RunWithSyscallRefused(SYS_openat2, EACCES, [&] {
      absl::StatusOr<std::unique_ptr<File>> root = fs->OpenDirectory(tree.dir.Join("root"));
      if (!root.ok()) return 90;
      absl::Status status = fs->OpenReadBeneath(**root, "sub/in").status();
      if (!absl::IsPermissionDenied(status)) return 1;
      return IsLeavesRoot(status) ? 2 : 0;
    });
    CHECK(result == 0);
  }
}

TEST_CASE("removing an entry of an open directory removes a symlink, never its target") {
  for (auto& fs : Backends()) {
    CAPTURE(std::string(fs->name()));
    BeneathTree tree;
    absl::StatusOr<std::unique_ptr<File>> root = fs->OpenDirectory(tree.dir.Join("root"));
    LAKE_REQUIRE_OK(root);
    LAKE_CHECK_OK(fs->RemoveAt(**root, "rel-link"));
    CHECK_FALSE(std::filesystem::is_symlink(tree.dir.Join("root/rel-link")));
    CHECK(testing::PathExists(tree.dir.Join("secret")));
    LAKE_CHECK_OK(fs->RemoveAt(**root, "dir-link"));
    CHECK(std::filesystem::is_directory(tree.dir.path()));
    CHECK_FALSE(fs->RemoveAt(**root, "sub").ok());  // never a directory
    CHECK(std::filesystem::is_directory(tree.dir.Join("root/sub")));
    CHECK(absl::IsInvalidArgument(fs->RemoveAt(**root, "sub/in")));  // one entry only
    CHECK(absl::IsNotFound(fs->RemoveAt(**root, "missing")));
    absl::StatusOr<std::unique_ptr<File>> sub = fs->OpenDirectoryBeneath(**root, "sub");
    LAKE_REQUIRE_OK(sub);
    LAKE_CHECK_OK(fs->RemoveAt(**sub, "in"));
    CHECK_FALSE(testing::PathExists(tree.dir.Join("root/sub/in")));
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
