// The root's queue of appends waiting for their registry commits: group
// commit across the processes writing a root.
//
// Why: an append's records are durable with one fdatasync of their table
// log segment, and its registry commit must follow that sync. Done under
// the commit turn, every append waits for a flush of its own while every
// other writer waits for the turn (bench/writers: four processes kept 1.2
// of 2 cores busy). Queued, an append holds the turn only to write its
// records; the flush is taken outside it, once for every append queued
// before it, and the commits go in queue order under the turn, by
// whichever writer takes it next.
//
// How an append goes (engine/table/table_store.cc, AppendBatch):
//   1. under the turn: its records are written, unsynced, on top of the
//      newest version queued for its table (or the registry's current one),
//      and its commit is queued;
//   2. without the turn: SyncQueued makes every queued append durable, one
//      fdatasync per segment, by the one writer that takes the sync lock;
//   3. under the turn: CommitSynced commits every durable append, oldest
//      first, whoever queued it; each writer finds its outcome by its
//      sequence number.
//
// Invariants:
// - Entries are queued and settled only under the root's commit turn, in
//   sequence order; settled_seq <= synced_seq <= next_seq.
// - An entry is committed only after a sync that began after its records
//   were written (it was queued before the sync read next_seq): a version
//   the registry names is durable, as without the queue.
// - Entries of one table are queued in version order, each on the one
//   before it; a registry commit is a compare-and-set on its base, so an
//   entry whose base failed fails too, never committed on the wrong base.
// - A failed sync fails every entry it covered: a sync that fails may
//   have lost their bytes, and a later sync's success says nothing of them.
// - Everything else that commits takes the turn quiescent (TableStore::
//   AwaitQuiescentTurn: every queued entry synced and settled first), so
//   it sees the registry as if appends committed one at a time.
// - The queue holds no durable state: it lives in a file every writer maps
//   (io/posix/shared_mapping.h). A queue made in another boot is emptied
//   before use; what a power loss took from it is an append whose records
//   were not committed, which recovery settles from its checkpoint as
//   before. A writer killed after queueing leaves an entry the next turn
//   holder commits: its records are in the page cache, synced by the next
//   sync.
//
// Format of <root>/commit.queue (host byte order; never read across
// machines or boots):
//   header, 4096 bytes:
//     0    u32 change counter (a futex word: bumped on every sync and
//              settlement)
//     4    u32 format version (1)
//     8    char[64] boot id, NUL-padded
//     72   u64 next_seq, 80 u64 synced_seq, 88 u64 settled_seq
//   kCommitQueueSlots slots of 4096 bytes; entry seq in slot seq % slots:
//     0    u64 seq
//     8    u32 state (1 queued, 2 committed, 3 failed)
//     12   u32 failure code (absl::StatusCode)
//     16   u32 sync failed (0/1), 20 u32 final failure (0/1)
//     24   u32 commit bytes, 28 u32 segment path bytes, 32 u32 base
//          manifest path bytes, 36 u32 message bytes
//     40   char[216] failure message
//     256  the commit (registry/writer_channel_format.h: kind 4 or 10),
//          the segment's path (<root>/tables/<ns>/<table>/_log/<name>.seg),
//          the base's manifest path (a table path, or empty)
//   An entry that reads otherwise (a bad commit or path, a failure whose
//   code is OK's) is DataLoss, never committed or opened.
//
// Thread safety: every method may be called from any thread; the comments
// say which need the turn.
#ifndef LAKE_ENGINE_TABLE_COMMIT_QUEUE_H_
#define LAKE_ENGINE_TABLE_COMMIT_QUEUE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "io/file_system.h"
#include "io/posix/file_futex.h"
#include "io/posix/shared_mapping.h"
#include "registry/writer_channel_format.h"

