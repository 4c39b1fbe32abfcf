// An S3 stage on the project's own RGW server (scripts/s3-test-server),
// in a fresh bucket per fixture. The server's address and credentials come
// from the environment scripts/test exports (AWS_ENDPOINT_URL,
// AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY); without them the fixture
// fails the test — S3 tests never pass by skipping.
#ifndef LAKE_TESTS_SUPPORT_S3_FIXTURE_H_
#define LAKE_TESTS_SUPPORT_S3_FIXTURE_H_

#include <memory>
#include <string>

#include "engine/managed_stage.h"
#include "engine/s3/s3_object_store.h"

namespace lake::testing {

struct S3FixtureOptions {
  std::string prefix = "lake-data";
  std::string tenant;
  S3UploadTuning tuning{256 * 1024, 4};  // small parts keep tests fast
  S3DownloadTuning download;              // production defaults unless a test sets them
  // Defaults to $AWS_ENDPOINT_URL; tests point it at a fault proxy.
  std::string endpoint;
  s3http::RetryPolicy retry{4, absl::Milliseconds(20), absl::Milliseconds(200)};
  s3http::TransportOptions transport;
  // Upload checkpoints (engine/s3/s3_upload.h): none unless set.
  std::string checkpoint_dir;
  int list_parts_page = 1000;
  int list_page_keys = 1000;
};

class S3Fixture {
 public:
  explicit S3Fixture(S3FixtureOptions options = {});
  // Removes the bucket and all it holds (RemoveBucket), so that a long run
  // of tests stays under the server's bucket limit and memory.
  ~S3Fixture();
  S3Fixture(const S3Fixture&) = delete;
  S3Fixture& operator=(const S3Fixture&) = delete;
  // Another stage on the same bucket (another prefix, tenant or endpoint).
  std::unique_ptr<ManagedStage> OpenAnother(S3FixtureOptions options) const;

  const std::string& bucket() const { return bucket_; }
  const std::string& endpoint() const { return endpoint_; }
  ManagedStage& stage() { return *stage_; }
  S3ObjectStore& store() { return static_cast<S3ObjectStore&>(stage_->store()); }
  s3http::S3Client& client() { return store().client(); }

  absl::StatusOr<DataLocation> UploadBytes(const std::vector<uint8_t>& bytes,
                                           UploadOptions options = {});

 private:
  std::unique_ptr<ManagedStage> Open(S3FixtureOptions options) const;

  std::string endpoint_;
  std::string bucket_;
  std::unique_ptr<ManagedStage> stage_;
};

// The S3 credentials of the test server (from the environment).
s3http::Credentials TestCredentials();
// The test server's endpoint URL (from the environment).
std::string TestEndpoint();
// A fresh, valid bucket name.
std::string UniqueBucketName();
// Aborts every multipart upload in progress in `bucket` and deletes every
// key (lake's or not), then the bucket.
absl::Status RemoveBucket(s3http::S3Client& client, const std::string& bucket);

}  // namespace lake::testing

#endif  // LAKE_TESTS_SUPPORT_S3_FIXTURE_H_
