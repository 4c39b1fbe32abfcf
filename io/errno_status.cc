#include "io/errno_status.h"

#include <errno.h>
#include <string.h>

#include <string>

#include "absl/strings/str_cat.h"

namespace lake::io {

absl::Status ErrnoStatus(int error, std::string_view operation,
                         std::string_view path) {
  char buf[128];
  const char* text = strerror_r(error, buf, sizeof buf);
  std::string message =
      absl::StrCat(std::string(operation), " ", std::string(path), ": ", text);
  switch (error) {
    case ENOENT:
    case ENOTDIR:
      return absl::NotFoundError(message);
    case EEXIST:
    case ENOTEMPTY:
      return absl::AlreadyExistsError(message);
    case EACCES:
    case EPERM:
    case EXDEV:
    case ELOOP:
      return absl::PermissionDeniedError(message);
    case ENOSPC:
    case EDQUOT:
    case ENOMEM:
      return absl::ResourceExhaustedError(message);
    case EINTR:
    case EAGAIN:
    case EBUSY:
      return absl::UnavailableError(message);
    case EINVAL:
    case ENAMETOOLONG:
      return absl::InvalidArgumentError(message);
    default:
      return absl::UnknownError(message);
  }
}

}  // namespace lake::io
