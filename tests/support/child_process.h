// A forked child process a test steps through: the child runs a function
// and, at the points it chooses, tells the parent it got there and waits
// for the parent's word to go on (one byte each way over two pipes).
#ifndef LAKE_TESTS_SUPPORT_CHILD_PROCESS_H_
#define LAKE_TESTS_SUPPORT_CHILD_PROCESS_H_

#include <sys/types.h>

#include <functional>

namespace lake::testing {

// The child's side of the pipes.
class ParentLink {
 public:
  ParentLink(int to_parent, int from_parent) : to_parent_(to_parent), from_parent_(from_parent) {}
  // Tells the parent the child got to the next point, and waits to go on.
  void Arrive();
  // Tells the parent without waiting.
  void Tell();

 private:
  int to_parent_;
  int from_parent_;
};

class SteppedChild {
 public:
  // Forks; the child runs `body` and _exits with its result (an exception
  // or a failed check exits 101).
  explicit SteppedChild(std::function<int(ParentLink&)> body);
  ~SteppedChild();  // kills the child if it still runs
  SteppedChild(const SteppedChild&) = delete;
  SteppedChild& operator=(const SteppedChild&) = delete;

  pid_t pid() const { return pid_; }
  // True once the child told it arrived at its next point (false when it
  // exited or `timeout_ms` passed first).
  bool AwaitArrival(int timeout_ms = 20000);
  // Lets the child go on from the point it waits at.
  void Release();
  // Waits for the child's end; its wait status.
  int Wait();
  // SIGKILLs the child and waits for it; its wait status.
  int Kill();

 private:
  pid_t pid_ = -1;
  int from_child_ = -1;
  int to_child_ = -1;
  bool reaped_ = false;
  int status_ = 0;
};

}  // namespace lake::testing

#endif  // LAKE_TESTS_SUPPORT_CHILD_PROCESS_H_
