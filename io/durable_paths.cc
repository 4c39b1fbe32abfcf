#include "io/durable_paths.h"

#include <tuple>

#include "absl/container/flat_hash_set.h"
#include "absl/synchronization/mutex.h"
#include "base/failpoint.h"

namespace lake::io {

std::string ParentPath(const std::string& path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

absl::Status SyncParentDirectory(FileSystem& fs, const std::string& path) {
  return SyncDirectory(fs, ParentPath(path));
}

absl::Status SyncDirectory(FileSystem& fs, const std::string& path) {
  absl::StatusOr<std::unique_ptr<File>> dir = fs.OpenDirectory(path);
  if (!dir.ok()) return dir.status();
  if (absl::Status s = (*dir)->Sync(); !s.ok()) return s;
  return (*dir)->Close();
}

namespace {

// The directories this process has made durable: their parent was synced
// after they existed. Keyed by device, inode and birth time, never by
// path: a directory removed and made again (by anyone) is another key, so
// its new entry is synced again. A directory whose file system records no
// birth time is never remembered (its inode number alone could be reused)
// and its parent is synced on every use. Forgetting costs only a sync, so
// the set is simply emptied when it grows past kMaxKnown.
class KnownDurableDirectories {
 public:
  static KnownDurableDirectories& Process() {
    static KnownDurableDirectories* const known = new KnownDurableDirectories;
    return *known;
  }

  bool Contains(const FileInfo& dir) {
    absl::MutexLock lock(&mu_);
    return dir.birth_unix_nanos != 0 && known_.contains(KeyOf(dir));
  }

  void Add(const FileInfo& dir) {
    if (dir.birth_unix_nanos == 0) return;
    absl::MutexLock lock(&mu_);
    if (known_.size() >= kMaxKnown) known_.clear();
    known_.insert(KeyOf(dir));
  }

 private:
  static constexpr size_t kMaxKnown = 1 << 16;
  using Key = std::tuple<uint64_t, uint64_t, int64_t>;
  static Key KeyOf(const FileInfo& dir) {
    return {dir.device, dir.inode, dir.birth_unix_nanos};
  }

  absl::Mutex mu_;
  absl::flat_hash_set<Key> known_ ABSL_GUARDED_BY(mu_);
};

}  // namespace

absl::Status CreateDirectoriesDurably(FileSystem& fs, const std::string& path) {
  absl::StatusOr<FileInfo> info = fs.Stat(path);
  bool found = info.ok();
  if (absl::IsNotFound(info.status())) {
    std::string parent = ParentPath(path);
    if (parent != path && parent != "." && parent != "/") {
      if (absl::Status s = CreateDirectoriesDurably(fs, parent); !s.ok()) return s;
    }
    if (absl::Status s = LAKE_FAILPOINT(kDurablePathsBeforeMkdir); !s.ok()) return s;
    absl::Status created = fs.CreateDirectory(path);
    // AlreadyExists: a racing creator made it first. Its entry is durable
    // only once the parent is synced, which that creator may not have done
    // yet, so it is synced below as if it were ours.
    if (!created.ok() && !absl::IsAlreadyExists(created)) return created;
    info = fs.Stat(path);
  }
  if (!info.ok()) return info.status();
  if (!info->is_directory) {
    absl::StatusOr<std::string> real = fs.RealPath(path);  // a symlink to a dir
    if (real.ok()) {
      absl::StatusOr<FileInfo> target = fs.Stat(*real);
      if (target.ok() && target->is_directory) return absl::OkStatus();
    }
    return absl::FailedPreconditionError(path + " exists and is not a directory");
  }
  KnownDurableDirectories& known = KnownDurableDirectories::Process();
  if (known.Contains(*info)) return absl::OkStatus();
  // A directory that was here already may be a racing process's, made a
  // moment ago, whose parent it has not synced yet: an object published
  // into it could vanish at a power loss. Syncing its parent once makes it
  // durable whoever made it.
  absl::Status synced = SyncParentDirectory(fs, path);
  // Unless we may not open the parent to sync it (search permission
  // without read permission, as some home directories have). That happens
  // above lake's own tree, whose directories lake creates and syncs itself.
  if (!synced.ok() && !(found && absl::IsPermissionDenied(synced))) return synced;
  known.Add(*info);
  return absl::OkStatus();
}

absl::Status RemoveTree(FileSystem& fs, const std::string& path) {
  absl::StatusOr<FileInfo> info = fs.Stat(path);
  if (absl::IsNotFound(info.status())) return absl::OkStatus();
  if (!info.ok()) return info.status();
  if (info->is_directory) {
    absl::StatusOr<std::vector<std::string>> names = fs.ListDirectory(path);
    if (!names.ok()) return names.status();
    for (const std::string& name : *names) {
      if (absl::Status s = RemoveTree(fs, path + "/" + name); !s.ok()) return s;
    }
  }
  return fs.Remove(path);
}

}  // namespace lake::io
