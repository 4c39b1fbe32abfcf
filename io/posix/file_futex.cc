#include "io/posix/file_futex.h"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <ctime>

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
  absl::StatusOr<std::unique_ptr<SharedMapping>> mapping = SharedMapping::Open(path, kWordBytes);
  if (!mapping.ok()) return mapping.status();
  return std::unique_ptr<FileFutex>(new FileFutex(std::move(*mapping)));
}

FileFutex::FileFutex(std::unique_ptr<SharedMapping> mapping)
    : mapping_(std::move(mapping)), word_(static_cast<std::atomic<uint32_t>*>(mapping_->data())) {}

FileFutex::~FileFutex() = default;

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
