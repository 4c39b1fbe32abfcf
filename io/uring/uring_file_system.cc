#include "io/uring/uring_file_system.h"

#include "io/uring/uring_io_queue.h"

namespace lake::io {

absl::StatusOr<std::unique_ptr<IoQueue>> UringFileSystem::NewIoQueue(
    unsigned depth) {
  absl::StatusOr<std::unique_ptr<UringIoQueue>> queue =
      UringIoQueue::Create(depth);
  if (!queue.ok()) return queue.status();
  return std::unique_ptr<IoQueue>(std::move(*queue));
}

}  // namespace lake::io
