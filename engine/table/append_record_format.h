// An append's records in the table log (table_log_format.h): its
// checkpoint (kind 5: holding its batch, or naming the fragment record that
// holds it) and the withdrawal that settles a checkpoint whose append will
// never commit (kind 6). With versions in the table log, an append
// checkpoint is a record written in the same write, and made durable by
// the same sync, as its version's fragment, reference delta and manifest —
// not a file of its own (append_checkpoint_store.h) with a file sync, a
// rename and a directory sync.
//
// Format note (table log format version 1, kinds 5 and 6).
//
// Kind 5, an append checkpoint, in one of two forms told apart by the
// checkpoint format version after the magic. The record's version is the
// one the append was written for: the checkpoint's base_version + 1.
//
// Format version 1, self-contained: the bytes a checkpoint file holds
// (append_checkpoint_format.h: magic, format version, operation id, table,
// base version, stage identity, batch and both SHA-256 digests), unchanged,
// so it means one thing wherever it is. Every checkpoint copied away from
// its append's write — carried past a later commit's watermark, kept after
// an unknown commit outcome (logged_checkpoints.h, TableStore) — is written
// so. Lakes before format version 2 wrote an append's own checkpoint this
// way too, its batch a second copy of the fragment record beside it.
//
// Format version 2, naming its batch: every field of version 1 but the
// batch and the trailing digest, and instead the address of the fragment
// record (kind 2) holding the batch, written in the same write just before
// it. An append's batch is its fragment's bytes; version 1 wrote them twice
// (a 1,000-row batch: ~50 KB each) and hashed them twice more on the commit
// path (the encoder's check of batch_sha256 and the trailing digest).
// Version 2 is a few hundred bytes (202 with a local stage) and hashes
// nothing: batch_sha256 is the digest the append computed anyway (and the
// registry's operation record holds). Measured (bench/tables, 1,000-row
// batches, beside derived reference deltas): table log bytes per batch
// 101,928 -> 51,589; an insert's instructions under callgrind (which
// hides SHA-NI, so hashing weighs more there) -25 %.
// Integers little-endian, lengths in bytes:
//
//   magic           8 bytes        "LAKEAPCK"
//   format_version  u32            2
//   operation_id    u32 length +   as in append_checkpoint_format.h
//                   bytes
//   table_name      u32 length +   likewise
//                   bytes
//   table_id        u64
//   base_version    u64
//   stage_identity  u32 length +   likewise
//                   bytes
//   fragment        3 x u64        the fragment record's address: segment,
//                                  offset of its header, payload bytes
//                                  (the batch's size: 1..64 MiB)
//   batch_sha256    64 bytes       lowercase hex SHA-256 of the batch
//
// Nothing follows. Its integrity is the record's checksum (no digest of its
// own, as kind 6). A reader resolves it into the checkpoint version 1 would
// hold: the named record must lie in the same segment, wholly before this
// record, and be a valid fragment record whose payload's SHA-256 is
// batch_sha256; else the checkpoint is DataLoss naming both records.
//
// Why the fragment first: a version's records are one write, and after a
// power loss any subset of its pages may survive; a log's records end at
// the first invalid one (table_log_format.h), so a version 2 checkpoint is
// only ever read when every record before it in its segment — its fragment
// among them — is whole. A torn write leaves no checkpoint naming a lost
// fragment. Readers need not care where an append's checkpoint sits among
// its version's records: they find checkpoints by kind, past the committed
// watermark, and the manifest (last) still names every other record.
//
// Why a checkpoint format version inside kind 5, not a new record kind: a
// lake that knows only the checkpoint's format version 1 must fail closed
// on it without losing sight of the records after it. A kind it does not
// know ends its scan of the segment (a scan cannot tell it from a torn
// tail), so such a lake would miss a later withdrawal in that segment and
// could replay an append that was withdrawn or discarded. A version 2 payload in kind 5 is, to an
// older lake, a damaged checkpoint (DecodeAppendCheckpoint: unknown format
// version 2): listed as stuck, never replayed, and the collector refuses to
// plan around it — while its scan goes on. The checkpoint file format
// (append_checkpoint_store.h) never holds version 2: a file cannot name a
// log record, and DecodeAppendCheckpoint refuses it.
//
// Kind 6, a withdrawal: 64 bytes, integers little-endian.
//
//   offset  bytes  field
//   0       8      magic "LAKEAPWD"
//   8       4      u32 format version (1)
//   12      1      u8 reason: 1 withdrawn (the append failed before its
//                  commit call), 2 discarded (an operator's word),
//                  3 expired (recovery found it past the retention horizon),
//                  4 settled (recovery found its operation committed)
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

