// Segment compaction (TableStore::CompactSegments): which rolled segments
// of a table's log are mostly dead, and the new version that copies the
// current version's records out of them, so that the collector can take
// them once the versions before it expire.
//
// What is live in a segment: the records some retained version (the
// current one, a tagged one, one not yet expired) needs — the manifests
// its chain resolves through, its reference delta, the fragments its
// manifest lists and their deletion vectors — each record counted once,
// header and payload (TableLogRecordBytes). Everything else in the
// segment (older versions' manifests and deltas once expired, fragments a
// DELETE or a compaction dropped, replaced deletion vectors, settled
// append checkpoints, the preallocated zeros past its last record) is dead:
// nothing reads it again, and it stays on disk only because the segment
// is freed whole.
//
// The rewrite copies records verbatim: a fragment keeps its bytes (its
// rows, their order, its SHA-256 and statistics) and its deletion vector,
// whose bytes name the fragment by SHA-256, stays valid; deleted rows stay
// deleted (a full compaction, TableStore::Compact, is what drops them).
// Only the current version's fragments and deletion vectors are copied:
// an older retained version still names the old records, and the segment
// goes only once it expires (`lake table expire`).
//
// Invariants:
// - The rewritten version lists the same fragments in the same order with
//   the same rows, statistics and deletion vectors: only paths change.
// - Its manifest is a full list (NextFullManifest, manifest_chain.h): a
//   link would keep its base's manifest, maybe in a rewritten segment,
//   alive, and cannot move an entry to a new path in its place.
// - Its reference delta is empty: no reference is added or removed.
#ifndef LAKE_ENGINE_TABLE_SEGMENT_REWRITE_H_
#define LAKE_ENGINE_TABLE_SEGMENT_REWRITE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "engine/table/manifest_chain.h"
#include "engine/table/manifest_format.h"
#include "engine/table/table_log_format.h"
#include "io/file_system.h"

namespace lake::table {

// A rolled segment is mostly dead when its live bytes are under this
// percentage of its file's size. At half, copying the live records out
// costs at most the bytes it frees, and a table whose segments are all at
// least half live takes at most twice its live bytes on disk, so
// compaction's writes stay proportional to the space it gains. Before
// checkpoint records named their fragment (format version 2,
// append_record_format.h) an append's
// checkpoint record held its batch again (dead once the append commits),
// so a segment of appends whose versions expired was about half dead,
// often just under: the first segment compaction after such an expiry
// copied those fragments out once, to free the checkpoints' bytes
// (measured: 200 appends of 64 KiB, one segment each, 201 of 202 segments
// rewritten, 13 MB copied of a 30 MB log; without checkpoint records 2
// segments, 356 bytes). A version 2 record names the fragment record
// instead (a few hundred bytes); only carried copies still hold a batch.
inline constexpr uint64_t kMostlyDeadSegmentLivePercent = 50;

// Whether a segment of `file_bytes` with `live_bytes` live is mostly dead.
inline constexpr bool IsMostlyDeadSegment(uint64_t live_bytes, uint64_t file_bytes) {
  return live_bytes * 100 < file_bytes * kMostlyDeadSegmentLivePercent;
}

// The live bytes of a table's segments, counted from the table paths the
// retained versions name (each record once, however many versions name it).
class SegmentLiveBytes {
 public:
  // Counts the record `path` names when it is a table log address (a
  // file's path counts nothing). DataLoss for a path in the log that is
  // not an address (a walk that cannot tell which segment a version needs
  // fails closed).
  absl::Status Name(const std::string& path);
  // Every path a retained version needs: its chain's manifests, its
  // reference delta, its fragments and their deletion vectors.
  absl::Status NameVersion(const ResolvedManifest& version);
  // The live bytes of `segment` (0 when nothing names a record in it).
  uint64_t Of(uint64_t segment) const;

 private:
  absl::flat_hash_set<std::string> seen_;
  absl::flat_hash_map<uint64_t, uint64_t> bytes_;  // by segment
};

// A rolled segment and what of it is live.
struct SegmentUse {
  uint64_t segment = 0;
  uint64_t file_bytes = 0;
  uint64_t live_bytes = 0;
};

// The new version's whole fragment list (NextFullManifest: a link cannot
// move an entry to a new path in place), the current version's in order,
// with the bytes of the records to copy for the entries that move.
struct SegmentRewrite {
  std::vector<FragmentRef> fragments;  // in order; a copied record's path is set when written
  // Parallel to `fragments`: the fragment's bytes to copy into a new
  // record (its path then the record's), "" when it stays where it is.
  std::vector<std::string> fragment_copies;
  // Parallel to `fragments`: its deletion vector's bytes likewise.
  std::vector<std::string> vector_copies;
  // What moves: fragments and deletion vectors, and their payload bytes.
  uint64_t copied_fragments = 0;
  uint64_t copied_vectors = 0;
  uint64_t copied_bytes = 0;
};

// Whether `path` is a record of one of `segments`.
bool InSegments(const std::string& path, const absl::flat_hash_set<uint64_t>& segments);

// The rewrite of `current` (a version's full list) that copies every
// fragment and deletion vector it names in `segments` into new records,
// read from `table_dir` and checked against the manifest (size and
// SHA-256: DataLoss otherwise). nullopt when it names none there.
absl::StatusOr<std::optional<SegmentRewrite>> PlanSegmentRewrite(
    io::FileSystem& fs, const std::string& table_dir, const Manifest& current,
    const absl::flat_hash_set<uint64_t>& segments);

}  // namespace lake::table

#endif  // LAKE_ENGINE_TABLE_SEGMENT_REWRITE_H_
