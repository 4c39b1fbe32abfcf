// The S3 backend of ManagedObjectStore: one transport (connection reuse,
// many requests in flight), one credentials source and one request layer,
// shared by every operation on the stage. Layout and containment in
// s3_stage_layout.h, uploads in s3_upload.h, reads in s3_object_stream.h
// (one GET) and s3_parallel_object_stream.h (large full reads).
// Thread-safe.
#ifndef LAKE_ENGINE_S3_S3_OBJECT_STORE_H_
#define LAKE_ENGINE_S3_S3_OBJECT_STORE_H_

#include <memory>
#include <string>

#include "engine/managed_object_store.h"
#include "engine/s3/s3_parallel_object_stream.h"
#include "engine/s3/s3_stage_layout.h"
#include "engine/s3/s3_upload.h"
#include "io/s3http/credentials_provider.h"
#include "io/s3http/http_transport.h"
#include "io/s3http/s3_client.h"

namespace lake {

// The longest a presigned URL may live: it is a bearer credential.
inline constexpr absl::Duration kMaxPresignTtl = absl::Hours(1);
// Ranges of one batch in flight at once.
inline constexpr size_t kS3RangeBatchWindow = 16;

struct S3StageOptions {
  std::string bucket;
  std::string prefix;
  std::string tenant;
  s3http::S3Endpoint endpoint;
  std::string region;
  S3UploadTuning tuning;
  S3DownloadTuning download;
  s3http::TransportOptions transport;
  s3http::RetryPolicy retry;
  // Where path-backed uploads keep their checkpoints (s3_upload.h,
  // upload_checkpoint_store.h); empty: none.
  std::string checkpoint_dir;
  // ListParts page size when resuming; smaller only to test paging.
  int list_parts_page = 1000;
  // ListObjectsV2 page size of ListUnordered's streams; smaller only to
  // test paging.
  int list_page_keys = 1000;
};

class S3ObjectStore final : public ManagedObjectStore {
 public:
  // `credentials` null: the AWS default chain.
  static absl::StatusOr<std::unique_ptr<S3ObjectStore>> Open(
      const S3StageOptions& options,
      std::unique_ptr<s3http::CredentialsProvider> credentials);

  const S3StageLayout& layout() const { return layout_; }
  s3http::S3Client& client() { return *client_; }

  std::string_view backend_name() const override { return "s3"; }
  absl::StatusOr<StoredObject> Upload(UploadSource& source,
                                      const UploadOptions& options) override;
  absl::StatusOr<std::unique_ptr<ObjectWriter>> NewWriter(
      const UploadOptions& options) override;

  // Upload checkpoints (s3_upload.h): the store (null when the stage keeps
  // none), and resuming and aborting one by its id.
  UploadCheckpointStore* checkpoint_store() { return checkpoint_store_.get(); }
  absl::StatusOr<StoredObject> ResumeUpload(std::string_view id, const UploadOptions& options);
  absl::Status AbortUpload(std::string_view id);
  absl::StatusOr<uint64_t> ExpireStaleUploads(absl::Time now, absl::Duration horizon) {
    return ExpireStaleS3Uploads(*client_, checkpointing_, now, horizon);
  }
  absl::Status CheckContainment(const DataLocation& location) override;
  absl::StatusOr<uint64_t> StoredSize(const DataLocation& location) override;
  absl::StatusOr<std::unique_ptr<ObjectStream>> Open(
      const DataLocation& location, uint64_t start, uint64_t limit) override;
  void ReadRanges(absl::Span<RangeRead> ranges) override;
  absl::Status List(
      const std::function<bool(const ListedObject&)>& emit) override;
  // `streams` ListObjectsV2 streams over the key ranges split at the
  // objects directory's hex shards (s3_parallel_listing.h); 1: List.
  absl::Status ListUnordered(size_t streams,
                             const std::function<bool(const ListedObject&)>& emit) override;
  absl::Status Delete(const DataLocation& location) override;
  // S3 has no staging area: an interrupted multipart upload is aborted by
  // lake when it can, and by the bucket's lifecycle rule otherwise.
  absl::StatusOr<uint64_t> CleanStaging() override { return 0; }
  absl::StatusOr<std::string> Presign(const DataLocation& location,
                                      absl::Duration ttl) override;
  absl::StatusOr<std::optional<std::string>> ReadStageRecord(std::string_view name,
                                                             size_t max_bytes) override;
  absl::Status CreateStageRecord(std::string_view name, std::string_view bytes) override;
  absl::StatusOr<std::vector<std::string>> ListStageRecords(std::string_view dir) override;

 private:
  // The full S3 key of a stage record (under the prefix, never the tenant).
  std::string RecordKey(std::string_view name) const;

  S3ObjectStore(S3StageOptions options, S3StageLayout layout,
                std::unique_ptr<s3http::CredentialsProvider> credentials)
      : options_(std::move(options)), layout_(std::move(layout)),
        credentials_(std::move(credentials)) {}

  S3StageOptions options_;
  S3StageLayout layout_;
  std::unique_ptr<s3http::CredentialsProvider> credentials_;
  std::unique_ptr<s3http::HttpTransport> transport_;
  std::unique_ptr<s3http::S3Client> client_;
  std::unique_ptr<UploadCheckpointStore> checkpoint_store_;
  S3UploadCheckpointing checkpointing_;
  io::FileSystem* fs_ = nullptr;
};

}  // namespace lake

#endif  // LAKE_ENGINE_S3_S3_OBJECT_STORE_H_
