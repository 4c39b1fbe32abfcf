// The commit lock of a lake root: one commit at a time, across every thread
// and process writing the root, with a bounded wait (a busy timeout, as
// SQLite's).
//
// What it serialises. A commit writes files named by the version it makes
// (a manifest and a reference delta of base+1) before the registry's
// compare-and-set names them; two writers making the same version would
// overwrite each other's files. Holding the turn from reading the table's
// current version to the compare-and-set makes that impossible. The
// registry also passes ownership of its RocksDB (registry.h) and forwards a
// write to its owner only under the turn, so a writer never finds the
// owner half-started or half-gone.
//
// Mechanism. A taker first waits for the turn among the threads of its
// CommitLock (a mutex, with the timeout), then for an exclusive flock on a
// file it opens for this turn. The flock dies with its holder, so a
// crashed process never leaves the root locked. The lock file is never
// removed.
//
// Waiting for the flock. A holder that releases it bumps a counter in the
// lock file (io/posix/file_futex.h) and so wakes every process waiting,
// which try again at once. The sleep between tries is bounded all the
// same (a short backoff, growing to a millisecond): a holder that dies, or
// one older than the counter, bumps nothing. Where the file cannot be
// mapped, takers poll.
//
// Thread safety: Acquire may be called from any thread at once.
#ifndef LAKE_REGISTRY_COMMIT_LOCK_H_
#define LAKE_REGISTRY_COMMIT_LOCK_H_

#include <cstdint>
#include <memory>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "io/file_system.h"
#include "io/posix/file_futex.h"

namespace lake::registry {

// The default bound on waiting for the turn, for the C ABI (a process's
// commits take milliseconds; a turn held for seconds is a stuck writer).
inline constexpr absl::Duration kDefaultBusyTimeout = absl::Seconds(5);

class CommitLock;

// A held turn; released when destroyed (on the thread that took it or any
// other).
class CommitTurn {
 public:
  CommitTurn() = default;
  CommitTurn(CommitTurn&& other) noexcept;
  CommitTurn& operator=(CommitTurn&& other) noexcept;
  ~CommitTurn();
  bool held() const { return lock_ != nullptr; }

 private:
  friend class CommitLock;
  CommitTurn(CommitLock* lock, std::unique_ptr<io::File> file)
      : lock_(lock), file_(std::move(file)) {}
  void Release();
  CommitLock* lock_ = nullptr;
  std::unique_ptr<io::File> file_;
};

class CommitLock {
 public:
  // `path` is the lock file (created when missing; its directory must
  // exist). `fs` must outlive the lock and every turn.
  CommitLock(io::FileSystem& fs, std::string path) : fs_(fs), path_(std::move(path)) {}
  CommitLock(const CommitLock&) = delete;
  CommitLock& operator=(const CommitLock&) = delete;

  // Waits at most `busy_timeout` for the turn. Aborted, naming the lock and
  // the timeout, when another thread or process kept it that long.
  absl::StatusOr<CommitTurn> Acquire(absl::Duration busy_timeout);

  // Whether the calling thread holds a turn of this lock.
  bool HeldByThisThread() const;
  // The number of the turn the calling thread holds (turns are numbered
  // from 1 as this lock hands them out), or 0.
  uint64_t TurnOfThisThread() const;

  const std::string& path() const { return path_; }

 private:
  friend class CommitTurn;
  void ReleaseThread();
  absl::Status Busy(absl::Duration busy_timeout) const;

  // The release counter of the lock file, or null (polling only).
  io::FileFutex* Released() ABSL_LOCKS_EXCLUDED(futex_mu_);

  io::FileSystem& fs_;
  const std::string path_;
  absl::Mutex futex_mu_;
  bool futex_opened_ ABSL_GUARDED_BY(futex_mu_) = false;
  std::unique_ptr<io::FileFutex> released_ ABSL_GUARDED_BY(futex_mu_);
  mutable absl::Mutex mu_;
  bool held_ ABSL_GUARDED_BY(mu_) = false;
  uint64_t turns_ ABSL_GUARDED_BY(mu_) = 0;
  std::thread::id holder_ ABSL_GUARDED_BY(mu_);
};

}  // namespace lake::registry

#endif  // LAKE_REGISTRY_COMMIT_LOCK_H_
