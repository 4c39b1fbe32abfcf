// ManagedStage: the policy every backend gets (managed-objects.md).
//
//  - Uploads validate their options before the first side effect and turn
//    what the backend stored into a DataLocation.
//  - Reads validate before storage is touched: the location (valid by
//    construction), its containment in this stage and tenant, and for
//    ranges the interval against size_bytes.
//  - Full reads are verified at EOF (VerifiedReader); ranges are capped
//    and checked for premature EOF (RangeReader), with no digest claim.
// Thread-safe when the store is (every store in lake is).
#ifndef LAKE_ENGINE_MANAGED_STAGE_H_
#define LAKE_ENGINE_MANAGED_STAGE_H_

#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "absl/types/span.h"
#include "engine/byte_range.h"
#include "engine/managed_object_store.h"
#include "engine/object_reader.h"
#include "engine/upload_lease.h"

namespace lake {

// An uploaded object's location and the lease on its key (null when the
// stage takes no leases), held until the caller drops it: for an upload
// whose location is not referenced yet when the upload returns (an
// INSERT's, until its checkpoint is published or its commit made it
// referenced; an offloaded event blob's, until its batch is appended).
struct LeasedLocation {
  DataLocation location;
  std::unique_ptr<KeyLease> lease;
};

// Where the lease an upload's key_chosen took waits for the upload's end
// (key_chosen may run on a store's own thread).
struct UploadLeaseSlot {
  absl::Mutex mu;
  std::unique_ptr<KeyLease> lease ABSL_GUARDED_BY(mu);
  std::unique_ptr<KeyLease> Take() {
    absl::MutexLock lock(&mu);
    return std::move(lease);
  }
};

// A push-style upload that ends in a DataLocation.
class LocationWriter {
 public:
  LocationWriter(std::unique_ptr<ObjectWriter> writer, std::string content_type,
                 std::shared_ptr<UploadLeaseSlot> lease, bool leasing)
      : writer_(std::move(writer)),
        content_type_(std::move(content_type)),
        lease_(std::move(lease)),
        leasing_(leasing) {}
  absl::Status Write(const uint8_t* data, size_t len) {
    return writer_->Write(data, len);
  }
  // The lease on the key is released when Commit returns.
  absl::StatusOr<DataLocation> Commit();
  absl::StatusOr<LeasedLocation> CommitLeased();

 private:
  std::unique_ptr<ObjectWriter> writer_;
  std::string content_type_;
  std::shared_ptr<UploadLeaseSlot> lease_;
  bool leasing_;
};

class ManagedStage {
 public:
  explicit ManagedStage(std::unique_ptr<ManagedObjectStore> store)
      : store_(std::move(store)) {}

  ManagedObjectStore& store() { return *store_; }
  std::string_view backend_name() const { return store_->backend_name(); }

  // Leases every upload's key from before its first byte (engine/
  // upload_lease.h): a root's stage does, so no collection of the root
  // deletes an upload in flight. Set once, before the stage is used.
  void set_leaser(std::shared_ptr<KeyLeaser> leaser) { leaser_ = std::move(leaser); }
  bool leasing() const { return leaser_ != nullptr; }

  // The lease on the key (if any) is released when the upload returns:
  // with its DataLocation, or once the failed upload was cleaned.
  absl::StatusOr<DataLocation> Upload(UploadSource& source,
                                      const UploadOptions& options);
  // The same, but the lease comes back with the location.
  absl::StatusOr<LeasedLocation> UploadLeased(UploadSource& source,
                                              const UploadOptions& options);
  absl::StatusOr<std::unique_ptr<LocationWriter>> NewWriter(
      const UploadOptions& options);
  // An upload the store runs by means of its own (a resumed S3 upload),
  // leased and turned into a DataLocation as Upload does.
  using StoreUpload = std::function<absl::StatusOr<StoredObject>(const UploadOptions&)>;
  absl::StatusOr<DataLocation> UploadBy(const StoreUpload& run, const UploadOptions& options);

