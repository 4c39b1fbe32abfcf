#include "io/s3http/s3_client.h"

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace lake::s3http {
namespace {

// An error document larger than this is not read in full.
constexpr size_t kMaxErrorBodyBytes = 64 * 1024;

absl::Span<const uint8_t> AsBytes(const std::string& text) {
  return absl::Span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size());
}

bool IsSuccess(int status) { return status >= 200 && status < 300; }

std::string Describe(const std::string& method, const std::string& bucket,
                     const std::string& key) {
  return absl::StrCat(method, " s3://", bucket, "/", key);
}

}  // namespace

absl::Status ErrorOfAnswer(int http_status, std::string_view body, std::string_view what) {
  absl::Status status = S3ErrorResponseStatus(http_status, body);
  if (IsMalformedResponse(status)) {
    // The server's fault, not the caller's: a storage failure.
    return absl::UnknownError(absl::StrCat(std::string(what), ": ", status.message()));
  }
  return status;
}

absl::StatusOr<std::unique_ptr<S3Client>> S3Client::Create(HttpTransport& transport,
                                                           CredentialsProvider& credentials,
                                                           S3ClientOptions options) {
  absl::StatusOr<SigV4Signer> signer = SigV4Signer::Create(options.region, "s3");
  if (!signer.ok()) return signer.status();
  return std::unique_ptr<S3Client>(
      new S3Client(transport, credentials, std::move(options), std::move(*signer)));
}

absl::StatusOr<HttpRequest> S3Client::Sign(const Exchange& exchange) {
  absl::StatusOr<Credentials> credentials = credentials_.Get();
  if (!credentials.ok()) return credentials.status();
  std::string query = CanonicalQueryString(exchange.query);
  S3Target target = TargetOf(options_.endpoint, exchange.bucket, exchange.key, query);
  SigningRequest signing;
  signing.method = exchange.method;
  signing.host = target.host_header;
  signing.path = target.signed_path;
  signing.query = exchange.query;
  signing.headers = exchange.headers;
  signing.payload_sha256 = exchange.payload_sha256;
  absl::StatusOr<HeaderSignature> signature =
      signer_.SignHeaders(signing, *credentials, absl::Now());
  if (!signature.ok()) return signature.status();
  HttpRequest request;
  request.method = exchange.method;
  request.url = std::move(target.url);
  request.headers.push_back({"Host", target.host_header});
  for (const HttpHeader& header : exchange.headers) request.headers.push_back(header);
  for (HttpHeader& header : signature->headers) request.headers.push_back(std::move(header));
  request.send_body = exchange.send_body;
  request.body = exchange.body;
  if (exchange.deadline != absl::InfiniteFuture()) {
    request.deadline = std::max(absl::Milliseconds(1), exchange.deadline - absl::Now());
  }
  return request;
}

absl::StatusOr<S3Client::Answer> S3Client::Attempt(const Exchange& exchange) {
  absl::StatusOr<HttpRequest> request = Sign(exchange);
  if (!request.ok()) return request.status();
  std::unique_ptr<HttpCall> call = transport_.Start(std::move(*request), BodyMode::kCollect);
  if (exchange.canceller != nullptr && !exchange.canceller->Register(call.get())) {
    return absl::CancelledError("the request was cancelled");
  }
  absl::StatusOr<HttpResponseHead> head = call->AwaitHead();
  absl::StatusOr<std::string> body =
      head.ok() ? call->AwaitBody() : absl::StatusOr<std::string>(head.status());
  if (exchange.canceller != nullptr) exchange.canceller->Unregister(call.get());
  if (!body.ok()) return body.status();
  if (!IsSuccess(head->status)) {
    return ErrorOfAnswer(head->status, *body,
                         Describe(exchange.method, exchange.bucket, exchange.key));
  }
  return Answer{std::move(*head), std::move(*body)};
}

namespace {

// A success answer whose body cannot be parsed is the server's fault.
template <typename T>
absl::StatusOr<T> ServerParsed(absl::StatusOr<T> parsed) {
  if (!parsed.ok() && IsMalformedResponse(parsed.status())) {
    return absl::UnknownError(parsed.status().message());
  }
  return parsed;
}

}  // namespace

absl::StatusOr<S3Client::Answer> S3Client::Run(const Exchange& exchange) {
  for (int attempt = 1;; ++attempt) {
    absl::StatusOr<Answer> answer = Attempt(exchange);
    if (answer.ok() || !RetryPolicy::IsRetryable(answer.status()) ||
        attempt >= options_.retry.max_attempts) {
      return answer;
    }
    absl::Duration wait = options_.retry.Backoff(attempt);
    if (absl::Now() + wait >= exchange.deadline) return answer;
    if (exchange.canceller != nullptr && exchange.canceller->cancelled()) {
      return absl::CancelledError("the request was cancelled");
    }
    absl::SleepFor(wait);
  }
}

