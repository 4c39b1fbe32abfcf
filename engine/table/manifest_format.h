// A manifest: the file that lists what one version of a table is — its
// schema, its fragments (a scan at that version reads exactly these), and
// the reference delta the version added (reference_delta_format.h).
//
// Format (versions 1, 2 and 3; lake reads all three, and writes 3 for a
// manifest with a deletion vector, else 2 — so a table never deleted from
// stays readable by a lake that knows only 2). Integers are little-endian;
// a sha256 is stored as its 32 raw bytes and read back as 64 lowercase hex
// characters.
//
//   manifest := magic "LAKEMNFT" (8 bytes)
//               u32 format_version (1, 2 or 3)
//               u64 table_id
//               u64 version
//               u64 parent_version
//               u64 created_unix_micros    (an int64's bits, >= 0)
//               u64 total_rows             (the sum of the fragments' live
//                                           rows: rows - deleted_rows)
//               schema                     (u32 column_count, then per column
//                                           u8 type, u8 name_bytes, name)
//               u16 path_bytes, reference_delta_path, sha256[32] digest
//               u32 fragment_count         (<= kMaxManifestFragments)
//               fragment_count × fragment_entry
//               digest: XXH3-128 of every byte before it (16 bytes)
//
//   fragment_entry := u16 path_bytes, path, u64 rows, u64 size_bytes,
//                     sha256[32],
//                     version >= 2: u8 has_statistics (0/1), then, if 1,
//                                   the fragment's column statistics
//                                   (fragment_statistics.h),
//                     version >= 3: u8 has_deletion_vector (0/1), then, if
//                                   1, u16 path_bytes, path, sha256[32] (of
//                                   the vector file), u64 deleted_rows
//                                   (deletion_vector_format.h)
//
// One function pair encodes and decodes a fragment entry
// (WriteManifestFragmentEntry, ReadManifestFragmentEntry), for every
// format that lists fragments.
//
// Version 2 adds per-fragment min/max statistics; a fragment written by a
// lake that knew no statistics (listed first by a version 1 manifest and
// carried on) has none, and a scan opens it whatever the WHERE. Version 3
// adds per-fragment deletion vectors: the rows a DELETE removed from the
// fragment at this version.
//
// Invariants of a valid manifest (ValidateManifest): the format version is
// 1, 2 or 3; a version 1 manifest holds no statistics and only a version 3
// one holds deletion vectors; 0 <= parent_version < version (a table's first
// version has parent 0); the schema is valid; every path is a table path
// (ValidateTablePath) and no fragment path repeats; each fragment has at
// most kMaxFragmentRows rows; a deletion vector's path is a table path no
// fragment or other vector has, and it deletes 1..rows rows; total_rows is
// the sum of the fragments' live rows;
// every sha256 is 64 lowercase hex characters; statistics are valid for
// the schema and the fragment's rows (ValidateFragmentStatistics).
//
// Decoding fails closed with DataLoss: wrong magic or version, a digest
// that does not match, a count or length past the input, trailing bytes,
// or a manifest that breaks an invariant. A count is checked against the
// bytes left before anything is reserved for it.
#ifndef LAKE_ENGINE_TABLE_MANIFEST_FORMAT_H_
#define LAKE_ENGINE_TABLE_MANIFEST_FORMAT_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <optional>

#include "absl/status/statusor.h"
#include "engine/table/byte_codec.h"
#include "engine/table/fragment_statistics.h"
#include "schema/table_schema.h"

namespace lake::table {

inline constexpr std::string_view kManifestMagic = "LAKEMNFT";
// The newest version lake writes (for a manifest with deletion vectors);
// kManifestFormatVersionV2 (written otherwise) and V1 are still read.
inline constexpr uint32_t kManifestFormatVersion = 3;
inline constexpr uint32_t kManifestFormatVersionV2 = 2;
inline constexpr uint32_t kManifestFormatVersionV1 = 1;
// A table compacts long before this; it bounds what one manifest lists.
inline constexpr size_t kMaxManifestFragments = size_t{1} << 20;
// Paths inside a table directory are short generated names.
inline constexpr size_t kMaxTablePathBytes = 256;

// The deletion vector a version applies to one fragment
// (deletion_vector_format.h).
struct DeletionVectorRef {
  std::string path;    // relative to the table directory
  std::string sha256;  // 64 lowercase hex: SHA-256 of the vector file
  uint64_t deleted_rows = 0;

