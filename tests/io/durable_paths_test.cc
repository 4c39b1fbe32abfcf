// Durable directory creation: a directory lake puts something in has an
// entry that survives a power loss, whoever created it — this process, a
// racing one that has not synced its parent yet, or one that removed and
// made it again — and each directory's parent is synced once per process,
// not once per use.
#include <doctest/doctest.h>

#include <filesystem>

#include "base/failpoint.h"
#include "io/durable_paths.h"
#include "io/posix/posix_file_system.h"
#include "tests/support/fault_injection_file_system.h"
#include "tests/support/status_checks.h"
#include "tests/support/test_files.h"

namespace lake::testing {
namespace {

// d/ is durable (made outside the fault-injecting file system); what the
// tests make beneath it through `fs` is durable only once synced.
struct DurableDirFixture {
  DurableDirFixture() : fs(base, dir.Join("backups")) {
    std::filesystem::create_directory(dir.Join("backups"));
    std::filesystem::create_directory(dir.Join("d"));
  }
  TempDir dir;
  io::PosixFileSystem base;
  FaultInjectionFileSystem fs;
};

TEST_CASE("a directory another process made is made durable before it is used") {
  DurableDirFixture f;
  LAKE_REQUIRE_OK(f.fs.CreateDirectory(f.dir.Join("d/a")));  // never synced
  LAKE_REQUIRE_OK(io::CreateDirectoriesDurably(f.fs, f.dir.Join("d/a")));
  f.fs.Crash();
  CHECK(std::filesystem::is_directory(f.dir.Join("d/a")));
}

TEST_CASE("a parent another process made is made durable before a child is made in it") {
  DurableDirFixture f;
  LAKE_REQUIRE_OK(f.fs.CreateDirectory(f.dir.Join("d/a")));  // never synced
  LAKE_REQUIRE_OK(io::CreateDirectoriesDurably(f.fs, f.dir.Join("d/a/b")));
  f.fs.Crash();
  CHECK(std::filesystem::is_directory(f.dir.Join("d/a/b")));
}

TEST_CASE("a directory a racing creator made first is made durable after AlreadyExists") {
  REQUIRE(failpoint::Enabled());
  DurableDirFixture f;
  std::string path = f.dir.Join("d/a");
  // The racer creates the directory between our look and our mkdir, and
  // has not synced its parent yet when we go on.
  failpoint::ClearAll();
  failpoint::Set(io::kDurablePathsBeforeMkdir, failpoint::Action::kCallback,
                 [&] { return f.fs.CreateDirectory(path); });
  absl::Status created = io::CreateDirectoriesDurably(f.fs, path);
  CHECK(failpoint::HitCount(io::kDurablePathsBeforeMkdir) == 1);
  failpoint::ClearAll();
  LAKE_REQUIRE_OK(created);
  f.fs.Crash();
  CHECK(std::filesystem::is_directory(path));
}

TEST_CASE("a directory removed and made again by another process is synced again") {
  DurableDirFixture f;
  std::string path = f.dir.Join("d/a");
  LAKE_REQUIRE_OK(io::CreateDirectoriesDurably(f.fs, path));
  LAKE_REQUIRE_OK(io::RemoveTree(f.fs, path));
  LAKE_REQUIRE_OK(io::SyncDirectory(f.fs, f.dir.Join("d")));
  LAKE_REQUIRE_OK(f.fs.CreateDirectory(path));  // the other process, not synced
  LAKE_REQUIRE_OK(io::CreateDirectoriesDurably(f.fs, path));
  f.fs.Crash();
  CHECK(std::filesystem::is_directory(path));
}

TEST_CASE("a directory known durable is not synced again") {
  DurableDirFixture f;
  std::string path = f.dir.Join("d/a");
  LAKE_REQUIRE_OK(io::CreateDirectoriesDurably(f.fs, path));
  absl::StatusOr<io::FileInfo> info = f.fs.Stat(path);
  LAKE_REQUIRE_OK(info);
  if (info->birth_unix_nanos == 0) {
    MESSAGE("skipped: this file system records no birth time, so every use syncs");
    return;
  }
  // A new entry in d/ survives the crash only if d/ is synced after it.
  absl::StatusOr<std::unique_ptr<io::File>> marker = f.fs.CreateNew(f.dir.Join("d/marker"), false);
  LAKE_REQUIRE_OK(marker);
  LAKE_REQUIRE_OK((*marker)->Sync());
  for (int i = 0; i < 3; ++i) LAKE_REQUIRE_OK(io::CreateDirectoriesDurably(f.fs, path));
  f.fs.Crash();
  CHECK(std::filesystem::is_directory(path));
  CHECK_FALSE(PathExists(f.dir.Join("d/marker")));
}

}  // namespace
}  // namespace lake::testing
