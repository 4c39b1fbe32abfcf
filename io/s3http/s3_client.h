// The S3 request layer: one method per S3 call lake makes, each signed
// (SigV4, payload hash always sent and signed), sent over the shared
// HttpTransport, retried per the RetryPolicy, and answered with a typed
// status (S3 errors carry their code and request id, see s3_responses.h).
//
// Thread-safe: many threads may call one client at once (an upload's part
// workers do). Nothing here knows about DataLocations or stages.
#ifndef LAKE_IO_S3HTTP_S3_CLIENT_H_
#define LAKE_IO_S3HTTP_S3_CLIENT_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "io/s3http/call_canceller.h"
#include "io/s3http/credentials_provider.h"
#include "io/s3http/http_transport.h"
#include "io/s3http/retry_policy.h"
#include "io/s3http/s3_endpoint.h"
#include "io/s3http/s3_headers.h"
#include "io/s3http/s3_responses.h"
#include "io/s3http/sigv4_signer.h"

namespace lake::s3http {

// SHA-256 of an empty payload: what GET, HEAD and DELETE sign.
inline constexpr std::string_view kEmptyPayloadSha256 =
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

struct S3ClientOptions {
  S3Endpoint endpoint;
  std::string region = "us-east-1";
  RetryPolicy retry;
};

struct ObjectInfo {
  uint64_t size = 0;
  ETag etag;
  std::string content_type;
};

// A GET whose 2xx head has arrived; the body streams from `call`.
struct OpenedGet {
  HttpResponseHead head;
  std::unique_ptr<HttpCall> call;
};

class S3Client {
 public:
  static absl::StatusOr<std::unique_ptr<S3Client>> Create(
      HttpTransport& transport, CredentialsProvider& credentials,
      S3ClientOptions options);

  const S3ClientOptions& options() const { return options_; }

  absl::Status CreateBucket(const std::string& bucket);
  // Removes an empty bucket (tests clean up with it).
  absl::Status DeleteBucket(const std::string& bucket);
  absl::StatusOr<ObjectInfo> HeadObject(const std::string& bucket, const std::string& key);
  absl::StatusOr<ETag> PutObject(const std::string& bucket, const std::string& key,
                                 absl::Span<const uint8_t> body,
                                 const std::string& body_sha256,
                                 const std::string& content_type);
  absl::Status DeleteObject(const std::string& bucket, const std::string& key);
  // A PUT that creates the key only when it does not exist (If-None-Match:
  // *): AlreadyExists when it does (412 PreconditionFailed).
  absl::Status PutObjectIfAbsent(const std::string& bucket, const std::string& key,
                                 std::string_view body, const std::string& content_type);
  // The bytes of a small object: NotFound when there is none, DataLoss when
  // it is longer than `max_bytes` (it is not read further).
  absl::StatusOr<std::string> GetSmallObject(const std::string& bucket, const std::string& key,
                                             size_t max_bytes);
  // One DeleteObjects request (quiet) for 1..kMaxDeleteObjectsKeys keys,
  // with Content-MD5 as S3 requires. The whole request is retried as any
  // other; keys the server could not delete come back as failures (an
  // absent key is deleted, as S3 says). A key XML cannot carry is
  // InvalidArgument before anything is sent.
  absl::StatusOr<DeleteObjectsResult> DeleteObjects(const std::string& bucket,
                                                    std::span<const std::string> keys);

