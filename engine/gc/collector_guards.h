// What the collector needs of gc-leases' part of issue 20 (GC-PLAN.md):
// the root's GC run lock, the references lock apply takes exclusively
// around one page, and the URIs leases and pins protect.
//
// They are gc-leases' engine/gc/gc_locks.h (HoldGcRun,
// HoldReferencesExclusive, GcHold) and engine/gc/lease_store.h
// (ForEachProtectedUri, PinSetDigest): this file is the narrow view of
// them the collector's steps use (and their seam in tests).
#ifndef LAKE_ENGINE_GC_COLLECTOR_GUARDS_H_
#define LAKE_ENGINE_GC_COLLECTOR_GUARDS_H_

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "io/file_system.h"

namespace lake::gc {

// A lock held until destroyed (or the process dies).
class CollectorHold {
 public:
  virtual ~CollectorHold() = default;
};

// One plan or apply per root at a time (<root>/gc/run.lock). AlreadyExists
// (LAKE_CONFLICT) when another holds it and `wait` is false.
absl::StatusOr<std::unique_ptr<CollectorHold>> HoldCollectorRun(io::FileSystem& fs,
                                                                const std::string& root_dir,
                                                                bool wait);

// The references lock (<root>/gc/refs.lock) exclusively: waits while any
// path that adds a reference to an existing object is between its
// existence check and its commit, and keeps new ones out while held.
absl::StatusOr<std::unique_ptr<CollectorHold>> HoldReferencesForDelete(
    io::FileSystem& fs, const std::string& root_dir);

// Every URI a lease or pin protects, in bytewise order (forwards to
// gc-leases' ForEachProtectedUri).
absl::Status ForEachLeasedOrPinnedUri(io::FileSystem& fs, const std::string& root_dir,
                                 absl::Time now, absl::Duration lease_expiry,
                                 const std::function<absl::Status(std::string_view uri)>& visit);

// A digest of the pin set (forwards to gc-leases' PinSetDigest): a
// fingerprint component.
absl::StatusOr<std::string> DigestOfPins(io::FileSystem& fs, const std::string& root_dir);

}  // namespace lake::gc

#endif  // LAKE_ENGINE_GC_COLLECTOR_GUARDS_H_
