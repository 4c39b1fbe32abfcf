// An append's records in the table log (table_log_format.h): its
// checkpoint (kind 5) and the withdrawal that settles a checkpoint whose
// append will never commit (kind 6). With versions in the table log, an
// append checkpoint is a record written in the same write, and made
// durable by the same sync, as its version's fragment, reference delta and
// manifest — not a file of its own (append_checkpoint_store.h) with a file
// sync, a rename and a directory sync.
//
// Format note (table log format version 1, kinds 5 and 6).
//
// Kind 5, an append checkpoint. The payload is the bytes a checkpoint file
// holds (append_checkpoint_format.h: magic, format version, operation id,
// table, base version, stage identity, batch and both SHA-256 digests),
// unchanged, so a checkpoint means one thing wherever it is. The record's
// version is the one the append was written for: the checkpoint's
// base_version + 1. The batch is the version's fragment's bytes; the
// fragment record beside it holds them a second time, which costs bytes
// written but no sync (a fragment is named by manifests for as long as
// the version is retained; a checkpoint only until its append settles).
//
// Kind 6, a withdrawal: 64 bytes, integers little-endian.
//
//   offset  bytes  field
//   0       8      magic "LAKEAPWD"
//   8       4      u32 format version (1)
//   12      1      u8 reason: 1 withdrawn (the append failed before its
//                  commit call), 2 discarded (an operator's word),
//                  3 expired (recovery found it past the retention horizon)
//   13      3      zero
//   16      36     the operation id (canonical UUIDv7 text)
//   52      4      zero
//   56      8      u64 the table id
//
// Its record's version is the withdrawn checkpoint's. Its integrity is the
// record's checksum (every record has one, seeded with its segment); the
// payload has no digest of its own.
//
// Kinds 5 and 6 came after kinds 1..4 in the same table log format version:
// a lake that knows only 1..4 fails closed on them (DataLoss by address;
// a writer's scan takes them for a dirty tail and rolls to a new segment),
// so none misreads them.
#ifndef LAKE_ENGINE_TABLE_APPEND_RECORD_FORMAT_H_
#define LAKE_ENGINE_TABLE_APPEND_RECORD_FORMAT_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "engine/table/append_checkpoint_format.h"
#include "engine/table/table_log_format.h"

namespace lake::table {

inline constexpr std::string_view kAppendWithdrawalMagic = "LAKEAPWD";
inline constexpr uint32_t kAppendWithdrawalFormatVersion = 1;
inline constexpr size_t kAppendWithdrawalBytes = 64;

// Why a checkpoint record was withdrawn.
enum class WithdrawalReason : uint8_t {
  kWithdrawn = 1,  // its append failed certainly before its commit call
  kDiscarded = 2,  // an operator discarded it (TableStore::DiscardPendingAppend)
  kExpired = 3,    // recovery found it past the retention horizon
};

struct AppendWithdrawal {
  WithdrawalReason reason = WithdrawalReason::kWithdrawn;
  std::string operation_id;  // canonical UUIDv7 text
  uint64_t table_id = 0;

  bool operator==(const AppendWithdrawal&) const = default;
};

// The payload of a withdrawal record. InvalidArgument when the operation id
// is not canonical or the table id is 0.
absl::StatusOr<std::string> EncodeAppendWithdrawal(const AppendWithdrawal& withdrawal);
// The withdrawal in `payload`; DataLoss unless it is exactly one, as above
// (size, magic, version, a known reason, zero bytes, a canonical operation
// id, a table id of at least 1).
absl::StatusOr<AppendWithdrawal> DecodeAppendWithdrawal(std::string_view payload);

// The checkpoint a kind 5 record holds, checked: DataLoss when the record
// is of another kind, its payload is not a valid checkpoint
// (DecodeAppendCheckpoint), or its version is not the checkpoint's
// base_version + 1.
absl::StatusOr<AppendCheckpoint> DecodeCheckpointRecord(const TableLogRecord& record);
// The withdrawal a kind 6 record holds, checked likewise.
absl::StatusOr<AppendWithdrawal> DecodeWithdrawalRecord(const TableLogRecord& record);

}  // namespace lake::table

#endif  // LAKE_ENGINE_TABLE_APPEND_RECORD_FORMAT_H_
