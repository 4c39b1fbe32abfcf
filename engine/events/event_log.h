// An experiment's event log: every shard read into one index by item, the
// derived reads over it, and — when opened for writing — this process's own
// shard, to which checkpoint batches are appended.
//
// Invariants:
//   - The index holds exactly the events of the frames read by Open and
//     every Refresh since, plus the batches this log appended; per item, in
//     item_seq order, one copy of each (the same event found twice — in two
//     shards, or a retried batch — is kept once; two different events at
//     one item_seq are both kept, so the fold reports the fencing violation).
//   - Append admits a batch whole or not at all, and only when no event of
//     it is a fencing violation, a stale attempt or a split brain against
//     the index and the batches in flight; the events already present are
//     absorbed (not written again).
#ifndef LAKE_ENGINE_EVENTS_EVENT_LOG_H_
#define LAKE_ENGINE_EVENTS_EVENT_LOG_H_

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/types/span.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "base/task_pool.h"
#include "engine/events/blob_references.h"
#include "engine/events/event.h"
#include "engine/events/fold.h"
#include "engine/events/shard_log.h"
#include "io/file_system.h"

namespace lake::events {

struct AppendResult {
  size_t appended = 0;    // new events, now durable
  size_t duplicates = 0;  // events the log already held, absorbed
};

struct EventLogStats {
  size_t shards = 0;
  size_t items = 0;
  size_t events = 0;
  // This log's writer since it opened (0 when read-only): batches made
  // durable and the syncs that did it (fewer when batches shared syncs).
  uint64_t batches_written = 0;
  uint64_t syncs = 0;
};

// Thread-safe.
class EventLog {
 public:
  // Reads every shard under `shards_dir`; with `writable`, also takes a
  // shard of its own (ShardWriter::Open). DataLoss for a damaged shard.
  static absl::StatusOr<std::unique_ptr<EventLog>> Open(io::FileSystem& fs,
                                                        std::string shards_dir, bool writable);

  // Appends one checkpoint batch atomically (one frame, one sync shared
  // with concurrent batches), and returns once it is durable. The locations of offloaded blobs it names are
  // recorded in the shard's blob journal first (blob_references.h). Each
  // event must pass ValidateEventRecord (InvalidArgument otherwise).
  // Aborted — nothing written — for a fencing violation (another event at
  // an existing item_seq, or an item_seq not above the item's last), a
  // stale attempt (below the item's highest) or a split brain (another
  // writer_epoch in an attempt). FailedPrecondition when the log was opened
  // read-only. A bulk batch (256 events or more) is validated and encoded
  // on two threads: the calling one and the log's helper thread.
  //
  // With Durability::kRelaxed the batch is acknowledged once written: as
  // atomic and as visible (to this log and to other processes' refreshes),
  // and it survives this process, but a power loss before the shard's next
  // sync may take it, with every relaxed batch after it (never part of one;
  // never one without those before it). The next durable append, Sync(),
  // or closing the log syncs it, and once kSyncAheadBytes of relaxed
  // batches are not durable the shard syncs them in the background while
  // appends go on (shard_log.h). For bulk loads: many relaxed batches, then
  // Sync() once. A durable batch after relaxed ones costs one sync more.
  absl::StatusOr<AppendResult> Append(std::vector<Event> batch,
                                      Durability durability = Durability::kDurable);

  // Makes every batch this log acknowledged durable (one sync, when a
  // relaxed batch is not yet). FailedPrecondition when read-only; after an
  // I/O error, that error.
  absl::Status Sync();

  // Reads what other writers acknowledged since the last Open/Refresh: the
  // frames past where each shard was read up to (new shards whole), or
  // every shard again when one read before is gone (compacted away).
  absl::Status Refresh();

  // The derived reads (fold.h) over the index. Fold refuses a text that is
  // no item id (InvalidArgument, item_id.h); nullopt is a valid id without
  // an ITEM_CREATED.
  absl::StatusOr<std::optional<FoldedItem>> Fold(std::string_view item_id);
  absl::StatusOr<ItemTree> Tree(std::string_view root_item_id);
  absl::StatusOr<RootStatuses> Roots();
  std::vector<FailureRecord> AllFailures();
  std::vector<Event> EventsOfRoot(std::string_view root_item_id);
  EventLogStats Stats();

  // This writer's shard ("" when read-only).
  std::string shard_id() const;

 private:
  EventLog(io::FileSystem& fs, std::string shards_dir, std::unique_ptr<ShardWriter> writer,
           std::unique_ptr<ShardBlobJournal> blob_journal);
  // What admission of an event checks it against, all of one item: its
  // indexed events (null when none) and their summary, its events in
  // batches being written (null when none), and the events of this batch
  // before the event.
  struct ItemKnown;
  // Admission of one event: true for a duplicate, false for a new event,
  // Aborted for a refusal.
  static absl::StatusOr<bool> IsDuplicate(const Event& event, const ItemKnown& known);

