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
#include "engine/byte_range.h"
#include "engine/managed_object_store.h"
#include "engine/object_reader.h"

namespace lake {

// A push-style upload that ends in a DataLocation.
class LocationWriter {
 public:
  LocationWriter(std::unique_ptr<ObjectWriter> writer, std::string content_type)
      : writer_(std::move(writer)), content_type_(std::move(content_type)) {}
  absl::Status Write(const uint8_t* data, size_t len) {
    return writer_->Write(data, len);
  }
  absl::StatusOr<DataLocation> Commit();

 private:
  std::unique_ptr<ObjectWriter> writer_;
  std::string content_type_;
};

class ManagedStage {
 public:
  explicit ManagedStage(std::unique_ptr<ManagedObjectStore> store)
      : store_(std::move(store)) {}

  ManagedObjectStore& store() { return *store_; }
  std::string_view backend_name() const { return store_->backend_name(); }

  absl::StatusOr<DataLocation> Upload(UploadSource& source,
                                      const UploadOptions& options);
  absl::StatusOr<std::unique_ptr<LocationWriter>> NewWriter(
      const UploadOptions& options);

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
  absl::Status Delete(const DataLocation& location);
  // An existing location a caller hands in (a table's metadata-only FILE
  // value): contained in this stage, and the stored object exists with
  // exactly size_bytes (SizeShort/SizeLong otherwise). Its digest is not
  // re-read here; every full read verifies it. A location this stage
  // uploaded or checked before is answered from memory (see known_sizes_).
  absl::Status CheckExisting(const DataLocation& location);
  // A credential-free GET URL for a contained object, living `ttl`.
  absl::StatusOr<std::string> Presign(const DataLocation& location, absl::Duration ttl);
  absl::StatusOr<uint64_t> CleanStaging() { return store_->CleanStaging(); }

 private:
  // At most this many remembered sizes; the map starts over when full.
  static constexpr size_t kMaxKnownSizes = size_t{1} << 16;

  void RememberSize(const std::string& uri, uint64_t size_bytes);

  std::unique_ptr<ManagedObjectStore> store_;
  // The stored size of objects this process uploaded through this stage or
  // found stored by CheckExisting, by URI. Managed objects are immutable, so
  // an entry stays true until the object is deleted: Delete forgets it
  // (deletion by another process is the collector's, which never removes an
  // object an append may still reference).
  absl::Mutex known_mu_;
  absl::flat_hash_map<std::string, uint64_t> known_sizes_ ABSL_GUARDED_BY(known_mu_);
};

// The DataLocation of what a backend stored.
absl::StatusOr<DataLocation> LocationOfStored(const StoredObject& stored,
                                              std::string_view content_type);

}  // namespace lake

#endif  // LAKE_ENGINE_MANAGED_STAGE_H_
