#include "engine/events/event_log_compaction.h"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "base/failpoint.h"
#include "engine/events/blob_references.h"
#include "engine/events/event.h"
#include "engine/events/event_content.h"
#include "engine/events/event_log_frame.h"
#include "engine/events/event_record_format.h"
#include "engine/events/shard_log.h"
#include "engine/managed_key.h"
#include "engine/table/byte_codec.h"
#include "engine/table/reference_delta_format.h"
#include "engine/table/reference_journal.h"
#include "io/durable_paths.h"
#include "io/whole_file.h"

namespace lake::events {
namespace {

constexpr std::string_view kCompactingPrefix = ".compacting-";
constexpr std::string_view kRetiredPrefix = ".retired-";
// A directory only so that TryLockShard can hold its `lock`; never a shard.
constexpr std::string_view kCompactionLockDir = ".compaction";
// One blob-journal step of the new shard holds locations of at most this
// many encoded bytes: a quarter of what a reader of the journal accepts for
// one delta (64 MiB, blob_references.cc).
constexpr size_t kJournalStepBytes = size_t{16} << 20;

std::string Join(const std::string& dir, std::string_view name) {
  return absl::StrCat(dir, "/", std::string(name));
}

bool HasPrefix(std::string_view name, std::string_view prefix) {
  return name.substr(0, prefix.size()) == prefix;
}


// Takes the lock that keeps compactions of one log apart.
absl::StatusOr<std::unique_ptr<io::File>> LockCompaction(io::FileSystem& fs,
                                                         const std::string& shards_dir) {
  std::string dir = Join(shards_dir, kCompactionLockDir);
  absl::Status created = fs.CreateDirectory(dir);
  if (!created.ok() && !absl::IsAlreadyExists(created)) return created;
  absl::StatusOr<std::unique_ptr<io::File>> lock = TryLockShard(fs, dir);
  if (!lock.ok()) return lock.status();
  if (!*lock) {
    return absl::UnavailableError(
        absl::StrCat("another compaction of the event log ", shards_dir, " is running"));
  }
  return lock;
}

// Removes what a crashed compaction left; returns how many it found.
absl::StatusOr<size_t> RemoveLeftovers(io::FileSystem& fs, const std::string& shards_dir) {
  absl::StatusOr<std::vector<std::string>> names = fs.ListDirectory(shards_dir);
  if (!names.ok()) return names.status();
  size_t removed = 0;
  for (const std::string& name : *names) {
    if (!HasPrefix(name, kCompactingPrefix) && !HasPrefix(name, kRetiredPrefix)) continue;
    if (absl::Status s = io::RemoveTree(fs, Join(shards_dir, name)); !s.ok()) return s;
    ++removed;
  }
  if (removed != 0) {
    if (absl::Status s = io::SyncDirectory(fs, shards_dir); !s.ok()) return s;
  }
  return removed;
}

struct LockedShard {
  std::string id;
  std::unique_ptr<io::File> lock;
};

// The shards whose lock was free, locked, in name order; the others' ids
// go to `skipped`.
absl::StatusOr<std::vector<LockedShard>> LockFreeShards(io::FileSystem& fs,
                                                        const std::string& shards_dir,
                                                        std::vector<std::string>* skipped) {
  absl::StatusOr<std::vector<std::string>> ids = ListShards(fs, shards_dir);
  if (!ids.ok()) return ids.status();
  std::vector<LockedShard> locked;
  for (const std::string& id : *ids) {
    absl::StatusOr<std::unique_ptr<io::File>> lock = TryLockShard(fs, Join(shards_dir, id));
    if (!lock.ok()) return lock.status();
    if (*lock) {
      locked.push_back({id, std::move(*lock)});
    } else {
      skipped->push_back(id);
    }
  }
  return locked;
}

// One event of a compacted shard: decoded (to order and check it) and the
// bytes of its record (copied as they are: a record re-encodes to itself).
struct CompactedEvent {
  Event event;
  std::string_view record;    // views a segment kept by the shard's contents
  std::string_view shard_id;  // where it was read, for error messages
};

// Events by item; per item, first in the order a reader meets them.
using EventsToCompact = std::map<std::string, std::vector<CompactedEvent>>;

// Adds the events of every frame of `shard`, in frame order.
absl::Status CollectEvents(const ShardContents& shard, EventsToCompact* events, size_t* read) {
  for (const Frame& frame : shard.event_frames) {
    table::ByteReader reader(frame.payload);
    for (uint32_t i = 0; i < frame.records; ++i) {
      size_t start = reader.position();
      absl::StatusOr<Event> event = ReadEventRecord(reader);
      if (!event.ok()) {
        return absl::DataLossError(absl::StrCat("event log shard ", shard.shard_id,
                                                ": the frame at offset ", frame.offset, ": ",
                                                event.status().message()));
      }
      std::string_view record = frame.payload.substr(start, reader.position() - start);
      std::string item = event->item_id;
      (*events)[item].push_back({std::move(*event), record, shard.shard_id});
      ++*read;
    }
    if (reader.remaining() != 0) {
      return absl::DataLossError(absl::StrCat("event log shard ", shard.shard_id,
                                              ": the frame at offset ", frame.offset,
                                              " has bytes after its ", frame.records, " records"));
    }
  }
  return absl::OkStatus();
}

absl::Status Refused(const CompactedEvent& a, const CompactedEvent& b, std::string_view what,
                     std::string_view why) {
  std::string shards = a.shard_id == b.shard_id ? absl::StrCat("shard ", std::string(a.shard_id))
                                                : absl::StrCat("shards ", std::string(a.shard_id),
                                                               " and ", std::string(b.shard_id));
  return absl::AbortedError(
      absl::StrCat(std::string(what), ": item \"", a.event.item_id.substr(0, 200), "\" ",
                   std::string(why), " (", shards, "); compaction refused, the log is unchanged"));
}

// Orders one item's events by item_seq and keeps the copy of each event
// with the earliest event_ts, as the log's index does; Aborted for a
// fencing violation or a split brain.
absl::Status CanonicalizeItem(std::vector<CompactedEvent>& events) {
  std::stable_sort(events.begin(), events.end(),
                   [](const CompactedEvent& a, const CompactedEvent& b) {
                     return a.event.item_seq != b.event.item_seq
                                ? a.event.item_seq < b.event.item_seq
                                : a.event.event_ts < b.event.event_ts;
                   });
  std::vector<CompactedEvent> kept;
  kept.reserve(events.size());
  std::map<uint32_t, const CompactedEvent*> owner_of_attempt;
  for (CompactedEvent& e : events) {
    if (!kept.empty() && kept.back().event.item_seq == e.event.item_seq) {
      if (!SameEventContent(kept.back().event, e.event)) {
        return Refused(kept.back(), e, "fencing violation",
                       absl::StrCat("holds two different events at item_seq ", e.event.item_seq));
      }
      continue;
    }
    kept.push_back(std::move(e));
  }
  for (const CompactedEvent& e : kept) {
    if (e.event.writer_epoch.empty()) continue;
    auto [it, first] = owner_of_attempt.emplace(e.event.attempt, &e);
    if (!first && it->second->event.writer_epoch != e.event.writer_epoch) {
      return Refused(
          *it->second, e, "split brain",
          absl::StrCat("attempt ", e.event.attempt, " is written by writer_epoch \"",
                       it->second->event.writer_epoch, "\" and \"", e.event.writer_epoch, "\""));
    }
  }
  events = std::move(kept);
  return absl::OkStatus();
}

// Adds every location the blob journal of shard `shard_id` recorded, with
// the checks of EnumerateShardBlobReferences.
absl::Status CollectBlobLocations(io::FileSystem& fs, const std::string& shard_dir,
                                  const std::string& shard_id, std::vector<DataLocation>* out) {
  return EnumerateShardBlobReferences(
      fs, shard_dir, shard_id, [out](uint64_t, const std::vector<DataLocation>& chunk) {
        out->insert(out->end(), chunk.begin(), chunk.end());
        return absl::OkStatus();
      });
}

// Records `locations` (canonical) in `journal`, in steps of at most
// kJournalStepBytes.
absl::Status RecordInSteps(ShardBlobJournal& journal, std::vector<DataLocation> locations) {
  std::vector<DataLocation> step;
  size_t step_bytes = 0;
  for (DataLocation& location : locations) {
    size_t bytes = 2 + location.uri.size() + 1 + location.content_type.size() + 8 + 32;
    if (!step.empty() && step_bytes + bytes > kJournalStepBytes) {
      if (absl::Status s = journal.Record(std::move(step)); !s.ok()) return s;
      step.clear();
      step_bytes = 0;
    }
    step.push_back(std::move(location));
    step_bytes += bytes;
  }
  return journal.Record(std::move(step));
}

// Appends every event, in (item_id, item_seq) order, in frames of about
// kCompactedFrameBytes.
absl::Status AppendEvents(ShardWriter& writer, const EventsToCompact& events) {
  std::string payload;
  uint32_t records = 0;
  auto flush = [&]() -> absl::Status {
    if (records == 0) return absl::OkStatus();
    absl::Status appended = writer.AppendDurably(payload, records);
    payload.clear();
    records = 0;
    return appended;
  };
  for (const auto& [item, item_events] : events) {
    for (const CompactedEvent& e : item_events) {
      if (records != 0 && payload.size() + e.record.size() > kCompactedFrameBytes) {
        if (absl::Status s = flush(); !s.ok()) return s;
      }
      payload.append(e.record);
      ++records;
    }
  }
  return flush();
}

// Writes the new shard under `staging` (a hidden directory of its own) and
// makes it durable; returns its id. It is an ordinary shard, written by an
// ordinary shard writer: segments, seals and lock as any writer leaves them.
absl::StatusOr<std::string> BuildShard(io::FileSystem& fs, const std::string& staging,
                                       const EventsToCompact& events,
                                       std::vector<DataLocation> locations) {
  absl::StatusOr<std::unique_ptr<ShardWriter>> writer = ShardWriter::Open(fs, staging);
  if (!writer.ok()) return writer.status();
  absl::StatusOr<std::unique_ptr<ShardBlobJournal>> journal =
      ShardBlobJournal::Open(fs, (*writer)->shard_dir(), (*writer)->shard_id());
  if (!journal.ok()) return journal.status();
  // The journal first, as for an append: no event names an unrecorded blob.
  if (absl::Status s = RecordInSteps(**journal, std::move(locations)); !s.ok()) return s;
  if (absl::Status s = AppendEvents(**writer, events); !s.ok()) return s;
  return (*writer)->shard_id();
}

// Moves the new shard to its final name, durably: readers see it from here.
absl::Status Publish(io::FileSystem& fs, const std::string& shards_dir, const std::string& staging,
                     const std::string& id) {
  if (absl::Status s = fs.RenameNoReplace(Join(staging, id), Join(shards_dir, id)); !s.ok()) {
    return s;
  }
  if (absl::Status s = LAKE_FAILPOINT(kCompactionFailpoints[1]); !s.ok()) return s;
  if (absl::Status s = io::SyncDirectory(fs, shards_dir); !s.ok()) return s;
  return LAKE_FAILPOINT(kCompactionFailpoints[2]);
}

// Renames the old shards out of sight, the last name first, each durably
// before the next (see the header: the visible ones stay a prefix), then
// removes them and the empty staging directory.
absl::Status Retire(io::FileSystem& fs, const std::string& shards_dir,
                    const std::vector<LockedShard>& old, const std::string& staging) {
  for (auto it = old.rbegin(); it != old.rend(); ++it) {
    std::string retired = Join(shards_dir, absl::StrCat(std::string(kRetiredPrefix), it->id));
    if (absl::Status s = fs.RenameNoReplace(Join(shards_dir, it->id), retired); !s.ok()) return s;
    if (absl::Status s = LAKE_FAILPOINT(kCompactionFailpoints[3]); !s.ok()) return s;
    if (absl::Status s = io::SyncDirectory(fs, shards_dir); !s.ok()) return s;
  }
  if (absl::Status s = LAKE_FAILPOINT(kCompactionFailpoints[4]); !s.ok()) return s;
  for (const LockedShard& shard : old) {
    std::string retired = Join(shards_dir, absl::StrCat(std::string(kRetiredPrefix), shard.id));
    if (absl::Status s = io::RemoveTree(fs, retired); !s.ok()) return s;
  }
  if (absl::Status s = io::RemoveTree(fs, staging); !s.ok()) return s;
  if (absl::Status s = LAKE_FAILPOINT(kCompactionFailpoints[5]); !s.ok()) return s;
  return io::SyncDirectory(fs, shards_dir);
}

}  // namespace

absl::StatusOr<CompactionResult> CompactEventLog(io::FileSystem& fs,
                                                 const std::string& shards_dir) {
  CompactionResult result;
  absl::StatusOr<io::FileInfo> dir = fs.Stat(shards_dir);
  if (absl::IsNotFound(dir.status())) return result;  // no log, nothing to do
  if (!dir.ok()) return dir.status();
  absl::StatusOr<std::unique_ptr<io::File>> compaction_lock = LockCompaction(fs, shards_dir);
  if (!compaction_lock.ok()) return compaction_lock.status();
  absl::StatusOr<size_t> leftovers = RemoveLeftovers(fs, shards_dir);
  if (!leftovers.ok()) return leftovers.status();
  result.leftovers_removed = *leftovers;

  absl::StatusOr<std::vector<LockedShard>> locked =
      LockFreeShards(fs, shards_dir, &result.skipped_shards);
  if (!locked.ok()) return locked.status();
  if (locked->size() < 2) return result;

  // Read and check everything before writing anything.
  std::vector<ShardContents> contents;  // owns the bytes `events` views
  contents.reserve(locked->size());
  EventsToCompact events;
  std::vector<DataLocation> locations;
  for (const LockedShard& shard : *locked) {
    std::string shard_dir = Join(shards_dir, shard.id);
    absl::StatusOr<ShardContents> read = ReadShard(fs, shard_dir);
    if (!read.ok()) return read.status();
    contents.push_back(std::move(*read));
    if (absl::Status s = CollectEvents(contents.back(), &events, &result.events_read); !s.ok()) {
      return s;
    }
    if (absl::Status s = CollectBlobLocations(fs, shard_dir, shard.id, &locations); !s.ok()) {
      return s;
    }
  }
  for (auto& [item, item_events] : events) {
    if (absl::Status s = CanonicalizeItem(item_events); !s.ok()) return s;
    result.events_written += item_events.size();
  }
  table::CanonicalizeReferences(&locations);
  result.blob_locations = locations.size();

  std::string staging = Join(shards_dir, absl::StrCat(std::string(kCompactingPrefix), NewUuidV7()));
  absl::StatusOr<std::string> id = BuildShard(fs, staging, events, std::move(locations));
  if (!id.ok()) return id.status();
  if (absl::Status s = LAKE_FAILPOINT(kCompactionFailpoints[0]); !s.ok()) return s;
  if (absl::Status s = Publish(fs, shards_dir, staging, *id); !s.ok()) return s;
  if (absl::Status s = Retire(fs, shards_dir, *locked, staging); !s.ok()) return s;

  result.compacted = true;
  result.shard_id = *id;
  for (const LockedShard& shard : *locked) result.compacted_shards.push_back(shard.id);
  return result;
}

}  // namespace lake::events