  // What admission needs of an item's indexed events besides the events
  // themselves (kept beside index_, so admission is not a scan of the item):
  // the highest attempt, and per attempt each non-empty writer_epoch with
  // the lowest item_seq of its events.
  struct ItemAdmission {
    uint32_t max_attempt = 0;
    std::map<uint32_t, std::map<std::string, uint64_t>> first_seq_of_epoch;

    void Add(const Event& event);
  };
  static ItemAdmission SummarizeItem(const std::vector<const Event*>& events);
  // Events of one item, mostly a few (a checkpoint's): kept inline.
  using EventPtrs = absl::InlinedVector<const Event*, 16>;
  // The events of one item earlier in the batch being admitted, with what
  // lets admission skip checking each: their highest item_seq and attempt,
  // and their writer_epoch when they have at most one (empty: none).
  struct BatchKnown {
    EventPtrs events;
    uint64_t max_seq = 0;
    uint32_t max_attempt = 0;
    std::string_view epoch;
    bool one_epoch = true;

    void Add(const Event& e);
  };
  struct ItemKnown {
    const std::vector<const Event*>* indexed = nullptr;
    const ItemAdmission* summary = nullptr;  // of *indexed
    absl::Span<const Event* const> in_flight;
    const BatchKnown* earlier_in_batch = nullptr;
  };
  // Admission of `batch` (its runs of items ending at `runs`) against the
  // index, the batches in flight and its own earlier events: each event's
  // verdict in *duplicate (true: the log holds it), or Aborted for a
  // refusal.
  absl::Status Admit(const std::vector<Event>& batch, const std::vector<uint32_t>& runs,
                     std::vector<bool>* duplicate) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Adds the events of an admitted batch to in_flight_, and takes them out.
  void AddInFlight(const std::vector<Event>& fresh, const std::vector<uint32_t>& runs)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void ForgetInFlight(const std::vector<Event>& fresh, const std::vector<uint32_t>& runs)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // A spare record buffer (cleared), or a new one; and an append's two
  // record buffers (its own and its helper's) kept for later.
  std::string TakeSparePayload() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void KeepSparePayloads(std::string& mine, std::string& helper)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  io::FileSystem& fs_;
  const std::string shards_dir_;
  std::unique_ptr<ShardWriter> writer_;
  std::unique_ptr<ShardBlobJournal> blob_journal_;  // with writer_
  // With writer_: takes chunks of a bulk batch's validation and encoding
  // (BatchEncoder). Its tasks end before the Append that gave them.
  std::unique_ptr<TaskPool> helper_;

  absl::Mutex refresh_mu_;  // one Refresh at a time, taken before mu_
  absl::Mutex mu_;
  // The events of the index, in the batches they were read or appended in
  // (a copy the index drops as a duplicate stays until a Refresh reads every
  // shard again). A stored batch is never changed, so pointers to its events
  // are stable; keeping batches whole spares moving each event again.
  std::deque<std::vector<Event>> stored_ ABSL_GUARDED_BY(mu_);
  // Each item's events in item_seq order, all in stored_.
  EventRefsByItem index_ ABSL_GUARDED_BY(mu_);
  // Each index_ item by a view of its key there (a std::map's keys stay
  // put): its events in index_ and their summary. One hash lookup finds
  // what admission and indexing need of an item, where index_ would take a
  // dozen string compares.
  struct IndexedItem {
    std::vector<const Event*>* events = nullptr;
    ItemAdmission summary;
  };
  absl::flat_hash_map<std::string_view, IndexedItem> indexed_ ABSL_GUARDED_BY(mu_);
  // The entry of `item` in index_ and indexed_, made (empty) when missing.
  IndexedItem& IndexedItemOf(const std::string& item) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  size_t shard_count_ ABSL_GUARDED_BY(mu_) = 0;
  // Where each shard was read up to by the last Open/Refresh.
  std::map<std::string, ShardCursor> cursors_ ABSL_GUARDED_BY(mu_);
  // While a Refresh reads every shard into a new index: the events this
  // log appended meanwhile, which that read may have missed.
  bool rereading_all_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<Event> appended_while_rereading_ ABSL_GUARDED_BY(mu_);
  // Record buffers of finished appends, reused: a bulk batch's records are
  // hundreds of KB, and a new buffer costs a page fault per 4 KiB written.
  // At most kSparePayloads, each of at most kSparePayloadBytes capacity.
  static constexpr size_t kSparePayloads = 8;
  static constexpr size_t kSparePayloadBytes = size_t{1} << 20;
  std::vector<std::string> spare_payloads_ ABSL_GUARDED_BY(mu_);
  // The events of batches being written, by item; the keys view the item
  // ids of those events, which outlive their entries.
  absl::flat_hash_map<std::string_view, EventPtrs> in_flight_ ABSL_GUARDED_BY(mu_);
  // Admission's tables for the batch being admitted (empty between
  // appends): each item of the batch → its BatchKnown in batch_known_.
  absl::flat_hash_map<std::string_view, uint32_t> batch_items_ ABSL_GUARDED_BY(mu_);
  std::vector<BatchKnown> batch_known_ ABSL_GUARDED_BY(mu_);
};

}  // namespace lake::events

#endif  // LAKE_ENGINE_EVENTS_EVENT_LOG_H_
