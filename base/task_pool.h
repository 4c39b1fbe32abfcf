// A fixed set of threads that run the tasks given to them, oldest first.
//
// For work that is split across threads on every call of a hot path (an
// append's file writes, a scan's read-ahead, the halves of a bulk event
// batch): starting a thread per task costs a clone, a fresh stack and its
// page faults each time, which at thousands of calls a second is a large
// part of the call.
//
// Invariants: every task Run accepts runs exactly once, on one of the
// pool's threads; the destructor returns only after every task accepted
// before it began has finished, and then no pool thread is left. A task
// must not wait for a later task of the same pool (with every thread
// waiting, none would be left to run it).
//
// Thread safety: Run may be called from any thread, the pool's own
// included.
#ifndef LAKE_BASE_TASK_POOL_H_
#define LAKE_BASE_TASK_POOL_H_

#include <cstddef>
#include <deque>
#include <future>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/functional/any_invocable.h"
#include "absl/synchronization/mutex.h"

namespace lake {

class TaskPool {
 public:
  // Starts `threads` threads (at least one).
  explicit TaskPool(size_t threads);
  ~TaskPool();
  TaskPool(const TaskPool&) = delete;
  TaskPool& operator=(const TaskPool&) = delete;

  size_t thread_count() const { return threads_.size(); }

  // Queues `task`; its result arrives through the future.
  template <typename F>
  std::future<std::invoke_result_t<F&>> Run(F task) {
    std::packaged_task<std::invoke_result_t<F&>()> packaged(std::move(task));
    auto result = packaged.get_future();
    Enqueue(std::move(packaged));
    return result;
  }

 private:
  void Enqueue(absl::AnyInvocable<void()> task);
  void Work();
  bool HasWorkOrStops() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  absl::Mutex mu_;
  std::deque<absl::AnyInvocable<void()>> queue_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::thread> threads_;
};

}  // namespace lake

#endif  // LAKE_BASE_TASK_POOL_H_
