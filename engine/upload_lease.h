// Leases on the managed keys of uploads: while a lease is held, garbage
// collection keeps the object at its key whatever its age, even under a
// cutoff of zero. A lease is taken after the store has chosen the key and
// before it stores the first byte (UploadOptions::key_chosen); it is
// released by destroying it.
//
// A lease must outlive a power loss only when the upload does: an S3
// multipart upload with its checkpoint is resumed on the same key after
// one, so its lease is synced. A local upload is never resumed: a power
// loss ends it with the lease, and what it stored is referenced by no one
// (its append checkpoint, had it been published, protects it instead). Its
// lease is written, seen by every collection at once, and not synced —
// one flush less per upload.
//
// ManagedStage takes them through a KeyLeaser when one is attached (a
// root's stage: engine/gc/lease_store.h implements it); a stage without a
// root has no collector and takes none.
#ifndef LAKE_ENGINE_UPLOAD_LEASE_H_
#define LAKE_ENGINE_UPLOAD_LEASE_H_

#include <memory>
#include <string_view>

#include "absl/status/statusor.h"

namespace lake {

// One held lease. Destroying it releases the key (best effort: a release
// that fails to be recorded only keeps the key protected longer).
class KeyLease {
 public:
  virtual ~KeyLease() = default;
};

// Whether a lease outlives a power loss.
enum class LeaseDurability {
  kSynced,    // recorded and synced: the upload may be resumed after one
  kUnsynced,  // recorded, not synced: a power loss ends the upload with it
};

// Takes leases. Thread-safe.
class KeyLeaser {
 public:
  virtual ~KeyLeaser() = default;
  // Records a lease on `uri`, visible to every collection when this
  // returns, and returns it.
  virtual absl::StatusOr<std::unique_ptr<KeyLease>> Lease(std::string_view uri,
                                                          LeaseDurability durability) = 0;
};

}  // namespace lake

#endif  // LAKE_ENGINE_UPLOAD_LEASE_H_
