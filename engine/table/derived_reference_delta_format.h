// An append's reference delta as a pointer to its fragment (table log
// record kind 7, table_log_format.h): the references an append adds are
// exactly the FILE cells of the fragment it writes, so its delta need not
// be written a second time. The record names the fragment record of the
// same write; a reader derives the delta's canonical bytes from the
// fragment (reference_journal.cc) and checks them against the digest the
// registry recorded for the version, failing closed on any difference.
//
// Why: an append's delta held every reference again in full (uri,
// content type, size, raw SHA-256: about 140 bytes a row), 58 % of the
// bytes an append of 1,000 rows wrote to the table log, each of which the
// commit's fdatasync waits for.
//
// Only an append derives its delta this way: a DELETE's or a
// replace-where's removes references, a compaction's adds none, and a
// fragment too large for a record is a file of its own; those write their
// delta (kind 3) as before.
//
// Format note (table log format version 1, kind 7): 48 bytes, integers
// little-endian; the record's checksum is its integrity.
//
//   offset  bytes  field
//   0       4      u32 format version (1)
//   4       4      zero
//   8       8      u64 the table id (>= 1)
//   16      8      u64 the parent version
//   24      8      u64 the child version (> parent; the record's version)
//   32      8      u64 the fragment record's offset in this record's segment
//   40      8      u64 the fragment record's payload bytes (>= 1)
//
// The delta derived is EncodeBatchReferenceDelta(table id, parent, child,
// the fragment's schema, the fragment's rows): the same bytes the append
// computed, and wrote as kind 3 before.
//
// Kind 7 came after kinds 1..6 in the same table log format version: a
// lake that knows only 1..6 fails closed on it (DataLoss by address), so
// none reads a table whose appends derive their deltas as having none.
#ifndef LAKE_ENGINE_TABLE_DERIVED_REFERENCE_DELTA_FORMAT_H_
#define LAKE_ENGINE_TABLE_DERIVED_REFERENCE_DELTA_FORMAT_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace lake::table {

inline constexpr uint32_t kDerivedReferenceDeltaFormatVersion = 1;
inline constexpr size_t kDerivedReferenceDeltaBytes = 48;

struct DerivedReferenceDelta {
  uint64_t table_id = 0;
  uint64_t parent_version = 0;
  uint64_t child_version = 0;
  // The fragment record, in the same segment as this one.
  uint64_t fragment_offset = 0;
  uint64_t fragment_payload_bytes = 0;

  bool operator==(const DerivedReferenceDelta&) const = default;
};

// Its 48 bytes. InvalidArgument for a table id of 0, a child version not
// past its parent, or a fragment of 0 bytes.
absl::StatusOr<std::string> EncodeDerivedReferenceDelta(const DerivedReferenceDelta& delta);

// DataLoss unless `payload` is exactly such 48 bytes, of format version 1,
// with the zero bytes zero and the fields as EncodeDerivedReferenceDelta
// requires them.
absl::StatusOr<DerivedReferenceDelta> DecodeDerivedReferenceDelta(std::string_view payload);

}  // namespace lake::table

#endif  // LAKE_ENGINE_TABLE_DERIVED_REFERENCE_DELTA_FORMAT_H_
