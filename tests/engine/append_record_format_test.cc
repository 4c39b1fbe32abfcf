// The payloads of an append's table log records (append_record_format.h):
// golden bytes of a withdrawal, a checkpoint naming its fragment record
// (format version 2) resolved against that record, and the decoders'
// refusals.
#include <doctest/doctest.h>

#include <functional>
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
  for (char reason : {'\0', '\x05', '\xff'}) {
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

// ---- format version 2: a checkpoint naming its batch's fragment record ----

// The checkpoint record at kReferenceAt names the fragment record at
// kFragmentAt, just before it in segment 2.
constexpr TableLogAddress kFragmentAt{2, 4096, 11};  // "batch bytes"
constexpr TableLogAddress kReferenceAt{2, 4096 + kTableLogRecordHeaderBytes + 11, 300};

std::string ReferencePayload() {
  absl::StatusOr<std::string> payload =
      EncodeAppendCheckpointReference(ValidCheckpoint(), kFragmentAt);
  LAKE_CHECK_OK(payload);
  return payload.ok() ? *payload : "";
}

// A reader of one fragment record, holding `bytes`, at kFragmentAt.
struct OneFragment {
  std::string bytes = ValidCheckpoint().batch;
  absl::Status failure = absl::OkStatus();
  int reads = 0;
  absl::StatusOr<std::string> operator()(const TableLogAddress& at) {
    ++reads;
    if (!failure.ok()) return failure;
    if (at != kFragmentAt) return absl::DataLossError("no fragment record there");
    return bytes;
  }
};

absl::StatusOr<AppendCheckpoint> DecodeReference(std::string_view payload, OneFragment& reader,
                                                 uint64_t version = 4,
                                                 TableLogAddress at = kReferenceAt) {
  TableLogRecord record{TableLogRecordKind::kAppendCheckpoint, version, payload};
  return DecodeCheckpointRecord(record, at, std::ref(reader));
}

TEST_CASE("append checkpoint reference: round-trips, its batch read from the fragment record") {
  const std::string payload = ReferencePayload();
  CHECK(payload.size() == AppendCheckpointReferenceBytes(ValidCheckpoint()));
  CHECK(payload.find("batch bytes") == std::string::npos);  // named, not held
  absl::StatusOr<AppendCheckpointReference> reference = DecodeAppendCheckpointReference(payload);
  LAKE_REQUIRE_OK(reference);
  CHECK(reference->fragment == kFragmentAt);
  CHECK(reference->checkpoint.batch.empty());
  OneFragment reader;
  absl::StatusOr<AppendCheckpoint> decoded = DecodeReference(payload, reader);
  LAKE_REQUIRE_OK(decoded);
  CHECK(*decoded == ValidCheckpoint());
  CHECK(reader.reads == 1);
}

TEST_CASE("append checkpoint reference: the encoder hashes nothing and refuses what would not decode") {
  AppendCheckpoint c = ValidCheckpoint();
  c.batch = "other bytes: the digest is trusted, the reader checks it";
  CHECK(EncodeAppendCheckpointReference(c, kFragmentAt).ok());
  c = ValidCheckpoint();
  c.batch_sha256 = "not hex";
  CHECK(absl::IsInvalidArgument(EncodeAppendCheckpointReference(c, kFragmentAt).status()));
  c = ValidCheckpoint();
  c.operation_id = "not-an-id";
  CHECK(absl::IsInvalidArgument(EncodeAppendCheckpointReference(c, kFragmentAt).status()));
  CHECK(absl::IsInvalidArgument(
      EncodeAppendCheckpointReference(ValidCheckpoint(), {0, 4096, 11}).status()));
  CHECK(absl::IsInvalidArgument(
      EncodeAppendCheckpointReference(ValidCheckpoint(), {2, 8, 11}).status()));
  CHECK(absl::IsInvalidArgument(
      EncodeAppendCheckpointReference(ValidCheckpoint(), {2, 4096, 0}).status()));
  CHECK(absl::IsInvalidArgument(
      EncodeAppendCheckpointReference(ValidCheckpoint(),
                                      {2, 4096, kMaxCheckpointedBatchBytes + 1})
          .status()));
}

TEST_CASE("append checkpoint reference: a malformed payload is DataLoss without reading the fragment") {
  const std::string good = ReferencePayload();
  OneFragment reader;
  auto refused = [&](const std::string& bytes) {
    return absl::IsDataLoss(DecodeAppendCheckpointReference(bytes).status()) &&
           absl::IsDataLoss(DecodeReference(bytes, reader).status());
  };
  CHECK(refused(good.substr(0, good.size() - 1)));
  CHECK(refused(good + '\0'));
  std::string bad = good;
  bad[0] = 'X';  // magic
  CHECK(refused(bad));
  for (char version : {'\x01', '\x03'}) {
    bad = good;
    bad[8] = version;  // format version: 1 is a self-contained one's
    CHECK(refused(bad));
  }
  bad = good;
  bad[16] = 'G';  // the operation id's first character
  CHECK(refused(bad));
  bad = good;
  bad[bad.size() - 1] = 'G';  // the batch digest's last hex digit
  CHECK(refused(bad));
  CHECK(reader.reads == 0);
}

TEST_CASE("append checkpoint reference: a fragment record not matching its digest is DataLoss naming both records") {
  OneFragment reader;
  reader.bytes = "batch bytez";  // same size, other bytes
  absl::Status s = DecodeReference(ReferencePayload(), reader).status();
  CHECK(absl::IsDataLoss(s));
  CHECK(s.message().find(FormatTableLogAddress(kReferenceAt)) != std::string_view::npos);
  CHECK(s.message().find(FormatTableLogAddress(kFragmentAt)) != std::string_view::npos);
  CHECK(s.message().find("SHA-256") != std::string_view::npos);
}

// The decode of ReferencePayload() when reading its fragment fails with `failure`.
absl::Status DecodeWhenReadFails(absl::Status failure) {
  OneFragment reader;
  reader.failure = std::move(failure);
  absl::Status s = DecodeReference(ReferencePayload(), reader).status();
  CHECK(s.message().find(FormatTableLogAddress(kReferenceAt)) != std::string_view::npos);
  return s;
}

TEST_CASE("append checkpoint reference: an unreadable fragment record is DataLoss naming the record") {
  CHECK(absl::IsDataLoss(DecodeWhenReadFails(absl::DataLossError("table log record is damaged"))));
}

TEST_CASE("append checkpoint reference: an I/O error reading the fragment keeps its code") {
  CHECK(absl::IsUnavailable(DecodeWhenReadFails(absl::UnavailableError("the disk went away"))));
}

TEST_CASE("append checkpoint reference: a fragment record not before it in its segment is DataLoss") {
  OneFragment reader;
  // In another segment.
  CHECK(absl::IsDataLoss(
      DecodeReference(ReferencePayload(), reader, 4, {3, kReferenceAt.offset, 300}).status()));
  // Overlapping the checkpoint record: it would not end before it.
  CHECK(absl::IsDataLoss(
      DecodeReference(ReferencePayload(), reader, 4, {2, kReferenceAt.offset - 1, 300}).status()));
  // After it.
  CHECK(absl::IsDataLoss(DecodeReference(ReferencePayload(), reader, 4, {2, 100, 300}).status()));
  CHECK(reader.reads == 0);
}

TEST_CASE("append checkpoint reference: a record of another version than base + 1 is DataLoss") {
  OneFragment reader;
  CHECK(absl::IsDataLoss(DecodeReference(ReferencePayload(), reader, 3).status()));
}

TEST_CASE("append checkpoint record: the resolving decoder reads a self-contained checkpoint as it is, without the reader") {
  absl::StatusOr<std::string> payload = EncodeAppendCheckpoint(ValidCheckpoint());
  LAKE_REQUIRE_OK(payload);
  CHECK_FALSE(NamesFragmentRecord(*payload));
  OneFragment reader;
  absl::StatusOr<AppendCheckpoint> decoded = DecodeCheckpointRecord(
      {TableLogRecordKind::kAppendCheckpoint, 4, *payload}, kReferenceAt, std::ref(reader));
  LAKE_REQUIRE_OK(decoded);
  CHECK(*decoded == ValidCheckpoint());
  CHECK(reader.reads == 0);
}

TEST_CASE("append checkpoint reference: is format version 2 of the checkpoint magic, which a file reader refuses as DataLoss") {
  const std::string payload = ReferencePayload();
  CHECK(NamesFragmentRecord(payload));
  CHECK(payload.substr(0, 8) == "LAKEAPCK");
  CHECK(payload.substr(8, 4) == std::string("\x02\x00\x00\x00", 4));
  // What a lake before version 2 (or the checkpoint file store) does with
  // it: a damaged checkpoint, never a checkpoint without its batch.
  CHECK(absl::IsDataLoss(DecodeAppendCheckpoint(payload).status()));
  CHECK(absl::IsDataLoss(
      DecodeCheckpointRecord({TableLogRecordKind::kAppendCheckpoint, 4, payload}).status()));
}

}  // namespace
}  // namespace lake::table
