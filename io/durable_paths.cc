#include "io/durable_paths.h"

namespace lake::io {

std::string ParentPath(const std::string& path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

absl::Status SyncParentDirectory(FileSystem& fs, const std::string& path) {
  return SyncDirectory(fs, ParentPath(path));
}

absl::Status SyncDirectory(FileSystem& fs, const std::string& path) {
  absl::StatusOr<std::unique_ptr<File>> dir = fs.OpenDirectory(path);
  if (!dir.ok()) return dir.status();
  if (absl::Status s = (*dir)->Sync(); !s.ok()) return s;
  return (*dir)->Close();
}

absl::Status CreateDirectoriesDurably(FileSystem& fs, const std::string& path) {
  absl::StatusOr<FileInfo> info = fs.Stat(path);
  if (info.ok()) {
    if (info->is_directory) return absl::OkStatus();
    absl::StatusOr<std::string> real = fs.RealPath(path);  // a symlink to a dir
    if (real.ok()) {
      absl::StatusOr<FileInfo> target = fs.Stat(*real);
      if (target.ok() && target->is_directory) return absl::OkStatus();
    }
    return absl::FailedPreconditionError(path + " exists and is not a directory");
  }
  if (!absl::IsNotFound(info.status())) return info.status();
  std::string parent = ParentPath(path);
  if (parent != path && parent != "." && parent != "/") {
    if (absl::Status s = CreateDirectoriesDurably(fs, parent); !s.ok()) return s;
  }
  absl::Status created = fs.CreateDirectory(path);
  if (absl::IsAlreadyExists(created)) return absl::OkStatus();  // a racing creator
  if (!created.ok()) return created;
  return SyncParentDirectory(fs, path);
}

absl::Status RemoveTree(FileSystem& fs, const std::string& path) {
  absl::StatusOr<FileInfo> info = fs.Stat(path);
  if (absl::IsNotFound(info.status())) return absl::OkStatus();
  if (!info.ok()) return info.status();
  if (info->is_directory) {
    absl::StatusOr<std::vector<std::string>> names = fs.ListDirectory(path);
    if (!names.ok()) return names.status();
    for (const std::string& name : *names) {
      if (absl::Status s = RemoveTree(fs, path + "/" + name); !s.ok()) return s;
    }
  }
  return fs.Remove(path);
}

}  // namespace lake::io
