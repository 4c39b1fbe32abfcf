// A ManagedObjectStore over a host's lake_host_store callback table (the
// injection seam). The host moves bytes; lake keeps its policy: it chooses
// managed keys beneath root_uri (and reports each to UploadOptions::
// key_chosen before the host's upload is called), hashes and counts every byte it hands the
// host, refuses to publish an upload the host did not read to the end, and
// checks containment lexically on canonical URIs.
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

 private:
  HostObjectStore(const lake_host_store& table, std::string root_uri,
                  std::string tenant);
  bool Contains(std::string_view uri) const;

  lake_host_store table_;
  std::string root_uri_;  // canonical, without a trailing '/'
  std::string tenant_;
};

// The status a host callback reported, with its message.
absl::Status HostStatus(lake_status code, const char* operation,
                        const char* message);

}  // namespace lake::c

#endif  // LAKE_BINDINGS_C_HOST_OBJECT_STORE_H_
