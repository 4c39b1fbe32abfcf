// A ManagedObjectStore over a host's lake_host_store callback table (the
// injection seam). The host moves bytes; lake keeps its policy: it chooses
// managed keys beneath root_uri (and reports each to UploadOptions::
// key_chosen before the host's upload is called), hashes and counts every byte it hands the
// host, refuses to publish an upload the host did not read to the end, and
// checks containment lexically on canonical URIs.
//
// The records lake keeps beside the objects (the collector's owner marker
// and claims, ManagedObjectStore::ReadStageRecord) are objects of the host
// store too, at <root_uri>/_lake/<name>, outside every managed key: read
// with open_stream, written with upload, listed with list. A record is
// created only when a read finds none; the host store has no
// create-if-absent, so two roots opened for the first time at once could
// both write the marker — the later one wins, and the other root's
// collector then refuses the stage (its marker names another root), which
// fails safe.
#ifndef LAKE_BINDINGS_C_HOST_OBJECT_STORE_H_
#define LAKE_BINDINGS_C_HOST_OBJECT_STORE_H_

#include <memory>
#include <string>

#include "engine/managed_object_store.h"
#include "include/lake.h"

namespace lake::c {

class HostObjectStore final : public ManagedObjectStore {
 public:
  // Validates the table (version, required callbacks, a canonical
  // root_uri) and takes ownership of its ctx (destroy runs in ~).
  static absl::StatusOr<std::unique_ptr<HostObjectStore>> Create(
      const lake_host_store& table, const std::string& tenant);
  ~HostObjectStore() override;

  std::string_view backend_name() const override { return "host"; }
  absl::StatusOr<StoredObject> Upload(UploadSource& source,
                                      const UploadOptions& options) override;
  absl::StatusOr<std::unique_ptr<ObjectWriter>> NewWriter(
      const UploadOptions& options) override;
  absl::Status CheckContainment(const DataLocation& location) override;
  absl::StatusOr<std::unique_ptr<ObjectStream>> Open(
      const DataLocation& location, uint64_t start, uint64_t limit) override;
  absl::Status List(
      const std::function<bool(const ListedObject&)>& emit) override;
  absl::Status Delete(const DataLocation& location) override;
  absl::StatusOr<uint64_t> CleanStaging() override { return 0; }
  absl::StatusOr<std::string> StageRelativeKey(std::string_view uri) override;
  absl::StatusOr<std::string> ScopedTenant() const override { return tenant_; }
  absl::StatusOr<std::optional<std::string>> ReadStageRecord(std::string_view name,
                                                             size_t max_bytes) override;
  absl::Status CreateStageRecord(std::string_view name, std::string_view bytes) override;
  absl::StatusOr<std::vector<std::string>> ListStageRecords(std::string_view dir) override;

 private:
  HostObjectStore(const lake_host_store& table, std::string root_uri,
                  std::string tenant);
  bool Contains(std::string_view uri) const;
  // The URI of a stage record (never a managed key).
  absl::StatusOr<std::string> RecordUri(std::string_view name) const;

  lake_host_store table_;
  std::string root_uri_;  // canonical, without a trailing '/'
  std::string tenant_;
};

// The status a host callback reported, with its message.
absl::Status HostStatus(lake_status code, const char* operation,
                        const char* message);

}  // namespace lake::c

#endif  // LAKE_BINDINGS_C_HOST_OBJECT_STORE_H_
