// The lock files of a root's <root>/gc/ directory (ARCHITECTURE.md,
// "<root>/gc/"), held by flock on a descriptor of their own and released
// when the hold is destroyed — or when the process dies, whatever way.
//
//   <root>/gc/run.lock   LOCK_EX by a plan or an apply: one at a time per
//                        root. The holder writes its pid into the file so a
//                        refused contender can name it.
//   <root>/gc/refs.lock  LOCK_SH by every path that adds a reference to an
//                        existing object, from its existence check to its
//                        commit (an INSERT binding an existing location, an
//                        event append naming a blob_location, a pin), and by
//                        every append from its first table-file write to its
//                        commit; LOCK_EX by apply around the deletion of one
//                        page. So no reference is committed to an object
//                        apply deletes, and no table file is written while
//                        apply deletes table files.
//
// The deletion epoch. refs.lock's first 8 bytes hold a random number that
// every exclusive hold replaces before it returns (before anything can be
// deleted under it). A shared holder reads it: while it stays the same, no
// collection has deleted anything, so sizes a process remembered of
// existing objects (ManagedStage's known sizes) are still true. The number
// is never synced: only live processes keep what it guards, and a power
// loss ends them all. It is not a persisted format; any value is only
// compared for equality.
//
// Locks are advisory and per open file description: two holds in one
// process conflict like holds of two processes (an in-process apply waits
// for this process's reference-adding paths). A shared hold is granted
// while an exclusive request only waits (Linux flock), so a thread may nest
// shared holds without deadlock.
#ifndef LAKE_ENGINE_GC_GC_LOCKS_H_
#define LAKE_ENGINE_GC_GC_LOCKS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "io/file_system.h"

namespace lake::gc {

inline constexpr std::string_view kGcDir = "gc";
inline constexpr std::string_view kRunLockName = "run.lock";
inline constexpr std::string_view kReferencesLockName = "refs.lock";

// <root>/gc
std::string GcDir(const std::string& root_dir);

// One held lock file; empty when default-made or moved from.
class GcHold {
 public:
  GcHold() = default;
  GcHold(GcHold&&) noexcept = default;
  GcHold& operator=(GcHold&&) noexcept = default;
  GcHold(const GcHold&) = delete;
  GcHold& operator=(const GcHold&) = delete;
  ~GcHold() = default;  // closing the descriptor releases the lock

  bool held() const { return file_ != nullptr; }
  // A hold of refs.lock: the deletion epoch under this hold (above).
  uint64_t deletion_epoch() const { return deletion_epoch_; }

 private:
  friend absl::StatusOr<GcHold> HoldGcRun(io::FileSystem&, const std::string&, bool);
  friend absl::StatusOr<GcHold> HoldReferencesShared(io::FileSystem&, const std::string&);
  friend absl::StatusOr<GcHold> HoldReferencesExclusive(io::FileSystem&, const std::string&);
  GcHold(std::unique_ptr<io::File> file, uint64_t deletion_epoch)
      : file_(std::move(file)), deletion_epoch_(deletion_epoch) {}

  std::unique_ptr<io::File> file_;
  uint64_t deletion_epoch_ = 0;
};

// One plan or apply per root at a time. AlreadyExists (LAKE_CONFLICT)
// naming the holder's pid when another holds it and `wait` is false.
absl::StatusOr<GcHold> HoldGcRun(io::FileSystem& fs, const std::string& root_dir, bool wait);

// Shared by reference-adding paths (blocks while an apply deletes a page);
// exclusive by apply (blocks while any reference-adding path is between its
// existence check and its commit, or any append between its first
// table-file write and its commit). The exclusive hold has replaced the
// deletion epoch when it returns.
absl::StatusOr<GcHold> HoldReferencesShared(io::FileSystem& fs, const std::string& root_dir);
absl::StatusOr<GcHold> HoldReferencesExclusive(io::FileSystem& fs, const std::string& root_dir);

}  // namespace lake::gc

#endif  // LAKE_ENGINE_GC_GC_LOCKS_H_
