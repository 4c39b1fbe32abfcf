// Local files through POSIX calls. Its IoQueue is synchronous (the `sync`
// backend); the io_uring backend derives from it and replaces only the queue.
#ifndef LAKE_IO_POSIX_POSIX_FILE_SYSTEM_H_
#define LAKE_IO_POSIX_POSIX_FILE_SYSTEM_H_

#include "io/file_system.h"

namespace lake::io {

class PosixFileSystem : public FileSystem {
 public:
  std::string_view name() const override { return "sync"; }

  absl::StatusOr<std::unique_ptr<File>> OpenRead(
      const std::string& path) override;
  absl::StatusOr<std::unique_ptr<File>> OpenReadBeneath(
      const File& root, const std::string& relative) override;
  absl::StatusOr<std::unique_ptr<File>> OpenDirectoryBeneath(
      const File& root, const std::string& relative) override;
  absl::StatusOr<std::unique_ptr<File>> CreateNew(const std::string& path,
                                                  bool want_direct) override;
  absl::StatusOr<std::unique_ptr<File>> OpenForRewrite(const std::string& path) override;
  absl::StatusOr<std::unique_ptr<File>> OpenDirectory(
      const std::string& path) override;
  absl::Status CreateDirectory(const std::string& path) override;
  absl::Status RenameNoReplace(const std::string& from,
                               const std::string& to) override;
  absl::Status Remove(const std::string& path) override;
  absl::Status RemoveAt(const File& dir, const std::string& name) override;
  absl::StatusOr<std::vector<std::string>> ListDirectory(
      const std::string& path) override;
  absl::StatusOr<FileInfo> Stat(const std::string& path) override;
  absl::StatusOr<std::string> RealPath(const std::string& path) override;
  absl::StatusOr<std::unique_ptr<IoQueue>> NewIoQueue(unsigned depth) override;
};

}  // namespace lake::io

#endif  // LAKE_IO_POSIX_POSIX_FILE_SYSTEM_H_
