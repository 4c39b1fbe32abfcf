// The root fingerprint: one digest of everything in a root that can add a
// reference to an object that already exists, so a plan made from one
// state of the root is applied only while the root is still in that state.
//
// Four parts, each a SHA-256 (64 lowercase hex):
//   tables           Registry::Fingerprint: one RocksDB prefix scan of every
//                    table registration (id, name, schema, current version,
//                    manifest), canonicalised in table order. A commit or a
//                    new table changes it.
//   event_logs       every experiment (pipeline, name), and per shard the
//                    names of its blob journal's deltas and the digest of
//                    the newest one (blob_references.h): an event batch that
//                    records a blob location changes it.
//   pending_appends  the operation ids and sizes of the pending append
//                    checkpoints (<root>/checkpoints/): a checkpoint can
//                    still commit references.
//   pins             the pin set's digest (gc-leases' PinSetDigest).
// `combined` is the SHA-256 of "lake-root-fingerprint-v1" and the four.
// A new upload's lease is not in it: leases name fresh keys, which no plan
// holds, and are checked per key when the plan is made.
#ifndef LAKE_ENGINE_GC_ROOT_FINGERPRINT_H_
#define LAKE_ENGINE_GC_ROOT_FINGERPRINT_H_

#include <string>

#include "absl/status/statusor.h"
#include "io/file_system.h"
#include "registry/registry.h"

namespace lake::gc {

struct RootFingerprint {
  std::string tables;
  std::string event_logs;
  std::string pending_appends;
  std::string pins;
  std::string combined;

  bool operator==(const RootFingerprint&) const = default;
  // "a table was created or committed, an event log recorded blobs" — what
  // differs from `before`, for the error that voids a plan.
  std::string DescribeChangeSince(const RootFingerprint& before) const;
};

// The fingerprint now. `registry` is the root's registry (its writer, or a
// follower the caller caught up), or null for a root without tables.
absl::StatusOr<RootFingerprint> ComputeRootFingerprint(io::FileSystem& fs,
                                                       const std::string& root_dir,
                                                       registry::Registry* registry);

}  // namespace lake::gc

#endif  // LAKE_ENGINE_GC_ROOT_FINGERPRINT_H_
