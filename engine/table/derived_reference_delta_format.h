// An append's reference delta as a pointer to its fragment: reference
// delta format version 4 (or 3), in a table log record of kind 3 like
// every delta (table_log_format.h). The references an append adds are
// exactly the FILE cells of the fragment it writes, so its delta need not
// be written a second time. The record names the fragment record of the
// same write; a reader derives the delta's canonical bytes (format 1) from
// the fragment (reference_journal.cc), failing closed on any difference.
//
// Versions 3 and 4 have the same bytes. They differ in the digest the
// registry records for the version (VersionRecord::reference_delta_sha256):
//   3  the SHA-256 of the derived canonical delta, as for a delta written
//      whole: the append encoded every reference a second time only to
//      hash it (about 15 % of an append's CPU at 1,000 rows);
//   4  the SHA-256 of the fragment record's payload, the digest the
//      manifest records for the fragment, which the append computes anyway.
//      The derived delta is a function of the fragment's bytes and the
//      edge, and the edge is checked on its own, so the fragment's digest
//      identifies the delta. A reader checks the fragment against it before
//      deriving.
// This lake writes 4 and reads both.
//
// Why: an append's delta held every reference again in full (uri,
// content type, size, raw SHA-256: about 140 bytes a row), 58 % of the
// bytes an append of 1,000 rows wrote to the table log, each of which the
// commit's fdatasync waits for.
//
// Only an append derives its delta this way: a DELETE's or a
// replace-where's removes references, a compaction's adds none, and a
// fragment too large for a record is a file of its own; those write their
// delta whole (formats 1 and 2) as before.
//
// Why a format version of kind 3 and not a record kind of its own: a lake
// that knows only formats 1 and 2 (or 1 to 3) reads this delta as damaged
// (an unknown format version, DataLoss), so its collector plans nothing
// and its reads of the lineage fail closed; yet its scan of the log goes
// on past the record (kind 3 is known), so it still sees a later
// withdrawal. An unknown record kind would end its scan there and hide
// such records.
//
// Format note (reference delta format versions 3 and 4): 56 bytes,
// integers little-endian; the table log record's checksum is its
// integrity.
//
//   offset  bytes  field
//   0       8      magic "LAKEREFS" (a delta's)
//   8       4      u32 format version (4, or 3)
//   12      4      zero
//   16      8      u64 the table id (>= 1)
//   24      8      u64 the parent version
//   32      8      u64 the child version (> parent; the record's version)
//   40      8      u64 the fragment record's offset in this record's segment
//   48      8      u64 the fragment record's payload bytes (>= 1)
//
// The delta derived is EncodeBatchReferenceDelta(table id, parent, child,
// the fragment's schema, the fragment's rows): the bytes an append of
// version 3 computed, and one before it wrote whole.
#ifndef LAKE_ENGINE_TABLE_DERIVED_REFERENCE_DELTA_FORMAT_H_
#define LAKE_ENGINE_TABLE_DERIVED_REFERENCE_DELTA_FORMAT_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace lake::table {

// What EncodeDerivedReferenceDelta writes unless told otherwise, and the
// oldest version a decode reads.
inline constexpr uint32_t kDerivedReferenceDeltaFormatVersion = 4;
inline constexpr uint32_t kOldestDerivedReferenceDeltaFormatVersion = 3;
inline constexpr size_t kDerivedReferenceDeltaBytes = 56;

// Whether the registry's digest for a version whose derived delta is of
// `format_version` is its fragment's SHA-256 (4 on), not the derived
// delta's (3).
constexpr bool RegistryDigestIsFragments(uint32_t format_version) { return format_version >= 4; }

struct DerivedReferenceDelta {
  // 4: the registry's digest is the fragment's; 3: the derived delta's.
  uint32_t format_version = kDerivedReferenceDeltaFormatVersion;
  uint64_t table_id = 0;
  uint64_t parent_version = 0;
  uint64_t child_version = 0;
  // The fragment record, in the same segment as this one.
  uint64_t fragment_offset = 0;
  uint64_t fragment_payload_bytes = 0;

  bool operator==(const DerivedReferenceDelta&) const = default;
};

// Whether `payload` claims to be a derived delta: a delta's magic and
// format version 3 or 4 (DecodeDerivedReferenceDelta checks the rest).
bool IsDerivedReferenceDelta(std::string_view payload);

// Its 56 bytes. InvalidArgument for a format version other than 3 or 4, a
// table id of 0, a child version not past its parent, or a fragment of 0
// bytes.
absl::StatusOr<std::string> EncodeDerivedReferenceDelta(const DerivedReferenceDelta& delta);

// DataLoss unless `payload` is exactly such 56 bytes, with the delta's
// magic, format version 3 or 4, the zero bytes zero and the fields as
// EncodeDerivedReferenceDelta requires them.
absl::StatusOr<DerivedReferenceDelta> DecodeDerivedReferenceDelta(std::string_view payload);

}  // namespace lake::table

#endif  // LAKE_ENGINE_TABLE_DERIVED_REFERENCE_DELTA_FORMAT_H_
