// A manifest: the file that lists what one version of a table is — its
// schema, its fragments (a scan at that version reads exactly these), and
// the reference delta the version added (reference_delta_format.h).
//
// Format (versions 1 to 5; lake writes 5 and reads all five). Integers
// are little-endian; a sha256 is stored as its 32 raw bytes and read back as
// 64 lowercase hex characters.
//
//   manifest := magic "LAKEMNFT" (8 bytes)
//               u32 format_version (1, 2, 3 or 4)
//               u64 table_id
//               u64 version
//               u64 parent_version
//               u64 created_unix_micros    (an int64's bits, >= 0)
//               u64 total_rows             (the version's live rows: the sum
//                                           of rows - deleted_rows over the
//                                           fragments of the resolved list)
//               schema                     (u32 column_count, then per column
//                                           u8 type, u8 name_bytes, name)
//               u16 path_bytes, reference_delta_path, sha256[32] digest
//               versions 1 and 2: full_list
//               versions 3 and 4: u8 kind, then
//                 kind 0 (a checkpoint): full_list
//                 kind 1 (a link), version 3:
//                                        sha256[32] base_manifest_sha256
//                                        u32 chain_position (chain_length)
//                                        u64 chain_bytes
//                                        changes
//                 kind 1 (a link), versions 4 and 5:
//                                        u64 base_version
//                                        version 5: u16 path_bytes,
//                                          base_manifest_path
//                                        sha256[32] base_manifest_sha256
//                                        u64 chain_position
//                                        u64 chain_bytes
//                                        changes
//               digest: XXH3-128 of every byte before it (16 bytes)
//
//   changes   := u32 removed_count (<= kMaxManifestFragments)
//                removed_count × { u16 path_bytes, path }
//                u32 added_count (<= kMaxManifestFragments)
//                added_count × entry
//   full_list := u32 fragment_count (<= kMaxManifestFragments)
//                fragment_count × entry
//   entry     := u16 path_bytes, path, u64 rows, u64 size_bytes, sha256[32],
//                version >= 2: u8 has_statistics (0/1), then, if 1, the
//                              fragment's column statistics
//                              (fragment_statistics.h)
//                version >= 3: u8 has_deletion_vector (0/1), then, if 1,
//                              u16 path_bytes, path, sha256[32] (of the
//                              vector file), u64 deleted_rows
//                              (deletion_vector_format.h)
//
// What each version added:
// - 2: per-fragment min/max statistics. A fragment first listed by a
//   version 1 manifest and carried on has none; a scan opens it whatever
//   the WHERE.
// - 3: per-fragment deletion vectors (the rows a DELETE removed from the
//   fragment as of this version), and chains of links, each to its parent
//   version: a version's new metadata grows with what it changes, but a
//   checkpoint every 64 versions made n appends write O(n^2 / 64) bytes.
// - 4: links to a skip ancestor (a binary counter over the chain), so n
//   appends write O(n log n) bytes and a read still opens O(log n) files.
// - 5: a link names its base's manifest by path (a file, or a table log
//   record's address, table_log_format.h): a manifest in the table log
//   has no name derived from its version. A format 4 link's base is
//   still ManifestRelativePath(base_version). Otherwise as 4.
//
// Links. A link holds only the changes between its base's fragment list
// and its own: entries added, and entries of the base removed by path
// (compaction removes; an entry replaced, e.g. given a deletion vector, is
// removed and added under the same path). It names its base's manifest
// file by the SHA-256 of its bytes, so a chain is verified link by link.
// Resolving a link (manifest_chain.h) applies its changes to its base's
// resolved list: an entry added under a path the link removes takes the
// removed entry's place in the list; the other removals go, and the other
// additions follow at the end, in order.
//
// chain_position counts the versions since the chain's full list (a
// checkpoint, or a version 1 or 2 manifest; position 0) along the lineage.
// - Version 3: the base is the parent version (base_version is
//   parent_version, not stored) and its position is chain_position - 1:
//   1 when the parent is a full list, at most kMaxManifestChainLength.
// - Versions 4 and 5: the base is the version at position p - lowbit(p), where p
//   is chain_position and lowbit(p) its lowest set bit (0: the full list),
//   so base_version <= parent_version. Walking from a link to its base
//   clears one bit of p: a read opens popcount(p) links (at most
//   kMaxManifestChainLength) and one full list, and a link holds the
//   changes of the last lowbit(p) versions. A version 4 link's base is a
//   full list of any version or a version 4 link.
// chain_bytes is the size of the links a read of this one opens after it
// (0 when the base is a full list, else the base's chain_bytes plus the
// base file's size). A writer writes a checkpoint rather than a link whose
// walk would read more bytes than a full list.
//
// Invariants of a valid manifest (ValidateManifest):
// - the format version is 1 to 5;
// - a version 1 manifest holds no statistics, and only a version 3 or 4
//   one holds deletion vectors;
// - 0 <= parent_version < version (a table's first version has parent 0);
// - the schema is valid;
// - every path is a table path (ValidateTablePath), and no fragment or
//   deletion vector path repeats;
// - each fragment has at most kMaxFragmentRows rows, and its deletion
//   vector deletes 1..rows of them;
// - total_rows is the sum of the fragments' live rows;
// - every sha256 is 64 lowercase hex characters;
// - statistics are valid for the schema and the fragment's rows
//   (ValidateFragmentStatistics).
// A link (ValidateManifestLink) has the same header invariants, format
// version 3 or 4, a parent version above 0, 0 < base_version <=
// parent_version (version 3: base_version == parent_version), a
// chain_position of 1..kMaxManifestChainLength (version 3) or of at most
// kMaxManifestChainLength set bits (version 4), valid entries added and
// paths removed, none repeated within its list.
//
// Decoding fails closed with DataLoss: wrong magic or version, an unknown
// kind or flag, a digest that does not match, a count or length past the
// input, trailing bytes, or a manifest that breaks an invariant. A count is
// checked against the bytes left before anything is reserved for it.
#ifndef LAKE_ENGINE_TABLE_MANIFEST_FORMAT_H_
#define LAKE_ENGINE_TABLE_MANIFEST_FORMAT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/table/fragment_statistics.h"
#include "schema/table_schema.h"

