// The raw byte stream of an S3 object over one GET that resumes where it
// broke: when a body breaks mid-way, the stream asks for the rest with
// `Range: bytes=<next>-` and `If-Match: <ETag of the first answer>`, so the
// bytes before the break are neither fetched nor hashed again, and the
// rest provably comes from the same object.
//
// A whole-object stream (a verified full read) sends a plain GET and serves
// whatever body the object has: the VerifiedReader above it judges size and
// digest. A range stream sends `Range: bytes=start-(end-1)` and exposes the
// body only when the answer declares exactly that range of an object of
// size_bytes with Content-Length end - start; a 200 with the whole object,
// or any other mismatch, is refused before a byte of the body is read.
//
// A pinned stream (one range of a parallel full read) sends If-Match with
// the given ETag from its first GET on. Whenever a GET carries If-Match, a
// 412 or an answer with another ETag means the object changed: the typed
// integrity error ObjectChanged, never bytes of the other object.
#ifndef LAKE_ENGINE_S3_S3_OBJECT_STREAM_H_
#define LAKE_ENGINE_S3_S3_OBJECT_STREAM_H_

#include <memory>
#include <optional>
#include <string>

#include "engine/byte_range.h"
#include "engine/object_stream.h"
#include "io/s3http/call_canceller.h"
#include "io/s3http/s3_client.h"

namespace lake {

// How often one stream resumes a broken body before giving up.
inline constexpr int kS3MaxResumes = 8;

class S3ObjectStream final : public ObjectStream {
 public:
  // `pinned_etag`: the quoted ETag every GET must match ("" pins to the
  // first answer's). `canceller` (may be null, must outlive the stream):
  // another thread's Cancel() ends a wait for a head or a body with
  // Cancelled.
  static absl::StatusOr<std::unique_ptr<S3ObjectStream>> Open(
      s3http::S3Client& client, std::string bucket, std::string key,
      uint64_t size_bytes, std::optional<ByteRange> range,
      std::string pinned_etag = "", s3http::CallCanceller* canceller = nullptr);
  ~S3ObjectStream() override;

  absl::StatusOr<size_t> Read(uint8_t* dst, size_t len) override;
  absl::Status Close() override;

 private:
  S3ObjectStream(s3http::S3Client& client, std::string bucket, std::string key,
                 uint64_t size_bytes, std::optional<ByteRange> range, std::string pinned_etag,
                 s3http::CallCanceller* canceller)
      : client_(client), bucket_(std::move(bucket)), key_(std::move(key)),
        size_bytes_(size_bytes), range_(range), position_(range ? range->start : 0),
        etag_(std::move(pinned_etag)), canceller_(canceller) {}
  absl::Status Start();
  // Asks for the bytes from position_ on; sets at_end_ when none are left.
  absl::Status Resume();
  // The typed failure of a GET; ObjectChanged for a 412 to If-Match.
  absl::Status GetFailure(const absl::Status& status) const;
  // ObjectChanged unless the answer's ETag is the pinned one.
  absl::Status CheckPinnedETag(const s3http::HttpResponseHead& head) const;
  // Takes over a GET's body call, registered with the canceller.
  absl::Status Adopt(std::unique_ptr<s3http::HttpCall> call);
  void DropCall();

  s3http::S3Client& client_;
  std::string bucket_;
  std::string key_;
  uint64_t size_bytes_;
  std::optional<ByteRange> range_;
  uint64_t position_;  // the object offset of the next byte
  std::string etag_;   // pinned, or of the first answer, as sent
  s3http::CallCanceller* canceller_;
  std::unique_ptr<s3http::HttpCall> call_;
  int resumes_ = 0;
  bool at_end_ = false;
};

// The ObjectChanged integrity error of s3://bucket/key, read pinned to
// `etag`, found changed at object offset `offset`.
absl::Status S3ObjectChangedError(std::string_view bucket, std::string_view key,
                                  std::string_view etag, uint64_t offset);

}  // namespace lake

#endif  // LAKE_ENGINE_S3_S3_OBJECT_STREAM_H_
