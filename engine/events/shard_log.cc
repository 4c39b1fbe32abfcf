#include "engine/events/shard_log.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <utility>

#include <openssl/rand.h>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/failpoint.h"
#include "engine/managed_key.h"
#include "io/durable_paths.h"
#include "io/whole_file.h"

namespace lake::events {
namespace {

constexpr std::string_view kSegmentPrefix = "segment-";
constexpr std::string_view kSegmentSuffix = ".log";
constexpr size_t kSegmentDigits = 20;
constexpr char kLockFileName[] = "lock";
// A segment is at most the roll size plus one group of appends; anything
// longer is not a segment lake wrote.
constexpr uint64_t kMaxGroupBytes = uint64_t{8} << 20;
constexpr size_t kMaxSegmentBytes = kSegmentRollBytes + kMaxGroupBytes + kFrameHeaderBytes +
                                    kMaxFramePayloadBytes + kSegmentZeroAheadBytes;
// Racing writers may take a shard between listing and locking; each try
// either locks one or creates a new one, so few tries are ever needed.
constexpr int kMaxLockTries = 16;

std::string SegmentPath(const std::string& shard_dir, uint64_t number) {
  return absl::StrCat(shard_dir, "/", SegmentFileName(number));
}

std::string LastComponent(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

absl::Status Damaged(const std::string& shard_dir, std::string_view why) {
  return absl::DataLossError(
      absl::StrCat("event log shard ", shard_dir, " is damaged: ", std::string(why)));
}

// A random frame seed, never 0 (the seed of seals and of version 1).
uint64_t NewFrameSeed() {
  uint64_t seed = 0;
  while (seed == 0) {
    if (RAND_bytes(reinterpret_cast<unsigned char*>(&seed), sizeof seed) != 1) std::abort();
  }
  return seed;
}

// Syncs segment `number` through a descriptor of its own; on failure the
// caller seals nothing. A failed writeback is reported to one sync only:
// this one, unless a sync of the writer that wrote the frames took the
// error first (that writer then broke, acknowledging no durable batch past
// it), or this Open failed on it before and is retried. Then the frames
// may still read from the page cache while the disk lost them: the seal
// names them, and a read fails closed (DataLoss), never silently short.
absl::Status SyncSegment(io::FileSystem& fs, const std::string& shard_dir, uint64_t number) {
  absl::StatusOr<std::unique_ptr<io::File>> file = fs.OpenRead(SegmentPath(shard_dir, number));
  if (!file.ok()) return file.status();
  if (absl::Status s = (*file)->Sync(); !s.ok()) return s;
  return (*file)->Close();
}

// Checks the first frame of segment `number` against the one before.
absl::Status CheckSeal(const std::string& shard_dir, uint64_t number, const SegmentScan& scan,
                       uint64_t previous_valid_bytes) {
  const Frame& first = scan.frames.front();
  absl::StatusOr<SegmentSeal> seal = DecodeSegmentSeal(first);
  if (first.kind != FrameKind::kSegmentSeal || !seal.ok()) {
    return Damaged(shard_dir, absl::StrCat(SegmentFileName(number), " does not start with a seal"));
  }
  if (seal->previous_segment != number - 1 ||
      seal->previous_valid_bytes != previous_valid_bytes) {
    return Damaged(shard_dir,
                   absl::StrCat(SegmentFileName(number), " seals segment ",
                                seal->previous_segment, " at ", seal->previous_valid_bytes,
                                " bytes, but segment ", number - 1, " holds ",
                                previous_valid_bytes, " valid bytes"));
  }
  return absl::OkStatus();
}

}  // namespace

std::string SegmentFileName(uint64_t number) {
  return absl::StrFormat("%s%020u%s", kSegmentPrefix, number, kSegmentSuffix);
}

std::optional<uint64_t> ParseSegmentFileName(std::string_view name) {
  if (name.size() != kSegmentPrefix.size() + kSegmentDigits + kSegmentSuffix.size() ||
      name.substr(0, kSegmentPrefix.size()) != kSegmentPrefix ||
      name.substr(name.size() - kSegmentSuffix.size()) != kSegmentSuffix) {
    return std::nullopt;
  }
  std::string_view digits = name.substr(kSegmentPrefix.size(), kSegmentDigits);
  uint64_t number = 0;
  if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }) ||
      !absl::SimpleAtoi(absl::string_view(digits.data(), digits.size()), &number) ||
      SegmentFileName(number) != name) {
    return std::nullopt;
  }
  return number;
}

