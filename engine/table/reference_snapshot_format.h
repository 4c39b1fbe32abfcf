// A reference snapshot: every managed object one table version references,
// whole, so the reference deltas of the versions up to it are no longer
// needed to know them. An expiry writes one for the oldest version it
// retains (TableStore::Expire).
//
// Format (version 1). Integers are little-endian.
//
//   snapshot := header delta
//   header   := magic "LAKESNAP" (8 bytes)
//               u32 format_version (1)
//               u64 table_id
//               u64 version                 (>= 1)
//               u64 delta_bytes             the length of `delta`
//               u64 checksum                XXH3-64 of the 36 bytes before it
//   delta    := a reference delta (reference_delta_format.h) of the same
//               table from version 0 to `version`: its added references are
//               the snapshot's, canonical; it has no removals; nothing
//               follows it.
//
// The snapshot's digest is its delta's (the delta's SHA-256 trailer), so it
// is a pure function of (table_id, version, references). A reader pages
// through the delta chunk by chunk (ReferenceDeltaReader) with memory bounded
// by one chunk. Readers fail closed: DataLoss on an unknown format version,
// a wrong magic or checksum, a header the delta does not match, a damaged
// delta, or bytes after it.
#ifndef LAKE_ENGINE_TABLE_REFERENCE_SNAPSHOT_FORMAT_H_
#define LAKE_ENGINE_TABLE_REFERENCE_SNAPSHOT_FORMAT_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/data_location.h"
#include "engine/table/reference_delta_format.h"

namespace lake::table {

inline constexpr std::string_view kReferenceSnapshotMagic = "LAKESNAP";
inline constexpr uint32_t kReferenceSnapshotFormatVersion = 1;
inline constexpr size_t kReferenceSnapshotHeaderBytes = 44;

struct ReferenceSnapshot {
  uint64_t table_id = 0;
  uint64_t version = 0;
  std::vector<DataLocation> references;  // canonical (ReferenceLess, no duplicates)

  bool operator==(const ReferenceSnapshot&) const = default;
};

struct ReferenceSnapshotHeader {
  uint64_t table_id = 0;
  uint64_t version = 0;
  uint64_t delta_bytes = 0;
};

struct EncodedReferenceSnapshot {
  std::string bytes;
  std::string digest;  // 64 lowercase hex: the embedded delta's trailer
};

// The canonical encoding (`references` canonicalized first).
// InvalidArgument for version 0 or an entry EncodeReferenceDelta refuses.
absl::StatusOr<EncodedReferenceSnapshot> EncodeReferenceSnapshot(
    const ReferenceSnapshot& snapshot);

// The header in the first kReferenceSnapshotHeaderBytes of a snapshot.
// DataLoss when damaged.
absl::StatusOr<ReferenceSnapshotHeader> DecodeReferenceSnapshotHeader(std::string_view bytes);

// The whole snapshot in `bytes`, and its digest in *digest when not null.
// DataLoss on anything damaged or not canonical.
absl::StatusOr<ReferenceSnapshot> DecodeReferenceSnapshot(std::string_view bytes,
                                                          std::string* digest = nullptr);

// Checks the delta header a ReferenceDeltaReader read from a snapshot's body
// against the snapshot's header: DataLoss naming what differs.
absl::Status CheckSnapshotDelta(const ReferenceSnapshotHeader& snapshot,
                                const ReferenceDeltaHeader& delta);

}  // namespace lake::table

#endif  // LAKE_ENGINE_TABLE_REFERENCE_SNAPSHOT_FORMAT_H_
