// Everything a root keeps alive: the union the live index is built from.
//
//   - every retained version's references of every table (the additions
//     of its lineage from the reference base: a DELETE's removal leaves
//     what the versions before it hold live while they are retained), the
//     references versions retired at or after the release cutoff held
//     (what a delta after them removed), — and of every
//     table dropped at or after the release cutoff (the cutoff runs from
//     the drop's commit, not from the objects' age) — read only
//     through the reference journal (reference_journal.h): from the
//     table's reference base snapshot, if an expiry wrote one, then edge by
//     edge against the registry's lineage, failing closed;
//   - every event log's blob references (blob_references.h);
//   - the FILE locations of every pending append checkpoint (it may still
//     commit them), whatever state recovery would give it;
//   - every URI a lease or pin protects (collector_guards.h);
//   - every table file a committed version names: its manifest, its
//     reference delta and the fragments (and their deletion vectors) its
//     manifest lists — a path that is a table log address (any record
//     kind) as its whole segment (table::TableFileOfPath), so a segment
//     stays while any of them names a record in it — but of a
//     version an expiry retired before the release cutoff only its
//     reference delta, and that only while it is after the reference base;
//     and the reference base's snapshot (the plan's table-file candidates
//     are the files of a table directory outside this set). The table files kept are thus the
//     union over the retained versions (and those retired too recently),
//     so a file a retained version lists is never a candidate. A
//     version's manifest is its whole chain (manifest_chain.h): its own
//     file and every link back to the full list it resolves from, a
//     retired version's among them. Invariant: every retained version
//     resolves after any collection; an expiry writes no manifest, and
//     the chain links a retained version needs cost at most
//     kMaxManifestChainLength small files each.
//
// Anything that cannot be read ends the walk with an error naming what
// failed and what the operator can do; nothing is ever skipped, so a
// caller must discard what it gathered unless the walk returns OK.
#ifndef LAKE_ENGINE_GC_LIVE_REFERENCES_H_
#define LAKE_ENGINE_GC_LIVE_REFERENCES_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "engine/data_location.h"
#include "engine/gc/gc_root.h"
#include "engine/table/table_log_format.h"

namespace lake::gc {

// Who keeps a URI alive (verify names them).
struct Referrer {
  enum class Kind { kTable, kEventLog, kPendingAppend, kProtected, kTableFile };
  Kind kind = Kind::kTable;
  std::string name;      // "ns.t", "pipeline/experiment", an operation id, ""
  uint64_t version = 0;  // a table's version, an event log's journal step
  // A table file that is a record of the table log a version names (a
  // fragment, a deletion vector, a manifest): its address and its kind,
  // so that verify reads that record as a reader would. Empty for a whole
  // file, and for a segment named only as a whole.
  std::string table_path = "";
  table::TableLogRecordKind record_kind = table::TableLogRecordKind::kFragment;
};

std::string DescribeReferrer(const Referrer& referrer);

// Receives one live URI. `location` is its DataLocation when the referrer
// holds one (tables, event logs, pending appends), else null (protected
// URIs, table files). A non-OK status stops the walk and is returned.
using LiveReferenceVisitor = std::function<absl::Status(
    std::string_view uri, const DataLocation* location, const Referrer& referrer)>;

// One part of the walk, so that parts can run on several threads at once:
// the tables whose position in name order is `index` modulo `count`; the
// other sources (event logs, pending appends, leases and pins) go with
// part 0. The parts together are the whole walk.
struct LiveWalkPart {
  size_t index = 0;
  size_t count = 1;
};

// Walks everything above (or `part` of it). `lease_expiry` is how long a
// dead process's leases still protect (the append retention horizon).
// A table dropped before `released_before` keeps nothing alive, and a
// version retired before it keeps only its reference delta
// (InfinitePast: every dropped table and retired version does;
// InfiniteFuture: none does).
absl::Status ForEachLiveReference(const GcRoot& root, absl::Time now,
                                  absl::Duration lease_expiry, absl::Time released_before,
                                  const LiveReferenceVisitor& visit, LiveWalkPart part = {});

}  // namespace lake::gc

#endif  // LAKE_ENGINE_GC_LIVE_REFERENCES_H_