namespace lake::table {

inline constexpr std::string_view kCommitQueueName = "commit.queue";
inline constexpr size_t kCommitQueueSlots = 64;
inline constexpr size_t kCommitQueueSlotBytes = 4096;

// Failpoints of a queued append: once it is queued (its records written,
// unsynced, the turn released); and in the middle of settling (after an
// entry's registry commit, before it is marked committed).
inline constexpr std::string_view kCommitQueueQueuedFailpoint = "commit_queue.queued";
inline constexpr std::string_view kCommitQueueCommittedFailpoint = "commit_queue.committed";

// One queued append.
struct QueuedCommit {
  uint64_t seq = 0;
  registry::ForwardedWrite commit;           // kind kCommitVersion or kCommitVersionDeferred
  std::string segment_path;                  // the segment its records are in
  std::string base_manifest_path;            // the manifest of the version it goes on
  std::optional<absl::Status> sync_failure;  // set when the sync covering it failed
};

// How a queued append settled.
struct QueuedOutcome {
  absl::Status status;  // OK: committed
  // A failure after which the append never commits (its checkpoint was
  // withdrawn); otherwise a failure may still commit through recovery.
  bool final_failure = false;
};

class CommitQueue {
 public:
  // Maps <root_dir>/commit.queue. `boot_id` names the machine's boot (not
  // empty). Syncs go through `fs`, which must outlive the queue.
  static absl::StatusOr<std::unique_ptr<CommitQueue>> Open(io::FileSystem& fs,
                                                           const std::string& root_dir,
                                                           std::string boot_id);
  CommitQueue(const CommitQueue&) = delete;
  CommitQueue& operator=(const CommitQueue&) = delete;

  // Under the turn: empties a queue another boot made (or that does not
  // read as a queue of this format), so that nothing of it is committed.
  void AdoptIfStale();

  // Under the turn: queues `commit`, whose records are written to the
  // segment at `segment_path`, on the version whose manifest is
  // `base_manifest_path`, and returns its sequence number.
  // ResourceExhausted when every slot is taken (settle first);
  // InvalidArgument when it does not fit a slot.
  absl::StatusOr<uint64_t> Enqueue(const registry::ForwardedWrite& commit,
                                   const std::string& segment_path,
                                   const std::string& base_manifest_path);
  // Whether paths of these lengths always fit a slot (a commit's own
  // encoding takes well under a kilobyte).
  static bool Fits(size_t segment_path_bytes, size_t base_manifest_path_bytes) {
    return segment_path_bytes + base_manifest_path_bytes + 1024 <= kCommitQueueSlotBytes - 256;
  }

  // Under the turn: the entries not settled yet, oldest first.
  absl::StatusOr<std::vector<QueuedCommit>> Queued() const;
  bool empty() const;

  // Without the turn (or with it): makes every entry queued so far
  // durable — one Sync of each segment, then `after_sync` (if any) —
  // unless a sync since covers it. A failure of either is every covered
  // entry's sync failure. Waits for a sync running in another thread or
  // process rather than running a second one, at most until `deadline`
  // (then Aborted).
  absl::Status SyncQueued(absl::Time deadline,
                          const std::function<absl::Status()>& after_sync = nullptr);
  // Whether entry `seq` is past a sync (which may have failed).
  bool Synced(uint64_t seq) const;

  // Under the turn: settles every synced entry, oldest first, with what
  // `commit` made of it (an entry whose sync failed included).
  void CommitSynced(const std::function<QueuedOutcome(const QueuedCommit&)>& commit);

  // The outcome of entry `seq`: empty while it is queued; NotFound when
  // its slot holds a later entry already (the outcome is the registry's
  // to tell).
  std::optional<QueuedOutcome> Outcome(uint64_t seq) const;

  // Waits until the queue changes (a sync or a settlement) after `seen`
  // (changes()), at most `timeout`.
  uint32_t changes() const;
  void WaitForChange(uint32_t seen, absl::Duration timeout) const;

 private:
  struct Header;
  struct Slot;
  CommitQueue(io::FileSystem& fs, std::string path, std::string boot_id,
              std::unique_ptr<io::SharedMapping> mapping, std::unique_ptr<io::FileFutex> futex);
  Header& header() const;
  Slot& slot(uint64_t seq) const;
  absl::StatusOr<QueuedCommit> Read(uint64_t seq) const;
  // DataLoss unless entries [from, to) fit the slots (a damaged header).
  absl::Status CheckRange(uint64_t from, uint64_t to) const;
  void Settle(uint64_t seq, const QueuedOutcome& outcome);
  static absl::Status Failure(const Slot& s);
  static void SetFailure(Slot& s, const absl::Status& failure);

  io::FileSystem& fs_;
  const std::string path_;
  const std::string boot_id_;
  std::unique_ptr<io::SharedMapping> mapping_;
  std::unique_ptr<io::FileFutex> futex_;
};

}  // namespace lake::table

#endif  // LAKE_ENGINE_TABLE_COMMIT_QUEUE_H_
