#include "io/posix/posix_file_system.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "io/errno_status.h"
#include "io/posix/inline_io_queue.h"

namespace lake::io {
namespace {

FileInfo InfoFromStat(const struct stat& st) {
  FileInfo info;
  info.size = static_cast<uint64_t>(st.st_size);
  info.is_regular = S_ISREG(st.st_mode);
  info.is_directory = S_ISDIR(st.st_mode);
  info.modified_unix_micros =
      static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000 +
      st.st_mtim.tv_nsec / 1000;
  info.link_count = static_cast<uint64_t>(st.st_nlink);
  return info;
}

// How Sync makes a file durable, fixed when it is opened: fdatasync for a
// regular file this process writes (it persists the size too), fsync for a
// directory or a file opened only to read (which may be either). Sync must
// not fstat the file to find out: on file systems with multigrain
// timestamps (ext4, XFS, Linux 6.13+) a stat makes the next write stamp a
// fine-grained mtime, which dirties the inode, so every fdatasync after it
// also writes the inode (one more I/O per sync).
enum class SyncCall { kFdatasync, kFsync };

class PosixFile final : public File {
 public:
  PosixFile(int fd, std::string path, bool direct, SyncCall sync_call)
      : fd_(fd), path_(std::move(path)), direct_(direct), sync_call_(sync_call) {}
  ~PosixFile() override {
    if (fd_ >= 0) ::close(fd_);
  }

  const std::string& path() const override { return path_; }
  int fd() const override { return fd_; }
  bool direct() const override { return direct_; }

  absl::StatusOr<size_t> PRead(uint8_t* buf, size_t len,
                               uint64_t offset) override {
    for (;;) {
      ssize_t n = ::pread(fd_, buf, len, static_cast<off_t>(offset));
      if (n >= 0) return static_cast<size_t>(n);
      if (errno != EINTR) return ErrnoStatus(errno, "read", path_);
    }
  }
  absl::StatusOr<size_t> PWrite(const uint8_t* buf, size_t len,
                                uint64_t offset) override {
    for (;;) {
      ssize_t n = ::pwrite(fd_, buf, len, static_cast<off_t>(offset));
      if (n >= 0) return static_cast<size_t>(n);
      if (errno != EINTR) return ErrnoStatus(errno, "write", path_);
    }
  }
  absl::StatusOr<size_t> PWriteV(absl::Span<const std::string_view> pieces,
                                 uint64_t offset) override {
    iovec iov[kMaxWritePieces];
    if (pieces.size() > kMaxWritePieces) {
      return absl::InvalidArgumentError(absl::StrCat("a write of ", pieces.size(), " pieces to ",
                                                     path_, " (at most ", kMaxWritePieces, ")"));
    }
    for (size_t i = 0; i < pieces.size(); ++i) {
      iov[i].iov_base = const_cast<char*>(pieces[i].data());
      iov[i].iov_len = pieces[i].size();
    }
    for (;;) {
      ssize_t n = ::pwritev(fd_, iov, static_cast<int>(pieces.size()), static_cast<off_t>(offset));
      if (n >= 0) return static_cast<size_t>(n);
      if (errno != EINTR) return ErrnoStatus(errno, "write", path_);
    }
  }
  absl::StatusOr<size_t> Read(uint8_t* buf, size_t len) override {
    for (;;) {
      ssize_t n = ::read(fd_, buf, len);
      if (n >= 0) return static_cast<size_t>(n);
      if (errno != EINTR) return ErrnoStatus(errno, "read", path_);
    }
  }
  absl::Status Sync() override {
    int rc = sync_call_ == SyncCall::kFdatasync ? ::fdatasync(fd_) : ::fsync(fd_);
    if (rc != 0) return ErrnoStatus(errno, "fsync", path_);
    return absl::OkStatus();
  }
  absl::Status Truncate(uint64_t size) override {
    if (::ftruncate(fd_, static_cast<off_t>(size)) != 0) {
      return ErrnoStatus(errno, "truncate", path_);
    }
    return absl::OkStatus();
  }
  absl::Status Allocate(uint64_t offset, uint64_t len) override {
    if (::fallocate(fd_, 0, static_cast<off_t>(offset), static_cast<off_t>(len)) == 0) {
      return absl::OkStatus();
    }
    if (errno == EOPNOTSUPP) return absl::UnimplementedError("fallocate: " + path_);
    return ErrnoStatus(errno, "fallocate", path_);
  }
  absl::StatusOr<FileInfo> Stat() override {
    struct stat st;
    if (::fstat(fd_, &st) != 0) return ErrnoStatus(errno, "stat", path_);
    return InfoFromStat(st);
  }
  absl::StatusOr<bool> TryLockExclusive() override {
    if (::flock(fd_, LOCK_EX | LOCK_NB) == 0) return true;
    if (errno == EWOULDBLOCK) return false;
    return ErrnoStatus(errno, "lock", path_);
  }
  absl::Status LockExclusive() override {
    while (::flock(fd_, LOCK_EX) != 0) {
      if (errno != EINTR) return ErrnoStatus(errno, "lock", path_);
    }
    return absl::OkStatus();
  }
  absl::Status Close() override {
    int fd = std::exchange(fd_, -1);
    if (fd >= 0 && ::close(fd) != 0 && errno != EINTR) {
      return ErrnoStatus(errno, "close", path_);
    }
    return absl::OkStatus();
  }

