// A record in a root of an upload checkpoint directory outside it
// (upload_checkpoint_dirs.h): one file per directory, at
//
//   <root>/checkpoints/upload-dirs/<sha256>.dir
//
// Format (version 1): the bytes
//   "lake upload checkpoint directory 1\n" <absolute path> "\n"
// where the path is 1..kMaxCheckpointDirPathBytes bytes, begins with '/',
// and holds no NUL or newline. The file's name is the SHA-256 (lowercase
// hex) of its bytes: the record's digest, so one directory has one name
// and recording it again changes nothing. The decoder fails closed
// (DataLoss) on another header or version, a path breaking a rule above,
// trailing bytes, or a name that is not the bytes' digest.
#ifndef LAKE_ENGINE_S3_CHECKPOINT_DIR_RECORD_FORMAT_H_
#define LAKE_ENGINE_S3_CHECKPOINT_DIR_RECORD_FORMAT_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace lake {

inline constexpr std::string_view kCheckpointDirRecordHeader =
    "lake upload checkpoint directory 1\n";
inline constexpr std::string_view kCheckpointDirRecordSuffix = ".dir";
inline constexpr size_t kMaxCheckpointDirPathBytes = 4096;
inline constexpr size_t kMaxCheckpointDirRecordBytes =
    kCheckpointDirRecordHeader.size() + kMaxCheckpointDirPathBytes + 1;

struct EncodedCheckpointDirRecord {
  std::string name;  // <sha256>.dir
  std::string bytes;
};

// InvalidArgument when `dir` breaks the path rules.
absl::StatusOr<EncodedCheckpointDirRecord> EncodeCheckpointDirRecord(std::string_view dir);
// The directory recorded by the file `name` holding `bytes`.
absl::StatusOr<std::string> DecodeCheckpointDirRecord(std::string_view name,
                                                      std::string_view bytes);

}  // namespace lake

#endif  // LAKE_ENGINE_S3_CHECKPOINT_DIR_RECORD_FORMAT_H_
