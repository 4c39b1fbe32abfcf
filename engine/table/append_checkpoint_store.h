// The directory of append checkpoints (<root>/checkpoints/ in a lake
// root): one file per append that has uploaded its objects but may not
// have committed.
//
// Names in the directory:
//   <operation_id>.append        a published checkpoint (the format is in
//                                append_checkpoint_format.h)
//   .<operation_id>.append.tmp   one being written; a crash can leave it
//                                behind, CleanTemporaryFiles removes it
//   .spare-<uuid>.append.tmp     a removed checkpoint kept for the next
//                                Publish to rewrite (a temporary too)
//   discarded/<operation_id>.append   a checkpoint an operator discarded
//                                (Discard): kept, never listed, replayed
//                                or removed by lake
// Anything else is ignored.
//
// Spares: Remove renames a checkpoint to a spare (up to kMaxSpareCheckpoints
// per store) instead of unlinking it, and Publish rewrites a spare instead
// of creating a file. A steady stream of appends then allocates and frees
// no inodes, which matters where freeing is slow to undo (ext4 without a
// journal skips inodes freed in the last minutes, scanning past each one
// at every create). A spare is rewritten only once its rename is durable
// (a later Publish's directory sync made it so): a power loss could
// otherwise undo the rename and leave the old checkpoint's name holding
// the new content.
//
// Lifecycle of a checkpoint: Publish after all uploads and before the first
// commit attempt; Remove once the commit succeeded; Withdraw (durably)
// once the append failed before its commit call or was explicitly
// rejected; kept after an ambiguous failure, for recovery to List, Load,
// ValidateForReplay (append_checkpoint_replay.h), replay and Remove — or
// for an operator to Discard.
//
// Thread safety: a store is a cheap handle on a FileSystem it does not own
// (which must outlive it); copies share their spares. Calls on different
// operation ids may run concurrently, from any number of processes. CleanTemporaryFiles must not
// overlap a Publish (hold the root's lock): it would remove the temporary
// file being written, and that Publish would fail before publishing.
#ifndef LAKE_ENGINE_TABLE_APPEND_CHECKPOINT_STORE_H_
#define LAKE_ENGINE_TABLE_APPEND_CHECKPOINT_STORE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "engine/table/append_checkpoint_format.h"
#include "io/file_system.h"

namespace lake::table {

inline constexpr std::string_view kAppendCheckpointsDir = "checkpoints";
inline constexpr std::string_view kAppendCheckpointSuffix = ".append";
inline constexpr std::string_view kAppendCheckpointTempSuffix = ".append.tmp";
// Removed checkpoints a store keeps as spares, at most.
inline constexpr size_t kMaxSpareCheckpoints = 4;
// Where Discard moves checkpoints, inside the checkpoints directory.
inline constexpr std::string_view kDiscardedAppendCheckpointsDir = "discarded";

// Recovery lists at most this many checkpoints at a time, so a directory
// flooded with them costs bounded memory and time; it settles the oldest,
// then lists the next ones after the last it saw (checkpoints it had to
// keep never hide newer ones).
inline constexpr size_t kMaxListedAppendCheckpoints = 1024;

// The payload type URL of the "published but not durable" error.
inline constexpr std::string_view kPendingAppendPayload = "lake.dev/PendingAppend";

struct PendingCheckpointEntry {
  std::string operation_id;
  std::string path;
  uint64_t size_bytes = 0;    // from stat; the payload is not read
  absl::Time operation_time;  // the UUIDv7 time prefix
  absl::Duration age;         // the listing's `now` minus operation_time

  bool operator==(const PendingCheckpointEntry&) const = default;
};

struct PendingCheckpointList {
  std::vector<PendingCheckpointEntry> entries;  // oldest first (operation id order)
  uint64_t more = 0;  // checkpoints past max_entries, not listed
  // The newest operation id the listing took in, listed or passed over (a
  // name no regular file holds, or one removed since): the next listing
  // starts after it. Empty when it took in none.
  std::string last_considered;
};

// What the error of a Publish whose rename happened but whose directory
// sync failed hands back: the checkpoint is complete at published_path but
// may vanish at a power loss; the append is pending, neither committed nor
// abandoned.
struct PendingAppendInfo {
  std::string operation_id;
  std::string published_path;