 private:
  int fd_;
  std::string path_;
  bool direct_;
  SyncCall sync_call_;
};

// openat2(RESOLVE_BENEATH) refuses, in the kernel and atomically, any path
// or symlink that leaves `dirfd`. Returns -1 with errno ENOSYS on kernels
// without openat2.
int OpenBeneath(int dirfd, const std::string& relative, int extra_flags = 0) {
  struct open_how how = {};
  how.flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | extra_flags;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
  for (;;) {
    long fd = ::syscall(SYS_openat2, dirfd, relative.c_str(), &how, sizeof how);
    if (fd >= 0 || errno != EINTR) return static_cast<int>(fd);
  }
}

// Fallback for kernels without openat2: resolve, check the prefix, and
// open without following a final symlink. Racy against a concurrent
// rename of a parent directory, which openat2 is not.
int OpenBeneathByRealPath(const std::string& root, const std::string& relative,
                          int extra_flags = 0) {
  std::string joined = root + "/" + relative;
  char resolved[PATH_MAX];
  if (::realpath(joined.c_str(), resolved) == nullptr) return -1;
  std::string r(resolved);
  if (!absl::StartsWith(r, root + "/")) {
    errno = EXDEV;
    return -1;
  }
  return ::open(resolved, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW | extra_flags);
}

}  // namespace

absl::StatusOr<std::unique_ptr<File>> PosixFileSystem::OpenRead(
    const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return ErrnoStatus(errno, "open", path);
  return std::make_unique<PosixFile>(fd, path, false, SyncCall::kFsync);
}

absl::StatusOr<std::unique_ptr<File>> PosixFileSystem::OpenReadBeneath(
    const File& root, const std::string& relative) {
  int fd = OpenBeneath(root.fd(), relative);
  if (fd < 0 && errno == ENOSYS) fd = OpenBeneathByRealPath(root.path(), relative);
  std::string path = root.path() + "/" + relative;
  if (fd < 0) {
    if (errno == EXDEV || errno == ELOOP) {
      return absl::PermissionDeniedError(
          "path leaves the stage root: " + path);
    }
    return ErrnoStatus(errno, "open", path);
  }
  return std::make_unique<PosixFile>(fd, std::move(path), false, SyncCall::kFsync);
}

absl::StatusOr<std::unique_ptr<File>> PosixFileSystem::CreateNew(
    const std::string& path, bool want_direct) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return ErrnoStatus(errno, "create", path);
  // Switching to O_DIRECT after creation (instead of opening with it) keeps
  // a file system without direct I/O from failing the create half-way.
  bool direct = false;
  if (want_direct) {
    int flags = ::fcntl(fd, F_GETFL);
    direct = flags >= 0 && ::fcntl(fd, F_SETFL, flags | O_DIRECT) == 0;
  }
  return std::make_unique<PosixFile>(fd, path, direct, SyncCall::kFdatasync);
}

