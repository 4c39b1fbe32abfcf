// The table log: append-only, preallocated segment files of a table
// holding a version's small files as checksummed records, so that the
// version needs one fdatasync of one file already there instead of a file
// sync, a rename and a directory sync per file (table_log.h writes them).
//
// Format note (table log format version 1). Integers are little-endian.
//
// A segment is <table>/_log/<segment number: 20 decimal digits>.seg,
// numbered from 1, preallocated (zeros) to at least kTableLogSegmentBytes:
//
//   offset  bytes  field
//   0       8      magic "LAKETLOG"
//   8       4      u32 format version (1)
//   12      4      zero
//   16      8      u64 segment number (its file name's)
//   24      8      u64 XXH3-64 of bytes [0, 24)
//   32      ...    records, back to back
//
// A record:
//
//   0       4      magic "LKTR"
//   4       1      u8 kind: the bytes the file of that kind would hold
//                    1 = a deletion vector (deletion_vector_format.h)
//                    2 = a fragment (fragment_format.h)
//                    3 = a reference delta (reference_delta_format.h)
//                    4 = a manifest (manifest_format.h)
//                    5 = an append checkpoint (append_record_format.h)
//                    6 = an append checkpoint's withdrawal (likewise)
//   5       3      zero
//   8       8      u64 the table version it was written for (>= 1)
//   16      8      u64 payload bytes (1..kMaxTableLogPayloadBytes)
//   24      8      u64 XXH3-64, seeded with the segment number, of bytes
//                  [0, 24) followed by the payload
//   32      n      payload
//
// A record is named by its address, a table path (manifest_format.h's
// ValidateTablePath) standing where a file's path stood:
//
//   _log/<segment: 20 digits>.seg/<offset: 20 digits>.<payload bytes: 20 digits>
//
// A reader reads exactly the record the address names and fails closed
// (DataLoss) unless its header is whole, its kind is known, its length is
// the address's and its checksum matches: a record is never found by
// scanning. The manifest that names an address also records the payload's
// SHA-256, checked after.
//
// The records of a segment end at the first bytes that are not a valid
// record (ScanTableLogRecords): the zeros of the preallocation, or the torn
// tail of a write no sync covered. Only the writer scans, to find where to
// append; records past the last committed version are never named by any
// manifest, so they are never read as data (a later write may overwrite
// them, table_log.h).
//
// The seed binds a record to its segment: bytes copied from another
// segment never pass as one of its records.
//
// Kinds 2..4 came after kind 1 in the same format version: a reader that
// knows only kind 1 fails closed on them (an unknown kind is DataLoss, by
// address and in a scan, where a writer treats it as a dirty tail and
// rolls to a new segment), so no reader can misread one and the segment
// format stays version 1.
//
// A version's records are written in one write (table_log.h), so they
// share one segment, in this order:
// - its fragments;
// - an append's checkpoint, naming the append's fragment record just
//   before it (append_record_format.h says why it comes after);
// - its reference delta (an append's names its fragment record:
//   derived_reference_delta_format.h);
// - its manifest, which names the others by address (the registry's
//   version record names the manifest);
// - only then, self-contained copies of unsettled checkpoints
//   (logged_checkpoints.h).
#ifndef LAKE_ENGINE_TABLE_TABLE_LOG_FORMAT_H_
#define LAKE_ENGINE_TABLE_TABLE_LOG_FORMAT_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace lake::table {

inline constexpr std::string_view kTableLogDir = "_log";
inline constexpr std::string_view kTableLogSegmentMagic = "LAKETLOG";
inline constexpr std::string_view kTableLogRecordMagic = "LKTR";
inline constexpr uint32_t kTableLogFormatVersion = 1;
inline constexpr size_t kTableLogSegmentHeaderBytes = 32;
inline constexpr size_t kTableLogRecordHeaderBytes = 32;
// A segment rolls once the next version's records would take it past this:
// large enough that a segment's creation (its one directory sync) is rare,
// small enough that scanning one for its end on a writer's first append
// stays quick. A version's records larger than this get a segment of their
// own, as large as they need.
inline constexpr uint64_t kTableLogSegmentBytes = uint64_t{32} << 20;
// The largest record: a deletion vector of kMaxFragmentRows rows fits.
inline constexpr uint64_t kMaxTableLogPayloadBytes = uint64_t{1} << 30;

enum class TableLogRecordKind : uint8_t {
  kDeletionVector = 1,
  kFragment = 2,
  kReferenceDelta = 3,
  kManifest = 4,
  kAppendCheckpoint = 5,
  kAppendWithdrawal = 6,
};
// The highest kind this lake reads.
inline constexpr uint8_t kMaxTableLogRecordKind =
    static_cast<uint8_t>(TableLogRecordKind::kAppendWithdrawal);
// Whether this lake reads records of `kind` (one of TableLogRecordKind).
constexpr bool IsKnownTableLogRecordKind(uint8_t kind) {
  switch (static_cast<TableLogRecordKind>(kind)) {
    case TableLogRecordKind::kDeletionVector:
    case TableLogRecordKind::kFragment:
    case TableLogRecordKind::kReferenceDelta:
    case TableLogRecordKind::kManifest:
    case TableLogRecordKind::kAppendCheckpoint:
    case TableLogRecordKind::kAppendWithdrawal:
      return true;
  }
  return false;
}

