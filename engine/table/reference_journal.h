// The reference journal of a table: one reference delta per version
// (reference_delta_format.h): a record of the table log beside the
// version's manifest (table_log_format.h; the manifest names it), or, for
// versions written before the log held them, a file at
//   <table_dir>/_lake/object_refs/<child_version as 20 decimal digits>.refs
//
// A version's delta is written durably before the registry commits the
// version, and never changed afterwards. The registry keeps, per version,
// the lineage edge (parent, child, delta digest); enumerating a table's
// references walks those edges and reads every delta, failing closed.
#ifndef LAKE_ENGINE_TABLE_REFERENCE_JOURNAL_H_
#define LAKE_ENGINE_TABLE_REFERENCE_JOURNAL_H_

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "engine/data_location.h"
#include "engine/table/reference_delta_format.h"
#include "engine/table/reference_snapshot_format.h"
#include "io/file_system.h"

namespace lake::table {

inline constexpr std::string_view kObjectRefsDir = "_lake/object_refs";

// "_lake/object_refs/00000000000000000007.refs": the delta's path relative
// to the table directory (what a manifest records).
std::string ReferenceDeltaRelativePath(uint64_t child_version);

// Writes the delta of `delta.child_version` durably (temporary file, file
// fsync, rename without replacing, directory fsync; directories created as
// needed) and returns its digest (64 lowercase hex), which the caller
// records in the registry with the version.
//
// Writing the same delta again is OK (a retry after a failure). When a
// different delta of that version is present — left by an attempt whose
// version was never committed — AlreadyExists; the caller, which holds the
// table's commit lock and knows the registry has no such version, may
// remove it with RemoveUncommittedReferenceDelta and retry. Encoding errors
// as EncodeReferenceDelta.
absl::StatusOr<std::string> WriteReferenceDelta(io::FileSystem& fs, const std::string& table_dir,
                                                const ReferenceDelta& delta);
// The same for a delta already encoded (EncodeReferenceDelta) as the delta
// of `child_version`: a caller that needs the digest before the write.
absl::StatusOr<std::string> WriteEncodedReferenceDelta(io::FileSystem& fs,
                                                       const std::string& table_dir,
                                                       uint64_t child_version,
                                                       const EncodedReferenceDelta& encoded);

// Removes the delta file of `child_version` durably; OK when absent.
// Only for a version the registry never committed.
absl::Status RemoveUncommittedReferenceDelta(io::FileSystem& fs, const std::string& table_dir,
                                             uint64_t child_version);

// One edge of a table's retained lineage, as the registry records it.
struct LineageEdge {
  uint64_t parent_version = 0;
  uint64_t child_version = 0;
  std::string delta_sha256;  // the delta's digest, 64 lowercase hex
  // The child version's manifest, as the registry records it. When it is
  // a table log record (table_log_format.h), so is the delta, and the
  // manifest names its address; else (or when empty) the delta is the
  // file ReferenceDeltaRelativePath(child_version).
  std::string manifest_path;

  bool operator==(const LineageEdge&) const = default;
};

// Receives one chunk of a version's added references (canonical order
// within the version). A non-OK status stops the walk and is returned.
using ReferenceVisitor =
    absl::FunctionRef<absl::Status(uint64_t child_version, const std::vector<DataLocation>& chunk)>;

// Receives one chunk of a version's delta: additions, or, when `removed`,
// removals (a delta's additions come first). A non-OK status stops the
// walk and is returned.
using ReferenceChangeVisitor = absl::FunctionRef<absl::Status(
    uint64_t child_version, const std::vector<DataLocation>& chunk, bool removed)>;

// The references of a version: the chunks of its lineage (from the first
// version, or from a base snapshot) applied in walk order. Memory: every
// reference of the version.
class ReferenceReplay {
 public:
  // One chunk, as a ReferenceChangeVisitor receives it. DataLoss naming
  // the version when a removal removes a reference not held, or one its
  // own delta adds.
  absl::Status Apply(uint64_t version, const std::vector<DataLocation>& chunk, bool removed);
  // The references held, canonical (CanonicalizeReferences' order).
  std::vector<DataLocation> Take() &&;