absl::Status S3Client::CreateBucket(const std::string& bucket) {
  Exchange exchange{"PUT", bucket, ""};
  exchange.send_body = true;
  return Run(exchange).status();
}

absl::Status S3Client::DeleteBucket(const std::string& bucket) {
  return Run(Exchange{"DELETE", bucket, ""}).status();
}

absl::StatusOr<ObjectInfo> S3Client::HeadObject(const std::string& bucket,
                                                const std::string& key) {
  absl::StatusOr<Answer> answer = Run(Exchange{"HEAD", bucket, key});
  if (!answer.ok()) return answer.status();
  ObjectInfo info;
  const std::string* length = answer->head.Find("content-length");
  const std::string* etag = answer->head.Find("etag");
  if (length == nullptr || etag == nullptr) {
    return absl::UnknownError(absl::StrCat("HEAD s3://", bucket, "/", key,
                                           ": no Content-Length or ETag in the answer"));
  }
  absl::StatusOr<uint64_t> size = ParseContentLength(*length);
  if (!size.ok()) return size.status();
  absl::StatusOr<ETag> parsed = ParseETag(*etag);
  if (!parsed.ok()) return parsed.status();
  info.size = *size;
  info.etag = *parsed;
  if (const std::string* type = answer->head.Find("content-type")) info.content_type = *type;
  return info;
}

absl::StatusOr<ETag> S3Client::PutObject(const std::string& bucket, const std::string& key,
                                         absl::Span<const uint8_t> body,
                                         const std::string& body_sha256,
                                         const std::string& content_type) {
  Exchange exchange{"PUT", bucket, key};
  exchange.headers.push_back({"Content-Type", content_type});
  exchange.send_body = true;
  exchange.body = body;
  exchange.payload_sha256 = body_sha256;
  absl::StatusOr<Answer> answer = Run(exchange);
  if (!answer.ok()) return answer.status();
  const std::string* etag = answer->head.Find("etag");
  if (etag == nullptr) return absl::UnknownError("PutObject answered without an ETag");
  return ParseETag(*etag);
}

absl::Status S3Client::DeleteObject(const std::string& bucket, const std::string& key) {
  absl::StatusOr<Answer> answer = Run(Exchange{"DELETE", bucket, key});
  if (absl::IsNotFound(answer.status())) return absl::OkStatus();
  return answer.status();
}

absl::Status S3Client::PutObjectIfAbsent(const std::string& bucket, const std::string& key,
                                         std::string_view body,
                                         const std::string& content_type) {
  std::string owned(body);
  Exchange exchange{"PUT", bucket, key};
  exchange.headers.push_back({"Content-Type", content_type});
  exchange.headers.push_back({"If-None-Match", "*"});
  exchange.send_body = true;
  exchange.body = AsBytes(owned);
  exchange.payload_sha256 = PayloadSha256Hex(owned);
  absl::StatusOr<Answer> answer = Run(exchange);
  if (absl::IsFailedPrecondition(answer.status())) {
    return absl::AlreadyExistsError(absl::StrCat("s3://", bucket, "/", key, " exists"));
  }
  return answer.status();
}

absl::StatusOr<std::string> S3Client::GetSmallObject(const std::string& bucket,
                                                     const std::string& key, size_t max_bytes) {
  absl::StatusOr<OpenedGet> get = OpenGet(bucket, key, std::nullopt, "");
  if (!get.ok()) return get.status();
  std::string body;
  uint8_t buf[8192];
  for (;;) {
    absl::StatusOr<size_t> n = get->call->ReadBody(buf, sizeof buf);
    if (!n.ok()) return n.status();
    if (*n == 0) return body;
    body.append(reinterpret_cast<const char*>(buf), *n);
    if (body.size() > max_bytes) {
      return absl::DataLossError(absl::StrCat("s3://", bucket, "/", key, " is longer than ",
                                              max_bytes, " bytes"));
    }
  }
}

