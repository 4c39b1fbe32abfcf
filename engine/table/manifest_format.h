// A manifest: the file that lists what one version of a table is — its
// schema, its fragments (a scan at that version reads exactly these), and
// the reference delta the version added (reference_delta_format.h).
//
// Format (versions 1 and 2; lake writes 2 and reads both). Integers are
// little-endian; a sha256 is stored as its 32 raw bytes and read back as 64
// lowercase hex characters.
//
//   manifest := magic "LAKEMNFT" (8 bytes)
//               u32 format_version (1 or 2)
//               u64 table_id
//               u64 version
//               u64 parent_version
//               u64 created_unix_micros    (an int64's bits, >= 0)
//               u64 total_rows             (the sum of the fragments' rows)
//               schema                     (u32 column_count, then per column
//                                           u8 type, u8 name_bytes, name)
//               u16 path_bytes, reference_delta_path, sha256[32] digest
//               u32 fragment_count         (<= kMaxManifestFragments)
//               fragment_count × { u16 path_bytes, path, u64 rows,
//                                  u64 size_bytes, sha256[32],
//                                  version 2 only: u8 has_statistics (0/1),
//                                  then, if 1, the fragment's column
//                                  statistics (fragment_statistics.h) }
//               digest: XXH3-128 of every byte before it (16 bytes)
//
// Version 2 adds per-fragment min/max statistics; a fragment written by a
// lake that knew no statistics (listed first by a version 1 manifest and
// carried on) has none, and a scan opens it whatever the WHERE.
//
// Invariants of a valid manifest (ValidateManifest): the format version is
// 1 or 2, and a version 1 manifest holds no statistics; 0 <= parent_version < version (a table's first
// version has parent 0); the schema is valid; every path is a table path
// (ValidateTablePath) and no fragment path repeats; each fragment has at
// most kMaxFragmentRows rows; total_rows is the sum of the fragments' rows;
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
#include "engine/table/fragment_statistics.h"
#include "schema/table_schema.h"

namespace lake::table {

inline constexpr std::string_view kManifestMagic = "LAKEMNFT";
// The version lake writes; kManifestFormatVersionV1 is still read.
inline constexpr uint32_t kManifestFormatVersion = 2;
inline constexpr uint32_t kManifestFormatVersionV1 = 1;
// A table compacts long before this; it bounds what one manifest lists.
inline constexpr size_t kMaxManifestFragments = size_t{1} << 20;
// Paths inside a table directory are short generated names.
inline constexpr size_t kMaxTablePathBytes = 256;

struct FragmentRef {
  std::string path;  // relative to the table directory
  uint64_t rows = 0;
  uint64_t size_bytes = 0;
  std::string sha256;  // 64 lowercase hex: SHA-256 of the fragment file
  // Recorded when the fragment was written (format 2); none for older ones.
  std::optional<FragmentStatistics> statistics;

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

// InvalidArgument when ValidateManifest(manifest, known_valid_fragments)
// fails. Deterministic.
absl::StatusOr<std::string> EncodeManifest(const Manifest& manifest,
                                           size_t known_valid_fragments = 0);
// DataLoss on anything damaged or invalid (see above).
absl::StatusOr<Manifest> DecodeManifest(std::string_view bytes);

}  // namespace lake::table

#endif  // LAKE_ENGINE_TABLE_MANIFEST_FORMAT_H_
