// A data fragment: the immutable file one append (or one compaction) writes,
// holding one ColumnBatch column by column.
//
// Format (version 2; version 1 is still read). Integers are little-endian.
//
//   fragment := header column_blocks* digest
//   header   := magic "LAKEFRAG" (8 bytes)
//               u32 format_version (2, or 1)
//               u64 num_rows                 (<= kMaxFragmentRows)
//               u32 column_count             (1..kMaxColumns)
//               column_count × { u8 type (ColumnType), u8 name_bytes, name }
//   column_blocks: the blocks of each column, in schema order; a column's
//               blocks follow its type:
//                 every type   validity      num_rows × u8 (1 value, 0 null)
//                 utf8/binary  lengths, bytes
//                 int64/timestamp  int64s    num_rows × i64
//                 float64      float64s      num_rows × f64 (IEEE-754 bits)
//                 bool         bools         num_rows × u8
//                 file         uri lengths, uri bytes, content_type lengths,
//                              content_type bytes, size int64s, then
//                              version 2: sha256s   num_rows × 32 raw bytes
//                                         (a null row's all zero)
//                              version 1: sha256 lengths, sha256 bytes (64
//                                         lowercase hex each; a null
//                                         row's decodes empty)
//               Version 2 stores a digest raw because zstd cannot shrink
//               one below its raw bytes and decompressing the hex text was
//               the largest cost of a DELETE; decoded, it is the same
//               64-digit hex cell as version 1's.
//               "lengths" are num_rows × u32 cell lengths (StringColumn
//               offsets as differences, which compress far better); "bytes"
//               is the concatenated cells.
//   block    := u8 codec (0 stored, 1 zstd)
//               u32 raw_bytes                (the buffer's exact size)
//               u32 stored_bytes
//               u64 checksum                 XXH3-64 of the stored bytes
//               stored_bytes bytes
//   digest   := XXH3-128 of every byte before it (16 bytes)
//
// A file's identity, as a manifest records it, is the SHA-256 of all its
// bytes (SummarizeFragment); the XXH3 digest and checksums inside only
// detect damage, cheaply enough to check on every scan.
//
// Decoding fails closed with DataLoss: wrong magic or version, a digest or
// checksum that does not match, any buffer of the wrong size, a length past
// the input, trailing bytes, an embedded schema other than the expected one,
// and a decoded batch that breaks a ColumnBatch invariant it checks (see
// FragmentCheck). A buffer is allocated only after its block header passed
// the size checks, and never larger than kMaxZstdExpansion times the stored
// bytes that fill it.
#ifndef LAKE_ENGINE_TABLE_FRAGMENT_FORMAT_H_
#define LAKE_ENGINE_TABLE_FRAGMENT_FORMAT_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/table/column_batch.h"
#include "schema/table_schema.h"

namespace lake::table {

inline constexpr std::string_view kFragmentMagic = "LAKEFRAG";
inline constexpr uint32_t kFragmentFormatVersion = 2;  // what EncodeFragment writes
inline constexpr uint32_t kOldestFragmentFormatVersion = 1;  // the oldest a decode reads
// The most rows one fragment holds: appends are far smaller, and compaction
// splits its output at this many rows. It bounds every fixed-width buffer
// (16 Mi rows × 8 bytes = 128 MiB) that a header could ask for.
inline constexpr uint64_t kMaxFragmentRows = uint64_t{1} << 24;
// zstd's largest output per input byte (a 128 KiB RLE block from 4 bytes):
// a block claiming more raw bytes than this times its stored bytes is
// damaged, and is refused before anything is allocated for it.
inline constexpr uint64_t kMaxZstdExpansion = 32768;
// zstd's level for fragments: fast to write, and decompression speed does
// not depend on it.
inline constexpr int kFragmentZstdLevel = 1;
// zstd's hash table (log2 of its entries) for a FILE column's URIs; other
// blocks take the level's own. URIs repeat a long prefix a row or two
// apart and differ in names of high entropy (UUIDs, digests): a small
// table finds those matches as well and stays in the L1 cache. Measured on
// 1,000 stage URIs (77 KB): 30-40 % faster than the level's 2^13 entries,
// and 3 % smaller. (The decoder does not depend on it.)
inline constexpr int kFragmentUriZstdHashLog = 9;

// The fragment file holding `batch`. InvalidArgument when the batch breaks
// its invariants (ColumnBatch::Validate) or has more than kMaxFragmentRows
// rows. Deterministic: the same batch gives the same bytes.
absl::StatusOr<std::string> EncodeFragment(const ColumnBatch& batch);
// The same for a batch whose content the caller validated already
// (ColumnBatch::Validate passed on it): checks only its shape.
absl::StatusOr<std::string> EncodeValidatedFragment(const ColumnBatch& batch);

// How much of the ColumnBatch invariant a decode re-checks. The encoder
// validated the batch in full before it computed the digest, so a fragment
// whose digest matches holds a valid batch unless it was forged; parsing
// every file cell's uri again (the dominant cost of a scan) buys nothing
// against damage.
enum class FragmentCheck {
  // Everything that costs no allocation: buffer sizes, offsets, 0/1 flags,
  // UTF-8 text, and each file cell's size, sha256 (64 lowercase hex) and
  // content type (1..255 printable bytes). Not the canonical uri form.
  kFast,
  // ColumnBatch::Validate as well: for files of unknown origin (the fuzzer).
  kFull,
};

// The batch in `bytes`, whose schema must equal `expected_schema`.
// DataLoss on anything damaged or different (see above).
absl::StatusOr<ColumnBatch> DecodeFragment(std::string_view bytes, const Schema& expected_schema,
                                           FragmentCheck check = FragmentCheck::kFast);

// A fragment decoded in parts, so a scan can test a filter on a few
// columns and decode the others only when it wants the rows: fills
// batch->columns[i] for every i whose wanted[i] is true, each decoded and
// checked as DecodeFragment (kFast) does, sets batch->num_rows, and leaves
// the other columns as they are (only their block headers are read). The
// digest, header and layout are checked on every call. A batch whose
// schema is not `expected_schema` is reset to ColumnBatch::Empty first;
// after calls whose flags together cover every column, it is what
// DecodeFragment (kFast) returns. DataLoss as DecodeFragment (the message
// may differ where a skipped column is the damaged one); InvalidArgument
// when `wanted` has not one flag per column.
absl::Status DecodeFragmentColumns(std::string_view bytes, const Schema& expected_schema,
                                   const std::vector<bool>& wanted, ColumnBatch* batch);

// What a manifest records about a fragment file, and the schema it holds.
struct FragmentSummary {
  uint64_t rows = 0;
  uint64_t size_bytes = 0;
  std::string sha256;  // 64 lowercase hex: SHA-256 of the whole file
  Schema schema;

  bool operator==(const FragmentSummary&) const = default;
};

// Checks the digest and header of `bytes` (not the blocks) and hashes them.
// DataLoss when the digest or header is damaged.
absl::StatusOr<FragmentSummary> SummarizeFragment(std::string_view bytes);

}  // namespace lake::table

#endif  // LAKE_ENGINE_TABLE_FRAGMENT_FORMAT_H_
