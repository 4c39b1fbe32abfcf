// Reading and writing <root>/stage.json (the format is in
// root_stage_record.cc).
#include "absl/strings/str_cat.h"
#include "engine/managed_key.h"
#include "engine/root_stage_record.h"
#include "io/durable_paths.h"

namespace lake {
namespace {

constexpr size_t kMaxRecordBytes = 32 * 1024;

}  // namespace

absl::StatusOr<std::optional<StageDescriptor>> ReadRootStageRecord(io::FileSystem& fs,
                                                                   const std::string& root_dir) {
  std::string path = absl::StrCat(root_dir, "/", std::string(kRootStageRecordFile));
  absl::StatusOr<std::unique_ptr<io::File>> file = fs.OpenRead(path);
  if (absl::IsNotFound(file.status())) return std::optional<StageDescriptor>();
  if (!file.ok()) return file.status();
  std::string text(kMaxRecordBytes + 1, '\0');
  size_t total = 0;
  for (;;) {
    absl::StatusOr<size_t> n = (*file)->PRead(reinterpret_cast<uint8_t*>(text.data()) + total,
                                              text.size() - total, total);
    if (!n.ok()) return n.status();
    if (*n == 0 || total + *n == text.size()) {
      total += *n;
      break;
    }
    total += *n;
  }
  text.resize(total);
  absl::StatusOr<StageDescriptor> descriptor = DecodeRootStageRecord(text);
  if (!descriptor.ok()) return descriptor.status();
  return std::optional<StageDescriptor>(*descriptor);
}

absl::Status WriteRootStageRecord(io::FileSystem& fs, const std::string& root_dir,
                                  const StageDescriptor& descriptor) {
  std::string text = EncodeRootStageRecord(descriptor);
  std::string path = absl::StrCat(root_dir, "/", std::string(kRootStageRecordFile));
  std::string temp = absl::StrCat(path, ".", NewUuidV7(), ".tmp");
  {
    absl::StatusOr<std::unique_ptr<io::File>> file = fs.CreateNew(temp, /*want_direct=*/false);
    if (!file.ok()) return file.status();
    absl::StatusOr<size_t> n =
        (*file)->PWrite(reinterpret_cast<const uint8_t*>(text.data()), text.size(), 0);
    absl::Status synced = n.ok() && *n == text.size()
                              ? (*file)->Sync()
                              : (n.ok() ? absl::UnknownError("short write of " + temp) : n.status());
    if (synced.ok()) synced = (*file)->Close();
    if (!synced.ok()) {
      (void)fs.Remove(temp);
      return synced;
    }
  }
  absl::Status renamed = fs.RenameNoReplace(temp, path);
  if (!renamed.ok()) {
    (void)fs.Remove(temp);
    return renamed;
  }
  return io::SyncParentDirectory(fs, path);
}

}  // namespace lake
