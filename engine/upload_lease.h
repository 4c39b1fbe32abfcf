// Leases on the managed keys of uploads: while a lease is held, garbage
// collection keeps the object at its key whatever its age, even under a
// cutoff of zero. A lease is taken after the store has chosen the key and
// before it stores the first byte (UploadOptions::key_chosen), and is
// durable when taken; it is released by destroying it.
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

// Takes leases. Thread-safe.
class KeyLeaser {
 public:
  virtual ~KeyLeaser() = default;
  // Records a lease on `uri` durably and returns it.
  virtual absl::StatusOr<std::unique_ptr<KeyLease>> Lease(std::string_view uri) = 0;
};

}  // namespace lake

#endif  // LAKE_ENGINE_UPLOAD_LEASE_H_
