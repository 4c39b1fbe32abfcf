#include "tests/support/s3_fixture.h"

#include <cstdlib>
#include <random>
#include <stdexcept>

#include "absl/strings/str_cat.h"
#include "io/s3http/credentials_provider.h"
#include "tests/support/stage_fixture.h"

namespace lake::testing {
namespace {

std::string RequiredEnv(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || value[0] == '\0') {
    throw std::runtime_error(absl::StrCat(
        name, " is not set: S3 tests run against scripts/s3-test-server (scripts/test starts it)"));
  }
  return value;
}

}  // namespace

s3http::Credentials TestCredentials() {
  s3http::Credentials credentials;
  credentials.access_key_id = RequiredEnv("AWS_ACCESS_KEY_ID");
  credentials.secret_access_key = RequiredEnv("AWS_SECRET_ACCESS_KEY");
  return credentials;
}

std::string TestEndpoint() { return RequiredEnv("AWS_ENDPOINT_URL"); }

std::string UniqueBucketName() {
  static std::mt19937_64 rng(std::random_device{}());
  return absl::StrCat("lake-test-", absl::Hex(rng(), absl::kZeroPad16));
}

absl::Status RemoveBucket(s3http::S3Client& client, const std::string& bucket) {
  for (;;) {
    absl::StatusOr<s3http::ListMultipartUploadsResult> uploads =
        client.ListMultipartUploads(bucket, "", "", "");
    if (!uploads.ok()) return uploads.status();
    if (uploads->uploads.empty()) break;
    for (const s3http::ListedMultipartUpload& upload : uploads->uploads) {
      absl::Status aborted =
          client.AbortMultipartUpload(bucket, upload.key, upload.upload_id, absl::Seconds(30));
      if (!aborted.ok() && !absl::IsNotFound(aborted)) return aborted;
    }
  }
  for (;;) {
    absl::StatusOr<s3http::ListObjectsV2Result> page = client.ListObjectsV2(bucket, "", "");
    if (!page.ok()) return page.status();
    if (page->contents.empty()) break;
    std::vector<std::string> keys;
    for (const s3http::ListedObject& object : page->contents) keys.push_back(object.key);
    absl::StatusOr<s3http::DeleteObjectsResult> deleted = client.DeleteObjects(bucket, keys);
    if (!deleted.ok()) return deleted.status();
    if (!deleted->failures.empty()) {
      return absl::UnavailableError(absl::StrCat("could not delete ", deleted->failures.size(),
                                                 " keys of ", bucket));
    }
  }
  return client.DeleteBucket(bucket);
}

S3Fixture::S3Fixture(S3FixtureOptions options) {
  endpoint_ = options.endpoint.empty() ? TestEndpoint() : options.endpoint;
  bucket_ = UniqueBucketName();
  stage_ = Open(options);
  absl::Status created = client().CreateBucket(bucket_);
  if (!created.ok()) throw std::runtime_error("cannot create the test bucket: " + created.ToString());
}

S3Fixture::~S3Fixture() {
  // Best effort: a test that removed its bucket already, or a server gone,
  // leaves nothing to do.
  (void)RemoveBucket(client(), bucket_);
}

std::unique_ptr<ManagedStage> S3Fixture::OpenAnother(S3FixtureOptions options) const {
  return Open(std::move(options));
}

std::unique_ptr<ManagedStage> S3Fixture::Open(S3FixtureOptions options) const {
  S3StageOptions stage;
  stage.bucket = bucket_;
  stage.prefix = options.prefix;
  stage.tenant = options.tenant;
  absl::StatusOr<s3http::S3Endpoint> endpoint = s3http::ParseS3Endpoint(
      options.endpoint.empty() ? endpoint_ : options.endpoint, /*path_style=*/true);
  if (!endpoint.ok()) throw std::runtime_error(endpoint.status().ToString());
  stage.endpoint = *endpoint;
  stage.region = "us-east-1";
  stage.tuning = options.tuning;
  stage.download = options.download;
  stage.retry = options.retry;
  stage.transport = options.transport;
  stage.checkpoint_dir = options.checkpoint_dir;
  stage.list_parts_page = options.list_parts_page;
  stage.list_page_keys = options.list_page_keys;
  absl::StatusOr<std::unique_ptr<S3ObjectStore>> store = S3ObjectStore::Open(
      stage, std::make_unique<s3http::StaticCredentialsProvider>(TestCredentials()));
  if (!store.ok()) throw std::runtime_error(store.status().ToString());
  return std::make_unique<ManagedStage>(std::move(*store));
}

absl::StatusOr<DataLocation> S3Fixture::UploadBytes(const std::vector<uint8_t>& bytes,
                                                    UploadOptions options) {
  MemorySource source(bytes);
  return stage_->Upload(source, options);
}

}  // namespace lake::testing
