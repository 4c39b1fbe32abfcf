// A deletion vector: which rows of one fragment a DELETE removed. A
// fragment is immutable, so a version that deletes rows from it does not
// rewrite it: its manifest entry names a deletion vector file beside it
// (manifest_format.h, DeletionVectorRef), and a scan of that version skips
// the rows the vector lists. An older version's manifest names the older
// vector (or none), so AS OF VERSION still sees the rows. A later DELETE
// on the same fragment writes a new vector holding the old rows and the
// new ones: a version's entry names exactly one vector, never a chain.
//
// Format (version 1). Integers are little-endian.
//
//   deletion_vector := magic "LAKEDELV" (8 bytes)
//                      u32 format_version (1)
//                      sha256[32] fragment_sha256  (the fragment it applies to)
//                      u64 fragment_rows           (1..kMaxFragmentRows)
//                      u64 deleted_count           (1..fragment_rows)
//                      deleted_count × u32 row     (strictly ascending,
//                                                   each < fragment_rows)
//                      digest: XXH3-128 of every byte before it (16 bytes)
//
// Binding the fragment's digest and row count means a vector can never be
// applied to another fragment than the one it was computed for; the
// manifest records the vector file's own SHA-256 as well, so a vector
// replaced on disk is refused before its rows are used.
//
// Invariants of a valid vector (ValidateDeletionVector): fragment_sha256 is
// 64 lowercase hex; 1 <= fragment_rows <= kMaxFragmentRows; at least one
// row is deleted; the rows are strictly ascending and below fragment_rows.
//
// Decoding fails closed with DataLoss: wrong magic or version, a digest
// that does not match, a count past the input, trailing bytes, or a vector
// that breaks an invariant. The count is checked against the bytes left
// before anything is reserved for it.
#ifndef LAKE_ENGINE_TABLE_DELETION_VECTOR_FORMAT_H_
#define LAKE_ENGINE_TABLE_DELETION_VECTOR_FORMAT_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace lake::table {

inline constexpr std::string_view kDeletionVectorMagic = "LAKEDELV";
inline constexpr uint32_t kDeletionVectorFormatVersion = 1;
// The file name suffix of a deletion vector beside its fragment.
inline constexpr std::string_view kDeletionVectorSuffix = ".del";

struct DeletionVector {
  std::string fragment_sha256;  // 64 lowercase hex: the fragment's SHA-256
  uint64_t fragment_rows = 0;
  std::vector<uint32_t> deleted_rows;  // strictly ascending

  bool operator==(const DeletionVector&) const = default;
};

// The size of an encoded vector deleting `deleted_rows` rows: its header
// (60 bytes), a u32 per row, its digest (16 bytes).
inline constexpr uint64_t EncodedDeletionVectorBytes(uint64_t deleted_rows) {
  return 60 + 4 * deleted_rows + 16;
}

// The invariants above; InvalidArgument naming the offending field.
absl::Status ValidateDeletionVector(const DeletionVector& vector);
// InvalidArgument when ValidateDeletionVector fails. Deterministic.
absl::StatusOr<std::string> EncodeDeletionVector(const DeletionVector& vector);
// DataLoss on anything damaged or invalid (see above).
absl::StatusOr<DeletionVector> DecodeDeletionVector(std::string_view bytes);

// The union of two vectors' rows (ascending, no repeats); `a` and `b` must
// be of the same fragment. What a DELETE on an already-deleted-from
// fragment writes.
std::vector<uint32_t> MergeDeletedRows(const std::vector<uint32_t>& a,
                                       const std::vector<uint32_t>& b);

}  // namespace lake::table

#endif  // LAKE_ENGINE_TABLE_DELETION_VECTOR_FORMAT_H_
