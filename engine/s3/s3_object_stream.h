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
#ifndef LAKE_ENGINE_S3_S3_OBJECT_STREAM_H_
#define LAKE_ENGINE_S3_S3_OBJECT_STREAM_H_

#include <memory>
#include <optional>
#include <string>

#include "engine/byte_range.h"
#include "engine/object_stream.h"
#include "io/s3http/s3_client.h"

namespace lake {

// How often one stream resumes a broken body before giving up.
inline constexpr int kS3MaxResumes = 8;

class S3ObjectStream final : public ObjectStream {
 public:
  static absl::StatusOr<std::unique_ptr<S3ObjectStream>> Open(
      s3http::S3Client& client, std::string bucket, std::string key,
      uint64_t size_bytes, std::optional<ByteRange> range);

  absl::StatusOr<size_t> Read(uint8_t* dst, size_t len) override;
  absl::Status Close() override;

 private:
  S3ObjectStream(s3http::S3Client& client, std::string bucket, std::string key,
                 uint64_t size_bytes, std::optional<ByteRange> range)
      : client_(client), bucket_(std::move(bucket)), key_(std::move(key)),
        size_bytes_(size_bytes), range_(range), position_(range ? range->start : 0) {}
  absl::Status Start();
  // Asks for the bytes from position_ on; sets at_end_ when none are left.
  absl::Status Resume();

  s3http::S3Client& client_;
  std::string bucket_;
  std::string key_;
  uint64_t size_bytes_;
  std::optional<ByteRange> range_;
  uint64_t position_;  // the object offset of the next byte
  std::string etag_;   // of the first answer, as sent
  std::unique_ptr<s3http::HttpCall> call_;
  int resumes_ = 0;
  bool at_end_ = false;
};

}  // namespace lake

#endif  // LAKE_ENGINE_S3_S3_OBJECT_STREAM_H_
