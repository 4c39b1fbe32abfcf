#include "cli/verified_output.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "cli/exit_status.h"

namespace lake::cli {

VerifiedOutput::~VerifiedOutput() {
  if (fd_ > STDOUT_FILENO) ::close(fd_);
  if (!temp_.empty()) ::unlink(temp_.c_str());
}

bool VerifiedOutput::Open() {
  if (!path_) return true;
  temp_ = *path_ + ".lake-partial-" + std::to_string(::getpid());
  fd_ = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) temp_.clear();
  return fd_ >= 0;
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
  bool ok = ::close(fd_) == 0 && ::rename(temp_.c_str(), path_->c_str()) == 0;
  fd_ = -1;
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
      std::fprintf(stderr, "lake: writing %s: %s\n", output.name().c_str(), std::strerror(errno));
      return kExitStorage;
    }
  }
  lake_status status = lake_reader_close(reader, &err);
  if (status != LAKE_OK) return ReportFailure(status, err, context);
  if (!output.Finish()) {
    std::fprintf(stderr, "lake: finishing %s: %s\n", output.name().c_str(), std::strerror(errno));
    return kExitStorage;
  }
  return kExitOk;
}

}  // namespace lake::cli
