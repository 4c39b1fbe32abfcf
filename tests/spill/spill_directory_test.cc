// SpillDirectory (spill/spill_directory.h): a spill's scratch directory is
// removed by its owner, or — when its process died — by the next sweep,
// which leaves live operations' directories alone.
#include <doctest/doctest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "base/failpoint.h"
#include "io/posix/posix_file_system.h"
#include "spill/spill_directory.h"
#include "spill/spill_sorter.h"
#include "tests/support/fault_injection_file_system.h"
#include "tests/support/status_checks.h"
#include "tests/support/test_files.h"

namespace lake::spill {
namespace {

std::vector<std::string> Names(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

void ExpectKilled(pid_t pid) {
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGKILL);
}

// A child process that makes the spill directory `path` with a file in
// it, tells the parent through a pipe, and waits to be killed: a live
// operation while it waits, an abandoned one once it is killed.
pid_t HoldInChild(const std::string& path) {
  int ready[2];
  REQUIRE(::pipe(ready) == 0);
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::close(ready[0]);
    io::PosixFileSystem fs;
    absl::StatusOr<std::unique_ptr<SpillDirectory>> dir = SpillDirectory::Create(fs, path);
    if (!dir.ok()) ::_exit(10);
    testing::WriteFile((*dir)->NewFilePath("run"), {1, 2, 3});
    char byte = 1;
    if (::write(ready[1], &byte, 1) != 1) ::_exit(11);
    for (;;) ::pause();
  }
  ::close(ready[1]);
  char byte = 0;
  REQUIRE(::read(ready[0], &byte, 1) == 1);
  ::close(ready[0]);
  return pid;
}

TEST_CASE("a spill directory and its lock file go away with their owner") {
  testing::TempDir tmp;
  io::PosixFileSystem fs;
  const std::string path = SpillDirectoryPath(tmp.Join("gc/tmp"), "run-a");
  {
    absl::StatusOr<std::unique_ptr<SpillDirectory>> dir = SpillDirectory::Create(fs, path);
    LAKE_REQUIRE_OK(dir);
    testing::WriteFile((*dir)->NewFilePath("run"), {1});
    CHECK(Names(tmp.Join("gc/tmp")) == std::vector<std::string>{"lake-spill.run-a", "lake-spill.run-a.lock"});
  }
  CHECK(Names(tmp.Join("gc/tmp")).empty());
}

TEST_CASE("a sweep removes the directory of a dead process and leaves a live one") {
  testing::TempDir tmp;
  io::PosixFileSystem fs;
  const std::string parent = tmp.Join("gc/tmp");
  pid_t dead = HoldInChild(SpillDirectoryPath(parent, "dead"));
  pid_t live = HoldInChild(SpillDirectoryPath(parent, "live"));
  ::kill(dead, SIGKILL);
  ExpectKilled(dead);
  CHECK(Names(parent) == std::vector<std::string>{"lake-spill.dead", "lake-spill.dead.lock", "lake-spill.live", "lake-spill.live.lock"});

  LAKE_REQUIRE_OK(RemoveAbandonedSpillDirectories(fs, parent));
  CHECK(Names(parent) == std::vector<std::string>{"lake-spill.live", "lake-spill.live.lock"});
  CHECK(testing::FilesUnder(SpillDirectoryPath(parent, "live")).size() == 1);

  ::kill(live, SIGKILL);
  ExpectKilled(live);
  LAKE_REQUIRE_OK(RemoveAbandonedSpillDirectories(fs, parent));
  CHECK(Names(parent).empty());
}

TEST_CASE("a sweep leaves the directories this process holds") {
  testing::TempDir tmp;
  io::PosixFileSystem fs;
  absl::StatusOr<std::unique_ptr<SpillDirectory>> mine =
      SpillDirectory::Create(fs, SpillDirectoryPath(tmp.Join("gc/tmp"), "mine"));
  LAKE_REQUIRE_OK(mine);
  LAKE_REQUIRE_OK(RemoveAbandonedSpillDirectories(fs, tmp.Join("gc/tmp")));
  CHECK(Names(tmp.Join("gc/tmp")) == std::vector<std::string>{"lake-spill.mine", "lake-spill.mine.lock"});
}

TEST_CASE("a sweep removes directories without a lock file and lock files without a directory") {
  testing::TempDir tmp;
  io::PosixFileSystem fs;
  const std::string parent = tmp.Join("gc/tmp");
  std::filesystem::create_directories(SpillDirectoryPath(parent, "unlocked") + "/deep");
  testing::WriteFile(SpillDirectoryPath(parent, "unlocked") + "/deep/run-000001", {1});
  testing::WriteFile(SpillLockPath(SpillDirectoryPath(parent, "orphan")), {});
  LAKE_REQUIRE_OK(RemoveAbandonedSpillDirectories(fs, parent));
  CHECK(Names(parent).empty());
}

TEST_CASE("a sweep touches nothing in its directory but lake's spill names") {
  testing::TempDir tmp;
  io::PosixFileSystem fs;
  // A directory the user chose, shared with others: every entry below
  // looks abandoned by the sweep's rules, and none is lake's.
  const std::string parent = tmp.Join("shared-tmp");
  std::filesystem::create_directories(parent + "/precious/inner");
  testing::WriteFile(parent + "/precious/inner/file", {1});
  testing::WriteFile(parent + "/orphan.lock", {});
  std::filesystem::create_directories(parent + "/other");
  testing::WriteFile(parent + "/other.lock", {});
  std::filesystem::create_directories(parent + "/lake-spill");  // no dot: not a spill name
  testing::WriteFile(parent + "/lake-spill..lock", {});         // names no spill directory
  std::filesystem::create_directories(parent + "/lake-spill.");
  testing::WriteFile(parent + "/not-ours", {1});
  pid_t dead = HoldInChild(SpillDirectoryPath(parent, "dead"));
  ::kill(dead, SIGKILL);
  ExpectKilled(dead);
  const std::vector<std::string> users = {"lake-spill",  "lake-spill.", "lake-spill..lock",
                                          "not-ours",    "orphan.lock", "other",
                                          "other.lock",  "precious"};
  LAKE_REQUIRE_OK(RemoveAbandonedSpillDirectories(fs, parent));
  CHECK(Names(parent) == users);  // the dead spill went, nothing else
  absl::StatusOr<std::unique_ptr<SpillDirectory>> mine =
      SpillDirectory::Create(fs, SpillDirectoryPath(parent, "mine"));
  LAKE_REQUIRE_OK(mine);
  LAKE_REQUIRE_OK((*mine)->Remove());
  CHECK(Names(parent) == users);
  CHECK(testing::FilesUnder(parent + "/precious").size() == 1);
}

TEST_CASE("a spill directory whose name is not a spill name is refused") {
  testing::TempDir tmp;
  io::PosixFileSystem fs;
  for (std::string name : {"run-a", "lake-spill.", "lake-spill.x.lock", "lake-spillx"}) {
    CAPTURE(name);
    CHECK(absl::IsInvalidArgument(SpillDirectory::Create(fs, tmp.Join(name)).status()));
  }
  CHECK(Names(tmp.path()).empty());
}

TEST_CASE("creating a spill directory sweeps the abandoned ones beside it") {
  testing::TempDir tmp;
  io::PosixFileSystem fs;
  const std::string parent = tmp.Join("gc/tmp");
  pid_t dead = HoldInChild(SpillDirectoryPath(parent, "dead"));
  ::kill(dead, SIGKILL);
  ExpectKilled(dead);
  absl::StatusOr<std::unique_ptr<SpillDirectory>> next =
      SpillDirectory::Create(fs, SpillDirectoryPath(parent, "next"));
  LAKE_REQUIRE_OK(next);
  CHECK(Names(parent) == std::vector<std::string>{"lake-spill.next", "lake-spill.next.lock"});
}

TEST_CASE("a sort killed at any step leaves a directory the next sort removes") {
  REQUIRE(failpoint::Enabled());
  SpillOptions options;
  options.block_bytes = kMinBlockBytes;
  options.max_fan_in = 2;
  for (std::string_view step : kSpillFailpoints) {
    CAPTURE(std::string(step));
    testing::TempDir tmp;
    const std::string parent = tmp.Join("gc/tmp");
    pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      failpoint::ClearAll();
      failpoint::Set(step, failpoint::Action::kKill);
      io::PosixFileSystem fs;
      SpillBudget budget(512 << 10);
      absl::StatusOr<std::unique_ptr<SpillSorter>> sorter =
          SpillSorter::Create(fs, SpillDirectoryPath(parent, "killed"), budget, options);
      if (!sorter.ok()) ::_exit(10);
      for (int i = 0; i < 40000; ++i) {
        if (!(*sorter)->Add("s3://bucket/key-" + std::to_string(i * 7919 % 40000)).ok()) {
          ::_exit(11);
        }
      }
      (void)(*sorter)->Finish();
      ::_exit(12);  // the failpoint should have killed us
    }
    ExpectKilled(pid);
    CHECK(Names(parent) == std::vector<std::string>{"lake-spill.killed", "lake-spill.killed.lock"});
    CHECK_FALSE(testing::FilesUnder(SpillDirectoryPath(parent, "killed")).empty());

    io::PosixFileSystem fs;
    SpillBudget budget(512 << 10);
    absl::StatusOr<std::unique_ptr<SpillSorter>> next =
        SpillSorter::Create(fs, SpillDirectoryPath(parent, "next"), budget, options);
    LAKE_REQUIRE_OK(next);
    CHECK(Names(parent) == std::vector<std::string>{"lake-spill.next", "lake-spill.next.lock"});
  }
}

