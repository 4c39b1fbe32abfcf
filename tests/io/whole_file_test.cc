// Small files written durably and read whole (io/whole_file.h).
#include "io/whole_file.h"

#include <doctest/doctest.h>

#include <filesystem>
#include <vector>
#include <algorithm>

#include "io/posix/posix_file_system.h"
#include "tests/support/status_checks.h"
#include "tests/support/test_files.h"

namespace lake::io {
namespace {

// A file whose gathering writes stop after `limit` bytes: a short write.
class ShortWrites final : public File {
 public:
  ShortWrites(std::unique_ptr<File> base, size_t limit) : base_(std::move(base)), limit_(limit) {}
  const std::string& path() const override { return base_->path(); }
  int fd() const override { return base_->fd(); }
  bool direct() const override { return false; }
  absl::StatusOr<size_t> PRead(uint8_t* buf, size_t len, uint64_t offset) override {
    return base_->PRead(buf, len, offset);
  }
  absl::StatusOr<size_t> PWrite(const uint8_t* buf, size_t len, uint64_t offset) override {
    return base_->PWrite(buf, std::min(len, limit_), offset);
  }
  absl::StatusOr<size_t> PWriteV(absl::Span<const std::string_view> pieces,
                                 uint64_t offset) override {
    ++calls;
    CHECK(pieces.size() <= kMaxWritePieces);
    std::vector<std::string_view> cut;
    size_t room = limit_;
    for (std::string_view piece : pieces) {
      cut.push_back(piece.substr(0, room));
      room -= cut.back().size();
    }
    return base_->PWriteV(cut, offset);
  }
  absl::StatusOr<size_t> Read(uint8_t* buf, size_t len) override { return base_->Read(buf, len); }
  absl::Status Sync() override { return base_->Sync(); }
  absl::Status Truncate(uint64_t size) override { return base_->Truncate(size); }
  absl::Status Allocate(uint64_t offset, uint64_t len) override {
    return base_->Allocate(offset, len);
  }
  absl::StatusOr<uint64_t> NextUnwritten(uint64_t offset) override {
    return base_->NextUnwritten(offset);
  }
  absl::StatusOr<FileInfo> Stat() override { return base_->Stat(); }
  absl::StatusOr<bool> TryLockExclusive() override { return base_->TryLockExclusive(); }
  absl::Status LockExclusive() override { return base_->LockExclusive(); }
  absl::Status LockShared() override { return base_->LockShared(); }
  absl::Status Close() override { return base_->Close(); }
  int calls = 0;

 private:
  std::unique_ptr<File> base_;
  size_t limit_;
};

TEST_CASE("pieces are written back to back, through short writes and past the piece limit") {
  testing::TempDir dir;
  PosixFileSystem fs;
  // Pieces of 0..4 bytes, more of them than one write takes.
  std::vector<std::string> owned;
  std::string expected = "head:";
  for (size_t i = 0; i < kMaxWritePieces + 300; ++i) {
    owned.push_back(std::string(i % 5, static_cast<char>('a' + i % 26)));
    expected += owned.back();
  }
  std::vector<std::string_view> pieces(owned.begin(), owned.end());
  for (size_t limit : {size_t{7}, size_t{1} << 20}) {
    CAPTURE(limit);
    const std::string path = dir.Join("pieces-" + std::to_string(limit));
    absl::StatusOr<std::unique_ptr<File>> created = fs.CreateNew(path, false);
    LAKE_REQUIRE_OK(created);
    ShortWrites file(std::move(*created), limit);
    LAKE_REQUIRE_OK(WriteFullyAt(file, "head:", 0));
    LAKE_REQUIRE_OK(WriteFullyAt(file, pieces, 5));
    LAKE_REQUIRE_OK(file.Close());
    absl::StatusOr<std::string> back = ReadWholeFile(fs, path, expected.size());
    LAKE_REQUIRE_OK(back);
    CHECK(*back == expected);
    CHECK(file.calls >= (limit == 7 ? static_cast<int>(expected.size() / 7) : 2));
  }
}

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