absl::StatusOr<std::unique_ptr<File>> PosixFileSystem::OpenForRewrite(
    const std::string& path) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return ErrnoStatus(errno, "open for rewrite", path);
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    return ErrnoStatus(err, "stat", path);
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return absl::FailedPreconditionError("open for rewrite: not a regular file: " + path);
  }
  return std::make_unique<PosixFile>(fd, path, false, SyncCall::kFdatasync);
}

absl::StatusOr<std::unique_ptr<File>> PosixFileSystem::OpenDirectory(
    const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus(errno, "open directory", path);
  return std::make_unique<PosixFile>(fd, path, false, SyncCall::kFsync);
}

absl::StatusOr<std::unique_ptr<File>> PosixFileSystem::OpenDirectoryBeneath(
    const File& root, const std::string& relative) {
  int fd = OpenBeneath(root.fd(), relative, O_DIRECTORY);
  if (fd < 0 && errno == ENOSYS) fd = OpenBeneathByRealPath(root.path(), relative, O_DIRECTORY);
  std::string path = root.path() + "/" + relative;
  if (fd < 0) {
    if (errno == EXDEV || errno == ELOOP) {
      return absl::PermissionDeniedError("path leaves its root: " + path);
    }
    return ErrnoStatus(errno, "open directory", path);
  }
  return std::make_unique<PosixFile>(fd, std::move(path), false, SyncCall::kFsync);
}

absl::Status PosixFileSystem::RemoveAt(const File& dir, const std::string& name) {
  if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos) {
    return absl::InvalidArgumentError("not one path component: " + name);
  }
  if (::unlinkat(dir.fd(), name.c_str(), 0) == 0) return absl::OkStatus();
  return ErrnoStatus(errno, "remove", dir.path() + "/" + name);
}

absl::Status PosixFileSystem::CreateDirectory(const std::string& path) {
  if (::mkdir(path.c_str(), 0755) != 0) return ErrnoStatus(errno, "mkdir", path);
  return absl::OkStatus();
}

absl::Status PosixFileSystem::RenameNoReplace(const std::string& from,
                                              const std::string& to) {
  if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(),
                  RENAME_NOREPLACE) != 0) {
    return ErrnoStatus(errno, "rename", from + " -> " + to);
  }
  return absl::OkStatus();
}

absl::Status PosixFileSystem::Remove(const std::string& path) {
  if (::unlink(path.c_str()) == 0) return absl::OkStatus();
  if (errno == EISDIR) {
    if (::rmdir(path.c_str()) == 0) return absl::OkStatus();
  }
  return ErrnoStatus(errno, "remove", path);
}

absl::StatusOr<std::vector<std::string>> PosixFileSystem::ListDirectory(
    const std::string& path) {
  DIR* dir = ::opendir(path.c_str());
  if (dir == nullptr) return ErrnoStatus(errno, "list", path);
  std::vector<std::string> names;
  errno = 0;
  while (struct dirent* entry = ::readdir(dir)) {
    std::string_view name(entry->d_name);
    if (name != "." && name != "..") names.emplace_back(name);
  }
  int error = errno;
  ::closedir(dir);
  if (error != 0) return ErrnoStatus(error, "list", path);
  return names;
}

absl::StatusOr<FileInfo> PosixFileSystem::Stat(const std::string& path) {
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0) return ErrnoStatus(errno, "stat", path);
  return InfoFromStat(st);
}

absl::StatusOr<std::string> PosixFileSystem::RealPath(const std::string& path) {
  char resolved[PATH_MAX];
  if (::realpath(path.c_str(), resolved) == nullptr) {
    return ErrnoStatus(errno, "resolve", path);
  }
  return std::string(resolved);
}

absl::StatusOr<std::unique_ptr<IoQueue>> PosixFileSystem::NewIoQueue(
    unsigned depth) {
  return std::make_unique<InlineIoQueue>(depth);
}

}  // namespace lake::io