  bool operator==(const PendingAppendInfo&) const = default;
};

// The pending append a Publish error carries (an Unavailable status with
// kPendingAppendPayload); nullopt for any other status.
std::optional<PendingAppendInfo> GetPendingAppend(const absl::Status& status);

class AppendCheckpointStore {
 public:
  // The store in `checkpoints_dir`, which is created (with its missing
  // parents, each durably) when absent.
  static absl::StatusOr<AppendCheckpointStore> Open(io::FileSystem& fs,
                                                    std::string checkpoints_dir);

  const std::string& dir() const { return dir_; }
  // <dir>/<operation_id>.append
  std::string PathOf(std::string_view operation_id) const;

  // Writes `checkpoint` durably (io/whole_file.h: temporary file, sync,
  // rename, directory sync) and returns its path. Never replaces a
  // checkpoint: AlreadyExists when one with this operation id exists.
  // InvalidArgument when a field is invalid (EncodeAppendCheckpoint).
  // When the rename succeeded but the directory sync failed: Unavailable,
  // carrying the PendingAppendInfo (GetPendingAppend). Any other error
  // means no checkpoint was published.
  absl::StatusOr<std::string> Publish(const AppendCheckpoint& checkpoint);

  // The oldest `max_entries` checkpoints whose operation id sorts after
  // `after` (every one when empty), from their names and a stat each:
  // never opens a checkpoint file. Temporary files and names that are not
  // <operation_id>.append are skipped. `more` counts those past the limit.
  absl::StatusOr<PendingCheckpointList> List(size_t max_entries = kMaxListedAppendCheckpoints,
                                             absl::Time now = absl::Now(),
                                             std::string_view after = {}) const;

  // The checkpoint of `operation_id`, read whole under
  // kMaxAppendCheckpointBytes and decoded. InvalidArgument for an id that
  // is not canonical; NotFound when there is none; DataLoss when it is
  // damaged or holds another operation id than its name.
  absl::StatusOr<AppendCheckpoint> Load(std::string_view operation_id) const;

  // Removes the checkpoint of `operation_id` (renamed to a spare, or
  // unlinked); one already gone is OK. InvalidArgument for an id that is
  // not canonical.
  //
  // The directory is not synced: a power loss may bring the checkpoint
  // back, and that is safe — replaying it converges to the version its
  // operation committed (the commit is recognised by operation id, so no
  // second row and no second upload), or it is rejected as expired and
  // removed again. Skipping the sync saves a directory fsync per append.
  absl::Status Remove(std::string_view operation_id) const;

  // Removes the checkpoint of `operation_id` durably: unlinks it and
  // syncs the directory, so no power loss brings it back. For an append
  // that failed before its commit call: once this returns OK, recovery can
  // never commit the operation. One already gone is OK (the directory is
  // synced all the same). InvalidArgument for an id that is not canonical.
  absl::Status Withdraw(std::string_view operation_id) const;

  // Moves the checkpoint of `operation_id` aside, durably, to
  // <dir>/discarded/<operation_id>.append (created when absent) and
  // returns that path: it is no longer listed, replayed or removed, and
  // its bytes stay for an operator. InvalidArgument for an id that is not
  // canonical; NotFound when there is no such checkpoint; AlreadyExists
  // when one of that id was discarded before.
  absl::StatusOr<std::string> Discard(std::string_view operation_id) const;

  // Removes the temporary files a crash left behind; returns how many.
  absl::StatusOr<uint64_t> CleanTemporaryFiles() const;

 private:
  struct Spares {
    absl::Mutex mu;
    std::vector<std::string> durable ABSL_GUARDED_BY(mu);  // may be rewritten
    std::vector<std::string> pending ABSL_GUARDED_BY(mu);  // renamed, not synced yet
  };

  AppendCheckpointStore(io::FileSystem& fs, std::string dir)
      : fs_(&fs), dir_(std::move(dir)), spares_(std::make_shared<Spares>()) {}

  // A durable spare to rewrite, if any, and the pending ones, which the
  // publish's directory sync will make durable (RestoreSpares after).
  std::optional<std::string> TakeSpares(std::vector<std::string>* pending) const;
  void RestoreSpares(std::vector<std::string> pending, bool now_durable) const;

  io::FileSystem* fs_;
  std::string dir_;
  std::shared_ptr<Spares> spares_;
};

}  // namespace lake::table

#endif  // LAKE_ENGINE_TABLE_APPEND_CHECKPOINT_STORE_H_