#include "absl/functional/function_ref.h"
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
  kSettled = 4,    // recovery found its operation committed
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

// The kind 5 payload naming its batch's fragment record (above).
inline constexpr uint32_t kAppendCheckpointReferenceFormatVersion = 2;

// A version 2 checkpoint payload decoded: the checkpoint without its batch
// (`batch` empty, `batch_sha256` set), and where the batch is.
struct AppendCheckpointReference {
  AppendCheckpoint checkpoint;
  TableLogAddress fragment;  // payload_bytes is the batch's size

  bool operator==(const AppendCheckpointReference&) const = default;
};

// Whether a kind 5 payload is of format version 2 (its magic, then 2):
// one that names its fragment record. Checks nothing else.
bool NamesFragmentRecord(std::string_view payload);
// The size of the version 2 payload naming `checkpoint`'s batch (any
// address).
uint64_t AppendCheckpointReferenceBytes(const AppendCheckpoint& checkpoint);
// The version 2 payload of `checkpoint` whose batch is the payload of the
// fragment record at `fragment`. Neither reads nor hashes the batch:
// batch_sha256 is trusted to be its digest (a reader checks it).
// InvalidArgument when a field would not decode
// (AppendCheckpointIdentityProblem, batch_sha256 not 64 lowercase hex
// digits, an address that is no record's, a batch over
// kMaxCheckpointedBatchBytes).
absl::StatusOr<std::string> EncodeAppendCheckpointReference(const AppendCheckpoint& checkpoint,
                                                            const TableLogAddress& fragment);
// The version 2 payload `payload`, checked as far as it goes alone (layout
// above; every field validates); DataLoss otherwise.
absl::StatusOr<AppendCheckpointReference> DecodeAppendCheckpointReference(
    std::string_view payload);

// The self-contained checkpoint a kind 5 record holds (format version 1),
// checked: DataLoss when the record is of another kind, its payload is not
// a valid checkpoint (DecodeAppendCheckpoint; a version 2 payload is not:
// it needs its fragment record), or its version is not the checkpoint's
// base_version + 1.
absl::StatusOr<AppendCheckpoint> DecodeCheckpointRecord(const TableLogRecord& record);

// Reads the payload of the fragment record at an address of the same
// table's log (ReadTablePath with kind kFragment).
using FragmentRecordReader =
    absl::FunctionRef<absl::StatusOr<std::string>(const TableLogAddress& fragment)>;
// The checkpoint a kind 5 record at `address` holds, of either form.
// Version 1 as above; version 2 resolved, its batch read through
// `read_fragment`: DataLoss, naming the record and the fragment record,
// when the payload does not decode, the version is not base_version + 1,
// the fragment record is not in the record's segment wholly before it,
// reading it fails with DataLoss (missing, damaged, another kind), or its
// SHA-256 is not batch_sha256. Another read failure (an I/O error) is
// returned with both names, its code kept: it says nothing of the record.
absl::StatusOr<AppendCheckpoint> DecodeCheckpointRecord(const TableLogRecord& record,
                                                        const TableLogAddress& address,
                                                        FragmentRecordReader read_fragment);
// The withdrawal a kind 6 record holds, checked likewise.
absl::StatusOr<AppendWithdrawal> DecodeWithdrawalRecord(const TableLogRecord& record);

}  // namespace lake::table

#endif  // LAKE_ENGINE_TABLE_APPEND_RECORD_FORMAT_H_
