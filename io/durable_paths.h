// Directory operations made durable: a new directory entry survives a
// power loss only after its parent directory has been fsynced.
#ifndef LAKE_IO_DURABLE_PATHS_H_
#define LAKE_IO_DURABLE_PATHS_H_

#include <string>
#include <string_view>

#include "io/file_system.h"

namespace lake::io {

// A failpoint (base/failpoint.h) between CreateDirectoriesDurably's look
// at a missing directory and its mkdir: where a racing creator gets in.
inline constexpr std::string_view kDurablePathsBeforeMkdir = "durable_paths.before_mkdir";

// fsync of the directory `path`.
absl::Status SyncDirectory(FileSystem& fs, const std::string& path);

// fsync of the directory holding `path`.
absl::Status SyncParentDirectory(FileSystem& fs, const std::string& path);

// Creates `path` and any missing parents (like mkdir -p) and makes the
// entry of `path` and of each directory it creates durable: their parent
// is synced — also when the directory was there already or a racing
// creator made it first (AlreadyExists), since that creator may not have
// synced the parent yet. Each directory's parent is synced once per
// process; later calls find it known durable and sync nothing. Thread-safe.
absl::Status CreateDirectoriesDurably(FileSystem& fs, const std::string& path);

// Removes `path` and everything beneath it (files and directories, depth
// first); OK when it is absent. Not durable by itself: the caller syncs the
// parent directory when the removal must survive a power loss.
absl::Status RemoveTree(FileSystem& fs, const std::string& path);

// The directory part of an absolute path ("/a/b" → "/a", "/a" → "/").
std::string ParentPath(const std::string& path);

}  // namespace lake::io

#endif  // LAKE_IO_DURABLE_PATHS_H_
