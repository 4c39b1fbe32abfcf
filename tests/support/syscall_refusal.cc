#include "tests/support/syscall_refusal.h"

#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace lake::testing {
namespace {

// A filter that answers `error` to `nr` and lets everything else through.
// It compares the number only: a test binary makes calls of one
// architecture.
bool InstallRefusal(long nr, int error) {
  struct sock_filter filter[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, static_cast<unsigned>(nr), 0, 1),
      BPF_STMT(BPF_RET | BPF_K,
               SECCOMP_RET_ERRNO | (static_cast<unsigned>(error) & SECCOMP_RET_DATA)),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  struct sock_fprog program = {static_cast<unsigned short>(sizeof filter / sizeof filter[0]),
                               filter};
  // Without privileges a filter needs no_new_privs; it is harmless here.
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return false;
  return ::prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) == 0;
}

}  // namespace

int RunWithSyscallRefused(long nr, int error, const std::function<int()>& body) {
  pid_t pid = ::fork();
  if (pid < 0) return 101;
  if (pid == 0) {
    if (!InstallRefusal(nr, error)) ::_exit(100);
    ::_exit(body());
  }
  int status = 0;
  if (::waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return 101;
  return WEXITSTATUS(status);
}

}  // namespace lake::testing
