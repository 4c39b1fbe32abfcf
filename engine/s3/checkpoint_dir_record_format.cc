#include "engine/s3/checkpoint_dir_record_format.h"

#include "absl/strings/str_cat.h"
#include "engine/sha256.h"
#include "engine/table/byte_codec.h"

namespace lake {
namespace {

// Why `dir` cannot be recorded, or "" when it can.
std::string PathProblem(std::string_view dir) {
  if (dir.empty() || dir.size() > kMaxCheckpointDirPathBytes) {
    return absl::StrCat("a checkpoint directory's path is 1..", kMaxCheckpointDirPathBytes,
                        " bytes");
  }
  if (dir.front() != '/') return "a checkpoint directory's path must be absolute";
  if (dir.find('\0') != std::string_view::npos || dir.find('\n') != std::string_view::npos) {
    return "a checkpoint directory's path holds a NUL or a newline";
  }
  return "";
}

}  // namespace

absl::StatusOr<EncodedCheckpointDirRecord> EncodeCheckpointDirRecord(std::string_view dir) {
  if (std::string problem = PathProblem(dir); !problem.empty()) {
    return absl::InvalidArgumentError(problem);
  }
  EncodedCheckpointDirRecord record;
  record.bytes = absl::StrCat(std::string(kCheckpointDirRecordHeader), std::string(dir), "\n");
  record.name = absl::StrCat(Sha256Hex(record.bytes), std::string(kCheckpointDirRecordSuffix));
  return record;
}

absl::StatusOr<std::string> DecodeCheckpointDirRecord(std::string_view name,
                                                      std::string_view bytes) {
  auto damaged = [&](std::string_view why) {
    return absl::DataLossError(absl::StrCat("the checkpoint directory record ", std::string(name),
                                            " is damaged: ", std::string(why)));
  };
  if (bytes.size() > kMaxCheckpointDirRecordBytes) return damaged("it is too long");
  if (!bytes.starts_with(kCheckpointDirRecordHeader)) {
    return damaged("it does not begin with the version 1 header");
  }
  std::string_view rest = bytes.substr(kCheckpointDirRecordHeader.size());
  if (rest.empty() || rest.back() != '\n') return damaged("its path does not end with a newline");
  std::string_view dir = rest.substr(0, rest.size() - 1);
  if (std::string problem = PathProblem(dir); !problem.empty()) return damaged(problem);
  if (table::kChecksumsEnforced &&
      name != absl::StrCat(Sha256Hex(bytes), std::string(kCheckpointDirRecordSuffix))) {
    return damaged("its name is not the digest of its bytes");
  }
  return std::string(dir);
}

}  // namespace lake
