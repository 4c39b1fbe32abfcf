#include "engine/table/append_record_format.h"

#include "absl/strings/str_cat.h"
#include "engine/operation_id.h"
#include "engine/sha256.h"
#include "engine/table/byte_codec.h"

namespace lake::table {
namespace {

absl::Status BadWithdrawal(std::string_view why) {
  return absl::DataLossError(absl::StrCat("append withdrawal record: ", std::string(why)));
}

bool KnownReason(uint8_t reason) {
  return reason >= static_cast<uint8_t>(WithdrawalReason::kWithdrawn) &&
         reason <= static_cast<uint8_t>(WithdrawalReason::kSettled);
}

absl::Status CheckKind(const TableLogRecord& record, TableLogRecordKind kind,
                       std::string_view what) {
  if (record.kind == kind) return absl::OkStatus();
  return absl::DataLossError(absl::StrCat("table log record of kind ",
                                          static_cast<int>(record.kind), " is not an append ",
                                          std::string(what)));
}

absl::Status BadReference(std::string_view why) {
  return absl::DataLossError(
      absl::StrCat("append checkpoint record (format version 2): ", std::string(why)));
}

constexpr size_t kSha256HexBytes = 64;

// What makes a version 2 payload's fields other than the checkpoint's
// identity unwritable (or, read back, damaged); empty if nothing.
std::string ReferenceProblem(const AppendCheckpointReference& r) {
  if (std::optional<std::string> problem = AppendCheckpointIdentityProblem(r.checkpoint)) {
    return *problem;
  }
  if (!Sha256FromHex(r.checkpoint.batch_sha256).has_value()) {
    return "batch_sha256 is not 64 lowercase hex digits";
  }
  if (r.fragment.segment == 0 || r.fragment.offset < kTableLogSegmentHeaderBytes) {
    return absl::StrCat("the fragment address ", FormatTableLogAddress(r.fragment),
                        " is no record's");
  }
  if (r.fragment.payload_bytes == 0 || r.fragment.payload_bytes > kMaxCheckpointedBatchBytes) {
    return absl::StrCat("a batch of ", r.fragment.payload_bytes, " bytes (1..",
                        kMaxCheckpointedBatchBytes, ")");
  }
  return "";
}

}  // namespace

bool NamesFragmentRecord(std::string_view payload) {
  ByteReader r(payload);
  std::string_view magic;
  uint32_t version = 0;
  return r.Bytes(kAppendCheckpointMagic.size(), &magic) && magic == kAppendCheckpointMagic &&
         r.U32(&version) && version == kAppendCheckpointReferenceFormatVersion;
}

uint64_t AppendCheckpointReferenceBytes(const AppendCheckpoint& c) {
  return kAppendCheckpointMagic.size() + 4 + (4 + c.operation_id.size()) +
         (4 + c.table_name.size()) + 8 + 8 + (4 + c.stage_identity.size()) + 3 * 8 +
         kSha256HexBytes;
}

absl::StatusOr<std::string> EncodeAppendCheckpointReference(const AppendCheckpoint& checkpoint,
                                                            const TableLogAddress& fragment) {
  AppendCheckpointReference reference{checkpoint, fragment};
  reference.checkpoint.batch.clear();
  if (std::string problem = ReferenceProblem(reference); !problem.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("append checkpoint (format version 2): ", problem));
  }
  const AppendCheckpoint& c = checkpoint;
  std::string out;
  out.reserve(AppendCheckpointReferenceBytes(c));
  ByteWriter w(&out);
  w.Bytes(kAppendCheckpointMagic);
  w.U32(kAppendCheckpointReferenceFormatVersion);
  w.U32(static_cast<uint32_t>(c.operation_id.size()));
  w.Bytes(c.operation_id);
  w.U32(static_cast<uint32_t>(c.table_name.size()));
  w.Bytes(c.table_name);
  w.U64(c.table_id);
  w.U64(c.base_version);
  w.U32(static_cast<uint32_t>(c.stage_identity.size()));
  w.Bytes(c.stage_identity);
  w.U64(fragment.segment);
  w.U64(fragment.offset);
  w.U64(fragment.payload_bytes);
  w.Bytes(c.batch_sha256);
  return out;
}

