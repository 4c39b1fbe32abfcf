// A reference delta: the managed objects one table version added, as the
// parent -> child edge of the table's lineage. Enumerating a table's
// references (reference_journal.h) is the union of the deltas along its
// lineage, which garbage collection reads to know what is live. In the
// table log, an append's delta is not written: a record of format 3 names
// the fragment it derives from (derived_reference_delta_format.h), and a
// reader derives these same bytes (the reader below refuses format 3).
//
// An append's delta adds the references of its rows. A DELETE's delta
// removes the locations no row of the new version references any more
// (format 2). A version's references are the lineage's deltas replayed in
// order (reference_journal.h, ReferenceReplay): a removal cancels an
// earlier version's addition, a later addition restores it; a delta never
// removes what it adds itself. Compaction writes a delta with
// no entries: the rows it merges keep the references the versions that
// appended them added, and the replay is unchanged.
//
// Canonical form: `added` and `removed` each sorted by ReferenceLess (uri,
// then content_type, size_bytes, sha256) without duplicates, every entry a
// canonical DataLocation (MakeDataLocation gives it back unchanged) with a
// uri of at most kMaxReferenceUriBytes; format 1 exactly when nothing is
// removed (so an append's delta is the same bytes it always was), else 2.
//
// Format (versions 1 and 2; lake reads both). Integers are little-endian.
//
//   delta  := header chunk* trailer
//   header := magic "LAKEREFS" (8 bytes)
//             u32 format_version (1 or 2)
//             u32 removed_count             (0 in format 1, >= 1 in 2)
//             u64 table_id
//             u64 parent_version
//             u64 child_version             (> parent_version)
//             u64 added_count
//             u64 checksum                  XXH3-64 of the 48 bytes before it
//   chunk  := u32 entry_count               kReferenceDeltaChunkEntries, the
//                                           last chunk of a list the rest;
//                                           the added entries' chunks
//                                           first, then the removed
//                                           entries' (a chunk never holds
//                                           both); no chunk for an empty
//                                           list
//             u32 payload_bytes             (<= kMaxReferenceChunkBytes)
//             u64 checksum                  XXH3-64 of the payload
//             payload: entry_count × { u16 uri_bytes, uri,
//                                      u8 content_type_bytes, content_type,
//                                      u64 size_bytes, sha256[32] (raw) }
//   trailer:= sha256[32]                    SHA-256 of every byte before it
//
// The trailer is the delta's digest (the registry records it per version).
// Since the encoding of a canonical delta is fixed (order, chunking, no
// compression), the digest is a pure function of (table_id, parent_version,
// child_version, added, removed). A reader pages through the chunks with memory
// bounded by one chunk, each checked by its checksum before its entries
// are used; the digest is known only after the last chunk.
#ifndef LAKE_ENGINE_TABLE_REFERENCE_DELTA_FORMAT_H_
#define LAKE_ENGINE_TABLE_REFERENCE_DELTA_FORMAT_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "engine/data_location.h"
#include "engine/sha256.h"
#include "engine/table/column_batch.h"
#include "schema/table_schema.h"

namespace lake::table {

inline constexpr std::string_view kReferenceDeltaMagic = "LAKEREFS";
// The version of a delta that removes; kReferenceDeltaFormatVersionV1 is
// written (and read) for one that only adds.
inline constexpr uint32_t kReferenceDeltaFormatVersion = 2;
inline constexpr uint32_t kReferenceDeltaFormatVersionV1 = 1;
// removed_count is a u32.
inline constexpr size_t kMaxReferenceDeltaRemovals = UINT32_MAX;
// Entries per chunk: a reader holds one chunk at a time.
inline constexpr size_t kReferenceDeltaChunkEntries = 4096;
// Longer than any managed object's uri (S3 keys are at most 1,024 bytes
// before percent-encoding; local paths at most 4,096 with the scheme).
inline constexpr size_t kMaxReferenceUriBytes = 4096;
inline constexpr size_t kMaxReferenceEntryBytes =
    2 + kMaxReferenceUriBytes + 1 + kMaxContentTypeBytes + 8 + 32;
// ~18 MiB: the most memory one chunk can take.
inline constexpr size_t kMaxReferenceChunkBytes =
    kReferenceDeltaChunkEntries * kMaxReferenceEntryBytes;

struct ReferenceDelta {
  uint64_t table_id = 0;
  uint64_t parent_version = 0;
  uint64_t child_version = 0;
  std::vector<DataLocation> added;
  std::vector<DataLocation> removed;  // none of `added`

