// The one-writer lock of a lake root: an exclusive flock on a lock file
// that names its holder's pid.
//
// Protocol. A taker creates the lock file (or opens the one present), takes
// the flock without waiting, and then checks the file it locked is still
// the one at the path (a releaser removes the file while holding the lock;
// a taker that locked a removed file starts again). Holding the lock on a
// file it did not create (left by a crashed holder), a taker removes it and
// starts again, so that the holder is always the creator of the file at the
// path and can write its pid into it. The lock dies with the process, so a
// crash never leaves the root locked.
//
// flock locks belong to an open file description: a second taker in the
// same process is refused just as another process is.
#ifndef LAKE_REGISTRY_WRITER_LOCK_H_
#define LAKE_REGISTRY_WRITER_LOCK_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "io/file_system.h"

namespace lake::registry {

class WriterLock {
 public:
  // Takes the lock at `lock_path` (its directory must exist). When another
  // open file holds it: Aborted, "<what> is open for writing by another
  // process (pid N)". `fs` must outlive the lock.
  static absl::StatusOr<std::unique_ptr<WriterLock>> Acquire(
      io::FileSystem& fs, const std::string& lock_path, const std::string& what);

  // Removes the lock file, then releases the lock.
  ~WriterLock();
  WriterLock(const WriterLock&) = delete;
  WriterLock& operator=(const WriterLock&) = delete;

 private:
  WriterLock(io::FileSystem& fs, std::string path, std::unique_ptr<io::File> file)
      : fs_(fs), path_(std::move(path)), file_(std::move(file)) {}

  io::FileSystem& fs_;
  std::string path_;
  std::unique_ptr<io::File> file_;
};

}  // namespace lake::registry

#endif  // LAKE_REGISTRY_WRITER_LOCK_H_
