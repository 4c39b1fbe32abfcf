// A fixed set of threads running queued tasks.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <set>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "base/task_pool.h"

namespace lake {
namespace {

TEST_CASE("every task runs once, on the pool's threads, and returns its result") {
  TaskPool pool(3);
  CHECK(pool.thread_count() == 3);
  absl::Mutex mu;
  std::set<std::thread::id> ran_on;
  std::vector<std::future<int>> results;
  for (int i = 0; i < 200; ++i) {
    results.push_back(pool.Run([i, &mu, &ran_on] {
      absl::MutexLock lock(&mu);
      ran_on.insert(std::this_thread::get_id());
      return i * i;
    }));
  }
  for (int i = 0; i < 200; ++i) CHECK(results[i].get() == i * i);
  CHECK(ran_on.count(std::this_thread::get_id()) == 0);
  CHECK(ran_on.size() >= 1);
  CHECK(ran_on.size() <= 3);
}

TEST_CASE("tasks run at once on separate threads: one can wait for an earlier one") {
  TaskPool pool(2);
  std::promise<void> first_started;
  std::promise<void> release_first;
  std::future<void> release = release_first.get_future();
  std::future<int> first = pool.Run([&first_started, &release] {
    first_started.set_value();
    release.wait();
    return 1;
  });
  first_started.get_future().wait();
  // The first task holds a thread; the second runs on the other.
  std::future<int> second = pool.Run([] { return 2; });
  CHECK(second.get() == 2);
  release_first.set_value();
  CHECK(first.get() == 1);
}

TEST_CASE("the destructor runs every queued task before it returns") {
  std::atomic<int> ran{0};
  {
    TaskPool pool(1);
    std::promise<void> go;
    std::shared_future<void> started = go.get_future().share();
    pool.Run([started] { started.wait(); });
    for (int i = 0; i < 50; ++i) pool.Run([&ran] { ran.fetch_add(1); });
    go.set_value();
  }
  CHECK(ran.load() == 50);
}

TEST_CASE("a pool asked for no threads has one") {
  TaskPool pool(0);
  CHECK(pool.thread_count() == 1);
  CHECK(pool.Run([] { return 7; }).get() == 7);
}

TEST_CASE("move-only tasks and results are carried") {
  TaskPool pool(1);
  auto owned = std::make_unique<int>(41);
  std::future<std::unique_ptr<int>> result = pool.Run([owned = std::move(owned)]() mutable {
    ++*owned;
    return std::move(owned);
  });
  CHECK(*result.get() == 42);
}

}  // namespace
}  // namespace lake
