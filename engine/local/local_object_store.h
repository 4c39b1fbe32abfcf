// The local backend of ManagedObjectStore: a stage in one directory
// (layout in local_stage_paths.h, upload sequence in local_upload.h).
// Thread-safe: uploads and reads may run concurrently from many threads and
// processes; each operation owns its file handles, I/O queue and buffers.
#ifndef LAKE_ENGINE_LOCAL_LOCAL_OBJECT_STORE_H_
#define LAKE_ENGINE_LOCAL_LOCAL_OBJECT_STORE_H_

#include <memory>
#include <string>

#include "engine/local/local_stage_paths.h"
#include "engine/local/shard_directories.h"
#include "engine/managed_object_store.h"
#include "io/file_system.h"

namespace lake {

class LocalObjectStore final : public ManagedObjectStore {
 public:
  // Opens the stage at `root`, creating its directories (durably) when
  // missing. `tenant` may be empty; it must have been validated.
  static absl::StatusOr<std::unique_ptr<LocalObjectStore>> Open(
      io::FileSystem& fs, const std::string& root, const std::string& tenant);

  const LocalStagePaths& paths() const { return paths_; }

  std::string_view backend_name() const override { return fs_.name(); }
  absl::StatusOr<StoredObject> Upload(UploadSource& source,
                                      const UploadOptions& options) override;
  absl::StatusOr<std::unique_ptr<ObjectWriter>> NewWriter(
      const UploadOptions& options) override;
  // A local upload is never resumed: a crash leaves its staging file to
  // CleanStaging.
  bool ResumesUploads() const override { return false; }
  absl::Status CheckContainment(const DataLocation& location) override;
  absl::StatusOr<uint64_t> StoredSize(const DataLocation& location) override;
  absl::StatusOr<std::unique_ptr<ObjectStream>> Open(
      const DataLocation& location, uint64_t start, uint64_t limit) override;
  void ReadRanges(absl::Span<RangeRead> ranges) override;
  absl::Status List(
      const std::function<bool(const ListedObject&)>& emit) override;
  absl::Status Delete(const DataLocation& location) override;
  absl::StatusOr<uint64_t> CleanStaging() override;
  absl::StatusOr<std::optional<std::string>> ReadStageRecord(std::string_view name,
                                                             size_t max_bytes) override;
  absl::Status CreateStageRecord(std::string_view name, std::string_view bytes) override;
  absl::StatusOr<std::vector<std::string>> ListStageRecords(std::string_view dir) override;

 private:
  LocalObjectStore(io::FileSystem& fs, LocalStagePaths paths,
                   std::unique_ptr<io::File> tenant_dir);
  absl::StatusOr<std::unique_ptr<io::File>> OpenObjectFile(
      const DataLocation& location);
  // The refusal of a contained location whose path a symlink takes out of
  // the tenant's directory.
  absl::Status LeadsOutError(const DataLocation& location) const;
  // Lists objects/<xx>/<name> beneath `objects_key`; false once emit stops.
  absl::StatusOr<bool> ListObjectsDir(
      const std::string& objects_key,
      const std::function<bool(const ListedObject&)>& emit);

  io::FileSystem& fs_;
  LocalStagePaths paths_;
  // Reads and deletes resolve beneath it (openat2): paths.tenant_dir().
  std::unique_ptr<io::File> tenant_dir_;
  ShardDirectories shards_;
};

}  // namespace lake

#endif  // LAKE_ENGINE_LOCAL_LOCAL_OBJECT_STORE_H_
