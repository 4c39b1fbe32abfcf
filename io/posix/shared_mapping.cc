#include "io/posix/shared_mapping.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "io/errno_status.h"

namespace lake::io {

absl::StatusOr<std::unique_ptr<SharedMapping>> SharedMapping::Open(const std::string& path,
                                                                   size_t bytes) {
  if (bytes == 0) return absl::InvalidArgumentError("a shared mapping needs at least one byte");
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return ErrnoStatus(errno, "open", path);
  struct stat info;
  if (::fstat(fd, &info) != 0) {
    int error = errno;
    ::close(fd);
    return ErrnoStatus(error, "stat", path);
  }
  // Extending to the same size at once from two processes is harmless.
  if (info.st_size < static_cast<off_t>(bytes) && ::ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
    int error = errno;
    ::close(fd);
    return ErrnoStatus(error, "extend", path);
  }
  void* mapped = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  int error = errno;
  ::close(fd);  // the mapping keeps the file
  if (mapped == MAP_FAILED) return ErrnoStatus(error, "map", path);
  return std::unique_ptr<SharedMapping>(new SharedMapping(mapped, bytes));
}

SharedMapping::~SharedMapping() { ::munmap(data_, size_); }

}  // namespace lake::io
