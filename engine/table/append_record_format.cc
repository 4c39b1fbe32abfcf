#include "engine/table/append_record_format.h"

#include "absl/strings/str_cat.h"
#include "engine/operation_id.h"
#include "engine/table/byte_codec.h"

namespace lake::table {
namespace {

absl::Status BadWithdrawal(std::string_view why) {
  return absl::DataLossError(absl::StrCat("append withdrawal record: ", std::string(why)));
}

bool KnownReason(uint8_t reason) {
  return reason >= static_cast<uint8_t>(WithdrawalReason::kWithdrawn) &&
         reason <= static_cast<uint8_t>(WithdrawalReason::kExpired);
}

absl::Status CheckKind(const TableLogRecord& record, TableLogRecordKind kind,
                       std::string_view what) {
  if (record.kind == kind) return absl::OkStatus();
  return absl::DataLossError(absl::StrCat("table log record of kind ",
                                          static_cast<int>(record.kind), " is not an append ",
                                          std::string(what)));
}

}  // namespace

absl::StatusOr<std::string> EncodeAppendWithdrawal(const AppendWithdrawal& withdrawal) {
  if (!ParseOperationId(withdrawal.operation_id).ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("withdrawal: not an operation id: ", withdrawal.operation_id));
  }
  if (withdrawal.table_id == 0) return absl::InvalidArgumentError("withdrawal: table id 0");
  if (!KnownReason(static_cast<uint8_t>(withdrawal.reason))) {
    return absl::InvalidArgumentError("withdrawal: unknown reason");
  }
  std::string out;
  out.reserve(kAppendWithdrawalBytes);
  ByteWriter w(&out);
  w.Bytes(kAppendWithdrawalMagic);
  w.U32(kAppendWithdrawalFormatVersion);
  w.U8(static_cast<uint8_t>(withdrawal.reason));
  w.Bytes(std::string_view("\0\0\0", 3));
  w.Bytes(withdrawal.operation_id);
  w.U32(0);
  w.U64(withdrawal.table_id);
  return out;
}

absl::StatusOr<AppendWithdrawal> DecodeAppendWithdrawal(std::string_view payload) {
  if (payload.size() != kAppendWithdrawalBytes) {
    return BadWithdrawal(absl::StrCat(payload.size(), " bytes, not ", kAppendWithdrawalBytes));
  }
  ByteReader r(payload);
  std::string_view magic, pad3, id;
  uint32_t version = 0, pad4 = 0;
  uint8_t reason = 0;
  AppendWithdrawal out;
  // The size is checked above: every read succeeds.
  (void)(r.Bytes(kAppendWithdrawalMagic.size(), &magic) && r.U32(&version) && r.U8(&reason) &&
         r.Bytes(3, &pad3) && r.Bytes(kOperationIdLength, &id) && r.U32(&pad4) &&
         r.U64(&out.table_id));
  if (magic != kAppendWithdrawalMagic) return BadWithdrawal("bad magic");
  if (version != kAppendWithdrawalFormatVersion) {
    return BadWithdrawal(absl::StrCat("unknown format version ", version));
  }
  if (!KnownReason(reason)) return BadWithdrawal(absl::StrCat("unknown reason ", reason));
  if (pad3 != std::string_view("\0\0\0", 3) || pad4 != 0) return BadWithdrawal("nonzero padding");
  if (!ParseOperationId(id).ok()) return BadWithdrawal("not an operation id");
  if (out.table_id == 0) return BadWithdrawal("table id 0");
  out.reason = static_cast<WithdrawalReason>(reason);
  out.operation_id = std::string(id);
  return out;
}

absl::StatusOr<AppendCheckpoint> DecodeCheckpointRecord(const TableLogRecord& record) {
  if (absl::Status s = CheckKind(record, TableLogRecordKind::kAppendCheckpoint, "checkpoint");
      !s.ok()) {
    return s;
  }
  absl::StatusOr<AppendCheckpoint> checkpoint = DecodeAppendCheckpoint(record.payload);
  if (!checkpoint.ok()) return checkpoint.status();
  if (checkpoint->base_version + 1 != record.version) {
    return absl::DataLossError(absl::StrCat("append checkpoint record of version ", record.version,
                                            " holds a checkpoint on base version ",
                                            checkpoint->base_version));
  }
  return checkpoint;
}

absl::StatusOr<AppendWithdrawal> DecodeWithdrawalRecord(const TableLogRecord& record) {
  if (absl::Status s = CheckKind(record, TableLogRecordKind::kAppendWithdrawal, "withdrawal");
      !s.ok()) {
    return s;
  }
  return DecodeAppendWithdrawal(record.payload);
}

}  // namespace lake::table
