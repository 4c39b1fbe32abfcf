// A futex word in a file (io/posix/file_futex.h): every mapping of a file
// shares one counter, and a bump in one process wakes a waiter in another.
#include "io/posix/file_futex.h"

#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/support/status_checks.h"
#include "tests/support/test_files.h"

namespace lake::io {
namespace {

std::unique_ptr<FileFutex> OpenOrFail(const std::string& path) {
  absl::StatusOr<std::unique_ptr<FileFutex>> opened = FileFutex::Open(path);
  LAKE_REQUIRE_OK(opened);
  return std::move(*opened);
}

TEST_CASE("file futex: a new file's counter starts at zero and the file holds its 4 bytes") {
  testing::TempDir dir;
  std::unique_ptr<FileFutex> futex = OpenOrFail(dir.Join("word"));
  CHECK(futex->Load() == 0);
  CHECK(std::filesystem::file_size(dir.Join("word")) == 4);
}

TEST_CASE("file futex: two mappings of one file share the counter") {
  testing::TempDir dir;
  std::unique_ptr<FileFutex> one = OpenOrFail(dir.Join("word"));
  std::unique_ptr<FileFutex> other = OpenOrFail(dir.Join("word"));
  one->Bump();
  one->Bump();
  CHECK(other->Load() == 2);
  other->Bump();
  CHECK(one->Load() == 3);
}

TEST_CASE("file futex: an empty file is extended; a longer file keeps its other bytes") {
  testing::TempDir dir;
  std::ofstream(dir.Join("empty")).flush();
  OpenOrFail(dir.Join("empty"))->Bump();
  CHECK(std::filesystem::file_size(dir.Join("empty")) == 4);
  std::ofstream(dir.Join("long"), std::ios::binary) << std::string(4, '\0') << "tail";
  OpenOrFail(dir.Join("long"))->Bump();
  std::ifstream in(dir.Join("long"), std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(bytes.size() == 8);
  CHECK(bytes.substr(4) == "tail");
}

TEST_CASE("file futex: a file in a missing directory is NotFound") {
  testing::TempDir dir;
  CHECK(absl::IsNotFound(FileFutex::Open(dir.Join("missing/word")).status()));
}

TEST_CASE("file futex: a wait on a changed counter or past its timeout returns") {
  testing::TempDir dir;
  std::unique_ptr<FileFutex> futex = OpenOrFail(dir.Join("word"));
  futex->Bump();
  futex->WaitWhile(0, absl::Hours(1));  // 1 != 0: returns at once
  futex->WaitWhile(1, absl::Milliseconds(1));
  futex->WaitWhile(1, absl::ZeroDuration());
  CHECK(futex->Load() == 1);
}

TEST_CASE("file futex: a bump in one process wakes a waiter in another") {
  testing::TempDir dir;
  std::unique_ptr<FileFutex> futex = OpenOrFail(dir.Join("word"));
  int ready[2];
  REQUIRE(::pipe(ready) == 0);
  pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    // Its own mapping. Woken by the bump it exits 0; only its timeout
    // (a minute: far longer than a wake-up takes) makes it exit 3.
    absl::StatusOr<std::unique_ptr<FileFutex>> mine = FileFutex::Open(dir.Join("word"));
    if (!mine.ok()) ::_exit(1);
    if (::write(ready[1], "r", 1) != 1) ::_exit(2);
    const absl::Time timeout_at = absl::Now() + absl::Minutes(1);
    while ((*mine)->Load() == 0 && absl::Now() < timeout_at) {
      (*mine)->WaitWhile(0, timeout_at - absl::Now());
    }
    ::_exit(absl::Now() < timeout_at ? 0 : 3);
  }
  ::close(ready[1]);
  char byte;
  REQUIRE(::read(ready[0], &byte, 1) == 1);
  ::close(ready[0]);
  futex->Bump();
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}

}  // namespace
}  // namespace lake::io
