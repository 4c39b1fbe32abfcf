#include "tests/support/child_process.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

namespace lake::testing {
namespace {

void WriteByte(int fd) {
  char c = 1;
  while (::write(fd, &c, 1) < 0 && errno == EINTR) {
  }
}

bool ReadByte(int fd) {
  char c = 0;
  for (;;) {
    ssize_t n = ::read(fd, &c, 1);
    if (n == 1) return true;
    if (n < 0 && errno == EINTR) continue;
    return false;
  }
}

}  // namespace

void ParentLink::Arrive() {
  WriteByte(to_parent_);
  if (!ReadByte(from_parent_)) ::_exit(102);  // the parent is gone
}

void ParentLink::Tell() { WriteByte(to_parent_); }

SteppedChild::SteppedChild(std::function<int(ParentLink&)> body) {
  int up[2], down[2];
  if (::pipe(up) != 0 || ::pipe(down) != 0) std::abort();
  pid_ = ::fork();
  if (pid_ < 0) std::abort();
  if (pid_ == 0) {
    ::close(up[0]);
    ::close(down[1]);
    ParentLink link(up[1], down[0]);
    int code = 101;
    try {
      code = body(link);
    } catch (...) {
    }
    ::_exit(code);
  }
  ::close(up[1]);
  ::close(down[0]);
  from_child_ = up[0];
  to_child_ = down[1];
}

SteppedChild::~SteppedChild() {
  if (!reaped_) Kill();
  ::close(from_child_);
  ::close(to_child_);
}

bool SteppedChild::AwaitArrival(int timeout_ms) {
  pollfd p{from_child_, POLLIN, 0};
  int ready = 0;
  do {
    ready = ::poll(&p, 1, timeout_ms);
  } while (ready < 0 && errno == EINTR);
  if (ready <= 0) return false;
  return ReadByte(from_child_);
}

void SteppedChild::Release() { WriteByte(to_child_); }

int SteppedChild::Wait() {
  if (!reaped_) {
    while (::waitpid(pid_, &status_, 0) < 0 && errno == EINTR) {
    }
    reaped_ = true;
  }
  return status_;
}

int SteppedChild::Kill() {
  if (!reaped_) ::kill(pid_, SIGKILL);
  return Wait();
}

}  // namespace lake::testing
