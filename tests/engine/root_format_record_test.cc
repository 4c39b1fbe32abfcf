// The root's format record: golden bytes, strict reads, and refusal of a
// layout this lake does not know.
#include <doctest/doctest.h>

#include <fstream>

#include "engine/root_format_record.h"
#include "io/posix/posix_file_system.h"
#include "tests/support/status_checks.h"
#include "tests/support/test_files.h"

namespace lake {
namespace {

// `printf 'lake_root_format=1' | sha256sum`
constexpr char kVersion1Record[] =
    "{\"lake_root_format\":1,\"sha256\":"
    "\"1a9a3fca77bf385ebb5f3308f03842694586fd1eeee2e1517a4e255779c6c739\"}\n";
// `printf 'lake_root_format=2' | sha256sum`
constexpr char kVersion2Record[] =
    "{\"lake_root_format\":2,\"sha256\":"
    "\"e4764586bc60d7448d7f6029ee1d3477576804ae78d435da58f4da7ef3b98663\"}\n";

TEST_CASE("the root format record of version 1 has fixed bytes and decodes back") {
  CHECK(EncodeRootFormatRecord(1) == kVersion1Record);
  absl::StatusOr<int64_t> version = DecodeRootFormatRecord(kVersion1Record);
  LAKE_REQUIRE_OK(version);
  CHECK(*version == 1);
  CHECK(kRootFormatVersion == 1);
}

TEST_CASE("a damaged root format record is refused as DataLoss") {
  std::string digit = kVersion1Record;
  digit.replace(digit.find(":1,"), 3, ":3,");  // a damaged digit, digest kept
  std::string digest = kVersion1Record;
  digest[digest.find("\"1a9a") + 1] = '2';
  for (const std::string& text : std::vector<std::string>{
           digit, digest, "", "{}", "[]", "1",
           "{\"lake_root_format\":1}",
           "{\"lake_root_format\":\"1\",\"sha256\":\"x\"}",
           "{\"lake_root_format\":0,\"sha256\":\"x\"}",
           "{\"lake_root_format\":-1,\"sha256\":\"x\"}",
           "{\"lake_root_format\":1.5,\"sha256\":\"x\"}",
           std::string(kVersion1Record).substr(0, 40),
           std::string(kVersion1Record) + "{}",
           "{\"lake_root_format\":1,\"sha256\":\"1a9a3fca77bf385ebb5f3308f03842694586fd1eeee2e151"
           "7a4e255779c6c739\",\"extra\":1}",
           std::string(kMaxRootFormatRecordBytes + 1, ' ')}) {
    CAPTURE(text);
    CHECK(absl::IsDataLoss(DecodeRootFormatRecord(text).status()));
  }
}

TEST_CASE("a newer root format is decoded, then refused as unsupported naming both versions") {
  absl::StatusOr<int64_t> version = DecodeRootFormatRecord(kVersion2Record);
  LAKE_REQUIRE_OK(version);
  CHECK(*version == 2);
  absl::Status refused = CheckRootFormatVersion(*version);
  CHECK(absl::IsUnimplemented(refused));
  CHECK(refused.message() ==
        "this root is in lake root format version 2; this lake reads versions up to 1: "
        "open it with a newer lake");
  LAKE_CHECK_OK(CheckRootFormatVersion(1));
}

TEST_CASE("a root without a format record passes the check and gets none from it") {
  testing::TempDir dir;
  io::PosixFileSystem fs;
  absl::StatusOr<std::optional<int64_t>> none = ReadRootFormatRecord(fs, dir.path());
  LAKE_REQUIRE_OK(none);
  CHECK_FALSE(none->has_value());
  LAKE_CHECK_OK(CheckRootFormat(fs, dir.path()));
  CHECK(testing::FilesUnder(dir.path()).empty());
}

TEST_CASE("a new root's format record is written once; a racing known record is accepted") {
  testing::TempDir dir;
  io::PosixFileSystem fs;
  LAKE_REQUIRE_OK(WriteRootFormatRecord(fs, dir.path()));
  CHECK(testing::FilesUnder(dir.path()) == std::vector<std::string>{"format.json"});
  LAKE_CHECK_OK(WriteRootFormatRecord(fs, dir.path()));  // as a racing first open
  absl::StatusOr<std::optional<int64_t>> back = ReadRootFormatRecord(fs, dir.path());
  LAKE_REQUIRE_OK(back);
  REQUIRE(back->has_value());
  CHECK(**back == kRootFormatVersion);
}

TEST_CASE("a racing record of an unknown version is refused, not overwritten") {
  testing::TempDir dir;
  io::PosixFileSystem fs;
  std::ofstream(dir.Join("format.json")) << kVersion2Record;
  CHECK(absl::IsUnimplemented(WriteRootFormatRecord(fs, dir.path())));
  CHECK(absl::IsUnimplemented(CheckRootFormat(fs, dir.path())));
  std::ifstream in(dir.Join("format.json"));
  std::string kept((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(kept == kVersion2Record);
}

}  // namespace
}  // namespace lake
