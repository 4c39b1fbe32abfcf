// Which upload checkpoint directories a root's collector reads (issue 21):
// the root's own, <root>/checkpoints/uploads, and every other directory a
// writer of the root chose for its uploads' checkpoints
// (lake_stage_options_set_upload_checkpoint_dir on lake_db_open), recorded
// in the root (checkpoint_dir_record_format.h) when the db is opened,
// before its first upload.
//
// So a checkpoint kept outside the root protects its key (its multipart
// upload is no orphan, orphan_uploads.h) and expires (lake gc apply aborts
// its stale upload and removes it) exactly as one in the root's own
// directory, in every process that collects the root — after the upload
// that wrote it has died, and whatever directory that process was opened
// with. A recorded directory that no longer exists holds no checkpoint; a
// damaged record, or one that cannot be read, fails the collection
// (nothing is guessed). Records are never removed by lake: an operator who
// retires a directory removes its record.
#ifndef LAKE_ENGINE_S3_UPLOAD_CHECKPOINT_DIRS_H_
#define LAKE_ENGINE_S3_UPLOAD_CHECKPOINT_DIRS_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "io/file_system.h"

namespace lake {

// <root>/checkpoints/upload-dirs, relative to a root directory.
inline constexpr std::string_view kUploadCheckpointDirRecordsDir = "checkpoints/upload-dirs";

// Records `dir` (made absolute against the working directory, created if
// missing, then resolved to its real path) in the root, durably; nothing
// when it is the root's own directory or recorded already. Returns the
// path recorded.
absl::StatusOr<std::string> RecordUploadCheckpointDir(io::FileSystem& fs,
                                                      const std::string& root_dir,
                                                      const std::string& dir);

// The root's own checkpoint directory, then every recorded one, each once.
absl::StatusOr<std::vector<std::string>> UploadCheckpointDirsOfRoot(io::FileSystem& fs,
                                                                    const std::string& root_dir);

}  // namespace lake

#endif  // LAKE_ENGINE_S3_UPLOAD_CHECKPOINT_DIRS_H_
