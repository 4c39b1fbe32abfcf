// errno → absl::Status, so every I/O failure reaches callers typed.
#ifndef LAKE_IO_ERRNO_STATUS_H_
#define LAKE_IO_ERRNO_STATUS_H_

#include <string_view>

#include "absl/status/status.h"

namespace lake::io {

// `operation` and `path` name what failed ("open", "/srv/x"). The mapping:
// ENOENT → NotFound, EEXIST → AlreadyExists, EACCES/EPERM/EXDEV/ELOOP →
// PermissionDenied, ENOSPC/EDQUOT → ResourceExhausted, EINTR/EAGAIN/EBUSY →
// Unavailable (retryable), anything else → Unknown (an I/O failure).
absl::Status ErrnoStatus(int error, std::string_view operation,
                         std::string_view path);

}  // namespace lake::io

#endif  // LAKE_IO_ERRNO_STATUS_H_
