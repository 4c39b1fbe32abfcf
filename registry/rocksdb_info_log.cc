#include "registry/rocksdb_info_log.h"

#include <fcntl.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <ctime>

namespace lake::registry {
namespace {

// Lines are cut at this length (RocksDB's own logger cuts longer ones too).
constexpr size_t kMaxLineBytes = 4096;

class FailSafeFileLogger final : public rocksdb::Logger {
 public:
  explicit FailSafeFileLogger(int fd) : fd_(fd) {}
  ~FailSafeFileLogger() override {
    if (fd_ >= 0) ::close(fd_);
  }

  using rocksdb::Logger::Logv;
  void Logv(const char* format, va_list ap) override {
    if (fd_ < 0 || failed_.load(std::memory_order_relaxed)) return;
    char line[kMaxLineBytes];
    struct timeval now;
    ::gettimeofday(&now, nullptr);
    struct tm t;
    ::localtime_r(&now.tv_sec, &t);
    int head = std::snprintf(line, sizeof line, "%04d/%02d/%02d-%02d:%02d:%02d.%06ld ",
                             t.tm_year + 1900, t.tm_mon + 1, t.tm_mday, t.tm_hour, t.tm_min,
                             t.tm_sec, static_cast<long>(now.tv_usec));
    if (head < 0) return;
    va_list copy;
    va_copy(copy, ap);
    int body = std::vsnprintf(line + head, sizeof line - head, format, copy);
    va_end(copy);
    if (body < 0) return;
    // Cut to leave room for the newline RocksDB's format strings leave out.
    size_t length = std::min(sizeof line - 1, static_cast<size_t>(head) + body);
    if (line[length - 1] != '\n') line[length++] = '\n';
    // One write per line (O_APPEND): lines of threads do not interleave.
    ssize_t written;
    do {
      written = ::write(fd_, line, length);
    } while (written < 0 && errno == EINTR);
    if (written != static_cast<ssize_t>(length)) failed_.store(true, std::memory_order_relaxed);
  }

 private:
  const int fd_;
  std::atomic<bool> failed_{false};
};

}  // namespace

std::shared_ptr<rocksdb::Logger> NewFailSafeInfoLog(const std::string& dir) {
  const std::string path = dir + "/LOG";
  // Best effort: without a LOG (or its rotation) the registry works the same.
  (void)::rename(path.c_str(), (path + ".old").c_str());
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
  return std::make_shared<FailSafeFileLogger>(fd);
}

}  // namespace lake::registry
