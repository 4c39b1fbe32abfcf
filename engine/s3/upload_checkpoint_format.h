// The checkpoint of a resumable S3 upload (issue 21): everything a later
// process needs to continue a path-backed multipart upload, and nothing
// secret (no credentials, no signed URLs, no object bytes).
//
// Format, version 1 (binary, little-endian; "str" is a u32 length then
// that many bytes):
//   magic        8 bytes  "LAKEUPCK"
//   version      u32      1
//   id           str      the checkpoint's UUIDv7 (its file name's stem)
//   key          str      the random managed key the upload publishes
//   upload_id    str      S3's multipart upload id
//   bucket, prefix, endpoint, tenant   str × 4   the stage's identity
//   content_type str
//   source_path  str      the source's real (absolute) path
//   source_device, source_inode, source_size  u64 × 3
//   source_mtime_micros   i64
//   part_bytes   u64      the part size the upload was cut with
//   window       u32      parts that may have completed remotely beyond
//                         the recorded prefix (the upload's concurrency)
//   created_unix_micros, updated_unix_micros   i64 × 2
//   part_count   u32      the completed parts 1..part_count, in order
//   per part:    etag str (as the server reported it, quotes removed),
//                sha256 32 bytes (of the part's bytes; it is also the part's
//                checksum: S3 checked each part against this signed
//                x-amz-content-sha256, so V1 keeps the one value once)
//   digest       32 bytes SHA-256 of every byte before it
//
// Invariants of an accepted checkpoint: every string within its bound,
// the id a canonical UUIDv7, part_bytes either kS3CheckpointPartBytes or
// kS3LegacyCheckpointPartBytes (the only resumable V1 sizes), window in
// 1..kS3MaxConcurrency, part_count at most 10,000 and every part's bytes
// inside source_size, etags non-empty. The decoder fails closed
// (DataLoss naming what is wrong) on a wrong magic or digest, an unknown
// version, any of those violated, and bytes left over.
#ifndef LAKE_ENGINE_S3_UPLOAD_CHECKPOINT_FORMAT_H_
#define LAKE_ENGINE_S3_UPLOAD_CHECKPOINT_FORMAT_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace lake {

inline constexpr uint32_t kUploadCheckpointVersion = 1;
inline constexpr std::string_view kUploadCheckpointMagic = "LAKEUPCK";
// New checkpoints record 64 MiB parts; V1 checkpoints written with the
// former 5 MiB parts stay resumable at that size. No other size is.
inline constexpr uint64_t kS3CheckpointPartBytes = uint64_t{64} << 20;
inline constexpr uint64_t kS3LegacyCheckpointPartBytes = uint64_t{5} << 20;
inline constexpr size_t kMaxCheckpointStringBytes = 4096;
inline constexpr size_t kMaxCheckpointEtagBytes = 256;
// 10,000 parts of at most ~300 bytes, plus the header.
inline constexpr size_t kMaxUploadCheckpointBytes = size_t{4} << 20;

struct CheckpointPart {
  std::string etag;    // without quotes
  std::string sha256;  // 64 lowercase hex
  bool operator==(const CheckpointPart&) const = default;
};

struct UploadCheckpoint {
  std::string id;
  std::string key;
  std::string upload_id;
  std::string bucket;
  std::string prefix;
  std::string endpoint;
  std::string tenant;
  std::string content_type;
  std::string source_path;
  uint64_t source_device = 0;
  uint64_t source_inode = 0;
  uint64_t source_size = 0;
  int64_t source_mtime_micros = 0;
  uint64_t part_bytes = kS3CheckpointPartBytes;
  uint32_t window = 1;
  int64_t created_unix_micros = 0;
  int64_t updated_unix_micros = 0;
  std::vector<CheckpointPart> parts;

  // Bytes of the source the recorded parts cover.
  uint64_t bytes_done() const;
  bool operator==(const UploadCheckpoint&) const = default;
};

// True for the part sizes a V1 checkpoint may record (in failpoint builds
// also any other, while kAnyPartSizeResumableFailpoint is set).
bool IsResumablePartBytes(uint64_t part_bytes);

// InvalidArgument for a checkpoint that breaks an invariant above.
absl::Status ValidateUploadCheckpoint(const UploadCheckpoint& checkpoint);
absl::StatusOr<std::string> EncodeUploadCheckpoint(const UploadCheckpoint& checkpoint);
// DataLoss for anything but a valid version-1 checkpoint.
absl::StatusOr<UploadCheckpoint> DecodeUploadCheckpoint(std::string_view bytes);

}  // namespace lake

#endif  // LAKE_ENGINE_S3_UPLOAD_CHECKPOINT_FORMAT_H_
