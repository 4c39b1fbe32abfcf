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

bool IsPreconditionFailed(const absl::Status& status) {
  std::optional<s3http::S3Error> error = s3http::GetS3Error(status);
  return error && (error->http_status == 412 || error->code == "PreconditionFailed");
}

}  // namespace

absl::Status S3ObjectChangedError(std::string_view bucket, std::string_view key,
                                  std::string_view etag, uint64_t offset) {
  return IntegrityError(
      IntegrityKind::kObjectChanged, 0, 0,
      absl::StrCat("s3://", std::string(bucket), "/", std::string(key),
                   " changed while it was read: its ETag is no longer ", std::string(etag),
                   " (found at byte ", offset, ")"));
}

absl::StatusOr<std::unique_ptr<S3ObjectStream>> S3ObjectStream::Open(
    s3http::S3Client& client, std::string bucket, std::string key, uint64_t size_bytes,
    std::optional<ByteRange> range, std::string pinned_etag, s3http::CallCanceller* canceller) {
  std::unique_ptr<S3ObjectStream> stream(new S3ObjectStream(client, std::move(bucket),
                                                            std::move(key), size_bytes, range,
                                                            std::move(pinned_etag), canceller));
  if (absl::Status s = stream->Start(); !s.ok()) return s;
  return stream;
}

S3ObjectStream::~S3ObjectStream() { DropCall(); }

absl::Status S3ObjectStream::GetFailure(const absl::Status& status) const {
  if (!etag_.empty() && IsPreconditionFailed(status)) {
    return S3ObjectChangedError(bucket_, key_, etag_, position_);
  }
  return status;
}

absl::Status S3ObjectStream::CheckPinnedETag(const s3http::HttpResponseHead& head) const {
  const std::string* answered = head.Find("etag");
  absl::StatusOr<s3http::ETag> got =
      answered != nullptr ? s3http::ParseETag(*answered)
                          : absl::StatusOr<s3http::ETag>(absl::NotFoundError("no ETag"));
  absl::StatusOr<s3http::ETag> pinned = s3http::ParseETag(etag_);
  if (got.ok() && pinned.ok() && *got == *pinned) return absl::OkStatus();
  return S3ObjectChangedError(bucket_, key_, etag_, position_);
}

absl::Status S3ObjectStream::Adopt(std::unique_ptr<s3http::HttpCall> call) {
  if (canceller_ != nullptr && !canceller_->Register(call.get())) {
    return absl::CancelledError("the read was cancelled");
  }
  call_ = std::move(call);
  return absl::OkStatus();
}

void S3ObjectStream::DropCall() {
  if (call_ == nullptr) return;
  if (canceller_ != nullptr) canceller_->Unregister(call_.get());
  call_.reset();  // aborts an unfinished body
}

absl::Status S3ObjectStream::Start() {
  std::optional<std::pair<uint64_t, uint64_t>> wanted;
  if (range_) wanted = std::make_pair(range_->start, range_->end - 1);
  absl::StatusOr<s3http::OpenedGet> get =
      client_.OpenGet(bucket_, key_, wanted, etag_, canceller_);
  if (!get.ok()) return GetFailure(get.status());
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
  if (!etag_.empty()) {
    if (absl::Status s = CheckPinnedETag(get->head); !s.ok()) return s;
  } else if (const std::string* etag = get->head.Find("etag")) {
    etag_ = *etag;
  }
  return Adopt(std::move(get->call));
}

absl::Status S3ObjectStream::Resume() {
  DropCall();
  uint64_t last = range_ ? range_->end - 1 : UINT64_MAX;
  if (range_ && position_ > last) {
    at_end_ = true;
    return absl::OkStatus();
  }
  absl::StatusOr<s3http::OpenedGet> get =
      client_.OpenGet(bucket_, key_, std::make_pair(position_, last), etag_, canceller_);
  if (!get.ok()) {
    std::optional<s3http::S3Error> error = s3http::GetS3Error(get.status());
    if (!range_ && error && error->code == "InvalidRange") {
      // The break came after the last byte: nothing is left. The verified
      // reader above judges whether that is the whole object.
      at_end_ = true;
      return absl::OkStatus();
    }
    return GetFailure(get.status());
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
  if (!etag_.empty()) {
    if (absl::Status s = CheckPinnedETag(get->head); !s.ok()) return s;
  }
  return Adopt(std::move(get->call));
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
  DropCall();
  at_end_ = true;
  return absl::OkStatus();
}

}  // namespace lake