  bool operator==(const ReferenceDelta&) const = default;
};

// The canonical order: uri, then content_type, size_bytes, sha256.
bool ReferenceLess(const DataLocation& a, const DataLocation& b);
// Sorts by ReferenceLess and removes duplicates.
void CanonicalizeReferences(std::vector<DataLocation>* references);

// The delta of a version that appended `batches` (each of `schema`): every
// non-null cell of every file column, canonical. InvalidArgument when
// child_version <= parent_version or a batch is not of `schema`.
absl::StatusOr<ReferenceDelta> BuildReferenceDelta(uint64_t table_id, uint64_t parent_version,
                                                   uint64_t child_version, const Schema& schema,
                                                   absl::Span<const ColumnBatch> batches);

struct EncodedReferenceDelta {
  std::string bytes;
  std::string digest;  // 64 lowercase hex: the trailer
};

// The encoding of the delta BuildReferenceDelta would build, without
// building it: the entries are read where they are in the batches. For
// batches that passed ColumnBatch::Validate (whose file cells are canonical
// DataLocations): only the uri bound is checked here. The same bytes as
// EncodeReferenceDelta(*BuildReferenceDelta(...)), and the same errors for
// the versions and the schema.
absl::StatusOr<EncodedReferenceDelta> EncodeBatchReferenceDelta(
    uint64_t table_id, uint64_t parent_version, uint64_t child_version, const Schema& schema,
    absl::Span<const ColumnBatch> batches);

// The canonical encoding of `delta` (whose lists are canonicalized first).
// InvalidArgument when child_version <= parent_version, `removed` is longer
// than kMaxReferenceDeltaRemovals, or an entry is not a canonical
// DataLocation with a uri of at most kMaxReferenceUriBytes.
absl::StatusOr<EncodedReferenceDelta> EncodeReferenceDelta(const ReferenceDelta& delta);

// The delta in `bytes`, canonical. DataLoss on anything damaged or
// non-canonical.
absl::StatusOr<ReferenceDelta> DecodeReferenceDelta(std::string_view bytes);

struct ReferenceDeltaHeader {
  uint64_t table_id = 0;
  uint64_t parent_version = 0;
  uint64_t child_version = 0;
  uint64_t added_count = 0;
  uint64_t removed_count = 0;
};

// Decodes a delta piece by piece, with memory bounded by one chunk: the
// header, then each chunk's frame and payload, then the trailer. Pure (no
// I/O): the caller reads exactly next_piece_bytes() bytes and hands them to
// Next. Every check of DecodeReferenceDelta applies; after a failure every
// call fails. Not thread-safe.
class ReferenceDeltaReader {
 public:
  static constexpr size_t kHeaderBytes = 56;
  static constexpr size_t kChunkFrameBytes = 16;
  static constexpr size_t kTrailerBytes = 32;

  ReferenceDeltaReader() = default;
  ReferenceDeltaReader(const ReferenceDeltaReader&) = delete;
  ReferenceDeltaReader& operator=(const ReferenceDeltaReader&) = delete;

  // How many bytes the next piece has (<= kMaxReferenceChunkBytes); 0 once
  // the trailer has been read.
  size_t next_piece_bytes() const;
  // Consumes the next piece, which must be next_piece_bytes() long. When
  // the piece is a chunk's payload, *entries is set to the chunk's entries
  // (checked: canonical, and in order after every earlier entry);
  // otherwise *entries is cleared.
  absl::Status Next(std::string_view piece, std::vector<DataLocation>* entries);
  // Whether the entries the last Next returned are removals (else
  // additions).
  bool last_chunk_removes() const { return chunk_removes_; }

  bool done() const { return stage_ == Stage::kDone; }
  // Valid once the header has been consumed.
  const ReferenceDeltaHeader& header() const { return header_; }
  // The digest (64 lowercase hex); valid once done().
  const std::string& digest() const { return digest_; }

 private:
  enum class Stage { kHeader, kChunkFrame, kChunkPayload, kTrailer, kDone, kFailed };

  absl::Status ReadHeader(std::string_view piece);
  absl::Status ReadChunkFrame(std::string_view piece);
  absl::Status ReadChunkPayload(std::string_view piece, std::vector<DataLocation>* entries);
  absl::Status ReadTrailer(std::string_view piece);
  // The stage after a header or chunk: another chunk or the trailer.
  Stage AfterEntries() const;
  // The entry count at which the list being read (added, then removed) ends.
  uint64_t SectionEnd() const;

  Stage stage_ = Stage::kHeader;
  Sha256 hasher_;
  ReferenceDeltaHeader header_;
  uint64_t entries_read_ = 0;
  uint32_t chunk_entries_ = 0;
  uint32_t chunk_payload_bytes_ = 0;
  uint64_t chunk_checksum_ = 0;
  bool has_last_ = false;
  bool chunk_removes_ = false;
  DataLocation last_;
  // Entries of an earlier chunk whose strings the next chunk reuses.
  std::vector<DataLocation> spare_;
  std::string digest_;
};

}  // namespace lake::table

#endif  // LAKE_ENGINE_TABLE_REFERENCE_DELTA_FORMAT_H_
