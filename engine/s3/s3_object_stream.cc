#include "engine/s3/s3_object_stream.h"

#include "absl/strings/str_cat.h"
#include "engine/integrity_error.h"
#include "io/s3http/retry_policy.h"

namespace lake {
namespace {

std::optional<std::string_view> HeaderOf(const s3http::HttpResponseHead& head,
                                         std::string_view name) {
  const std::string* value = head.Find(name);
  if (value == nullptr) return std::nullopt;
  return std::string_view(*value);
}

}  // namespace

absl::StatusOr<std::unique_ptr<S3ObjectStream>> S3ObjectStream::Open(
    s3http::S3Client& client, std::string bucket, std::string key, uint64_t size_bytes,
    std::optional<ByteRange> range) {
  std::unique_ptr<S3ObjectStream> stream(
      new S3ObjectStream(client, std::move(bucket), std::move(key), size_bytes, range));
  if (absl::Status s = stream->Start(); !s.ok()) return s;
  return stream;
}

absl::Status S3ObjectStream::Start() {
  std::optional<std::pair<uint64_t, uint64_t>> wanted;
  if (range_) wanted = std::make_pair(range_->start, range_->end - 1);
  absl::StatusOr<s3http::OpenedGet> get = client_.OpenGet(bucket_, key_, wanted, "");
  if (!get.ok()) return get.status();
  if (range_) {
    absl::Status checked = s3http::CheckRangeResponse(
        get->head.status, HeaderOf(get->head, "content-range"),
        HeaderOf(get->head, "content-length"),
        s3http::RangeRequest{range_->start, range_->end, size_bytes_});
    if (!checked.ok()) return checked;
  } else if (get->head.status != 200) {
    return absl::DataLossError(absl::StrCat("GET s3://", bucket_, "/", key_, " answered ",
                                            get->head.status, " to a whole-object request"));
  }
  if (const std::string* etag = get->head.Find("etag")) etag_ = *etag;
  call_ = std::move(get->call);
  return absl::OkStatus();
}

absl::Status S3ObjectStream::Resume() {
  call_.reset();
  uint64_t last = range_ ? range_->end - 1 : UINT64_MAX;
  if (range_ && position_ > last) {
    at_end_ = true;
    return absl::OkStatus();
  }
  absl::StatusOr<s3http::OpenedGet> get =
      client_.OpenGet(bucket_, key_, std::make_pair(position_, last), etag_);
  if (!get.ok()) {
    std::optional<s3http::S3Error> error = s3http::GetS3Error(get.status());
    if (!range_ && error && error->code == "InvalidRange") {
      // The break came after the last byte: nothing is left. The verified
      // reader above judges whether that is the whole object.
      at_end_ = true;
      return absl::OkStatus();
    }
    return get.status();
  }
  if (range_) {
    // The rest of the interval, under the rule of the first answer: exactly
    // those bytes, of an object of size_bytes.
    absl::Status checked = s3http::CheckRangeResponse(
        get->head.status, HeaderOf(get->head, "content-range"),
        HeaderOf(get->head, "content-length"),
        s3http::RangeRequest{position_, range_->end, size_bytes_});
    if (!checked.ok()) return checked;
  }
  absl::StatusOr<s3http::ContentRange> content_range =
      get->head.status == 206 && get->head.Find("content-range") != nullptr
          ? s3http::ParseContentRange(*get->head.Find("content-range"))
          : absl::StatusOr<s3http::ContentRange>(absl::DataLossError(
                "a resumed GET was not answered with a 206 and a Content-Range"));
  if (!content_range.ok()) return content_range.status();
  if (content_range->first != position_ || (range_ && content_range->last != last)) {
    return absl::DataLossError(absl::StrCat(
        "a resumed GET of s3://", bucket_, "/", key_, " answered bytes ",
        content_range->first, "-", content_range->last, ", asked from ", position_));
  }
  call_ = std::move(get->call);
  return absl::OkStatus();
}

absl::StatusOr<size_t> S3ObjectStream::Read(uint8_t* dst, size_t len) {
  if (len == 0) return absl::InvalidArgumentError("read capacity must be positive");
  for (;;) {
    if (at_end_) return 0;
    if (call_ == nullptr) return absl::FailedPreconditionError("stream is closed");
    absl::StatusOr<size_t> n = call_->ReadBody(dst, len);
    if (n.ok()) {
      position_ += *n;
      return *n;
    }
    if (!s3http::RetryPolicy::IsRetryable(n.status()) || resumes_ >= kS3MaxResumes) {
      return n.status();
    }
    ++resumes_;
    if (absl::Status s = Resume(); !s.ok()) return s;
  }
}

absl::Status S3ObjectStream::Close() {
  call_.reset();  // aborts an unfinished body
  at_end_ = true;
  return absl::OkStatus();
}

}  // namespace lake