  bool operator==(const DeletionVectorRef&) const = default;
};

struct FragmentRef {
  std::string path;  // relative to the table directory
  uint64_t rows = 0;
  uint64_t size_bytes = 0;
  std::string sha256;  // 64 lowercase hex: SHA-256 of the fragment file
  // Recorded when the fragment was written (format 2); none for older ones.
  std::optional<FragmentStatistics> statistics;
  // The rows this version deleted from the fragment (format 3); none when
  // every row is live.
  std::optional<DeletionVectorRef> deletion_vector;

  // The rows a scan of this version returns.
  uint64_t live_rows() const { return rows - (deletion_vector ? deletion_vector->deleted_rows : 0); }

  bool operator==(const FragmentRef&) const = default;
};

struct Manifest {
  uint32_t format_version = kManifestFormatVersion;
  uint64_t table_id = 0;
  uint64_t version = 0;
  uint64_t parent_version = 0;
  Schema schema;
  std::vector<FragmentRef> fragments;
  uint64_t total_rows = 0;
  // This version's reference delta: its path relative to the table
  // directory, and its digest (ReferenceDelta's digest, which the registry
  // also records for the version).
  std::string reference_delta_path;
  std::string reference_delta_sha256;
  int64_t created_unix_micros = 0;

  bool operator==(const Manifest&) const = default;
};

// A path relative to the table directory: 1..kMaxTablePathBytes bytes of
// '/'-separated segments, each non-empty, not "." or "..", of
// [A-Za-z0-9._-]. So never absolute, never leaving the table directory.
// InvalidArgument naming `what` otherwise.
absl::Status ValidateTablePath(std::string_view path, std::string_view what);

// The invariants above; InvalidArgument naming the offending field.
// `known_valid_fragments` says the first that many fragments were listed,
// in that order, by a manifest that passed ValidateManifest (the parent
// version's, as decoded or encoded): each is then trusted alone, and only
// the later ones are checked in full and against every path. An append
// adds one fragment to a list that grows with the table, so checking the
// whole list again made each append slower than the last.
absl::Status ValidateManifest(const Manifest& manifest, size_t known_valid_fragments = 0);

// The format a manifest listing `fragments` is written in:
// kManifestFormatVersion when one has a deletion vector, else
// kManifestFormatVersionV2.
uint32_t ManifestFormatFor(const std::vector<FragmentRef>& fragments);

// One fragment entry of the format above, as `format_version` lays it out
// (statistics from 2, a deletion vector from 3); the fields a format lacks
// are not written. Precondition: the entry passed ValidateManifest's checks
// for that format and `schema`.
void WriteManifestFragmentEntry(ByteWriter& w, const FragmentRef& fragment,
                                uint32_t format_version, const Schema& schema);
// Reads one entry written by WriteManifestFragmentEntry for
// `format_version`; DataLoss naming entry `index` when it ends early or a
// flag is unknown. The entry's invariants are ValidateManifest's to check.
absl::StatusOr<FragmentRef> ReadManifestFragmentEntry(ByteReader& r, uint32_t format_version,
                                                      const Schema& schema, size_t index);

// InvalidArgument when ValidateManifest(manifest, known_valid_fragments)
// fails. Deterministic.
absl::StatusOr<std::string> EncodeManifest(const Manifest& manifest,
                                           size_t known_valid_fragments = 0);
// DataLoss on anything damaged or invalid (see above).
absl::StatusOr<Manifest> DecodeManifest(std::string_view bytes);

}  // namespace lake::table

#endif  // LAKE_ENGINE_TABLE_MANIFEST_FORMAT_H_