absl::StatusOr<DeleteObjectsResult> S3Client::DeleteObjects(const std::string& bucket,
                                                            std::span<const std::string> keys) {
  absl::StatusOr<std::string> xml = SerializeDeleteObjects(keys);
  if (!xml.ok()) return xml.status();
  Exchange exchange{"POST", bucket, ""};
  exchange.query.push_back({"delete", ""});
  exchange.headers.push_back({"Content-Type", "application/xml"});
  exchange.headers.push_back({"Content-MD5", ContentMd5(*xml)});
  exchange.send_body = true;
  exchange.body = AsBytes(*xml);
  exchange.payload_sha256 = PayloadSha256Hex(*xml);
  absl::StatusOr<Answer> answer = Run(exchange);
  if (!answer.ok()) return answer.status();
  return ServerParsed(ParseDeleteObjectsResult(answer->body));
}

absl::StatusOr<std::string> S3Client::CreateMultipartUpload(const std::string& bucket,
                                                            const std::string& key,
                                                            const std::string& content_type) {
  Exchange exchange{"POST", bucket, key};
  exchange.query.push_back({"uploads", ""});
  exchange.headers.push_back({"Content-Type", content_type});
  exchange.send_body = true;
  absl::StatusOr<Answer> answer = Run(exchange);
  if (!answer.ok()) return answer.status();
  absl::StatusOr<InitiateMultipartUploadResult> result =
      ServerParsed(ParseInitiateMultipartUploadResult(answer->body));
  if (!result.ok()) return result.status();
  return result->upload_id;
}

absl::StatusOr<ETag> S3Client::UploadPart(const std::string& bucket, const std::string& key,
                                          const std::string& upload_id, int part_number,
                                          absl::Span<const uint8_t> body,
                                          const std::string& body_sha256,
                                          CallCanceller* canceller) {
  Exchange exchange{"PUT", bucket, key};
  exchange.canceller = canceller;
  exchange.query.push_back({"partNumber", std::to_string(part_number)});
  exchange.query.push_back({"uploadId", upload_id});
  exchange.send_body = true;
  exchange.body = body;
  exchange.payload_sha256 = body_sha256;
  absl::StatusOr<Answer> answer = Run(exchange);
  if (!answer.ok()) return answer.status();
  const std::string* etag = answer->head.Find("etag");
  if (etag == nullptr) return absl::UnknownError("UploadPart answered without an ETag");
  return ParseETag(*etag);
}

absl::StatusOr<CompleteMultipartUploadResult> S3Client::CompleteMultipartUpload(
    const std::string& bucket, const std::string& key, const std::string& upload_id,
    absl::Span<const CompletedPart> parts) {
  absl::StatusOr<std::string> xml =
      SerializeCompleteMultipartUpload(std::span<const CompletedPart>(parts.data(), parts.size()));
  if (!xml.ok()) return xml.status();
  Exchange exchange{"POST", bucket, key};
  exchange.query.push_back({"uploadId", upload_id});
  exchange.headers.push_back({"Content-Type", "application/xml"});
  exchange.send_body = true;
  exchange.body = AsBytes(*xml);
  exchange.payload_sha256 = PayloadSha256Hex(*xml);
  absl::StatusOr<Answer> answer = Run(exchange);
  if (!answer.ok()) return answer.status();
  return ServerParsed(ParseCompleteMultipartUploadResult(answer->body));
}

absl::Status S3Client::AbortMultipartUpload(const std::string& bucket, const std::string& key,
                                            const std::string& upload_id,
                                            absl::Duration budget) {
  Exchange exchange{"DELETE", bucket, key};
  exchange.query.push_back({"uploadId", upload_id});
  exchange.deadline = absl::Now() + budget;
  absl::StatusOr<Answer> answer = Run(exchange);
  if (absl::IsNotFound(answer.status())) return absl::OkStatus();  // already gone
  return answer.status();
}

absl::StatusOr<ListPartsResult> S3Client::ListParts(const std::string& bucket,
                                                    const std::string& key,
                                                    const std::string& upload_id,
                                                    int part_number_marker, int max_parts) {
  Exchange exchange{"GET", bucket, key};
  exchange.query.push_back({"uploadId", upload_id});
  if (max_parts != 1000) exchange.query.push_back({"max-parts", std::to_string(max_parts)});
  if (part_number_marker > 0) {
    exchange.query.push_back({"part-number-marker", std::to_string(part_number_marker)});
  }
  absl::StatusOr<Answer> answer = Run(exchange);
  if (!answer.ok()) return answer.status();
  return ServerParsed(ParseListPartsResult(answer->body));
}

