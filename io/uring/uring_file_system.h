// The default local file system: POSIX metadata calls, data through
// io_uring rings.
#ifndef LAKE_IO_URING_URING_FILE_SYSTEM_H_
#define LAKE_IO_URING_URING_FILE_SYSTEM_H_

#include "io/posix/posix_file_system.h"

namespace lake::io {

class UringFileSystem final : public PosixFileSystem {
 public:
  std::string_view name() const override { return "io_uring"; }
  absl::StatusOr<std::unique_ptr<IoQueue>> NewIoQueue(unsigned depth) override;
};

}  // namespace lake::io

#endif  // LAKE_IO_URING_URING_FILE_SYSTEM_H_
