#include "engine/file_upload_source.h"

namespace lake {

absl::StatusOr<std::unique_ptr<FileUploadSource>> FileUploadSource::Open(
    io::FileSystem& fs, const std::string& path) {
  absl::StatusOr<std::unique_ptr<io::File>> file = fs.OpenRead(path);
  if (!file.ok()) return file.status();
  absl::StatusOr<io::FileInfo> info = (*file)->Stat();
  if (!info.ok()) return info.status();
  if (info->is_directory) {
    return absl::InvalidArgumentError(path + " is a directory");
  }
  std::optional<uint64_t> size;
  if (info->is_regular) size = info->size;
  std::unique_ptr<FileUploadSource> source(
      new FileUploadSource(std::move(*file), info->is_regular, size));
  if (info->is_regular) {
    absl::StatusOr<std::string> real = fs.RealPath(path);
    if (real.ok()) {
      source->identity_ = SourceFileIdentity{*real, info->device, info->inode, info->size,
                                             info->modified_unix_micros};
    }
  }
  return source;
}

absl::StatusOr<size_t> FileUploadSource::Read(uint8_t* dst, size_t len) {
  if (!regular_) return file_->Read(dst, len);
  absl::StatusOr<size_t> n = file_->PRead(dst, len, offset_);
  if (n.ok()) offset_ += *n;
  return n;
}

}  // namespace lake
