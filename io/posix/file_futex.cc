#include "io/posix/file_futex.h"

#include <fcntl.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>

#include "io/errno_status.h"

namespace lake::io {
namespace {

static_assert(sizeof(std::atomic<uint32_t>) == sizeof(uint32_t) &&
                  std::atomic<uint32_t>::is_always_lock_free,
              "a futex word is a plain, lock-free 32-bit integer");

constexpr size_t kWordBytes = sizeof(uint32_t);

long Futex(std::atomic<uint32_t>* word, int op, uint32_t value, const timespec* timeout) {
  // Not FUTEX_PRIVATE_FLAG: the word is shared between processes.
  return ::syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), op, value, timeout, nullptr, 0);
}

}  // namespace

absl::StatusOr<std::unique_ptr<FileFutex>> FileFutex::Open(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return ErrnoStatus(errno, "open", path);
  struct stat info;
  if (::fstat(fd, &info) != 0) {
    int error = errno;
    ::close(fd);
    return ErrnoStatus(error, "stat", path);
  }
  // Extending to the same size at once from two processes is harmless.
  if (info.st_size < static_cast<off_t>(kWordBytes) && ::ftruncate(fd, kWordBytes) != 0) {
    int error = errno;
    ::close(fd);
    return ErrnoStatus(error, "extend", path);
  }
  void* mapped = ::mmap(nullptr, kWordBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  int error = errno;
  ::close(fd);  // the mapping keeps the file
  if (mapped == MAP_FAILED) return ErrnoStatus(error, "map", path);
  return std::unique_ptr<FileFutex>(new FileFutex(static_cast<std::atomic<uint32_t>*>(mapped)));
}

FileFutex::~FileFutex() { ::munmap(word_, kWordBytes); }

uint32_t FileFutex::Load() const { return word_->load(std::memory_order_acquire); }

void FileFutex::WaitWhile(uint32_t seen, absl::Duration timeout) const {
  if (timeout <= absl::ZeroDuration()) return;
  timespec relative = absl::ToTimespec(timeout);
  // EAGAIN (changed already), EINTR and ETIMEDOUT all mean: look again.
  Futex(word_, FUTEX_WAIT, seen, &relative);
}

void FileFutex::Bump() {
  word_->fetch_add(1, std::memory_order_acq_rel);
  Futex(word_, FUTEX_WAKE, INT32_MAX, nullptr);
}

}  // namespace lake::io
