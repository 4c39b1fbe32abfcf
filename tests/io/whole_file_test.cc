// Small files written durably and read whole (io/whole_file.h).
#include "io/whole_file.h"

#include <doctest/doctest.h>

#include <filesystem>

#include "io/posix/posix_file_system.h"
#include "tests/support/status_checks.h"
#include "tests/support/test_files.h"

namespace lake::io {
namespace {

TEST_CASE("a whole file is written through its temporary name and read back") {
  testing::TempDir dir;
  PosixFileSystem fs;
  bool published = false;
  LAKE_REQUIRE_OK(WriteWholeFileDurably(fs, dir.Join("f"), dir.Join(".f.tmp"), "hello", &published));
  CHECK(published);
  CHECK(testing::FilesUnder(dir.path()) == std::vector<std::string>{"f"});
  absl::StatusOr<std::string> back = ReadWholeFile(fs, dir.Join("f"), 5);
  LAKE_REQUIRE_OK(back);
  CHECK(*back == "hello");
  LAKE_REQUIRE_OK(WriteWholeFileDurably(fs, dir.Join("empty"), dir.Join(".e.tmp"), ""));
  CHECK(*ReadWholeFile(fs, dir.Join("empty"), 0) == "");
}

TEST_CASE("a whole-file write never replaces a file and leaves no temporary") {
  testing::TempDir dir;
  PosixFileSystem fs;
  LAKE_REQUIRE_OK(WriteWholeFileDurably(fs, dir.Join("f"), dir.Join(".f.tmp"), "one"));
  bool published = true;
  absl::Status status =
      WriteWholeFileDurably(fs, dir.Join("f"), dir.Join(".f.tmp"), "two", &published);
  CHECK(absl::IsAlreadyExists(status));
  CHECK_FALSE(published);
  CHECK(*ReadWholeFile(fs, dir.Join("f"), 100) == "one");
  CHECK(testing::FilesUnder(dir.path()) == std::vector<std::string>{"f"});
}

TEST_CASE("a whole-file write leaves an existing temporary alone") {
  testing::TempDir dir;
  PosixFileSystem fs;
  testing::WriteFile(dir.Join(".f.tmp"), {1, 2});
  CHECK(absl::IsAlreadyExists(WriteWholeFileDurably(fs, dir.Join("f"), dir.Join(".f.tmp"), "x")));
  CHECK(testing::ReadFile(dir.Join(".f.tmp")) == std::vector<uint8_t>{1, 2});
  CHECK_FALSE(testing::PathExists(dir.Join("f")));
}

TEST_CASE("a whole-file read refuses a file over its ceiling and reports a missing one") {
  testing::TempDir dir;
  PosixFileSystem fs;
  testing::WriteFile(dir.Join("f"), testing::RandomBytes(10'000, 1));
  CHECK(ReadWholeFile(fs, dir.Join("f"), 10'000)->size() == 10'000);
  absl::Status status = ReadWholeFile(fs, dir.Join("f"), 9'999).status();
  CHECK(absl::IsDataLoss(status));
  CHECK(std::string(status.message()).find("9999") != std::string::npos);
  CHECK(absl::IsNotFound(ReadWholeFile(fs, dir.Join("missing"), 10).status()));
}

}  // namespace
}  // namespace lake::io
