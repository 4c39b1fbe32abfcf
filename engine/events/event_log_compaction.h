// Compaction of an experiment's event log: the shards no live writer holds
// are merged into one new shard, and then retired, without changing any
// fold, tree or lens result a reader of the log gets.
//
// Layout while it runs (every name starting with '.' is invisible to
// ListShards, so to every reader and writer):
//   <shards_dir>/.compaction/lock            flock: one compaction at a time
//   <shards_dir>/.compacting-<uuid>/<id>/    the new shard, being built
//   <shards_dir>/.retired-<old id>/          an old shard, being removed
//
// Steps, and why a crash after any of them leaves every result unchanged:
//   1. Leftovers of a crashed compaction are removed: a `.compacting-*` was
//      never visible, a `.retired-*` only once its events were durable in a
//      visible shard.
//   2. The lock of every shard whose lock is free is taken (shards of live
//      writers are skipped) and they are read. Two writer_epochs in one
//      attempt of an item (split brain) or two different events at one
//      (item_id, item_seq) (fencing violation) refuse the compaction before
//      anything is written.
//   3. The new shard is written under the hidden name, durably: one copy of
//      each event, ordered by (item_id, item_seq), plus a blob journal with
//      the union of the locations the old shards recorded. Of the copies of
//      one event (equal but for event_ts), it keeps the one a reader keeps:
//      the earliest event_ts (the fold's rule and the index's).
//   4. It is renamed to `<shards_dir>/<id>` and the directory synced: from
//      then on readers see each event in it and in an old shard, and the
//      log's index keeps one copy, the same one as before (the earliest,
//      wherever it is found).
//   5. The old shards are renamed to `.retired-<id>`, last name first, each
//      rename synced (any order would do under the earliest-copy rule; this
//      one also keeps the visible old shards a name-order prefix). Then they
//      are removed.
#ifndef LAKE_ENGINE_EVENTS_EVENT_LOG_COMPACTION_H_
#define LAKE_ENGINE_EVENTS_EVENT_LOG_COMPACTION_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "io/file_system.h"

namespace lake::events {

// The steps of a compaction as failpoints (base/failpoint.h), in the order
// it passes them.
inline constexpr std::array<std::string_view, 6> kCompactionFailpoints = {
    "event_compaction.written",    // the new shard is durable under its hidden name
    "event_compaction.renamed",    // it has its final name; the rename is not yet synced
    "event_compaction.published",  // the rename is synced: readers see the new shard
    "event_compaction.retiring",   // an old shard was renamed away, not yet synced (each)
    "event_compaction.retired",    // every old shard is durably out of sight, none removed
    "event_compaction.removed",    // the retired shards are removed, not yet synced
};

// Events of the new shard are grouped into frames of about this size: few
// frames (each is a header and a checksum to scan), and each well under
// kMaxFramePayloadBytes and the 8 MiB a shard writer groups into one write.
inline constexpr size_t kCompactedFrameBytes = size_t{4} << 20;

struct CompactionResult {
  // Whether old shards were replaced by a new one. False when fewer than
  // two shards were free to compact (nothing to do).
  bool compacted = false;
  std::string shard_id;                       // the new shard ("" when not compacted)
  std::vector<std::string> compacted_shards;  // the old shards, now removed
  std::vector<std::string> skipped_shards;    // held by live writers, left alone
  size_t events_read = 0;                     // records in the compacted shards
  size_t events_written = 0;                  // of the new shard (one copy each)
  size_t blob_locations = 0;                  // recorded in the new shard's journal
  size_t leftovers_removed = 0;               // `.compacting-*` / `.retired-*` found
};

// Compacts the log under `shards_dir` by the steps above. Safe to run while
// writers append to and readers read the log: live writers' shards are
// skipped. A reader's Open/Refresh, or a writer's ShardWriter::Open, that
// listed a shard before it was retired and opens it after may fail with
// NotFound; retried, it succeeds. Memory: every event of the compacted
// shards (as EventLog::Open holds them) plus their segments' bytes. Errors:
//   Aborted      split brain or fencing violation between the shards,
//                naming the item; nothing was written.
//   Unavailable  another compaction of this log is running.
//   DataLoss     a damaged shard or blob journal; nothing was written.
// Any other error is an I/O error; the log's results are unchanged and a
// later compaction cleans up and completes.
absl::StatusOr<CompactionResult> CompactEventLog(io::FileSystem& fs, const std::string& shards_dir);

}  // namespace lake::events

#endif  // LAKE_ENGINE_EVENTS_EVENT_LOG_COMPACTION_H_
