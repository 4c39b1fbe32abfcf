#include "base/task_pool.h"

#include <algorithm>

namespace lake {

TaskPool::TaskPool(size_t threads) {
  threads_.reserve(std::max<size_t>(threads, 1));
  for (size_t i = 0; i < std::max<size_t>(threads, 1); ++i) {
    threads_.emplace_back([this] { Work(); });
  }
}

TaskPool::~TaskPool() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  for (std::thread& thread : threads_) thread.join();
}

void TaskPool::Enqueue(absl::AnyInvocable<void()> task) {
  absl::MutexLock lock(&mu_);
  queue_.push_back(std::move(task));
}

bool TaskPool::HasWorkOrStops() const { return stopping_ || !queue_.empty(); }

void TaskPool::Work() {
  for (;;) {
    absl::AnyInvocable<void()> task;
    {
      absl::MutexLock lock(&mu_);
      mu_.Await(absl::Condition(this, &TaskPool::HasWorkOrStops));
      // Stopping drains the queue first: every accepted task runs.
      if (queue_.empty()) return;
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    task();
  }
}

}  // namespace lake