TEST_CASE("after a power loss mid-sort the next sweep leaves nothing behind") {
  REQUIRE(failpoint::Enabled());
  testing::TempDir tmp;
  std::filesystem::create_directory(tmp.Join("backups"));
  io::PosixFileSystem base;
  const std::string parent = tmp.Join("gc/tmp");
  {
    testing::FaultInjectionFileSystem fs(base, tmp.Join("backups"));
    SpillOptions options;
    options.block_bytes = kMinBlockBytes;
    options.max_fan_in = 2;
    SpillBudget budget(512 << 10);
    absl::StatusOr<std::unique_ptr<SpillSorter>> sorter =
        SpillSorter::Create(fs, SpillDirectoryPath(parent, "crashed"), budget, options);
    LAKE_REQUIRE_OK(sorter);
    for (int i = 0; i < 40000; ++i) {
      LAKE_REQUIRE_OK((*sorter)->Add("s3://bucket/key-" + std::to_string(i * 7919 % 40000)));
    }
    failpoint::Set("spill.merge_pass_written", failpoint::Action::kCallback, [&fs] {
      fs.CrashTorn(5);
      return absl::OkStatus();
    });
    absl::StatusOr<std::unique_ptr<SortedRecords>> sorted = (*sorter)->Finish();
    failpoint::ClearAll();
    CHECK_FALSE(sorted.ok());  // the crashed file system fails every call
  }
  // Whatever the power loss kept, the next sweep removes.
  LAKE_REQUIRE_OK(RemoveAbandonedSpillDirectories(base, parent));
  CHECK(Names(parent).empty());
}

}  // namespace
}  // namespace lake::spill