absl::StatusOr<ListMultipartUploadsResult> S3Client::ListMultipartUploads(
    const std::string& bucket, const std::string& prefix, const std::string& key_marker,
    const std::string& upload_id_marker, int max_uploads) {
  Exchange exchange{"GET", bucket, ""};
  exchange.query.push_back({"uploads", ""});
  exchange.query.push_back({"prefix", prefix});
  if (max_uploads != 1000) exchange.query.push_back({"max-uploads", std::to_string(max_uploads)});
  if (!key_marker.empty()) exchange.query.push_back({"key-marker", key_marker});
  if (!upload_id_marker.empty()) exchange.query.push_back({"upload-id-marker", upload_id_marker});
  absl::StatusOr<Answer> answer = Run(exchange);
  if (!answer.ok()) return answer.status();
  return ServerParsed(ParseListMultipartUploadsResult(answer->body));
}

absl::StatusOr<ListObjectsV2Result> S3Client::ListObjectsV2(
    const std::string& bucket, const std::string& prefix,
    const std::string& continuation_token, const std::string& start_after, int max_keys) {
  if (max_keys < 1 || max_keys > 1000) {
    return absl::InvalidArgumentError(
        absl::StrCat("ListObjectsV2 pages hold 1..1000 keys, not ", max_keys));
  }
  Exchange exchange{"GET", bucket, ""};
  exchange.query.push_back({"list-type", "2"});
  exchange.query.push_back({"prefix", prefix});
  if (!continuation_token.empty()) {
    exchange.query.push_back({"continuation-token", continuation_token});
  } else if (!start_after.empty()) {
    // S3 ignores start-after beside a token; it is sent with the first page only.
    exchange.query.push_back({"start-after", start_after});
  }
  if (max_keys != 1000) exchange.query.push_back({"max-keys", absl::StrCat(max_keys)});
  absl::StatusOr<Answer> answer = Run(exchange);
  if (!answer.ok()) return answer.status();
  return ServerParsed(ParseListObjectsV2Result(answer->body));
}

absl::StatusOr<OpenedGet> S3Client::OpenGet(
    const std::string& bucket, const std::string& key,
    std::optional<std::pair<uint64_t, uint64_t>> range, const std::string& if_match,
    CallCanceller* canceller) {
  Exchange exchange{"GET", bucket, key};
  if (range.has_value()) {
    exchange.headers.push_back(
        {"Range", range->second == UINT64_MAX
                      ? absl::StrCat("bytes=", range->first, "-")
                      : absl::StrCat("bytes=", range->first, "-", range->second)});
  }
  if (!if_match.empty()) exchange.headers.push_back({"If-Match", if_match});
  for (int attempt = 1;; ++attempt) {
    absl::Status failure;
    absl::StatusOr<HttpRequest> request = Sign(exchange);
    if (!request.ok()) return request.status();
    std::unique_ptr<HttpCall> call = transport_.Start(std::move(*request), BodyMode::kStream);
    if (canceller != nullptr && !canceller->Register(call.get())) {
      return absl::CancelledError("the request was cancelled");
    }
    absl::StatusOr<HttpResponseHead> head = call->AwaitHead();
    if (canceller != nullptr) canceller->Unregister(call.get());
    if (head.ok() && IsSuccess(head->status)) return OpenedGet{std::move(*head), std::move(call)};
    if (!head.ok()) {
      failure = head.status();
    } else {
      std::string body;
      uint8_t buf[8192];
      for (;;) {
        absl::StatusOr<size_t> n = call->ReadBody(buf, sizeof buf);
        if (!n.ok() || *n == 0 || body.size() > kMaxErrorBodyBytes) break;
        body.append(reinterpret_cast<const char*>(buf), *n);
      }
      failure = ErrorOfAnswer(head->status, body, Describe("GET", bucket, key));
    }
    if (!RetryPolicy::IsRetryable(failure) || attempt >= options_.retry.max_attempts) {
      return failure;
    }
    absl::SleepFor(options_.retry.Backoff(attempt));
    if (canceller != nullptr && canceller->cancelled()) {
      return absl::CancelledError("the request was cancelled");
    }
  }
}

absl::StatusOr<std::string> S3Client::PresignGet(const std::string& bucket,
                                                 const std::string& key, absl::Duration ttl) {
  absl::StatusOr<Credentials> credentials = credentials_.Get();
  if (!credentials.ok()) return credentials.status();
  S3Target target = TargetOf(options_.endpoint, bucket, key, "");
  SigningRequest signing;
  signing.method = "GET";
  signing.host = target.host_header;
  signing.path = target.signed_path;
  absl::StatusOr<PresignedQuery> presigned =
      signer_.Presign(signing, *credentials, absl::Now(), ttl);
  if (!presigned.ok()) return presigned.status();
  return absl::StrCat(target.url, "?", presigned->query);
}

}  // namespace lake::s3http
