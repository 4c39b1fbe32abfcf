// One shard of an experiment's event log: the files one writer process
// appends to, under its own lock (never the registry's).
//
//   <shards_dir>/<shard_id>/lock                          flock held by the writer
//   <shards_dir>/<shard_id>/segment-<20-digit number>.log  frames (event_log_frame.h)
//
// Invariants (what a writer keeps and a reader checks):
//   - Segments are numbered from 1 without gaps. Each writer session appends
//     to a segment of its own: a new one, or the last one when that holds no
//     valid frame (a session that crashed before its first frame was
//     durable), rewritten from empty.
//   - Every segment starts with a seal naming the segment before it (none
//     for segment 1), that segment's valid length and the frame seed of its
//     own frames (event_log_frame.h), so bytes past a sealed length are a
//     crashed session's unacknowledged tail, while a sealed frame that no
//     longer scans is damage (DataLoss). (Segments of frame format version
//     1 have no seed, and segment 1 no seal.) The bytes a seal names are
//     durable before the seal is, so a power loss cannot cut the segment
//     below its sealed length: a roll syncs the segment it leaves, and a
//     new session syncs the segment its seal names (the last one, or the
//     one before the last it rewrites) before writing the seal — it read
//     that length through the page cache, which may hold relaxed frames of
//     a writer that died before syncing them.
//   - Past its last frame the segment being written holds zeros its writer
//     wrote ahead, if any (or a crashed session's torn tail, then zeros;
//     a segment a bulk group rolled to gets zeros at its first small
//     group): small appends overwrite zeros in blocks already written, so
//     their fdatasync writes those blocks alone, not the file's new size
//     and block allocation too. A scan reads zeros as the end of the
//     frames. A writer drops its zeros (unsynced truncate) when it closes
//     or rolls the segment.
//   - A durable batch is acknowledged only after its frame is written and
//     the segment synced (fdatasync), and a new segment only after its
//     directory entry is synced too. A relaxed batch is acknowledged once
//     its frame is written (it survives the process, not yet a power loss);
//     it becomes durable at the segment's next sync: a durable batch's,
//     Sync(), a roll to a new segment, a clean close, the next session's
//     open (when the writer died instead), or a sync ahead — once
//     kSyncAheadBytes of relaxed frames are not durable, the writer syncs
//     the segment in the background up to where it was written then, while
//     appends go on (a sync ahead covers only bytes written before it
//     began, and its end counts as durable only once it has returned).
//     Every sync of the writer's own waits for the sync ahead in flight and
//     takes its result first: a failed writeback is reported to one
//     fdatasync only, so a racing sync could succeed over lost bytes.
//     Concurrent appends share one write and one sync (group commit), as
//     one frame: a group is all or nothing.
//   - A frame is flagged "prior synced" (event_log_frame.h) exactly when
//     every byte before it was synced when it was written. A durable batch's
//     frame is written only then (the segment is synced first when relaxed
//     frames precede it), so a frame torn by a power loss is never followed
//     by a flagged frame: a scan that finds one after bytes that do not scan
//     reports damage, and otherwise drops those bytes and what follows
//     them, which no sync had covered.
#ifndef LAKE_ENGINE_EVENTS_SHARD_LOG_H_
#define LAKE_ENGINE_EVENTS_SHARD_LOG_H_

#include <atomic>
#include <cstdint>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "base/task_pool.h"
#include "engine/events/event_log_frame.h"
#include "io/file_system.h"

