// The test-only fault-injecting file system keeps only what was made
// durable. These tests prove it can catch a missing fsync, so the crash
// tests that rely on it can fail.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>

#include "io/durable_paths.h"
#include "io/posix/posix_file_system.h"
#include "tests/support/fault_injection_file_system.h"
#include "tests/support/status_checks.h"
#include "tests/support/test_files.h"

namespace lake::testing {
namespace {

struct FaultFixture {
  FaultFixture() : fs(base, dir.Join("backups")) {
    std::filesystem::create_directory(dir.Join("backups"));
    std::filesystem::create_directory(dir.Join("d"));
  }
  // Writes bytes to a new file; syncs its data only when asked.
  void Write(const std::string& path, const std::vector<uint8_t>& bytes, bool sync) {
    absl::StatusOr<std::unique_ptr<io::File>> file = fs.CreateNew(path, false);
    LAKE_REQUIRE_OK(file);
    LAKE_REQUIRE_OK((*file)->PWrite(bytes.data(), bytes.size(), 0));
    if (sync) LAKE_REQUIRE_OK((*file)->Sync());
  }
  TempDir dir;
  io::PosixFileSystem base;
  FaultInjectionFileSystem fs;
};

TEST_CASE("a file whose directory was never synced disappears at a crash") {
  FaultFixture f;
  f.Write(f.dir.Join("d/x"), {1, 2, 3}, /*sync=*/true);
  f.fs.Crash();
  CHECK_FALSE(PathExists(f.dir.Join("d/x")));
}

TEST_CASE("unsynced data is dropped even when the name is durable") {
  FaultFixture f;
  f.Write(f.dir.Join("d/x"), {1, 2, 3}, /*sync=*/false);
  LAKE_REQUIRE_OK(io::SyncDirectory(f.fs, f.dir.Join("d")));
  f.fs.Crash();
  REQUIRE(PathExists(f.dir.Join("d/x")));
  CHECK(ReadFile(f.dir.Join("d/x")).empty());
}

TEST_CASE("synced data under a synced name survives") {
  FaultFixture f;
  std::vector<uint8_t> bytes = RandomBytes(10000, 1);
  f.Write(f.dir.Join("d/x"), bytes, /*sync=*/true);
  LAKE_REQUIRE_OK(io::SyncDirectory(f.fs, f.dir.Join("d")));
  f.fs.Crash();
  CHECK(ReadFile(f.dir.Join("d/x")) == bytes);
}

TEST_CASE("unsynced overwrites of synced bytes are undone, newest first; synced ones stay") {
  FaultFixture f;
  std::string path = f.dir.Join("d/x");
  std::vector<uint8_t> zeros(8192, 0);
  f.Write(path, zeros, /*sync=*/true);
  LAKE_REQUIRE_OK(io::SyncDirectory(f.fs, f.dir.Join("d")));
  absl::StatusOr<std::unique_ptr<io::File>> file = f.fs.OpenForRewrite(path);
  LAKE_REQUIRE_OK(file);
  std::vector<uint8_t> kept(100, 7);
  LAKE_REQUIRE_OK((*file)->PWrite(kept.data(), kept.size(), 0));
  LAKE_REQUIRE_OK((*file)->Sync());
  // Two overlapping unsynced writes inside the synced size, and one past it.
  std::vector<uint8_t> first(300, 8), second(200, 9), tail(50, 10);
  LAKE_REQUIRE_OK((*file)->PWrite(first.data(), first.size(), 100));
  LAKE_REQUIRE_OK((*file)->PWrite(second.data(), second.size(), 250));
  LAKE_REQUIRE_OK((*file)->PWrite(tail.data(), tail.size(), 8192));
  f.fs.Crash();
  std::vector<uint8_t> want = zeros;
  std::fill(want.begin(), want.begin() + 100, 7);
  CHECK(ReadFile(path) == want);
}

TEST_CASE("a torn crash keeps or loses each unsynced page whole, later ones surviving earlier") {
  // Eight synced pages of zeros, then unsynced writes over all of them and
  // four pages past the synced size.
  constexpr size_t kPage = 4096;
  bool later_survived_earlier = false;
  for (uint64_t seed = 1; seed <= 16; ++seed) {
    CAPTURE(seed);
    FaultFixture f;
    std::string path = f.dir.Join("d/x");
    f.Write(path, std::vector<uint8_t>(8 * kPage, 0), /*sync=*/true);
    LAKE_REQUIRE_OK(io::SyncDirectory(f.fs, f.dir.Join("d")));
    absl::StatusOr<std::unique_ptr<io::File>> file = f.fs.OpenForRewrite(path);
    LAKE_REQUIRE_OK(file);
    LAKE_REQUIRE_OK((*file)->Sync());  // a rewrite is scribbled over until synced
    std::vector<uint8_t> written = RandomBytes(12 * kPage, seed);
    LAKE_REQUIRE_OK((*file)->PWrite(written.data(), written.size(), 0));
    f.fs.CrashTorn(seed);
    std::vector<uint8_t> after = ReadFile(path);
    REQUIRE(after.size() >= 8 * kPage);
    REQUIRE(after.size() <= written.size());
    REQUIRE(after.size() % kPage == 0);
    std::vector<bool> survived;
    for (size_t page = 0; page < after.size() / kPage; ++page) {
      auto begin = after.begin() + static_cast<ptrdiff_t>(page * kPage);
      bool is_new = std::equal(begin, begin + kPage,
                               written.begin() + static_cast<ptrdiff_t>(page * kPage));
      bool is_zero = std::all_of(begin, begin + kPage, [](uint8_t b) { return b == 0; });
      CHECK(is_new != is_zero);  // whole pages: new bytes or none
      survived.push_back(is_new);
    }
    // The file ends after a page past the synced size that survived.
    if (after.size() > 8 * kPage) CHECK(survived.back());
    for (size_t page = 1; page < survived.size(); ++page) {
      if (survived[page] && !survived[page - 1]) later_survived_earlier = true;
    }
  }
  // The point of the mode: some seed keeps a page while losing one before it.
  CHECK(later_survived_earlier);
}

TEST_CASE("a rename not made durable is undone; a durable one stays") {
  FaultFixture f;
  std::filesystem::create_directory(f.dir.Join("e"));
  std::vector<uint8_t> bytes = RandomBytes(100, 2);
  f.Write(f.dir.Join("d/a"), bytes, true);
  f.Write(f.dir.Join("d/b"), bytes, true);
  LAKE_REQUIRE_OK(io::SyncDirectory(f.fs, f.dir.Join("d")));
  LAKE_REQUIRE_OK(f.fs.RenameNoReplace(f.dir.Join("d/a"), f.dir.Join("e/a")));
  LAKE_REQUIRE_OK(f.fs.RenameNoReplace(f.dir.Join("d/b"), f.dir.Join("d/b2")));
  LAKE_REQUIRE_OK(io::SyncDirectory(f.fs, f.dir.Join("e")));
  f.fs.Crash();
  CHECK(ReadFile(f.dir.Join("e/a")) == bytes);
  CHECK(PathExists(f.dir.Join("d/b")));
  CHECK_FALSE(PathExists(f.dir.Join("d/b2")));
}

TEST_CASE("an unsynced removal is undone") {
  FaultFixture f;
  std::vector<uint8_t> bytes = RandomBytes(100, 3);
  f.Write(f.dir.Join("d/x"), bytes, true);
  LAKE_REQUIRE_OK(io::SyncDirectory(f.fs, f.dir.Join("d")));
  LAKE_REQUIRE_OK(f.fs.Remove(f.dir.Join("d/x")));
  CHECK_FALSE(PathExists(f.dir.Join("d/x")));
  f.fs.Crash();
  CHECK(ReadFile(f.dir.Join("d/x")) == bytes);
}

TEST_CASE("a rewrite not synced is scribbled over at a crash; a synced one stays") {
  FaultFixture f;
  std::string path = f.dir.Join("d/spare");
  f.Write(path, {1, 2, 3, 4}, /*sync=*/true);
  LAKE_REQUIRE_OK(io::SyncParentDirectory(f.fs, path));
  {
    absl::StatusOr<std::unique_ptr<io::File>> file = f.fs.OpenForRewrite(path);
    LAKE_REQUIRE_OK(file);
    const uint8_t bytes[] = {9, 9};
    LAKE_REQUIRE_OK((*file)->PWrite(bytes, 2, 0));
  }
  std::string synced = f.dir.Join("d/synced");
  f.Write(synced, {5, 6}, /*sync=*/true);
  LAKE_REQUIRE_OK(io::SyncParentDirectory(f.fs, synced));
  {
    absl::StatusOr<std::unique_ptr<io::File>> file = f.fs.OpenForRewrite(synced);
    LAKE_REQUIRE_OK(file);
    const uint8_t bytes[] = {7, 7, 7};
    LAKE_REQUIRE_OK((*file)->PWrite(bytes, 3, 0));
    LAKE_REQUIRE_OK((*file)->Sync());
  }
  CHECK(absl::IsNotFound(f.fs.OpenForRewrite(f.dir.Join("d/absent")).status()));
  f.fs.Crash();
  // Neither the old bytes nor the new: nothing a reader may rely on.
  CHECK(ReadFile(path) == std::vector<uint8_t>{0xEE, 0xEE, 0xEE, 0xEE});
  CHECK(ReadFile(synced) == std::vector<uint8_t>{7, 7, 7});
}

TEST_CASE("after the crash every operation fails") {
  FaultFixture f;
  absl::StatusOr<std::unique_ptr<io::File>> file = f.fs.CreateNew(f.dir.Join("d/x"), false);
  LAKE_REQUIRE_OK(file);
  f.fs.Crash();
  uint8_t byte = 1;
  CHECK_FALSE((*file)->PWrite(&byte, 1, 0).ok());
  CHECK_FALSE((*file)->Sync().ok());
  CHECK_FALSE(f.fs.CreateNew(f.dir.Join("d/y"), false).ok());
  CHECK_FALSE(f.fs.RenameNoReplace(f.dir.Join("d/x"), f.dir.Join("d/z")).ok());
}

}  // namespace
}  // namespace lake::testing