  absl::StatusOr<std::string> CreateMultipartUpload(const std::string& bucket,
                                                    const std::string& key,
                                                    const std::string& content_type);
  // The ETag the server reports for the part it stored. The part's
  // SHA-256 is signed, so the server refuses bytes that changed in transit.
  absl::StatusOr<ETag> UploadPart(const std::string& bucket, const std::string& key,
                                  const std::string& upload_id, int part_number,
                                  absl::Span<const uint8_t> body,
                                  const std::string& body_sha256,
                                  CallCanceller* canceller = nullptr);
  // A 200 whose body is an <Error> is returned as that error.
  absl::StatusOr<CompleteMultipartUploadResult> CompleteMultipartUpload(
      const std::string& bucket, const std::string& key, const std::string& upload_id,
      absl::Span<const CompletedPart> parts);
  // Gives up after `budget` in all (abandoned uploads are also reaped by
  // the bucket's AbortIncompleteMultipartUpload lifecycle rule).
  absl::Status AbortMultipartUpload(const std::string& bucket, const std::string& key,
                                    const std::string& upload_id, absl::Duration budget);
  // One page of the parts stored so far (NotFound: NoSuchUpload).
  // `max_parts` 1..1000 (S3's own page size by default); smaller only to
  // test paging.
  absl::StatusOr<ListPartsResult> ListParts(const std::string& bucket,
                                            const std::string& key,
                                            const std::string& upload_id,
                                            int part_number_marker, int max_parts = 1000);
  // One page of the multipart uploads in progress under `prefix`, in key
  // order, after (`key_marker`, `upload_id_marker`) — both "" for the first
  // page, then the page's next markers. `max_uploads` 1..1000 (S3's own
  // page size by default); smaller only to test paging.
  absl::StatusOr<ListMultipartUploadsResult> ListMultipartUploads(
      const std::string& bucket, const std::string& prefix, const std::string& key_marker,
      const std::string& upload_id_marker, int max_uploads = 1000);
  // One page of the keys beneath `prefix`, in key order: the first page
  // (no continuation token) from the first key after `start_after` ("" for
  // the first key), each next one by its token. `max_keys` 1..1000 (S3's
  // own page size by default); smaller only to test paging.
  absl::StatusOr<ListObjectsV2Result> ListObjectsV2(const std::string& bucket,
                                                    const std::string& prefix,
                                                    const std::string& continuation_token,
                                                    const std::string& start_after = "",
                                                    int max_keys = 1000);

  // Sends one GET (optionally `Range: bytes=first-last`, or `bytes=first-`
  // when last is UINT64_MAX, and `If-Match`) and
  // waits for its head; transport failures and 5xx before the head are
  // retried. A non-2xx answer is returned as its typed error. While it
  // waits, `canceller` (if any) can abort it (Cancelled); the returned call
  // is not registered with it.
  absl::StatusOr<OpenedGet> OpenGet(const std::string& bucket, const std::string& key,
                                    std::optional<std::pair<uint64_t, uint64_t>> range,
                                    const std::string& if_match,
                                    CallCanceller* canceller = nullptr);

  // A GET URL valid for `ttl` (1 s .. 7 days; the engine caps it lower).
  absl::StatusOr<std::string> PresignGet(const std::string& bucket, const std::string& key,
                                         absl::Duration ttl);

 private:
  struct Exchange {
    Exchange(std::string method, std::string bucket, std::string key)
        : method(std::move(method)), bucket(std::move(bucket)), key(std::move(key)) {}
    std::string method;
    std::string bucket;
    std::string key;
    std::vector<QueryParameter> query;
    std::vector<HttpHeader> headers;
    bool send_body = false;
    absl::Span<const uint8_t> body;
    std::string payload_sha256{kEmptyPayloadSha256};
    CallCanceller* canceller = nullptr;
    // Each attempt must end by this time.
    absl::Time deadline = absl::InfiniteFuture();
  };
  struct Answer {
    HttpResponseHead head;
    std::string body;
  };

  S3Client(HttpTransport& transport, CredentialsProvider& credentials,
           S3ClientOptions options, SigV4Signer signer)
      : transport_(transport),
        credentials_(credentials),
        options_(std::move(options)),
        signer_(std::move(signer)) {}

  absl::StatusOr<HttpRequest> Sign(const Exchange& exchange);
  // One attempt: the head and the collected body of a 2xx answer, or the
  // typed error.
  absl::StatusOr<Answer> Attempt(const Exchange& exchange);
  // Attempts until success, a failure not worth repeating, or the policy's
  // last attempt.
  absl::StatusOr<Answer> Run(const Exchange& exchange);

  HttpTransport& transport_;
  CredentialsProvider& credentials_;
  S3ClientOptions options_;
  SigV4Signer signer_;
};

// The typed status of a non-2xx answer with its (possibly empty) body.
absl::Status ErrorOfAnswer(int http_status, std::string_view body,
                           std::string_view what);

}  // namespace lake::s3http

#endif  // LAKE_IO_S3HTTP_S3_CLIENT_H_