// Where a record is: its segment, the offset of its header, its payload's size.
struct TableLogAddress {
  uint64_t segment = 0;
  uint64_t offset = 0;
  uint64_t payload_bytes = 0;

  bool operator==(const TableLogAddress&) const = default;
};

// _log/<segment>.seg: the segment's path relative to the table directory.
std::string TableLogSegmentRelativePath(uint64_t segment);
// The segment number a name in the log directory spells (<20 digits>.seg);
// nullopt for any other name (a temporary file, a stranger).
std::optional<uint64_t> ParseTableLogSegmentName(std::string_view name);
// The address as a table path (above).
std::string FormatTableLogAddress(const TableLogAddress& address);
// Whether `path` is in the table log (starts with "_log/"): then it must
// parse as an address, or the manifest naming it is damaged.
bool IsTableLogPath(std::string_view path);
// The address `path` spells; DataLoss for anything else (a segment or
// offset of other than 20 digits, an offset inside the segment header,
// a payload size of 0 or past kMaxTableLogPayloadBytes).
absl::StatusOr<TableLogAddress> ParseTableLogAddress(std::string_view path);

// The 32 bytes opening segment `segment` (>= 1).
std::string EncodeTableLogSegmentHeader(uint64_t segment);
// DataLoss unless `bytes` starts with a valid header of segment `segment`.
absl::Status CheckTableLogSegmentHeader(std::string_view bytes, uint64_t segment);

struct TableLogRecord {
  TableLogRecordKind kind = TableLogRecordKind::kDeletionVector;
  uint64_t version = 0;
  std::string_view payload;
};

// Appends one record of segment `segment` to *out. Precondition: version
// >= 1, 1 <= payload.size() <= kMaxTableLogPayloadBytes.
void AppendTableLogRecord(uint64_t segment, const TableLogRecord& record, std::string* out);
// The encoded size of a record of `payload_bytes`.
inline constexpr uint64_t TableLogRecordBytes(uint64_t payload_bytes) {
  return kTableLogRecordHeaderBytes + payload_bytes;
}

// The payload size a record header (the first kTableLogRecordHeaderBytes
// of `header`) announces; DataLoss when the bytes are short or not a
// record header (magic, kind, zero bytes, version 0, a size of 0 or past
// kMaxTableLogPayloadBytes). The checksum is DecodeTableLogRecord's.
absl::StatusOr<uint64_t> TableLogRecordPayloadBytes(std::string_view header);

// The record at the start of `bytes` (exactly one record's bytes, as the
// address says: its header and `address.payload_bytes`), checked: DataLoss
// when it is short or long, its magic, kind, zero bytes or version are not
// a record's, its length is not the address's, or its checksum does not
// match. The payload is a view into `bytes`.
absl::StatusOr<TableLogRecord> DecodeTableLogRecord(std::string_view bytes,
                                                    const TableLogAddress& address);

// The checks of DecodeTableLogRecord made piece by piece, for a reader that
// must not hold a record's payload whole (a record may be up to
// kMaxTableLogPayloadBytes): the header first, then the payload in pieces
// of any size, in order. Move-only.
class TableLogRecordCheck {
 public:
  // From the record's header (the first kTableLogRecordHeaderBytes of
  // `header`); DataLoss as DecodeTableLogRecord for the header and its
  // length.
  static absl::StatusOr<TableLogRecordCheck> Start(std::string_view header,
                                                   const TableLogAddress& address);
  TableLogRecordKind kind() const { return kind_; }
  uint64_t version() const { return version_; }
  // The payload's next bytes.
  void Add(std::string_view piece);
  // OK when the pieces added were the payload, whole, and match the
  // checksum; DataLoss otherwise.
  absl::Status Finish() const;

 private:
  struct FreeState {
    void operator()(void* state) const;
  };
  TableLogAddress address_;
  TableLogRecordKind kind_ = TableLogRecordKind::kFragment;
  uint64_t version_ = 0;
  uint64_t checksum_ = 0;
  uint64_t added_ = 0;
  std::unique_ptr<void, FreeState> state_;  // XXH3, seeded with the segment
};

// What a segment's scan found: its valid records and where they end.
struct TableLogScan {
  std::vector<TableLogAddress> records;  // in order, back to back from `start`
  uint64_t valid_end = 0;                // the end of the last valid record (or `start`)
  // The bytes at valid_end are not all zero (up to a record header's
  // worth, or the end of the input): a torn or damaged record, which a
  // writer does not overwrite.
  bool dirty_tail = false;
};

// Scans `segment_bytes` (a segment from offset 0, its header included and
// checked: DataLoss when it is not segment `segment`'s) for records from
// `start` (>= the header; the end of a record found before), stopping at
// the first bytes that are not a valid record.
absl::StatusOr<TableLogScan> ScanTableLogRecords(std::string_view segment_bytes,
                                                 uint64_t segment, uint64_t start);

}  // namespace lake::table

#endif  // LAKE_ENGINE_TABLE_TABLE_LOG_FORMAT_H_
