// The scratch directory of one spilling operation (`<root>/gc/tmp/<run
// id>/` for garbage collection), and the removal of those whose operation
// died.
//
// Protocol. A directory `D` has a lock file `D.lock` beside it, and an
// operation holds an exclusive flock on that file while `D` is in use:
//   create:  create D.lock (new), flock it, check it is still linked,
//            then mkdir D;
//   remove:  remove D and everything in it, then D.lock, then unlock.
// A sweep (RemoveAbandonedSpillDirectories) takes the flock of each
// sibling's lock file without waiting: held means a live operation, and
// the sweep leaves it; taken means its owner died (the flock dies with the
// process), and the sweep removes the directory and then the lock file.
// A directory without a lock file is abandoned too: D.lock is created
// before D and removed only after it.
//
// The lock file is beside the directory rather than in it so that no
// moment exists at which a live operation's directory has no lock to
// show: with the lock inside, a sweep could find a directory just made and
// not yet locked, and could not tell it from one whose owner died there.
//
// Names. Every spill directory is named "lake-spill.<unique>" (its lock
// file "lake-spill.<unique>.lock"), and a sweep looks at nothing else: the
// parent may be a directory the user chose (a shared /tmp), whose other
// entries — directories without a lock file, files ending in ".lock" —
// are never lake's to remove.
//
// Nothing here is synced: spill directories are scratch, and a power loss
// leaves nothing a sweep does not remove.
#ifndef LAKE_SPILL_SPILL_DIRECTORY_H_
#define LAKE_SPILL_SPILL_DIRECTORY_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "io/file_system.h"

namespace lake::spill {

// The prefix of every spill directory's name.
inline constexpr std::string_view kSpillNamePrefix = "lake-spill.";

// The path of the spill directory `unique` (a name of this operation alone,
// such as a UUIDv7, without '/') in `parent`: <parent>/lake-spill.<unique>.
std::string SpillDirectoryPath(std::string_view parent, std::string_view unique);

class SpillDirectory {
 public:
  // Creates the directory `path` (made by SpillDirectoryPath; missing
  // parents are created), after sweeping its siblings with
  // RemoveAbandonedSpillDirectories. InvalidArgument when the last
  // component of `path` is not a spill name; AlreadyExists when `path` or
  // its lock file exists. `fs` must outlive the directory.
  static absl::StatusOr<std::unique_ptr<SpillDirectory>> Create(io::FileSystem& fs,
                                                                std::string path);
  // Removes the directory (Remove), ignoring errors: a directory it
  // cannot remove is left unlocked for the next sweep.
  ~SpillDirectory();
  SpillDirectory(const SpillDirectory&) = delete;
  SpillDirectory& operator=(const SpillDirectory&) = delete;

  const std::string& path() const { return path_; }
  // A new path in the directory, "<stem>-<n>" with n counting up.
  std::string NewFilePath(std::string_view stem);

  // Removes the directory and its lock file and releases the lock. After
  // an error the lock is released anyway (the next sweep finishes the
  // removal); later calls do nothing.
  absl::Status Remove();

 private:
  SpillDirectory(io::FileSystem& fs, std::string path, std::unique_ptr<io::File> lock)
      : fs_(fs), path_(std::move(path)), lock_(std::move(lock)) {}

  io::FileSystem& fs_;
  const std::string path_;
  std::unique_ptr<io::File> lock_;  // null once removed
  uint64_t next_file_ = 1;
};

// The lock file of the spill directory `path`.
std::string SpillLockPath(const std::string& path);

// Removes every spill directory in `parent` whose lock no live process
// holds (its operation died), and lock files left without their directory.
// Directories of live operations, this process's included, are left
// alone, and so is every entry whose name is not a spill name
// ("lake-spill.*"). OK when `parent` does not exist.
absl::Status RemoveAbandonedSpillDirectories(io::FileSystem& fs, const std::string& parent);

}  // namespace lake::spill

#endif  // LAKE_SPILL_SPILL_DIRECTORY_H_