 private:
  struct Less {
    bool operator()(const DataLocation& a, const DataLocation& b) const {
      return ReferenceLess(a, b);
    }
  };
  uint64_t version_ = 0;
  std::set<DataLocation, Less> references_;
  std::set<DataLocation, Less> added_by_version_;  // by the delta of version_
};

// The table path of `edge`'s delta: the address its manifest (a table log
// record) names, else ReferenceDeltaRelativePath. DataLoss when the
// manifest cannot be read or does not describe the edge's version.
absl::StatusOr<std::string> ReferenceDeltaPathOfEdge(io::FileSystem& fs,
                                                     const std::string& table_dir,
                                                     const LineageEdge& edge);

// The table file that holds the reference delta of `child_version`, whose
// manifest is `manifest_path` (as the registry records it): the manifest's
// segment when the manifest is a table log record (a version's records
// share one segment, table_log_format.h), else the delta's own file. What
// a collector keeps for the delta.
std::string ReferenceDeltaTableFile(uint64_t child_version, const std::string& manifest_path);

// "_lake/object_refs/00000000000000000007.snapshot": the path of a version's
// reference snapshot (reference_snapshot_format.h) relative to the table
// directory.
std::string ReferenceSnapshotRelativePath(uint64_t version);

// Writes the snapshot durably as WriteEncodedReferenceDelta writes a delta
// (temporary file, fsync, rename without replacing, directory fsync) and
// returns its digest. The same snapshot again is OK; a different one of
// that version present is AlreadyExists.
absl::StatusOr<std::string> WriteReferenceSnapshot(io::FileSystem& fs,
                                                   const std::string& table_dir,
                                                   const ReferenceSnapshot& snapshot);

// Where a lineage replay starts: the snapshot of `version` (digest
// `snapshot_sha256`, as the registry records it) instead of the deltas of
// the versions up to it.
struct LineageBase {
  uint64_t version = 0;
  std::string snapshot_sha256;
};

// EnumerateReferences from `base`: the snapshot's references (visited as
// `base.version`'s), then `edges`, whose first parent must be base.version.
// Fails closed as EnumerateReferences does, and when the snapshot is
// missing, damaged, of another version or table than the deltas, or its
// digest is not the registry's.
absl::Status EnumerateReferencesFrom(io::FileSystem& fs, const std::string& table_dir,
                                     const LineageBase& base,
                                     const std::vector<LineageEdge>& edges_from_registry,
                                     ReferenceVisitor visit);
// The same walk, visiting every delta's removals too.
absl::Status EnumerateReferenceChangesFrom(io::FileSystem& fs, const std::string& table_dir,
                                           const LineageBase& base,
                                           const std::vector<LineageEdge>& edges_from_registry,
                                           ReferenceChangeVisitor visit);

// Walks `edges` in order, reading each edge's delta one chunk at a time
// and handing every chunk of additions to `visit` (removals are skipped:
// the union of what the versions walked held). Fails closed — DataLoss naming the
// version — when an edge is not monotonic (child <= parent, or its parent
// is not the previous edge's child), a delta is missing, damaged, holds
// another edge or another table than the first delta, or its digest is not
// the registry's. Chunks already visited when a failure is found were
// checked by their own checksums, but the walk as a whole is the verdict:
// a caller must discard what it gathered unless the call returns OK.
// Other I/O errors are returned as they are. Memory: one chunk.
absl::Status EnumerateReferences(io::FileSystem& fs, const std::string& table_dir,
                                 const std::vector<LineageEdge>& edges_from_registry,
                                 ReferenceVisitor visit);
// The same walk, visiting every delta's removals too.
absl::Status EnumerateReferenceChanges(io::FileSystem& fs, const std::string& table_dir,
                                       const std::vector<LineageEdge>& edges_from_registry,
                                       ReferenceChangeVisitor visit);

}  // namespace lake::table

#endif  // LAKE_ENGINE_TABLE_REFERENCE_JOURNAL_H_