namespace lake::table {

inline constexpr std::string_view kManifestMagic = "LAKEMNFT";
// The version lake writes; versions 1 to 4 are still read.
inline constexpr uint32_t kManifestFormatVersion = 5;
inline constexpr uint32_t kManifestFormatVersionV1 = 1;
inline constexpr uint32_t kManifestFormatVersionV2 = 2;
inline constexpr uint32_t kManifestFormatVersionV3 = 3;
inline constexpr uint32_t kManifestFormatVersionV4 = 4;
// How many links a read may open before a full list (64 small files at
// most): a version 3 chain's length, a version 4 chain_position's set
// bits.
inline constexpr uint32_t kMaxManifestChainLength = 63;
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

// One manifest file of format 3, 4 or 5 that chains to a base version (the
// note above): the version's header and its fragment changes.
struct ManifestLink {
  // Every field but `fragments` (empty): total_rows is the resolved
  // version's.
  Manifest header;
  // Format 3: header.parent_version (not stored).
  uint64_t base_version = 0;
  std::string base_manifest_sha256;  // 64 lowercase hex
  // Format 5: the base's manifest (a table path); empty before, where it
  // is ManifestRelativePath(base_version).
  std::string base_manifest_path;
  // Format 3: its chain_length, 1..kMaxManifestChainLength.
  uint64_t chain_position = 1;
  uint64_t chain_bytes = 0;
  std::vector<std::string> removed;  // paths of the base's fragments
  std::vector<FragmentRef> added;

  bool operator==(const ManifestLink&) const = default;
};

// What one manifest file holds: a full list (a Manifest) or a link.
using ManifestFile = std::variant<Manifest, ManifestLink>;

// The invariants above; InvalidArgument naming the offending field.
// `known_valid_fragments` says the first that many fragments were listed,
// in that order, by a manifest that passed ValidateManifest (the parent
// version's, as decoded or encoded, less the fragments a link removed):
// each is then trusted alone, and only the later ones are checked in full
// and against every path. An append adds one fragment to a list that
// grows with the table, so checking the whole list again made each append
// slower than the last.
absl::Status ValidateManifest(const Manifest& manifest, size_t known_valid_fragments = 0);
// A link's invariants (above); InvalidArgument naming the offending field.
absl::Status ValidateManifestLink(const ManifestLink& link);

// InvalidArgument when ValidateManifest(manifest, known_valid_fragments)
// fails. Deterministic. A format 3 or 4 manifest is written as a
// checkpoint.
absl::StatusOr<std::string> EncodeManifest(const Manifest& manifest,
                                           size_t known_valid_fragments = 0);
// InvalidArgument when ValidateManifestLink fails. Deterministic.
absl::StatusOr<std::string> EncodeManifestLink(const ManifestLink& link);
// The lowest set bit of a version 4 chain_position (0 for 0): the link at
// position p has its base at p - ManifestChainLowBit(p).
inline uint64_t ManifestChainLowBit(uint64_t position) { return position & (~position + 1); }
// The bytes `fragment`'s entry takes in a manifest of `format_version` for
// `schema` (the fragment valid for it): what a checkpoint listing it costs.
size_t ManifestEntryBytes(const FragmentRef& fragment, uint32_t format_version,
                          const Schema& schema);
// DataLoss on anything damaged or invalid (see above), and on a link: a
// link alone is no version's fragment list (resolve it, manifest_chain.h).
absl::StatusOr<Manifest> DecodeManifest(std::string_view bytes);
// A full list or a link; DataLoss on anything damaged or invalid.
absl::StatusOr<ManifestFile> DecodeManifestFile(std::string_view bytes);

}  // namespace lake::table

#endif  // LAKE_ENGINE_TABLE_MANIFEST_FORMAT_H_