namespace lake::events {

// How long a leader waits for the frames of joined appenders before it
// writes: about the CPU time of preparing a few checkpoint batches, about
// one sync.
inline constexpr absl::Duration kGroupCommitWindow = absl::Microseconds(200);
// A writer starts a new segment once its current one passes this size.
inline constexpr uint64_t kSegmentRollBytes = uint64_t{64} << 20;
// Zeros written ahead of the frames at a time, once fewer than
// kZeroAheadLowBytes remain; groups of appends at least that large (bulk
// batches) are appended past the zeros instead, as the size update is then
// a small part of their write.
inline constexpr uint64_t kSegmentZeroAheadBytes = uint64_t{4} << 20;
inline constexpr uint64_t kZeroAheadLowBytes = uint64_t{64} << 10;
// The zeros are written this much at a time (ShardWriter::ZeroAhead says
// why); kSegmentZeroAheadBytes is a multiple of it.
inline constexpr uint64_t kZeroWriteBytes = uint64_t{64} << 10;
static_assert(kSegmentZeroAheadBytes % kZeroWriteBytes == 0);
// Relaxed frames are synced ahead (in the background) once this many bytes
// of them are not durable, so a bulk load's data reaches the disk while the
// load goes on rather than all at its final sync. Measured on this project's
// virtual disk, 80 MB of 300 KB appends: the final fdatasync took 55-60 ms
// alone, 2-4 ms with a sync every 4 MiB behind the writes.
inline constexpr uint64_t kSyncAheadBytes = uint64_t{4} << 20;
// Failpoints of an append, in order: the frames are written (not yet
// synced), then synced (durable, not yet acknowledged). And of a sync
// ahead: its sync has returned (its frames durable, not yet counted so).
inline constexpr std::string_view kShardAppendWritten = "event_shard.written";
inline constexpr std::string_view kShardAppendSynced = "event_shard.synced";
inline constexpr std::string_view kShardSyncedAhead = "event_shard.synced_ahead";

// The file name of segment `number`, and the number a name spells.
std::string SegmentFileName(uint64_t number);
std::optional<uint64_t> ParseSegmentFileName(std::string_view name);

// Everything a shard holds, checked by the seal rules above.
struct ShardContents {
  std::string shard_id;
  // The bytes of each segment, kept so the frames can view them.
  std::vector<std::shared_ptr<const std::string>> segments;
  std::vector<Frame> event_frames;  // kEvents frames of every segment, in order
  uint64_t last_segment = 0;        // 0 when the shard has no segment
  uint64_t last_valid_bytes = 0;    // of the last segment
  uint64_t previous_valid_bytes = 0;  // of the segment before the last
  bool last_has_frames = false;     // whether the last segment holds a valid frame
};

// Where a reader of a shard stopped: the last segment it read, that
// segment's valid bytes then, and the valid bytes of the segment before it
// (what the seal of that segment names). Frames past it are new: a writer
// only ever adds frames after a segment's valid bytes, or new segments.
struct ShardCursor {
  uint64_t segment = 0;  // 0: nothing read yet
  uint64_t valid_bytes = 0;
  uint64_t previous_valid_bytes = 0;
};

// Reads the shard at `shard_dir` (its id is the last path component).
// DataLoss names the segment and offset of any damage.
absl::StatusOr<ShardContents> ReadShard(io::FileSystem& fs, const std::string& shard_dir);

// The same for the frames past `from` only: segments before from.segment
// are not read again, nor the bytes of from.segment below its valid bytes
// (so damage there is not seen again). The result's event_frames are the
// new ones; CursorOf(result) is where the next read starts.
absl::StatusOr<ShardContents> ReadShardFrom(io::FileSystem& fs, const std::string& shard_dir,
                                            const ShardCursor& from);
ShardCursor CursorOf(const ShardContents& contents);

// The ids of the shards under `shards_dir` (none when it does not exist).
absl::StatusOr<std::vector<std::string>> ListShards(io::FileSystem& fs,
                                                    const std::string& shards_dir);

// Opens the lock file of the shard at `shard_dir` (creating it, durably,
// when the shard has none yet) and tries to take its flock without waiting.
// The returned file holds the lock until it is closed; a null file means
// another open file (a live writer, or a compaction) holds it.
absl::StatusOr<std::unique_ptr<io::File>> TryLockShard(io::FileSystem& fs,
                                                       const std::string& shard_dir);

// How an append is acknowledged: once durable (synced), or once written and
// durable at the next sync (relaxed: bulk loads, which sync once at the end).
enum class Durability { kDurable, kRelaxed };

// The writer of one shard. Thread-safe.
class ShardWriter {
 public:
  // Takes the first shard under `shards_dir` whose lock is free, or creates
  // a new one (a UUIDv7 id), recovers it and opens a segment of its own.
  static absl::StatusOr<std::unique_ptr<ShardWriter>> Open(io::FileSystem& fs,
                                                           const std::string& shards_dir);
  ~ShardWriter();