absl::StatusOr<std::vector<std::string>> ListShards(io::FileSystem& fs,
                                                    const std::string& shards_dir) {
  absl::StatusOr<std::vector<std::string>> names = fs.ListDirectory(shards_dir);
  if (absl::IsNotFound(names.status())) return std::vector<std::string>();
  if (!names.ok()) return names.status();
  std::vector<std::string> shards;
  for (std::string& name : *names) {
    if (!name.empty() && name[0] != '.') shards.push_back(std::move(name));
  }
  std::sort(shards.begin(), shards.end());
  return shards;
}

absl::StatusOr<std::unique_ptr<io::File>> TryLockShard(io::FileSystem& fs,
                                                       const std::string& shard_dir) {
  std::string path = absl::StrCat(shard_dir, "/", kLockFileName);
  absl::StatusOr<std::unique_ptr<io::File>> lock = fs.OpenRead(path);
  if (absl::IsNotFound(lock.status())) {
    absl::StatusOr<std::unique_ptr<io::File>> created = fs.CreateNew(path, false);
    if (!created.ok() && !absl::IsAlreadyExists(created.status())) return created.status();
    if (created.ok()) {
      if (absl::Status s = io::SyncDirectory(fs, shard_dir); !s.ok()) return s;
    }
    lock = fs.OpenRead(path);
  }
  if (!lock.ok()) return lock.status();
  absl::StatusOr<bool> locked = (*lock)->TryLockExclusive();
  if (!locked.ok()) return locked.status();
  if (!*locked) return std::unique_ptr<io::File>();
  return std::move(*lock);
}

absl::StatusOr<ShardContents> ReadShard(io::FileSystem& fs, const std::string& shard_dir) {
  return ReadShardFrom(fs, shard_dir, ShardCursor{});
}

ShardCursor CursorOf(const ShardContents& contents) {
  return ShardCursor{contents.last_segment, contents.last_valid_bytes,
                     contents.previous_valid_bytes};
}

absl::StatusOr<ShardContents> ReadShardFrom(io::FileSystem& fs, const std::string& shard_dir,
                                            const ShardCursor& from) {
  absl::StatusOr<std::vector<std::string>> names = fs.ListDirectory(shard_dir);
  if (!names.ok()) return names.status();
  std::vector<uint64_t> numbers;
  for (const std::string& name : *names) {
    if (std::optional<uint64_t> n = ParseSegmentFileName(name)) numbers.push_back(*n);
  }
  std::sort(numbers.begin(), numbers.end());
  for (size_t i = 0; i < numbers.size(); ++i) {
    if (numbers[i] != i + 1) {
      return Damaged(shard_dir, absl::StrCat("segment ", i + 1, " is missing"));
    }
  }
  if (from.segment > numbers.size()) {
    return Damaged(shard_dir, absl::StrCat("segment ", from.segment, " is missing"));
  }
  ShardContents contents;
  contents.shard_id = LastComponent(shard_dir);
  contents.last_segment = from.segment;
  contents.last_valid_bytes = from.valid_bytes;
  contents.previous_valid_bytes = from.previous_valid_bytes;
  contents.last_has_frames = from.valid_bytes > 0;
  const uint64_t first = std::max<uint64_t>(from.segment, 1);
  for (uint64_t number = first; number <= numbers.size(); ++number) {
    const std::string name = SegmentFileName(number);
    absl::StatusOr<std::string> bytes =
        io::ReadWholeFile(fs, SegmentPath(shard_dir, number), kMaxSegmentBytes);
    if (!bytes.ok()) return bytes.status();
    auto owned = std::make_shared<const std::string>(std::move(*bytes));
    // Where this read starts in the segment: past what was read before.
    const uint64_t start = number == from.segment ? from.valid_bytes : 0;
    if (start > owned->size()) {
      return Damaged(shard_dir, absl::StrCat(name, " is shorter than its ", start,
                                             " valid bytes read before"));
    }
    absl::StatusOr<SegmentScan> scan =
        ScanSegment(*owned, absl::StrCat(shard_dir, "/", name), start);
    if (!scan.ok()) return scan.status();
    const uint64_t valid_bytes = scan->valid_bytes;
    const bool last = number == numbers.size();
    if (start == 0 && scan->frames.empty() && !last) {
      return Damaged(shard_dir, absl::StrCat(name, " holds no frame but is not the last"));
    }
    // The valid bytes of the segment before this one: the cursor's for its
    // own segment, else those of the segment read last (or the cursor's).
    const uint64_t previous_valid_bytes =
        number == from.segment ? contents.previous_valid_bytes : contents.last_valid_bytes;
    // Every segment of version 2 or 3 starts with a seal; of version 1,
    // every segment but the first.
    const bool sealed = scan->version >= kFrameFormatVersion2 || number > 1;
    if (start == 0 && !scan->frames.empty() && sealed) {
      if (absl::Status s = CheckSeal(shard_dir, number, *scan, previous_valid_bytes); !s.ok()) {
        return s;
      }
    }
    for (size_t f = 0; f < scan->frames.size(); ++f) {
      const Frame& frame = scan->frames[f];
      bool is_seal_position = sealed && start == 0 && f == 0;
      if (frame.kind == FrameKind::kSegmentSeal && !is_seal_position) {
        return Damaged(shard_dir, absl::StrCat(name, " has a seal at offset ", frame.offset));
      }
      if (frame.kind == FrameKind::kEvents) contents.event_frames.push_back(frame);
    }
    contents.segments.push_back(std::move(owned));
    contents.previous_valid_bytes = previous_valid_bytes;
    contents.last_segment = number;
    contents.last_valid_bytes = valid_bytes;
    contents.last_has_frames = start > 0 || !scan->frames.empty();
  }
  return contents;
}

