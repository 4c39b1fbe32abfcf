// Where resumable S3 uploads keep their checkpoints
// (upload_checkpoint_format.h), by default <root>/checkpoints/uploads:
//
//   <id>.lock                   the upload's lock: the process continuing
//                               the upload holds flock LOCK_EX on it
//   <id>.<seq, 20 digits>.ckpt  the checkpoint; the highest seq is current
//   <id>.<seq>.tmp              a publication in progress (or a crash's
//                               leftover, removed with the checkpoint)
//
// Publication never rewrites a file: seq+1 is written durably (temporary
// file, fsync, rename without replacing, directory sync; io/whole_file.h),
// then the files before it are removed (not synced: one that comes back
// after a power loss is older, and loses to the newer). So at every moment
// a complete checkpoint is durable, and a crash loses at most the last
// publication. A reader never guesses: a damaged current checkpoint is
// DataLoss, not a fall-back to an older one.
//
// An upload holds its lock from creation (or from resuming) until its
// checkpoint is removed; a second process finds it locked and leaves the
// upload alone. A lock file is removed only by its holder, after the
// checkpoint files; a process that locks a removed lock file notices (the
// file has no links) and treats the checkpoint as gone.
//
// The checkpoint's key stays protected from garbage collection for as long
// as the checkpoint exists and is not stale (RegisterUploadCheckpointKeys),
// in the root's directory or another recorded for the root.
#ifndef LAKE_ENGINE_S3_UPLOAD_CHECKPOINT_STORE_H_
#define LAKE_ENGINE_S3_UPLOAD_CHECKPOINT_STORE_H_

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "engine/s3/upload_checkpoint_format.h"
#include "io/file_system.h"

namespace lake {

// <root>/checkpoints/uploads, relative to a root directory.
inline constexpr std::string_view kUploadCheckpointsDir = "checkpoints/uploads";
std::string UploadCheckpointDirOfRoot(const std::string& root_dir);

// The steps of a publication (failpoints), in order: the checkpoint file
// is durable and named; the older files are removed.
inline constexpr std::array<std::string_view, 2> kUploadCheckpointFailpoints = {
    "upload_checkpoint.published",
    "upload_checkpoint.older_removed",
};

// A checkpoint this process holds the lock of.
class HeldUploadCheckpoint {
 public:
  HeldUploadCheckpoint(io::FileSystem& fs, std::string dir, std::string id,
                       std::unique_ptr<io::File> lock, uint64_t seq)
      : fs_(fs), dir_(std::move(dir)), id_(std::move(id)), lock_(std::move(lock)), seq_(seq) {}
  const std::string& id() const { return id_; }
  uint64_t seq() const { return seq_; }

  // Publishes `checkpoint` (its id must be this one's) as the next seq.
  absl::Status Publish(const UploadCheckpoint& checkpoint);
  // Removes every file of the checkpoint, the lock last, and syncs the
  // directory. The lock is released.
  absl::Status Remove();

 private:
  io::FileSystem& fs_;
  std::string dir_;
  std::string id_;
  std::unique_ptr<io::File> lock_;
  uint64_t seq_;
};

struct ListedUploadCheckpoint {
  std::string id;
  // The decoded checkpoint, or why it could not be read (DataLoss).
  absl::StatusOr<UploadCheckpoint> checkpoint = absl::UnknownError("unread");
  bool locked = false;  // another open file holds its lock now
};

class UploadCheckpointStore {
 public:
  UploadCheckpointStore(io::FileSystem& fs, std::string dir) : fs_(fs), dir_(std::move(dir)) {}
  const std::string& dir() const { return dir_; }

  // Creates the directory if needed, the lock file (locked) and seq 1.
  absl::StatusOr<std::unique_ptr<HeldUploadCheckpoint>> Create(const UploadCheckpoint& checkpoint);

  // The lock of `id`: nullopt when another process holds it; NotFound when
  // there is no such checkpoint (or it was removed meanwhile).
  absl::StatusOr<std::optional<std::unique_ptr<HeldUploadCheckpoint>>> TryLock(std::string_view id);

  // The current checkpoint of `id` (NotFound when none, DataLoss when it is
  // damaged or its content names another id).
  absl::StatusOr<UploadCheckpoint> Load(std::string_view id);

  // Every checkpoint in the directory (none when it does not exist), in id
  // order; `probe_locks` also tells which are locked now.
  absl::StatusOr<std::vector<ListedUploadCheckpoint>> List(bool probe_locks);

 private:
  // The current seq of `id`, 0 when it has no checkpoint file.
  absl::StatusOr<uint64_t> CurrentSeq(std::string_view id);

  io::FileSystem& fs_;
  std::string dir_;
};

// True when a checkpoint untouched since `updated_unix_micros` is older
// than `horizon` at `now` (garbage collection expires it).
bool IsStaleUploadCheckpoint(const UploadCheckpoint& checkpoint, absl::Time now,
                             absl::Duration horizon);

// Registers, once per process, the garbage collector's source of the keys
// upload checkpoints protect (engine/gc/lease_store.h): the URI of every
// checkpoint that is not stale in <root>/checkpoints/uploads and in every
// other directory recorded for the root (upload_checkpoint_dirs.h). A
// damaged checkpoint or record fails the collection (DataLoss naming it):
// nothing is guessed.
void RegisterUploadCheckpointKeys();

}  // namespace lake

#endif  // LAKE_ENGINE_S3_UPLOAD_CHECKPOINT_STORE_H_
