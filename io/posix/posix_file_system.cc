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
#include <sys/sysmacros.h>
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
  info.device = static_cast<uint64_t>(st.st_dev);
  info.inode = static_cast<uint64_t>(st.st_ino);
  return info;
}

FileInfo InfoFromStatx(const struct statx& stx) {
  FileInfo info;
  info.size = stx.stx_size;
  info.is_regular = S_ISREG(stx.stx_mode);
  info.is_directory = S_ISDIR(stx.stx_mode);
  info.modified_unix_micros =
      static_cast<int64_t>(stx.stx_mtime.tv_sec) * 1000000 +
      stx.stx_mtime.tv_nsec / 1000;
  info.link_count = stx.stx_nlink;
  info.device = makedev(stx.stx_dev_major, stx.stx_dev_minor);
  info.inode = stx.stx_ino;
  if ((stx.stx_mask & STATX_BTIME) != 0) {
    info.birth_unix_nanos =
        static_cast<int64_t>(stx.stx_btime.tv_sec) * 1000000000 + stx.stx_btime.tv_nsec;
  }
  return info;
}

// The FileInfo of `path` relative to `dirfd` (`flags` as for fstatat:
// AT_EMPTY_PATH with "" for the descriptor itself), with the birth time
// from statx. Where statx is missing or refused (old kernels; seccomp
// profiles answer ENOSYS or EPERM) fstatat stands in, without it. Returns
// false with errno set on failure.
bool StatInfo(int dirfd, const char* path, int flags, FileInfo* info) {
  struct statx stx;
  if (::statx(dirfd, path, flags, STATX_BASIC_STATS | STATX_BTIME, &stx) == 0) {
    *info = InfoFromStatx(stx);
    return true;
  }
  if (errno != ENOSYS && errno != EPERM) return false;
  struct stat st;
  if (::fstatat(dirfd, path, &st, flags) != 0) return false;
  *info = InfoFromStat(st);
  return true;
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
  absl::StatusOr<uint64_t> NextUnwritten(uint64_t offset) override {
    off_t at = ::lseek(fd_, static_cast<off_t>(offset), SEEK_HOLE);
    if (at >= 0) return static_cast<uint64_t>(at);
    if (errno == ENXIO) return offset;  // at or past the end
    return ErrnoStatus(errno, "lseek SEEK_HOLE", path_);
  }
  absl::StatusOr<FileInfo> Stat() override {
    FileInfo info;
    if (!StatInfo(fd_, "", AT_EMPTY_PATH, &info)) return ErrnoStatus(errno, "stat", path_);
    return info;
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
  absl::Status LockShared() override {
    while (::flock(fd_, LOCK_SH) != 0) {
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
// or symlink that leaves `dirfd`. `flags` adds to O_RDONLY (O_DIRECTORY).
int OpenBeneath(int dirfd, const std::string& relative, int flags) {
  struct open_how how = {};
  how.flags = static_cast<uint64_t>(O_RDONLY | O_CLOEXEC | O_NOCTTY | flags);
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
  for (;;) {
    long fd = ::syscall(SYS_openat2, dirfd, relative.c_str(), &how, sizeof how);
    if (fd >= 0 || errno != EINTR) return static_cast<int>(fd);
  }
}

// Fallback where openat2 cannot be used: resolve, check the prefix, and
// open without following a final symlink. Racy against a concurrent
// rename of a parent directory, which openat2 is not.
int OpenBeneathByRealPath(const std::string& root, const std::string& relative, int flags) {
  std::string joined = root + "/" + relative;
  char resolved[PATH_MAX];
  if (::realpath(joined.c_str(), resolved) == nullptr) return -1;
  std::string r(resolved);
  if (!absl::StartsWith(r, root + "/")) {
    errno = EXDEV;
    return -1;
  }
  return ::open(resolved, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW | flags);
}

// `relative` beneath `root`, by openat2 where the kernel lets us and by
// path otherwise. Kernels before 5.6 answer ENOSYS; seccomp profiles that
// predate openat2 (container runtimes' defaults among them) answer EPERM.
// A read-only open hardly ever fails with EPERM otherwise, and when it
// does, the fallback's open reports it again. A refusal to leave the root
// (EXDEV, or ELOOP for a magic link or a symlink loop) is LeavesRootError;
// any other failure, a permission problem included, is the file's own.
absl::StatusOr<std::unique_ptr<File>> OpenFileBeneath(const File& root,
                                                      const std::string& relative,
                                                      int flags) {
  int fd = OpenBeneath(root.fd(), relative, flags);
  if (fd < 0 && (errno == ENOSYS || errno == EPERM)) {
    fd = OpenBeneathByRealPath(root.path(), relative, flags);
  }
  std::string path = root.path() + "/" + relative;
  if (fd < 0) {
    if (errno == EXDEV || errno == ELOOP) return LeavesRootError(path);
    return ErrnoStatus(errno, "open", path);
  }
  return std::make_unique<PosixFile>(fd, std::move(path), false, SyncCall::kFsync);
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
  return OpenFileBeneath(root, relative, 0);
}

absl::StatusOr<std::unique_ptr<File>> PosixFileSystem::OpenDirectoryBeneath(
    const File& root, const std::string& relative) {
  return OpenFileBeneath(root, relative, O_DIRECTORY);
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

absl::Status PosixFileSystem::RemoveAt(const File& dir, const std::string& name) {
  if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos) {
    return absl::InvalidArgumentError("not one directory entry: \"" + name + "\"");
  }
  if (::unlinkat(dir.fd(), name.c_str(), 0) != 0) {
    return ErrnoStatus(errno, "remove", dir.path() + "/" + name);
  }
  return absl::OkStatus();
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
  FileInfo info;
  if (!StatInfo(AT_FDCWD, path.c_str(), AT_SYMLINK_NOFOLLOW, &info)) {
    return ErrnoStatus(errno, "stat", path);
  }
  return info;
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
