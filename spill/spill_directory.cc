#include "spill/spill_directory.h"

#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "io/durable_paths.h"

namespace lake::spill {
namespace {

constexpr char kLockSuffix[] = ".lock";
constexpr size_t kLockSuffixBytes = sizeof(kLockSuffix) - 1;

// Whether `name` (one path component) is a spill directory's name or its
// lock file's: "lake-spill." and at least one more byte.
bool IsSpillName(std::string_view name) {
  return name.size() > kSpillNamePrefix.size() && name.starts_with(kSpillNamePrefix);
}

// NotFound is what a concurrent sweep leaves: the work is done.
absl::Status IgnoringNotFound(absl::Status status) {
  return absl::IsNotFound(status) ? absl::OkStatus() : status;
}

// The directory `path`, whose lock file is open as `lock` and flocked by
// this process: removes the directory, then the lock file.
absl::Status RemoveLocked(io::FileSystem& fs, const std::string& path) {
  if (absl::Status s = IgnoringNotFound(io::RemoveTree(fs, path)); !s.ok()) return s;
  return IgnoringNotFound(fs.Remove(SpillLockPath(path)));
}

// Removes the spill directory `path` if its lock file is not held.
absl::Status SweepLocked(io::FileSystem& fs, const std::string& path) {
  absl::StatusOr<std::unique_ptr<io::File>> lock = fs.OpenRead(SpillLockPath(path));
  if (!lock.ok()) return IgnoringNotFound(lock.status());
  absl::StatusOr<bool> taken = (*lock)->TryLockExclusive();
  if (!taken.ok()) return taken.status();
  if (!*taken) return absl::OkStatus();  // a live operation's
  // Unlinked since we opened it: its owner or another sweep removed it.
  absl::StatusOr<io::FileInfo> info = (*lock)->Stat();
  if (!info.ok()) return info.status();
  if (info->link_count == 0) return absl::OkStatus();
  return RemoveLocked(fs, path);
}

}  // namespace

std::string SpillLockPath(const std::string& path) { return absl::StrCat(path, kLockSuffix); }

std::string SpillDirectoryPath(std::string_view parent, std::string_view unique) {
  return absl::StrCat(std::string(parent), "/", std::string(kSpillNamePrefix), std::string(unique));
}

absl::StatusOr<std::unique_ptr<SpillDirectory>> SpillDirectory::Create(io::FileSystem& fs,
                                                                       std::string path) {
  const std::string parent = io::ParentPath(path);
  std::string_view name = std::string_view(path).substr(std::min(path.size(), parent.size() + 1));
  if (!IsSpillName(name) || name.find('/') != std::string_view::npos ||
      name.ends_with(kLockSuffix)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "spill directory ", path, ": its name must be ", std::string(kSpillNamePrefix),
        "<unique> (SpillDirectoryPath), not ending in ", kLockSuffix));
  }
  if (absl::Status s = io::CreateDirectoriesDurably(fs, parent); !s.ok()) return s;
  if (absl::Status s = RemoveAbandonedSpillDirectories(fs, parent); !s.ok()) return s;
  absl::StatusOr<std::unique_ptr<io::File>> lock =
      fs.CreateNew(SpillLockPath(path), /*want_direct=*/false);
  if (!lock.ok()) return lock.status();
  // A sweep that opened the new lock file before we locked it may have
  // taken the lock and removed the file: then it is not ours to use.
  absl::StatusOr<bool> taken = (*lock)->TryLockExclusive();
  if (!taken.ok()) return taken.status();
  absl::StatusOr<io::FileInfo> info = (*lock)->Stat();
  if (!info.ok()) return info.status();
  if (!*taken || info->link_count == 0) {
    return absl::AbortedError(absl::StrCat(
        "spill directory ", path, ": a concurrent sweep took its lock file; try again"));
  }
  if (absl::Status s = fs.CreateDirectory(path); !s.ok()) {
    (void)fs.Remove(SpillLockPath(path));
    return s;
  }
  return std::unique_ptr<SpillDirectory>(new SpillDirectory(fs, std::move(path), *std::move(lock)));
}

SpillDirectory::~SpillDirectory() { (void)Remove(); }

std::string SpillDirectory::NewFilePath(std::string_view stem) {
  return absl::StrFormat("%s/%s-%06d", path_, stem, next_file_++);
}

absl::Status SpillDirectory::Remove() {
  if (lock_ == nullptr) return absl::OkStatus();
  absl::Status removed = RemoveLocked(fs_, path_);
  lock_.reset();  // unlocks
  return removed;
}

absl::Status RemoveAbandonedSpillDirectories(io::FileSystem& fs, const std::string& parent) {
  absl::StatusOr<std::vector<std::string>> names = fs.ListDirectory(parent);
  if (!names.ok()) return IgnoringNotFound(names.status());
  absl::Status first_error;
  for (const std::string& name : *names) {
    if (!IsSpillName(name)) continue;  // not lake's: never touched
    absl::Status s;
    if (absl::EndsWith(name, kLockSuffix)) {
      // A lock file: its directory (present or not) goes with it.
      std::string dir_name = name.substr(0, name.size() - kLockSuffixBytes);
      if (!IsSpillName(dir_name)) continue;
      s = SweepLocked(fs, absl::StrCat(parent, "/", dir_name));
    } else {
      const std::string path = absl::StrCat(parent, "/", name);
      absl::StatusOr<io::FileInfo> info = fs.Stat(path);
      if (!info.ok()) {
        s = IgnoringNotFound(info.status());
      } else if (info->is_directory) {
        // Stat now, not the listing: the lock file was made before the
        // directory, so a directory without one now has none to come.
        absl::StatusOr<io::FileInfo> lock = fs.Stat(SpillLockPath(path));
        if (absl::IsNotFound(lock.status())) {
          s = IgnoringNotFound(io::RemoveTree(fs, path));
        } else {
          s = lock.status();  // OK: the lock file's entry handles it
        }
      }
    }
    if (first_error.ok()) first_error = s;
  }
  return first_error;
}

}  // namespace lake::spill
