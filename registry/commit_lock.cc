#include "registry/commit_lock.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace lake::registry {
namespace {

// The flock is tried again on a release's wake-up, else after a sleep: the
// first come quickly (a commit takes a few milliseconds), later ones back
// off to this bound.
constexpr absl::Duration kFirstPoll = absl::Microseconds(200);
constexpr absl::Duration kMaxPoll = absl::Milliseconds(1);

}  // namespace

CommitTurn::CommitTurn(CommitTurn&& other) noexcept
    : lock_(other.lock_), file_(std::move(other.file_)) {
  other.lock_ = nullptr;
}

CommitTurn& CommitTurn::operator=(CommitTurn&& other) noexcept {
  if (this != &other) {
    Release();
    lock_ = other.lock_;
    file_ = std::move(other.file_);
    other.lock_ = nullptr;
  }
  return *this;
}

CommitTurn::~CommitTurn() { Release(); }

void CommitTurn::Release() {
  if (lock_ == nullptr) return;
  // Closing the file drops the flock; the bump wakes the processes that
  // wait for it. Then the next thread of this process may go.
  if (file_ != nullptr) {
    file_->Close().IgnoreError();
    if (io::FileFutex* released = lock_->Released(); released != nullptr) released->Bump();
  }
  file_.reset();
  lock_->ReleaseThread();
  lock_ = nullptr;
}

absl::Status CommitLock::Busy(absl::Duration busy_timeout) const {
  return absl::AbortedError(absl::StrCat(
      "the root is busy: another writer held its commit lock ", path_, " for longer than the ",
      absl::FormatDuration(busy_timeout), " busy timeout"));
}

absl::StatusOr<CommitTurn> CommitLock::Acquire(absl::Duration busy_timeout) {
  const absl::Time deadline = absl::Now() + busy_timeout;
  {
    absl::MutexLock lock(&mu_);
    auto free = [this]() ABSL_SHARED_LOCKS_REQUIRED(mu_) { return !held_; };
    if (!mu_.AwaitWithDeadline(absl::Condition(&free), deadline)) return Busy(busy_timeout);
    held_ = true;
    holder_ = std::this_thread::get_id();
    ++turns_;
  }
  // From here on a failure gives the in-process turn back.
  CommitTurn turn(this, nullptr);
  absl::StatusOr<std::unique_ptr<io::File>> file = fs_.CreateNew(path_, false);
  if (absl::IsAlreadyExists(file.status())) file = fs_.OpenRead(path_);
  if (!file.ok()) return file.status();
  io::FileFutex* released = Released();
  absl::Duration poll = kFirstPoll;
  for (;;) {
    // Read before trying: a release after the try changes it, and the
    // wait below returns at once.
    const uint32_t seen = released != nullptr ? released->Load() : 0;
    absl::StatusOr<bool> locked = (*file)->TryLockExclusive();
    if (!locked.ok()) return locked.status();
    if (*locked) break;
    absl::Time now = absl::Now();
    if (now >= deadline) return Busy(busy_timeout);
    absl::Duration sleep = std::min(poll, deadline - now);
    if (released != nullptr) {
      released->WaitWhile(seen, sleep);
    } else {
      absl::SleepFor(sleep);
    }
    poll = std::min(poll * 2, kMaxPoll);
  }
  turn.file_ = std::move(*file);
  return turn;
}

io::FileFutex* CommitLock::Released() {
  absl::MutexLock lock(&futex_mu_);
  if (!futex_opened_) {
    futex_opened_ = true;
    absl::StatusOr<std::unique_ptr<io::FileFutex>> opened = io::FileFutex::Open(path_);
    if (opened.ok()) released_ = std::move(*opened);
  }
  return released_.get();
}

bool CommitLock::HeldByThisThread() const {
  absl::MutexLock lock(&mu_);
  return held_ && holder_ == std::this_thread::get_id();
}

uint64_t CommitLock::TurnOfThisThread() const {
  absl::MutexLock lock(&mu_);
  return held_ && holder_ == std::this_thread::get_id() ? turns_ : 0;
}

void CommitLock::ReleaseThread() {
  absl::MutexLock lock(&mu_);
  held_ = false;
  holder_ = std::thread::id();
}

}  // namespace lake::registry
