#include "cli/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "cli/exit_status.h"

namespace lake::cli {

bool ReadInputFile(const std::string& path, std::string* out) {
  int fd = path == "-" ? STDIN_FILENO : ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat st;
  bool ok = ::fstat(fd, &st) == 0;
  if (ok && S_ISDIR(st.st_mode)) {
    errno = EISDIR;
    ok = false;
  }
  std::string text;
  char buffer[64 * 1024];
  while (ok) {
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n > 0) {
      text.append(buffer, static_cast<size_t>(n));
    } else if (n == 0) {
      break;
    } else if (errno != EINTR) {
      ok = false;
    }
  }
  int saved = errno;
  if (fd != STDIN_FILENO) ::close(fd);
  errno = saved;
  if (ok) *out = std::move(text);
  return ok;
}

int ReportUnreadableInput(const std::string& what, const std::string& path, int error) {
  ReportError("cannot read " + what + (what.empty() ? "" : " ") + path + ": " +
              std::strerror(error));
  if (error == ENOENT) return kExitNotFound;
  if (error == EISDIR || error == ENOTDIR) return kExitUsage;
  return kExitStorage;
}

}  // namespace lake::cli