  absl::StatusOr<std::unique_ptr<ObjectReader>> OpenVerified(
      const DataLocation& location);
  absl::StatusOr<std::unique_ptr<ObjectReader>> OpenRange(
      const DataLocation& location, ByteRange range);
  // Validates every range first; an invalid one fails alone. Ranges that
  // arrive with a non-OK status are left as they are.
  void ReadRanges(absl::Span<RangeRead> ranges);

  absl::Status List(const std::function<bool(const ListedObject&)>& emit) {
    return store_->List(emit);
  }
  absl::Status ListUnordered(size_t streams,
                             const std::function<bool(const ListedObject&)>& emit) {
    return store_->ListUnordered(streams, emit);
  }
  absl::Status Delete(const DataLocation& location);
  // An existing location a caller hands in (a table's metadata-only FILE
  // value): contained in this stage, and the stored object exists with
  // exactly size_bytes (SizeShort/SizeLong otherwise). Its digest is not
  // re-read here; every full read verifies it. A location this stage
  // uploaded or checked before is answered from memory (see known_sizes_).
  absl::Status CheckExisting(const DataLocation& location);
  // CheckExisting of each location, in order (the first failure is
  // returned), looking up what is remembered under one lock. Returns the
  // generation of what was remembered (RememberedSince).
  absl::StatusOr<uint64_t> CheckExistingAll(absl::Span<const DataLocation* const> locations);
  // True while nothing was forgotten since CheckExistingAll returned
  // `generation` (no Delete, no new deletion epoch observed): every
  // location it passed is still true. Asked under the shared references
  // hold after ObserveDeletionEpoch, it spares checking them again.
  bool RememberedSince(uint64_t generation);
  // The deletion epoch a reference-adding path read under its shared
  // references hold (engine/gc/gc_locks.h): when it differs from the last
  // one seen, a collection may have deleted objects since, and every
  // remembered size is forgotten. Called before CheckExisting under the
  // hold, it makes CheckExisting's answer true until the hold is released.
  void ObserveDeletionEpoch(uint64_t epoch);
  // A credential-free GET URL for a contained object, living `ttl`.
  absl::StatusOr<std::string> Presign(const DataLocation& location, absl::Duration ttl);
  absl::StatusOr<uint64_t> CleanStaging() { return store_->CleanStaging(); }

 private:
  // At most this many remembered sizes; the map starts over when full.
  static constexpr size_t kMaxKnownSizes = size_t{1} << 16;

  // The known_epoch_ a size is about to be found under.
  uint64_t KnownEpoch();
  // Remembers a size found under `epoch` (KnownEpoch before the lookup
  // began), unless a newer epoch was observed since.
  void RememberSize(const std::string& uri, uint64_t size_bytes, uint64_t epoch);
  // `options` with a key_chosen that also leases the key into `slot`
  // (as they are when the stage takes no leases).
  UploadOptions LeasingOptions(const UploadOptions& options,
                               const std::shared_ptr<UploadLeaseSlot>& slot) const;

  std::unique_ptr<ManagedObjectStore> store_;
  std::shared_ptr<KeyLeaser> leaser_;
  // The stored size of objects this process uploaded through this stage or
  // found stored by CheckExisting, by URI. Managed objects are immutable, so
  // an entry stays true until the object is deleted: Delete forgets it, and
  // a collection (which deletes only under the exclusive references hold)
  // changes the deletion epoch, whose next observation forgets them all. An
  // entry found before an observation of a new epoch is never added after
  // it (RememberSize's epoch).
  absl::Mutex known_mu_;
  absl::flat_hash_map<std::string, uint64_t> known_sizes_ ABSL_GUARDED_BY(known_mu_);
  uint64_t known_epoch_ ABSL_GUARDED_BY(known_mu_) = 0;
  // Counts the forgettings: a Delete, a new epoch observed. (The map
  // starting over when full forgets nothing untrue: not counted.)
  uint64_t known_generation_ ABSL_GUARDED_BY(known_mu_) = 0;
};

// The DataLocation of what a backend stored.
absl::StatusOr<DataLocation> LocationOfStored(const StoredObject& stored,
                                              std::string_view content_type);

}  // namespace lake

#endif  // LAKE_ENGINE_MANAGED_STAGE_H_
