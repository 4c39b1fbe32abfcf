#include <cstdlib>
#include <string>

#include "io/file_system.h"
#include "io/posix/posix_file_system.h"
#include "io/uring/uring_file_system.h"
#include "io/uring/uring_io_queue.h"

namespace lake::io {

// Decided once per process from LAKE_IO and a probe of io_uring.
absl::StatusOr<FileSystem*> DefaultFileSystem() {
  static const absl::StatusOr<FileSystem*> chosen =
      []() -> absl::StatusOr<FileSystem*> {
    const char* env = std::getenv("LAKE_IO");
    std::string forced = env == nullptr ? "" : env;
    if (forced == "sync") return new PosixFileSystem;
    if (forced != "" && forced != "io_uring") {
      return absl::InvalidArgumentError(
          "LAKE_IO must be \"sync\" or \"io_uring\", not \"" + forced + "\"");
    }
    if (UringUsable()) return new UringFileSystem;
    if (forced == "io_uring") {
      return absl::UnavailableError(
          "LAKE_IO=io_uring, but io_uring is not usable in this process");
    }
    return new PosixFileSystem;
  }();
  return chosen;
}

}  // namespace lake::io