ShardWriter::ShardWriter(io::FileSystem& fs, std::string shard_dir,
                         std::unique_ptr<io::File> lock, ShardContents recovered)
    : fs_(fs),
      shard_dir_(std::move(shard_dir)),
      lock_(std::move(lock)),
      recovered_(std::move(recovered)),
      frame_seed_(NewFrameSeed()) {}

ShardWriter::~ShardWriter() {
  // Its sync is of segment_, which is closed below.
  if (absl::Status s = FinishSyncAhead(true); !s.ok() && broken_.ok()) broken_ = s;
  if (segment_) {
    if (broken_.ok()) {
      // The zeros written ahead are no longer needed: no session appends to
      // this segment again. (Zeros or none scan alike.)
      (void)segment_->Truncate(tail_);
      // Relaxed batches become durable at a clean close.
      if (synced_end_ < tail_) (void)segment_->Sync();
    }
    (void)segment_->Close();
  }
  if (lock_) (void)lock_->Close();
}

void ShardWriter::AbandonForTest() {
  // The destructor syncs and truncates only a writer that is not broken.
  broken_ = absl::FailedPreconditionError(absl::StrCat("the writer of ", shard_dir_,
                                                       " was abandoned"));
  if (lock_) (void)lock_->Close();
  lock_.reset();
}