  // For tests of a writer's death within one process: the writer lets its
  // shard's lock go and, once destroyed, closes its segment as a killed
  // process's files are closed (nothing synced, no zeros dropped). No call
  // may be in flight; every later one fails.
  void AbandonForTest();

  // For tests of group commit on a loaded machine: a leader waits up to
  // `window` (instead of kGroupCommitWindow) for the frames of joined
  // appenders, so how frames group does not hang on the scheduler.
  void SetGroupCommitWindowForTest(absl::Duration window);

  const std::string& shard_id() const { return recovered_.shard_id; }
  const std::string& shard_dir() const { return shard_dir_; }
  // The shard as it was when this writer opened it.
  const ShardContents& recovered() const { return recovered_; }

  // Appends one batch of `records` encoded event records and returns once
  // it is durable (kDurable) or written (kRelaxed: durable at the next sync,
  // see the invariants above). The batches of concurrent calls share one
  // write (and one sync, when any of them is durable), as one frame holding
  // their records. After an I/O error the writer is broken: every later
  // call fails with that error (the tail is unknown until a new writer
  // recovers the shard). The payload is read in place: it must stay
  // unchanged until the call returns. Precondition: payload.size() <=
  // kMaxFramePayloadBytes.
  absl::Status Append(std::string_view payload, uint32_t records, Durability durability) {
    const RecordBatch batch{records, payload};
    return Append(absl::MakeConstSpan(&batch, 1), durability);
  }
  absl::Status AppendDurably(std::string_view payload, uint32_t records) {
    return Append(payload, records, Durability::kDurable);
  }
  // The same for one batch given in pieces (their records back to back, in
  // order), which stay where they are until the call returns. Precondition:
  // the pieces total at most kMaxFramePayloadBytes.
  absl::Status Append(absl::Span<const RecordBatch> pieces, Durability durability);
  // Makes every batch acknowledged so far durable: one sync, when a relaxed
  // batch is not durable yet; nothing otherwise.
  absl::Status Sync();

  // Group commit across threads that append one frame after another: a
  // thread joins before it prepares a frame and leaves once it is done with
  // the result (AppenderScope). A leader about to write waits up to
  // kGroupCommitWindow until every joined thread has queued its frame, so
  // threads that were released by one sync and come back with their next
  // frame share the next sync instead of splitting into cohorts that take
  // turns.
  // Batches handed to Append and written (`frames`), the syncs of appends
  // (fewer than the durable batches when batches were grouped; none for
  // relaxed ones until a sync), and the syncs ahead that have returned.
  struct SyncStats {
    uint64_t frames = 0;
    uint64_t syncs = 0;
    uint64_t syncs_ahead = 0;
  };
  SyncStats sync_stats();

  void JoinAppenders();
  void LeaveAppenders();
  class AppenderScope {
   public:
    explicit AppenderScope(ShardWriter& writer) : writer_(writer) { writer_.JoinAppenders(); }
    ~AppenderScope() { writer_.LeaveAppenders(); }
    AppenderScope(const AppenderScope&) = delete;
    AppenderScope& operator=(const AppenderScope&) = delete;

   private:
    ShardWriter& writer_;
  };

 private:
  struct PendingAppend {
    absl::Span<const RecordBatch> pieces;  // of one batch; none for a Sync
    uint64_t bytes = 0;                    // the pieces' payload bytes
    bool has_frame = true;  // false: a Sync, no batch
    bool durable = true;
    bool done = false;
    absl::Status status;
  };

