// Reading and writing <root>/format.json (the format is in
// root_format_record.h).
#include "absl/strings/str_cat.h"
#include "engine/managed_key.h"
#include "engine/root_format_record.h"
#include "io/whole_file.h"

namespace lake {
namespace {

std::string RecordPath(const std::string& root_dir) {
  return absl::StrCat(root_dir, "/", std::string(kRootFormatRecordFile));
}

}  // namespace

absl::StatusOr<std::optional<int64_t>> ReadRootFormatRecord(io::FileSystem& fs,
                                                            const std::string& root_dir) {
  absl::StatusOr<std::string> text =
      io::ReadWholeFile(fs, RecordPath(root_dir), kMaxRootFormatRecordBytes);
  if (absl::IsNotFound(text.status())) return std::optional<int64_t>();
  if (!text.ok()) return text.status();
  absl::StatusOr<int64_t> version = DecodeRootFormatRecord(*text);
  if (!version.ok()) return version.status();
  return std::optional<int64_t>(*version);
}

absl::Status CheckRootFormat(io::FileSystem& fs, const std::string& root_dir) {
  absl::StatusOr<std::optional<int64_t>> recorded = ReadRootFormatRecord(fs, root_dir);
  if (!recorded.ok()) return recorded.status();
  if (!recorded->has_value()) return absl::OkStatus();
  return CheckRootFormatVersion(**recorded);
}

absl::Status WriteRootFormatRecord(io::FileSystem& fs, const std::string& root_dir) {
  std::string path = RecordPath(root_dir);
  std::string temp = absl::StrCat(path, ".", NewUuidV7(), ".tmp");
  absl::Status written =
      io::WriteWholeFileDurably(fs, path, temp, EncodeRootFormatRecord(kRootFormatVersion));
  if (absl::IsAlreadyExists(written)) return CheckRootFormat(fs, root_dir);
  return written;
}

}  // namespace lake