absl::StatusOr<std::unique_ptr<ShardWriter>> ShardWriter::Open(io::FileSystem& fs,
                                                               const std::string& shards_dir) {
  if (absl::Status s = io::CreateDirectoriesDurably(fs, shards_dir); !s.ok()) return s;
  for (int attempt = 0; attempt < kMaxLockTries; ++attempt) {
    absl::StatusOr<std::vector<std::string>> shards = ListShards(fs, shards_dir);
    if (!shards.ok()) return shards.status();
    std::string shard_dir;
    std::unique_ptr<io::File> lock;
    for (const std::string& id : *shards) {
      std::string dir = absl::StrCat(shards_dir, "/", id);
      absl::StatusOr<std::unique_ptr<io::File>> tried = TryLockShard(fs, dir);
      if (!tried.ok()) return tried.status();
      if (*tried) {
        shard_dir = dir;
        lock = std::move(*tried);
        break;
      }
    }
    if (!lock) {
      shard_dir = absl::StrCat(shards_dir, "/", NewUuidV7());
      if (absl::Status s = fs.CreateDirectory(shard_dir); !s.ok()) return s;
      if (absl::Status s = io::SyncDirectory(fs, shards_dir); !s.ok()) return s;
      absl::StatusOr<std::unique_ptr<io::File>> tried = TryLockShard(fs, shard_dir);
      if (!tried.ok()) return tried.status();
      if (!*tried) continue;  // another writer took the new shard first
      lock = std::move(*tried);
    }
    absl::StatusOr<ShardContents> recovered = ReadShard(fs, shard_dir);
    if (!recovered.ok()) return recovered.status();
    std::unique_ptr<ShardWriter> writer(
        new ShardWriter(fs, shard_dir, std::move(lock), std::move(*recovered)));
    // A last segment without a valid frame belongs to a session that never
    // acknowledged anything: it is rewritten from empty, keeping numbers
    // gapless and every segment but the last non-empty.
    const ShardContents& r = writer->recovered_;
    bool rewrite = r.last_segment != 0 && !r.last_has_frames;
    // The segment the new seal names is made durable first (the invariants
    // above): its valid bytes were read through the page cache, where a
    // writer that died may have left frames no sync covered.
    const uint64_t sealed = rewrite ? r.last_segment - 1 : r.last_segment;
    if (sealed != 0) {
      if (absl::Status s = SyncSegment(fs, shard_dir, sealed); !s.ok()) return s;
    }
    absl::Status started =
        rewrite ? writer->StartSegment(r.last_segment, true, r.previous_valid_bytes)
                : writer->StartSegment(r.last_segment + 1, false, r.last_valid_bytes);
    if (!started.ok()) return started;
    return writer;
  }
  return absl::UnavailableError(
      absl::StrCat("could not lock a shard under ", shards_dir, " (too many racing writers)"));
}

