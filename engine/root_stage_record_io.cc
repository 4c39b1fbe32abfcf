// Reading and writing <root>/stage.json (the format is in
// root_stage_record.cc).
#include "absl/strings/str_cat.h"
#include "engine/managed_key.h"
#include "engine/root_stage_record.h"
#include "io/whole_file.h"

namespace lake {

absl::StatusOr<std::optional<StageDescriptor>> ReadRootStageRecord(io::FileSystem& fs,
                                                                   const std::string& root_dir) {
  std::string path = absl::StrCat(root_dir, "/", std::string(kRootStageRecordFile));
  absl::StatusOr<std::string> text = io::ReadWholeFile(fs, path, kMaxRootStageRecordBytes);
  if (absl::IsNotFound(text.status())) return std::optional<StageDescriptor>();
  if (!text.ok()) return text.status();
  absl::StatusOr<StageDescriptor> descriptor = DecodeRootStageRecord(*text);
  if (!descriptor.ok()) return descriptor.status();
  return std::optional<StageDescriptor>(*descriptor);
}

absl::Status WriteRootStageRecord(io::FileSystem& fs, const std::string& root_dir,
                                  const StageDescriptor& descriptor) {
  std::string path = absl::StrCat(root_dir, "/", std::string(kRootStageRecordFile));
  std::string temp = absl::StrCat(path, ".", NewUuidV7(), ".tmp");
  return io::WriteWholeFileDurably(fs, path, temp, EncodeRootStageRecord(descriptor));
}

}  // namespace lake