absl::StatusOr<AppendCheckpointReference> DecodeAppendCheckpointReference(
    std::string_view payload) {
  ByteReader r(payload);
  std::string_view magic;
  uint32_t version = 0;
  if (!r.Bytes(kAppendCheckpointMagic.size(), &magic) || magic != kAppendCheckpointMagic) {
    return BadReference("bad magic");
  }
  if (!r.U32(&version)) return BadReference("truncated");
  if (version != kAppendCheckpointReferenceFormatVersion) {
    return BadReference(absl::StrCat("format version ", version, ", not ",
                                     kAppendCheckpointReferenceFormatVersion));
  }
  // A length-prefixed field of at most `max` bytes.
  auto field = [&r](size_t max, std::string_view* out) {
    uint32_t n = 0;
    return r.U32(&n) && n <= max && r.Bytes(n, out);
  };
  AppendCheckpointReference out;
  AppendCheckpoint& c = out.checkpoint;
  std::string_view operation_id, table_name, stage_identity, batch_sha256;
  if (!field(kOperationIdLength, &operation_id) ||
      !field(kMaxCheckpointTableNameBytes, &table_name) || !r.U64(&c.table_id) ||
      !r.U64(&c.base_version) || !field(kMaxStageIdentityBytes, &stage_identity) ||
      !r.U64(&out.fragment.segment) || !r.U64(&out.fragment.offset) ||
      !r.U64(&out.fragment.payload_bytes) || !r.Bytes(kSha256HexBytes, &batch_sha256)) {
    return BadReference("a field is truncated or longer than its bound");
  }
  if (r.remaining() != 0) return BadReference("bytes follow the batch's digest");
  c.operation_id = std::string(operation_id);
  c.table_name = std::string(table_name);
  c.stage_identity = std::string(stage_identity);
  c.batch_sha256 = std::string(batch_sha256);
  if (std::string problem = ReferenceProblem(out); !problem.empty()) return BadReference(problem);
  return out;
}

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

absl::StatusOr<AppendCheckpoint> DecodeCheckpointRecord(const TableLogRecord& record,
                                                        const TableLogAddress& address,
                                                        FragmentRecordReader read_fragment) {
  if (record.kind != TableLogRecordKind::kAppendCheckpoint ||
      !NamesFragmentRecord(record.payload)) {
    return DecodeCheckpointRecord(record);
  }
  const std::string name = FormatTableLogAddress(address);
  auto damaged = [&](std::string_view why) {
    return absl::DataLossError(
        absl::StrCat("append checkpoint record ", name, ": ", std::string(why)));
  };
  absl::StatusOr<AppendCheckpointReference> reference =
      DecodeAppendCheckpointReference(record.payload);
  if (!reference.ok()) return damaged(std::string(reference.status().message()));
  AppendCheckpoint& c = reference->checkpoint;
  if (c.base_version + 1 != record.version) {
    return damaged(absl::StrCat("of version ", record.version,
                                ", holds a checkpoint on base version ", c.base_version));
  }
  const TableLogAddress& fragment = reference->fragment;
  const std::string fragment_name = FormatTableLogAddress(fragment);
  if (fragment.segment != address.segment ||
      fragment.offset > address.offset ||
      TableLogRecordBytes(fragment.payload_bytes) > address.offset - fragment.offset) {
    return damaged(absl::StrCat("names the fragment record ", fragment_name,
                                ", not one before it in its segment"));
  }
  absl::StatusOr<std::string> batch = read_fragment(fragment);
  if (!batch.ok()) {
    std::string why = absl::StrCat("its fragment record ", fragment_name,
                                   " cannot be read: ", batch.status().message());
    if (absl::IsDataLoss(batch.status())) return damaged(why);
    return absl::Status(batch.status().code(),
                        absl::StrCat("append checkpoint record ", name, ": ", why));
  }
  if (batch->size() != fragment.payload_bytes) {
    return damaged(absl::StrCat("its fragment record ", fragment_name, " holds ", batch->size(),
                                " bytes"));
  }
  if (Sha256Hex(*batch) != c.batch_sha256) {
    return damaged(absl::StrCat("its fragment record ", fragment_name,
                                " is not the batch it names (SHA-256 mismatch)"));
  }
  c.batch = *std::move(batch);
  return std::move(c);
}

absl::StatusOr<AppendWithdrawal> DecodeWithdrawalRecord(const TableLogRecord& record) {
  if (absl::Status s = CheckKind(record, TableLogRecordKind::kAppendWithdrawal, "withdrawal");
      !s.ok()) {
    return s;
  }
  return DecodeAppendWithdrawal(record.payload);
}

}  // namespace lake::table
