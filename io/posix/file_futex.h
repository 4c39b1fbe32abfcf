// A futex word in a file: a 32-bit counter at offset 0 of a file that every
// process maps shared, so one process can sleep until another bumps it.
// Linux keys a futex in a shared file mapping by the file and offset, so
// every mapping of the same file meets on the same word.
//
// It carries no data of its own: a waiter always rechecks what it waits
// for (a lock, say) after waking, and its wait is bounded, so a bump that
// never comes (the bumper died, or predates the futex) costs at most the
// timeout, never a hang.
//
// Format: the file's first 4 bytes, host byte order. A shorter file is
// extended with zeros; the rest of the file is left alone.
//
// Thread safety: every method may be called from any thread at once.
#ifndef LAKE_IO_POSIX_FILE_FUTEX_H_
#define LAKE_IO_POSIX_FILE_FUTEX_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "io/posix/shared_mapping.h"

namespace lake::io {

class FileFutex {
 public:
  // Maps the word of the file at `path` (created when missing).
  static absl::StatusOr<std::unique_ptr<FileFutex>> Open(const std::string& path);
  ~FileFutex();
  FileFutex(const FileFutex&) = delete;
  FileFutex& operator=(const FileFutex&) = delete;

  // The counter now.
  uint32_t Load() const;
  // Sleeps while the counter is `seen`, at most `timeout`: returns at once
  // when it changed already, on a bump, on timeout, or spuriously.
  void WaitWhile(uint32_t seen, absl::Duration timeout) const;
  // Adds 1 to the counter and wakes every waiter.
  void Bump();

 private:
  explicit FileFutex(std::unique_ptr<SharedMapping> mapping);
  std::unique_ptr<SharedMapping> mapping_;
  std::atomic<uint32_t>* word_;
};

}  // namespace lake::io

#endif  // LAKE_IO_POSIX_FILE_FUTEX_H_
