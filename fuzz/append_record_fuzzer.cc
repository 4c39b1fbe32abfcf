// Fuzzes the decoders of an append's table log records
// (engine/table/append_record_format.h): the checkpoint record (kind 5,
// self-contained or naming its fragment record: checkpoint format versions
// 1 and 2) and the withdrawal record (kind 6) recovery reads past the
// committed watermark.
//
// The input's first 8 bytes are the record's version (little-endian), the
// rest its payload; shorter inputs are taken as version 0 and a payload.
//
// Properties checked (a violation traps):
//   1. Any input: no crash, leak, ASan or UBSan finding; a refusal is
//      DataLoss.
//   2. An accepted checkpoint record's version is its checkpoint's base
//      version + 1, and the checkpoint encodes back to the payload exactly.
//   3. An accepted withdrawal encodes back to the payload exactly, with a
//      canonical operation id and a table id of at least 1.
//   4. The same payload under the other kind is refused, as DataLoss.
//   5. A version 2 payload that decodes encodes back to it exactly, with
//      its batch empty; resolved against a fragment record that stands
//      just before it (holding kFuzzBatch), it is either refused as
//      DataLoss or is that checkpoint with kFuzzBatch as its batch, whose
//      SHA-256 it names. It never decodes as a self-contained checkpoint.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "engine/sha256.h"
#include "engine/table/append_record_format.h"
#include "fuzz/property_check.h"

namespace {

using lake::fuzz::Check;
using lake::table::TableLogRecord;
using lake::table::TableLogRecordKind;

constexpr std::string_view kFuzzBatch = "the fragment record's payload";

void CheckReference(uint64_t version, std::string_view payload) {
  absl::StatusOr<lake::table::AppendCheckpointReference> reference =
      lake::table::DecodeAppendCheckpointReference(payload);
  lake::table::TableLogAddress at{1, lake::table::kTableLogSegmentHeaderBytes, payload.size()};
  if (reference.ok()) {
    Check(reference->checkpoint.batch.empty());
    absl::StatusOr<std::string> again =
        lake::table::EncodeAppendCheckpointReference(reference->checkpoint, reference->fragment);
    Check(again.ok() && *again == payload);
    at = {reference->fragment.segment,
          reference->fragment.offset +
              lake::table::TableLogRecordBytes(reference->fragment.payload_bytes),
          payload.size()};
  } else {
    Check(absl::IsDataLoss(reference.status()));
  }
  TableLogRecord as_checkpoint{TableLogRecordKind::kAppendCheckpoint, version, payload};
  auto read_fragment = [](const lake::table::TableLogAddress&) -> absl::StatusOr<std::string> {
    return std::string(kFuzzBatch);
  };
  absl::StatusOr<lake::table::AppendCheckpoint> resolved =
      lake::table::DecodeCheckpointRecord(as_checkpoint, at, read_fragment);
  absl::StatusOr<lake::table::AppendCheckpoint> self_contained =
      lake::table::DecodeCheckpointRecord(as_checkpoint);
  if (!lake::table::NamesFragmentRecord(payload)) {
    // Not version 2: read as it is, the reader unused.
    Check(!reference.ok());
    Check(resolved.ok() == self_contained.ok());
    Check(!resolved.ok() || *resolved == *self_contained);
    return;
  }
  Check(absl::IsDataLoss(self_contained.status()));
  if (resolved.ok()) {
    Check(reference.ok() && resolved->base_version + 1 == version);
    Check(resolved->batch == kFuzzBatch && resolved->batch_sha256 == lake::Sha256Hex(kFuzzBatch));
    lake::table::AppendCheckpoint expected = reference->checkpoint;
    expected.batch = std::string(kFuzzBatch);
    Check(*resolved == expected);
  } else {
    Check(absl::IsDataLoss(resolved.status()));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  uint64_t version = 0;
  std::string_view payload = input;
  if (input.size() >= sizeof(version)) {
    std::memcpy(&version, input.data(), sizeof(version));
    payload = input.substr(sizeof(version));
  }

  TableLogRecord as_checkpoint{TableLogRecordKind::kAppendCheckpoint, version, payload};
  absl::StatusOr<lake::table::AppendCheckpoint> checkpoint =
      lake::table::DecodeCheckpointRecord(as_checkpoint);
  if (checkpoint.ok()) {
    Check(checkpoint->base_version + 1 == version);
    absl::StatusOr<std::string> again = lake::table::EncodeAppendCheckpoint(*checkpoint);
    Check(again.ok() && *again == payload);
  } else {
    Check(absl::IsDataLoss(checkpoint.status()));
  }
  Check(absl::IsDataLoss(lake::table::DecodeWithdrawalRecord(as_checkpoint).status()));

  TableLogRecord as_withdrawal{TableLogRecordKind::kAppendWithdrawal, version, payload};
  absl::StatusOr<lake::table::AppendWithdrawal> withdrawal =
      lake::table::DecodeWithdrawalRecord(as_withdrawal);
  if (withdrawal.ok()) {
    Check(withdrawal->table_id >= 1);
    absl::StatusOr<std::string> again = lake::table::EncodeAppendWithdrawal(*withdrawal);
    Check(again.ok() && *again == payload);
  } else {
    Check(absl::IsDataLoss(withdrawal.status()));
  }
  Check(absl::IsDataLoss(lake::table::DecodeCheckpointRecord(as_withdrawal).status()));

  CheckReference(version, payload);
  return 0;
}
