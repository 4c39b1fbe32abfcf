// Refusing a system call the way a container's seccomp profile does, to
// test what lake does where a call it relies on is blocked.
#ifndef LAKE_TESTS_SUPPORT_SYSCALL_REFUSAL_H_
#define LAKE_TESTS_SUPPORT_SYSCALL_REFUSAL_H_

#include <functional>

namespace lake::testing {

// Runs `body` in a child process in which every call of the system call
// `nr` fails with `error` (a seccomp filter, which cannot be lifted, hence
// the child). Returns the child's exit code: body's result (0..99 are
// body's), or 100 when the filter could not be installed, 101 when the
// child died otherwise. `body` must not use doctest assertions: report
// through the result.
int RunWithSyscallRefused(long nr, int error, const std::function<int()>& body);

}  // namespace lake::testing

#endif  // LAKE_TESTS_SUPPORT_SYSCALL_REFUSAL_H_