absl::Status ShardWriter::StartSegment(uint64_t number, bool rewrite,
                                       uint64_t previous_valid_bytes, bool zero_ahead) {
  segment_number_ = number;
  std::string path = SegmentPath(shard_dir_, number);
  absl::StatusOr<std::unique_ptr<io::File>> file =
      rewrite ? fs_.OpenForRewrite(path) : fs_.CreateNew(path, false);
  if (!file.ok()) return file.status();
  segment_ = std::move(*file);
  if (rewrite) {
    if (absl::Status s = segment_->Truncate(0); !s.ok()) return s;
  }
  const std::string seal =
      EncodeSegmentSeal(SegmentSeal{number - 1, previous_valid_bytes, frame_seed_});
  if (absl::Status s = io::WriteFullyAt(*segment_, seal, 0); !s.ok()) return s;
  tail_ = seal.size();
  synced_end_ = 0;
  zeroed_end_ = tail_;
  if (zero_ahead) {
    if (absl::Status s = ZeroAhead(); !s.ok()) return s;
  }
  if (absl::Status s = segment_->Sync(); !s.ok()) return s;
  synced_end_ = tail_;
  if (!rewrite) {
    if (absl::Status s = io::SyncDirectory(fs_, shard_dir_); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status ShardWriter::ZeroAhead() {
  // In writes of kZeroWriteBytes, not one. Measured with 3,232-byte
  // appends + fdatasync on ext4: after one 4 MiB write of zeros, 67-71 us of
  // CPU per append; after 64 KiB writes, 26-43 us (as a bare write + sync).
  // The extra time was in ext4_block_write_begin and the writeback's
  // per-block walk: most likely the large page-cache folios a large write
  // creates, whose blocks each later small write and sync walk.
  static const std::string* const kZeros = new std::string(kZeroWriteBytes, '\0');
  for (uint64_t done = 0; done < kSegmentZeroAheadBytes; done += kZeros->size()) {
    if (absl::Status s = io::WriteFullyAt(*segment_, *kZeros, zeroed_end_ + done); !s.ok()) {
      return s;
    }
  }
  zeroed_end_ += kSegmentZeroAheadBytes;
  return absl::OkStatus();
}

void ShardWriter::StartSyncAhead() {
  if (!syncer_) syncer_ = std::make_unique<TaskPool>(1);
  sync_ahead_end_ = tail_;
  sync_ahead_ = syncer_->Run([this, segment = segment_.get()]() -> absl::Status {
    if (absl::Status s = segment->Sync(); !s.ok()) return s;
    if (absl::Status s = LAKE_FAILPOINT(kShardSyncedAhead); !s.ok()) return s;
    syncs_ahead_.fetch_add(1, std::memory_order_relaxed);
    return absl::OkStatus();
  });
}

absl::Status ShardWriter::FinishSyncAhead(bool wait) {
  if (!sync_ahead_) return absl::OkStatus();
  if (!wait && sync_ahead_->wait_for(std::chrono::seconds(0)) != std::future_status::ready) {
    return absl::OkStatus();
  }
  absl::Status synced = sync_ahead_->get();
  sync_ahead_.reset();
  if (!synced.ok()) return synced;
  synced_end_ = std::max(synced_end_, sync_ahead_end_);
  return absl::OkStatus();
}

absl::Status ShardWriter::WriteGroup(const std::vector<PendingAppend*>& group,
                                     uint64_t* syncs) {
  if (!broken_.ok()) return broken_;
  // A durable batch needs the frame flagged (so everything before synced
  // first) and a sync after it; a Sync only the sync after.
  bool durable_frame = false, sync_after = false;
  std::vector<RecordBatch> batches;
  batches.reserve(group.size());
  uint64_t group_bytes = 0;
  for (const PendingAppend* p : group) {
    group_bytes += p->bytes;
    sync_after = sync_after || p->durable;
    if (!p->has_frame) continue;
    durable_frame = durable_frame || p->durable;
    batches.insert(batches.end(), p->pieces.begin(), p->pieces.end());
  }
  auto sync = [&]() -> absl::Status {
    if (absl::Status s = segment_->Sync(); !s.ok()) return s;
    synced_end_ = tail_;
    ++*syncs;
    return absl::OkStatus();
  };
  // Makes every byte up to tail_ durable: by the sync ahead in flight when
  // it covers them all, else by a sync of its own after it. The sync ahead
  // is always waited for: a failed writeback is reported to one sync only
  // (Linux marks the lost pages clean), so a sync of our own racing a
  // failing sync ahead could return success for bytes that were lost.
  auto sync_to_tail = [&]() -> absl::Status {
    if (absl::Status s = FinishSyncAhead(true); !s.ok()) return s;
    return synced_end_ < tail_ ? sync() : absl::OkStatus();
  };
  absl::Status status = [&]() -> absl::Status {
    if (absl::Status s = FinishSyncAhead(false); !s.ok()) return s;
    if (!batches.empty() && tail_ >= kSegmentRollBytes) {
      // As at a clean close: the zeros ahead are dropped, and what is not
      // durable yet is synced, so the new seal's length of this segment
      // survives a power loss.
      if (absl::Status s = FinishSyncAhead(true); !s.ok()) return s;
      if (absl::Status s = segment_->Truncate(tail_); !s.ok()) return s;
      if (synced_end_ < tail_) {
        if (absl::Status s = sync(); !s.ok()) return s;
      }
      if (absl::Status s = segment_->Close(); !s.ok()) return s;
      // A bulk group goes past the zeros anyway: writing and syncing them
      // now would only delay it (the first small group writes them).
      const bool small_group = group_bytes < kZeroAheadLowBytes;
      if (absl::Status s = StartSegment(segment_number_ + 1, false, tail_, small_group); !s.ok()) {
        return s;
      }
    }
    // A durable frame follows only durable bytes: it is "prior synced".
    if (durable_frame && synced_end_ < tail_) {
      if (absl::Status s = sync_to_tail(); !s.ok()) return s;
    }
    if (!batches.empty()) {
      // The group is one frame, so it is all or nothing (event_log_frame.h):
      // its header, then the batches' records where they are, in one write.
      group_frame_.clear();
      AppendEventsFrameHeader(batches, frame_seed_, &group_frame_, synced_end_ == tail_);
      std::vector<std::string_view> pieces;
      pieces.reserve(batches.size() + 1);
      pieces.push_back(group_frame_);
      uint64_t frame_bytes = group_frame_.size();
      for (const RecordBatch& b : batches) {
        pieces.push_back(b.payload);
        frame_bytes += b.payload.size();
      }
      if (absl::Status s = io::WriteFullyAt(*segment_, pieces, tail_); !s.ok()) return s;
      uint64_t end = tail_ + frame_bytes;
      zeroed_end_ = std::max(zeroed_end_, end);
      if (frame_bytes < kZeroAheadLowBytes && zeroed_end_ - end < kZeroAheadLowBytes) {
        if (absl::Status s = ZeroAhead(); !s.ok()) return s;
      }
      tail_ = end;
      if (absl::Status s = LAKE_FAILPOINT(kShardAppendWritten); !s.ok()) return s;
    }
    if (sync_after && synced_end_ < tail_) {
      if (absl::Status s = sync_to_tail(); !s.ok()) return s;
      if (absl::Status s = LAKE_FAILPOINT(kShardAppendSynced); !s.ok()) return s;
    } else if (!sync_after && !sync_ahead_ && tail_ - synced_end_ >= kSyncAheadBytes) {
      StartSyncAhead();
    }
    return absl::OkStatus();
  }();
  if (!status.ok()) broken_ = status;
  return status;
}

ShardWriter::SyncStats ShardWriter::sync_stats() {
  absl::MutexLock lock(&mu_);
  SyncStats stats = sync_stats_;
  stats.syncs_ahead = syncs_ahead_.load(std::memory_order_relaxed);
  return stats;
}

void ShardWriter::JoinAppenders() {
  absl::MutexLock lock(&mu_);
  ++appenders_;
}

void ShardWriter::SetGroupCommitWindowForTest(absl::Duration window) {
  absl::MutexLock lock(&mu_);
  group_commit_window_ = window;
}

void ShardWriter::LeaveAppenders() {
  // No signal: a thread that leaves usually joins again at once with its
  // next frame, and a waiting leader should wait for that frame too; one
  // that does not come back costs the leader at most one window.
  absl::MutexLock lock(&mu_);
  --appenders_;
}

absl::Status ShardWriter::Append(absl::Span<const RecordBatch> pieces, Durability durability) {
  PendingAppend mine;
  mine.pieces = pieces;
  for (const RecordBatch& piece : pieces) mine.bytes += piece.payload.size();
  mine.durable = durability == Durability::kDurable;
  return Submit(mine);
}

absl::Status ShardWriter::Sync() {
  PendingAppend mine;
  mine.has_frame = false;
  mine.durable = true;
  return Submit(mine);
}

absl::Status ShardWriter::Submit(PendingAppend& mine) {
  absl::MutexLock lock(&mu_);
  queue_.push_back(&mine);
  // Only the thread gathering the next group waits for frames; the others
  // sleep until a group is written, so a queued frame wakes one thread.
  if (gathering_) frame_queued_.Signal();
  while (!mine.done) {
    if (leader_active_ || gathering_) {
      group_written_.Wait(&mu_);
      continue;
    }
    // Lead the next group: wait briefly for the frames of joined
    // appenders, then take the queued frames in order up to kMaxGroupBytes
    // and the frame limit (at least one; a frame left queued, this thread's
    // own too, goes in a later group).
    gathering_ = true;
    absl::Time deadline = absl::Now() + group_commit_window_;
    while (queue_.size() < appenders_ && !frame_queued_.WaitWithDeadline(&mu_, deadline)) {
    }
    gathering_ = false;
    leader_active_ = true;
    std::vector<PendingAppend*> group;
    uint64_t group_bytes = 0;
    size_t taken = 0;
    // A group is one frame: its payload stays within the frame limit.
    while (taken < queue_.size() &&
           (group.empty() || (group_bytes < kMaxGroupBytes &&
                              group_bytes + queue_[taken]->bytes <= kMaxFramePayloadBytes))) {
      group_bytes += queue_[taken]->bytes;
      group.push_back(queue_[taken++]);
    }
    queue_.erase(queue_.begin(), queue_.begin() + taken);
    mu_.Unlock();
    uint64_t syncs = 0;
    absl::Status status = WriteGroup(group, &syncs);
    mu_.Lock();
    if (status.ok()) {
      for (const PendingAppend* p : group) sync_stats_.frames += p->has_frame ? 1 : 0;
      sync_stats_.syncs += syncs;
    }
    for (PendingAppend* p : group) {
      p->status = status;
      p->done = true;
    }
    leader_active_ = false;
    // Wakes the group's threads, and those queued meanwhile (one of them
    // leads the next group).
    group_written_.SignalAll();
  }
  return mine.status;
}

}  // namespace lake::events
