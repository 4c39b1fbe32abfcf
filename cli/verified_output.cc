#include "cli/verified_output.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "cli/exit_status.h"

namespace lake::cli {

VerifiedOutput::~VerifiedOutput() {
  if (fd_ > STDOUT_FILENO) ::close(fd_);
  if (!temp_.empty()) ::unlink(temp_.c_str());
}

bool VerifiedOutput::Open() {
  if (!path_) return true;
  // What OUT resolves to decides (stat, not lstat): a symlink to a device
  // is written as the device, and a symlink to a regular file has its
  // target replaced, not the link.
  struct stat st;
  // Not there yet (or not examinable: creating the temporary says why).
  if (::stat(path_->c_str(), &st) != 0) return OpenTemporary(*path_);
  if (S_ISREG(st.st_mode)) {
    char* resolved = ::realpath(path_->c_str(), nullptr);
    if (resolved == nullptr) return false;
    std::string target(resolved);
    std::free(resolved);
    return OpenTemporary(target);
  }
  if (S_ISDIR(st.st_mode)) {
    errno = EISDIR;
    return false;
  }
  return OpenDirect(S_ISSOCK(st.st_mode));
}

bool VerifiedOutput::OpenTemporary(const std::string& target) {
  target_ = target;
  temp_ = target_ + ".lake-partial-" + std::to_string(::getpid());
  fd_ = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) temp_.clear();
  return fd_ >= 0;
}

// A device or FIFO is opened for writing (a FIFO waits for its reader); a
// socket cannot be opened, so a stream connection is made to it.
bool VerifiedOutput::OpenDirect(bool is_socket) {
  if (!is_socket) {
    fd_ = ::open(path_->c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
    return fd_ >= 0;
  }
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (path_->size() >= sizeof(address.sun_path)) {
    errno = ENAMETOOLONG;
    return false;
  }
  std::memcpy(address.sun_path, path_->c_str(), path_->size() + 1);
  fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd_ < 0) return false;
  if (::connect(fd_, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0) {
    int saved = errno;
    ::close(fd_);
    fd_ = -1;
    errno = saved;
    return false;
  }
  return true;
}

bool VerifiedOutput::Write(const uint8_t* data, size_t len) {
  while (len > 0) {
    ssize_t n = ::write(fd_, data, len);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data += n;
    len -= static_cast<size_t>(n);
  }
  return true;
}

bool VerifiedOutput::Finish() {
  if (!path_) return true;
  bool ok = ::close(fd_) == 0;
  fd_ = -1;
  if (temp_.empty()) return ok;  // written directly
  ok = ok && ::rename(temp_.c_str(), target_.c_str()) == 0;
  if (ok) temp_.clear();
  return ok;
}

int CopyVerified(lake_reader* reader, VerifiedOutput& output, const char* context) {
  lake_error* err = nullptr;
  for (;;) {
    const void* data = nullptr;
    size_t n = 0;
    lake_status status = lake_reader_read_view(reader, &data, kMaxOutputWriteBytes, &n, &err);
    if (status != LAKE_OK) return ReportFailure(status, err, context);
    if (n == 0) break;
    if (!output.Write(static_cast<const uint8_t*>(data), n)) {
      ReportError("writing " + output.name() + ": " + std::strerror(errno));
      return kExitStorage;
    }
  }
  lake_status status = lake_reader_close(reader, &err);
  if (status != LAKE_OK) return ReportFailure(status, err, context);
  if (!output.Finish()) {
    ReportError("finishing " + output.name() + ": " + std::strerror(errno));
    return kExitStorage;
  }
  return kExitOk;
}

}  // namespace lake::cli