  ShardWriter(io::FileSystem& fs, std::string shard_dir, std::unique_ptr<io::File> lock,
              ShardContents recovered);
  // Makes segment `number` the one appended to: created, or (`rewrite`)
  // an existing one cut to empty; sealed, with zeros written ahead unless
  // `zero_ahead` is false (a roll by a group too large for them); durable.
  absl::Status StartSegment(uint64_t number, bool rewrite, uint64_t previous_valid_bytes,
                            bool zero_ahead = true);
  // Queues `pending` and waits until a leader (maybe this thread) has
  // written it (WriteGroup).
  absl::Status Submit(PendingAppend& pending);
  // Writes the group's batches as one frame, syncing first and after when
  // any member is durable (the invariants above); adds its syncs to *syncs.
  absl::Status WriteGroup(const std::vector<PendingAppend*>& group, uint64_t* syncs);
  // Writes kSegmentZeroAheadBytes of zeros at the end of the segment's
  // zeros (not synced: the caller's next sync covers them).
  absl::Status ZeroAhead();
  // Starts a sync ahead of the segment up to tail_ (none may be in flight).
  void StartSyncAhead();
  // Ends the sync ahead in flight, if any, once it has returned — waiting
  // for that when `wait`, else leaving it in flight when it has not: its end
  // becomes durable (synced_end_), or its error is returned.
  absl::Status FinishSyncAhead(bool wait);


  io::FileSystem& fs_;
  const std::string shard_dir_;
  std::unique_ptr<io::File> lock_;
  ShardContents recovered_;
  // The segment being appended to, the end of its frames and how much of
  // it is durable (synced_end_ <= tail_). Only the current leader
  // (leader_active_) touches them.
  std::unique_ptr<io::File> segment_;
  uint64_t segment_number_ = 0;
  uint64_t tail_ = 0;
  uint64_t synced_end_ = 0;
  uint64_t zeroed_end_ = 0;  // the segment's zeros written ahead end here
  absl::Status broken_;
  // The checksum seed of this session's frames, random: no bytes but its
  // own frames (not a frame held in an event's value) pass as one.
  const uint64_t frame_seed_;
  std::string group_frame_;  // the frame header of the group being written, reused
  // The sync ahead in flight (none when empty), of segment_ up to
  // sync_ahead_end_, on syncer_'s thread (made at the first sync ahead).
  // Only the leader starts or finishes one; segment_ is not closed while
  // one is in flight.
  std::unique_ptr<TaskPool> syncer_;
  std::optional<std::future<absl::Status>> sync_ahead_;
  uint64_t sync_ahead_end_ = 0;

  // Group commit: queued frames wait in queue_. At most one thread is
  // gathering (waiting for more frames before it leads) or leading
  // (writing a group), never both at once; every other waiting thread
  // sleeps on group_written_ until a group is written.
  absl::Mutex mu_;
  absl::CondVar frame_queued_;   // signaled per queued frame while gathering
  absl::CondVar group_written_;  // signaled (all) when a group is written
  std::vector<PendingAppend*> queue_ ABSL_GUARDED_BY(mu_);
  bool gathering_ ABSL_GUARDED_BY(mu_) = false;
  bool leader_active_ ABSL_GUARDED_BY(mu_) = false;
  size_t appenders_ ABSL_GUARDED_BY(mu_) = 0;  // joined threads
  absl::Duration group_commit_window_ ABSL_GUARDED_BY(mu_) = kGroupCommitWindow;
  SyncStats sync_stats_ ABSL_GUARDED_BY(mu_);
  std::atomic<uint64_t> syncs_ahead_{0};  // returned, as SyncStats counts them
};

}  // namespace lake::events

#endif  // LAKE_ENGINE_EVENTS_SHARD_LOG_H_
