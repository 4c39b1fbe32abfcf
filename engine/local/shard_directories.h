// The 256 shard directories of a local stage's objects (objects/<xx>/, xx
// the last two hex digits of the key: engine/managed_key.h), made to exist
// durably together, the first time an upload of the store publishes.
//
// Why: made one at a time, each new shard costs its upload a mkdir and a
// sync of objects/, and every other process that publishes into it syncs
// objects/ once more (its maker may not have synced it yet:
// io::CreateDirectoriesDurably). In a root's first few hundred uploads that
// is a flush more per upload, from every writer process. Made together,
// they cost one sync of objects/ per store, and a publish syncs only its
// shard.
//
// Invariant: once Ensure returned OK, every shard directory is named
// durably in objects/. One removed since (by hand) is made again by the
// next upload into it (LocalUpload::Publish falls back to
// io::CreateDirectoriesDurably when its rename finds no directory).
#ifndef LAKE_ENGINE_LOCAL_SHARD_DIRECTORIES_H_
#define LAKE_ENGINE_LOCAL_SHARD_DIRECTORIES_H_

#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "io/file_system.h"

namespace lake {

inline constexpr int kShardDirectoryCount = 256;

class ShardDirectories {
 public:
  // `objects_dir`: the stage's (or its tenant's) objects directory, which
  // exists durably.
  ShardDirectories(io::FileSystem& fs, std::string objects_dir)
      : fs_(fs), objects_dir_(std::move(objects_dir)) {}

  // Makes whichever shard directories are missing, then syncs objects/
  // once; after the first success, returns at once. Thread-safe.
  absl::Status Ensure();

 private:
  io::FileSystem& fs_;
  const std::string objects_dir_;
  absl::Mutex mu_;
  bool ensured_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace lake

#endif  // LAKE_ENGINE_LOCAL_SHARD_DIRECTORIES_H_
