// The payloads of an append's table log records (append_record_format.h):
// golden bytes of a withdrawal, and the decoders' refusals.
#include <doctest/doctest.h>

#include <string>

#include "engine/sha256.h"
#include "engine/stage_descriptor.h"
#include "engine/table/append_record_format.h"
#include "tests/support/status_checks.h"

namespace lake::table {
namespace {

constexpr char kOperation[] = "0190a1b2-c3d4-7e5f-8a6b-1c2d3e4f5a6b";

std::string GoldenWithdrawal() {
  std::string bytes("LAKEAPWD", 8);
  bytes += std::string("\x01\x00\x00\x00", 4);  // format version 1
  bytes += std::string("\x02\x00\x00\x00", 4);  // reason 2 (discarded), zeros
  bytes += kOperation;
  bytes += std::string(4, '\0');
  bytes += std::string("\x07\x00\x00\x00\x00\x00\x00\x00", 8);  // table id 7
  return bytes;
}

AppendCheckpoint ValidCheckpoint() {
  AppendCheckpoint c;
  c.operation_id = kOperation;
  c.table_name = "robots.episodes";
  c.table_id = 7;
  c.base_version = 3;
  c.stage_identity = StageDescriptorToJson(StageDescriptor{});
  c.batch = "batch bytes";
  c.batch_sha256 = Sha256Hex(c.batch);
  return c;
}

TEST_CASE("append withdrawal: encodes to its golden bytes and decodes back") {
  AppendWithdrawal w{WithdrawalReason::kDiscarded, kOperation, 7};
  absl::StatusOr<std::string> bytes = EncodeAppendWithdrawal(w);
  LAKE_REQUIRE_OK(bytes);
  CHECK(*bytes == GoldenWithdrawal());
  CHECK(bytes->size() == kAppendWithdrawalBytes);
  absl::StatusOr<AppendWithdrawal> back = DecodeAppendWithdrawal(*bytes);
  LAKE_REQUIRE_OK(back);
  CHECK(*back == w);
}

TEST_CASE("append withdrawal: the decoder refuses every malformed payload as DataLoss") {
  const std::string good = GoldenWithdrawal();
  auto refused = [](const std::string& bytes) {
    return absl::IsDataLoss(DecodeAppendWithdrawal(bytes).status());
  };
  CHECK(refused(good.substr(0, 63)));
  CHECK(refused(good + '\0'));
  std::string bad = good;
  bad[0] = 'X';  // magic
  CHECK(refused(bad));
  bad = good;
  bad[8] = 2;  // format version
  CHECK(refused(bad));
  for (char reason : {'\0', '\x04', '\xff'}) {
    bad = good;
    bad[12] = reason;
    CHECK(refused(bad));
  }
  bad = good;
  bad[13] = 1;  // padding after the reason
  CHECK(refused(bad));
  bad = good;
  bad[52] = 1;  // padding after the operation id
  CHECK(refused(bad));
  bad = good;
  bad[16] = 'G';  // not an operation id
  CHECK(refused(bad));
  bad = good;
  bad.replace(56, 8, std::string(8, '\0'));  // table id 0
  CHECK(refused(bad));
}

TEST_CASE("append withdrawal: the encoder refuses what would not decode") {
  CHECK(absl::IsInvalidArgument(
      EncodeAppendWithdrawal({WithdrawalReason::kWithdrawn, "not-an-id", 7}).status()));
  CHECK(absl::IsInvalidArgument(
      EncodeAppendWithdrawal({WithdrawalReason::kWithdrawn, kOperation, 0}).status()));
}

TEST_CASE("append checkpoint record: holds a checkpoint file's bytes, of its base version + 1") {
  absl::StatusOr<std::string> payload = EncodeAppendCheckpoint(ValidCheckpoint());
  LAKE_REQUIRE_OK(payload);
  TableLogRecord record{TableLogRecordKind::kAppendCheckpoint, 4, *payload};
  absl::StatusOr<AppendCheckpoint> decoded = DecodeCheckpointRecord(record);
  LAKE_REQUIRE_OK(decoded);
  CHECK(*decoded == ValidCheckpoint());
}

TEST_CASE("append checkpoint record: another version, another kind or damaged bytes are DataLoss") {
  absl::StatusOr<std::string> payload = EncodeAppendCheckpoint(ValidCheckpoint());
  LAKE_REQUIRE_OK(payload);
  CHECK(absl::IsDataLoss(
      DecodeCheckpointRecord({TableLogRecordKind::kAppendCheckpoint, 3, *payload}).status()));
  CHECK(absl::IsDataLoss(
      DecodeCheckpointRecord({TableLogRecordKind::kFragment, 4, *payload}).status()));
  std::string damaged = *payload;
  damaged[damaged.size() / 2] ^= 1;
  CHECK(absl::IsDataLoss(
      DecodeCheckpointRecord({TableLogRecordKind::kAppendCheckpoint, 4, damaged}).status()));
  CHECK(absl::IsDataLoss(
      DecodeWithdrawalRecord({TableLogRecordKind::kAppendCheckpoint, 4, GoldenWithdrawal()})
          .status()));
}

}  // namespace
}  // namespace lake::table
