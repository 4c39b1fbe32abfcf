// The stage descriptor and the root's record of it: canonical text, strict
// parsing, and a persisted format that fails closed.
#include <doctest/doctest.h>

#include "engine/root_stage_record.h"
#include "engine/stage_descriptor.h"
#include "io/posix/posix_file_system.h"
#include "tests/support/status_checks.h"
#include "tests/support/test_files.h"

namespace lake {
namespace {

StageDescriptor S3Descriptor() {
  StageDescriptor d;
  d.kind = StageDescriptor::Kind::kS3;
  d.bucket = "my-bucket";
  d.prefix = "data/set";
  d.region = "eu-west-1";
  d.endpoint = "http://127.0.0.1:7480";
  d.path_style = true;
  return d;
}

TEST_CASE("descriptors have one canonical text (golden)") {
  CHECK(StageDescriptorToJson(StageDescriptor{}) == "{\"version\":1,\"kind\":\"local\"}");
  CHECK(StageDescriptorToJson(S3Descriptor()) ==
        "{\"version\":1,\"kind\":\"s3\",\"bucket\":\"my-bucket\",\"prefix\":\"data/set\","
        "\"region\":\"eu-west-1\",\"endpoint\":\"http://127.0.0.1:7480\",\"path_style\":true}");
}

TEST_CASE("descriptors round-trip in any key order") {
  absl::StatusOr<StageDescriptor> parsed = StageDescriptorFromJson(
      " {\"path_style\":true,\"endpoint\":\"http://127.0.0.1:7480\",\"region\":\"eu-west-1\","
      "\"prefix\":\"/data/set/\",\"bucket\":\"my-bucket\",\"kind\":\"s3\",\"version\":1} ");
  LAKE_REQUIRE_OK(parsed);
  CHECK(*parsed == S3Descriptor());  // the prefix's slashes are trimmed
  CHECK(*StageDescriptorFromJson(StageDescriptorToJson(S3Descriptor())) == S3Descriptor());
}

TEST_CASE("a host descriptor names the host's store by its id, and round-trips") {
  StageDescriptor host;
  host.kind = StageDescriptor::Kind::kHost;
  host.host_id = "warehouse \"7\"";
  std::string text = StageDescriptorToJson(host);
  CHECK(text == "{\"version\":1,\"kind\":\"host\",\"host_id\":\"warehouse \\\"7\\\"\"}");
  absl::StatusOr<StageDescriptor> parsed = StageDescriptorFromJson(text);
  LAKE_REQUIRE_OK(parsed);
  CHECK(*parsed == host);
}

TEST_CASE("a host descriptor refuses an empty, long or control-character id and S3 fields") {
  auto refuse = [](const std::string& text) {
    CAPTURE(text);
    CHECK(absl::IsInvalidArgument(StageDescriptorFromJson(text).status()));
  };
  refuse("{\"version\":1,\"kind\":\"host\"}");
  refuse("{\"version\":1,\"kind\":\"host\",\"host_id\":\"\"}");
  refuse("{\"version\":1,\"kind\":\"host\",\"host_id\":\"" + std::string(129, 'h') + "\"}");
  refuse("{\"version\":1,\"kind\":\"host\",\"host_id\":\"a\\u0001b\"}");
  refuse("{\"version\":1,\"kind\":\"host\",\"host_id\":\"h\",\"bucket\":\"b\"}");
  refuse("{\"version\":1,\"kind\":\"local\",\"host_id\":\"h\"}");
  CHECK(StageDescriptorFromJson("{\"version\":1,\"kind\":\"host\",\"host_id\":\"" +
                                std::string(128, 'h') + "\"}")
            .ok());
}

TEST_CASE("descriptors refuse unknown versions, kinds and keys, and invalid fields") {
  std::string good = StageDescriptorToJson(S3Descriptor());
  auto refuse = [](const std::string& text) {
    CAPTURE(text);
    CHECK(absl::IsInvalidArgument(StageDescriptorFromJson(text).status()));
  };
  refuse("{\"version\":2,\"kind\":\"local\"}");
  refuse("{\"kind\":\"local\"}");
  refuse("{\"version\":1,\"kind\":\"ftp\"}");
  refuse("{\"version\":1,\"kind\":\"local\",\"bucket\":\"b\"}");
  refuse("{\"version\":1,\"version\":1,\"kind\":\"local\"}");
  refuse(good.substr(0, good.size() - 1) + ",\"secret\":\"x\"}");
  std::string bad_bucket = good;
  bad_bucket.replace(bad_bucket.find("my-bucket"), 9, "My_Bucket");
  refuse(bad_bucket);
  std::string bad_prefix = good;
  bad_prefix.replace(bad_prefix.find("data/set"), 8, "data/../x");
  refuse(bad_prefix);
  std::string bad_endpoint = good;
  bad_endpoint.replace(bad_endpoint.find("http://127.0.0.1:7480"), 21, "ftp://x");
  refuse(bad_endpoint);
  refuse("[]");
  refuse("");
}

TEST_CASE("the root's stage record: golden bytes, round trip, and fail-closed reads") {
  std::string record = EncodeRootStageRecord(StageDescriptor{});
  // The digest is `printf '{"version":1,"kind":"local"}' | sha256sum`.
  CHECK(record ==
        "{\"version\":1,\"descriptor\":{\"version\":1,\"kind\":\"local\"},\"sha256\":"
        "\"d499b2afe1a9fb74a37cd68bc3fc9712764449cd5ab7b510c2c2c4fb085a2baa\"}\n");
  LAKE_CHECK_OK(DecodeRootStageRecord(record));
  CHECK(*DecodeRootStageRecord(EncodeRootStageRecord(S3Descriptor())) == S3Descriptor());

  // A changed field, a changed digest, another version, extra keys: refused.
  std::string s3 = EncodeRootStageRecord(S3Descriptor());
  std::string changed = s3;
  changed.replace(changed.find("eu-west-1"), 9, "eu-west-2");
  CHECK(absl::IsDataLoss(DecodeRootStageRecord(changed).status()));
  std::string digest = s3;
  size_t at = digest.find("\"sha256\":\"") + 10;
  digest[at] = digest[at] == 'a' ? 'b' : 'a';
  CHECK(absl::IsDataLoss(DecodeRootStageRecord(digest).status()));
  std::string version = s3;
  version.replace(version.find("\"version\":1"), 11, "\"version\":9");
  CHECK(absl::IsDataLoss(DecodeRootStageRecord(version).status()));
  CHECK(absl::IsDataLoss(DecodeRootStageRecord("{}").status()));
  CHECK(absl::IsDataLoss(DecodeRootStageRecord(s3.substr(0, s3.size() / 2)).status()));
}

TEST_CASE("a root records its descriptor once, durably, and reads it back") {
  testing::TempDir dir;
  io::PosixFileSystem fs;
  absl::StatusOr<std::optional<StageDescriptor>> none = ReadRootStageRecord(fs, dir.path());
  LAKE_REQUIRE_OK(none);
  CHECK_FALSE(none->has_value());
  LAKE_REQUIRE_OK(WriteRootStageRecord(fs, dir.path(), S3Descriptor()));
  CHECK(absl::IsAlreadyExists(WriteRootStageRecord(fs, dir.path(), StageDescriptor{})));
  absl::StatusOr<std::optional<StageDescriptor>> back = ReadRootStageRecord(fs, dir.path());
  LAKE_REQUIRE_OK(back);
  REQUIRE(back->has_value());
  CHECK(**back == S3Descriptor());
  CHECK(testing::FilesUnder(dir.path()) == std::vector<std::string>{"stage.json"});
}

}  // namespace
}  // namespace lake
