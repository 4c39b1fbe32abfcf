#include "engine/table/commit_queue.h"

#include <algorithm>
#include <atomic>
#include <cstring>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "engine/table/manifest_format.h"

namespace lake::table {
namespace {

constexpr uint32_t kFormatVersion = 1;
constexpr size_t kHeaderBytes = 4096;
constexpr size_t kBootIdBytes = 64;
constexpr size_t kSlotHeadBytes = 256;
constexpr size_t kMessageBytes = 216;
constexpr size_t kPayloadBytes = kCommitQueueSlotBytes - kSlotHeadBytes;

enum SlotState : uint32_t { kEmpty = 0, kQueued = 1, kCommitted = 2, kFailed = 3 };

// Whether `path` reads as a table log segment's:
// "<root>/tables/<ns>/<table>/_log/<name>.seg", no NUL, the five segments
// after the root neither empty, "." nor "..". (The root is as the writer
// that queued it named it.) An entry naming anything else is damaged: it is
// never opened or written.
bool IsSegmentPath(std::string_view path) {
  if (path.find('\0') != std::string_view::npos) return false;
  std::string_view segments[5];
  for (int i = 4; i >= 0; --i) {
    const size_t slash = path.rfind('/');
    if (slash == std::string_view::npos) return false;
    segments[i] = path.substr(slash + 1);
    path = path.substr(0, slash);
    if (segments[i].empty() || segments[i] == "." || segments[i] == "..") return false;
  }
  constexpr std::string_view kSuffix = ".seg";
  const std::string_view name = segments[4];
  // The directories of TableDirectory (table_store.h) and of its log.
  return segments[0] == "tables" && segments[3] == "_log" && name.size() > kSuffix.size() &&
         name.substr(name.size() - kSuffix.size()) == kSuffix;
}

// A sync of a queue that another process runs takes a flush; a waiter
// looks again at least this often (a syncer that died bumps nothing).
constexpr absl::Duration kMaxSyncWait = absl::Milliseconds(1);

}  // namespace

struct CommitQueue::Header {
  std::atomic<uint32_t> changes;  // the futex word (io::FileFutex maps it too)
  uint32_t format_version;
  char boot_id[kBootIdBytes];
  std::atomic<uint64_t> next_seq;
  std::atomic<uint64_t> synced_seq;
  std::atomic<uint64_t> settled_seq;
  char reserved[kHeaderBytes - 96];
};

struct CommitQueue::Slot {
  std::atomic<uint64_t> seq;
  std::atomic<uint32_t> state;
  std::atomic<uint32_t> failure_code;
  std::atomic<uint32_t> sync_failed;
  std::atomic<uint32_t> final_failure;
  uint32_t commit_bytes;
  uint32_t path_bytes;
  uint32_t base_path_bytes;
  uint32_t message_bytes;
  char message[kMessageBytes];
  char payload[kPayloadBytes];
};

absl::StatusOr<std::unique_ptr<CommitQueue>> CommitQueue::Open(io::FileSystem& fs,
                                                               const std::string& root_dir,
                                                               std::string boot_id) {
  static_assert(sizeof(Header) == kHeaderBytes, "the header is 4096 bytes");
  static_assert(sizeof(Slot) == kCommitQueueSlotBytes, "a slot is 4096 bytes");
  static_assert(
      std::atomic<uint64_t>::is_always_lock_free && std::atomic<uint32_t>::is_always_lock_free,
      "shared counters are plain, lock-free integers");
  if (boot_id.empty() || boot_id.size() > kBootIdBytes) {
    return absl::InvalidArgumentError("a commit queue needs the machine's boot id");
  }
  std::string path = absl::StrCat(root_dir, "/", std::string(kCommitQueueName));
  absl::StatusOr<std::unique_ptr<io::SharedMapping>> mapping =
      io::SharedMapping::Open(path, kHeaderBytes + kCommitQueueSlots * kCommitQueueSlotBytes);
  if (!mapping.ok()) return mapping.status();
  absl::StatusOr<std::unique_ptr<io::FileFutex>> futex = io::FileFutex::Open(path);
  if (!futex.ok()) return futex.status();
  return std::unique_ptr<CommitQueue>(new CommitQueue(fs, std::move(path), std::move(boot_id),
                                                      std::move(*mapping), std::move(*futex)));
}

CommitQueue::CommitQueue(io::FileSystem& fs, std::string path, std::string boot_id,
                         std::unique_ptr<io::SharedMapping> mapping,
                         std::unique_ptr<io::FileFutex> futex)
    : fs_(fs),
      path_(std::move(path)),
      boot_id_(std::move(boot_id)),
      mapping_(std::move(mapping)),
      futex_(std::move(futex)) {}

CommitQueue::Header& CommitQueue::header() const { return *static_cast<Header*>(mapping_->data()); }

CommitQueue::Slot& CommitQueue::slot(uint64_t seq) const {
  char* slots = static_cast<char*>(mapping_->data()) + kHeaderBytes;
  return *reinterpret_cast<Slot*>(slots + (seq % kCommitQueueSlots) * kCommitQueueSlotBytes);
}

void CommitQueue::AdoptIfStale() {
  Header& h = header();
  char boot[kBootIdBytes] = {};
  std::memcpy(boot, boot_id_.data(), boot_id_.size());
  const uint64_t next = h.next_seq.load(std::memory_order_acquire);
  const uint64_t synced = h.synced_seq.load(std::memory_order_acquire);
  const uint64_t settled = h.settled_seq.load(std::memory_order_acquire);
  const bool sound = h.format_version == kFormatVersion &&
                     std::memcmp(h.boot_id, boot, kBootIdBytes) == 0 && settled <= synced &&
                     synced <= next && next - settled <= kCommitQueueSlots;
  if (sound) return;
  // Another boot's (or damaged): nothing in it is committed from here on.
  // Sequence numbers go on from a fresh start; slots are told apart by them.
  h.format_version = kFormatVersion;
  std::memcpy(h.boot_id, boot, kBootIdBytes);
  for (size_t i = 0; i < kCommitQueueSlots; ++i) {
    slot(i).state.store(kEmpty, std::memory_order_relaxed);
    slot(i).seq.store(UINT64_MAX, std::memory_order_relaxed);
  }
  h.settled_seq.store(0, std::memory_order_relaxed);
  h.synced_seq.store(0, std::memory_order_relaxed);
  h.next_seq.store(0, std::memory_order_release);
  futex_->Bump();
}

absl::StatusOr<uint64_t> CommitQueue::Enqueue(const registry::ForwardedWrite& commit,
                                              const std::string& segment_path,
                                              const std::string& base_manifest_path) {
  const std::string encoded = registry::EncodeForwardedWrite(commit);
  if (encoded.size() + segment_path.size() + base_manifest_path.size() > kPayloadBytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a commit of ", encoded.size(), " bytes naming paths of ", segment_path.size(), " and ",
        base_manifest_path.size(), " bytes does not fit a commit queue slot"));
  }
  Header& h = header();
  const uint64_t next = h.next_seq.load(std::memory_order_acquire);
  if (next - h.settled_seq.load(std::memory_order_acquire) >= kCommitQueueSlots) {
    return absl::ResourceExhaustedError("the commit queue is full");
  }
  Slot& s = slot(next);
  s.state.store(kEmpty, std::memory_order_relaxed);
  s.seq.store(next, std::memory_order_relaxed);
  s.failure_code.store(0, std::memory_order_relaxed);
  s.sync_failed.store(0, std::memory_order_relaxed);
  s.final_failure.store(0, std::memory_order_relaxed);
  s.commit_bytes = static_cast<uint32_t>(encoded.size());
  s.path_bytes = static_cast<uint32_t>(segment_path.size());
  s.base_path_bytes = static_cast<uint32_t>(base_manifest_path.size());
  s.message_bytes = 0;
  char* at = s.payload;
  for (std::string_view piece : {std::string_view(encoded), std::string_view(segment_path),
                                 std::string_view(base_manifest_path)}) {
    std::memcpy(at, piece.data(), piece.size());
    at += piece.size();
  }
  s.state.store(kQueued, std::memory_order_release);
  h.next_seq.store(next + 1, std::memory_order_release);
  return next;
}

absl::Status CommitQueue::Failure(const Slot& s) {
  const uint32_t code = s.failure_code.load(std::memory_order_acquire);
  const std::string message(s.message, std::min<size_t>(s.message_bytes, kMessageBytes));
  // Only a failure is ever recorded: a code that is OK, or none absl
  // knows, is damage, never read as a success.
  if (code == 0 || code > static_cast<uint32_t>(absl::StatusCode::kUnauthenticated)) {
    return absl::DataLossError(
        absl::StrCat("a commit queue entry's failure does not read back (code ", code, ")"));
  }
  return absl::Status(static_cast<absl::StatusCode>(code), message);
}

void CommitQueue::SetFailure(Slot& s, const absl::Status& failure) {
  const std::string message(failure.message());
  const size_t bytes = std::min(message.size(), kMessageBytes);
  std::memcpy(s.message, message.data(), bytes);
  s.message_bytes = static_cast<uint32_t>(bytes);
  s.failure_code.store(static_cast<uint32_t>(failure.code()), std::memory_order_release);
}

absl::StatusOr<QueuedCommit> CommitQueue::Read(uint64_t seq) const {
  const Slot& s = slot(seq);
  if (s.seq.load(std::memory_order_acquire) != seq ||
      uint64_t{s.commit_bytes} + s.path_bytes + s.base_path_bytes > kPayloadBytes) {
    return absl::DataLossError(
        absl::StrCat("commit queue entry ", seq, " in ", path_, " does not read back"));
  }
  absl::StatusOr<registry::ForwardedWrite> commit =
      registry::DecodeForwardedWrite(std::string_view(s.payload, s.commit_bytes));
  if (!commit.ok()) {
    return absl::DataLossError(absl::StrCat("commit queue entry ", seq, " in ", path_,
                                            " is damaged: ", commit.status().message()));
  }
  if (commit->kind != registry::ForwardedKind::kCommitVersion &&
      commit->kind != registry::ForwardedKind::kCommitVersionDeferred) {
    return absl::DataLossError(
        absl::StrCat("commit queue entry ", seq, " in ", path_, " is not a version's commit"));
  }
  QueuedCommit queued;
  queued.seq = seq;
  queued.commit = *std::move(commit);
  queued.segment_path.assign(s.payload + s.commit_bytes, s.path_bytes);
  queued.base_manifest_path.assign(s.payload + s.commit_bytes + s.path_bytes, s.base_path_bytes);
  if (!IsSegmentPath(queued.segment_path) ||
      (!queued.base_manifest_path.empty() &&
       !ValidateTablePath(queued.base_manifest_path, "a base manifest").ok())) {
    return absl::DataLossError(absl::StrCat("commit queue entry ", seq, " in ", path_,
                                            " names paths that are not a table's"));
  }
  if (s.sync_failed.load(std::memory_order_acquire) != 0) queued.sync_failure = Failure(s);
  return queued;
}

absl::Status CommitQueue::CheckRange(uint64_t from, uint64_t to) const {
  if (from <= to && to - from <= kCommitQueueSlots) return absl::OkStatus();
  return absl::DataLossError(absl::StrCat("the commit queue ", path_, " is damaged: entries ", from,
                                          " to ", to, " do not fit it"));
}

absl::StatusOr<std::vector<QueuedCommit>> CommitQueue::Queued() const {
  Header& h = header();
  const uint64_t next = h.next_seq.load(std::memory_order_acquire);
  const uint64_t settled = h.settled_seq.load(std::memory_order_acquire);
  if (absl::Status s = CheckRange(settled, next); !s.ok()) return s;
  std::vector<QueuedCommit> queued;
  for (uint64_t seq = settled; seq < next; ++seq) {
    absl::StatusOr<QueuedCommit> entry = Read(seq);
    if (!entry.ok()) return entry.status();
    queued.push_back(*std::move(entry));
  }
  return queued;
}

bool CommitQueue::empty() const {
  Header& h = header();
  return h.settled_seq.load(std::memory_order_acquire) ==
         h.next_seq.load(std::memory_order_acquire);
}

bool CommitQueue::Synced(uint64_t seq) const {
  return seq < header().synced_seq.load(std::memory_order_acquire);
}

absl::Status CommitQueue::SyncQueued(absl::Time deadline,
                                     const std::function<absl::Status()>& after_sync) {
  Header& h = header();
  const uint64_t target = h.next_seq.load(std::memory_order_acquire);
  if (h.synced_seq.load(std::memory_order_acquire) >= target) return absl::OkStatus();
  // The sync lock: an exclusive flock on the queue file, one per sync.
  absl::StatusOr<std::unique_ptr<io::File>> lock = fs_.OpenRead(path_);
  if (!lock.ok()) return lock.status();
  for (;;) {
    const uint32_t seen = changes();
    if (h.synced_seq.load(std::memory_order_acquire) >= target) return absl::OkStatus();
    absl::StatusOr<bool> locked = (*lock)->TryLockExclusive();
    if (!locked.ok()) return locked.status();
    if (*locked) break;
    const absl::Time now = absl::Now();
    if (now >= deadline) {
      return absl::AbortedError(absl::StrCat("the root is busy: a sync of the commit queue ", path_,
                                             " took longer than the busy timeout"));
    }
    WaitForChange(seen, std::min(kMaxSyncWait, deadline - now));
  }
  const uint64_t from = h.synced_seq.load(std::memory_order_acquire);
  if (from >= target) return (*lock)->Close();
  // Every entry queued by now: its records were written before it was.
  const uint64_t to = h.next_seq.load(std::memory_order_acquire);
  if (absl::Status s = CheckRange(from, to); !s.ok()) return s;
  absl::flat_hash_set<std::string> segments;
  absl::Status synced = absl::OkStatus();
  for (uint64_t seq = from; seq < to && synced.ok(); ++seq) {
    absl::StatusOr<QueuedCommit> entry = Read(seq);
    if (!entry.ok()) {
      synced = entry.status();
      break;
    }
    if (!segments.insert(entry->segment_path).second) continue;
    // Opened for writing, so its Sync is an fdatasync (a read-only handle
    // syncs with fsync, which writes the inode for the mtime every time).
    absl::StatusOr<std::unique_ptr<io::File>> segment = fs_.OpenForAppend(entry->segment_path);
    synced = segment.ok() ? (*segment)->Sync() : segment.status();
    if (segment.ok()) (void)(*segment)->Close();
  }
  if (synced.ok() && after_sync) synced = after_sync();
  if (!synced.ok()) {
    for (uint64_t seq = from; seq < to; ++seq) {
      SetFailure(slot(seq), synced);
      slot(seq).sync_failed.store(1, std::memory_order_release);
    }
  }
  h.synced_seq.store(to, std::memory_order_release);
  futex_->Bump();
  (void)(*lock)->Close();
  return synced;
}

void CommitQueue::Settle(uint64_t seq, const QueuedOutcome& outcome) {
  Slot& s = slot(seq);
  if (!outcome.status.ok()) SetFailure(s, outcome.status);
  s.final_failure.store(outcome.final_failure ? 1 : 0, std::memory_order_relaxed);
  s.state.store(outcome.status.ok() ? kCommitted : kFailed, std::memory_order_release);
  header().settled_seq.store(seq + 1, std::memory_order_release);
  futex_->Bump();
}

void CommitQueue::CommitSynced(const std::function<QueuedOutcome(const QueuedCommit&)>& commit) {
  Header& h = header();
  const uint64_t synced = h.synced_seq.load(std::memory_order_acquire);
  const uint64_t settled = h.settled_seq.load(std::memory_order_acquire);
  if (!CheckRange(settled, synced).ok()) return;  // its writers time out
  for (uint64_t seq = settled; seq < synced; ++seq) {
    absl::StatusOr<QueuedCommit> entry = Read(seq);
    Settle(seq, entry.ok() ? commit(*entry) : QueuedOutcome{entry.status(), false});
  }
}

std::optional<QueuedOutcome> CommitQueue::Outcome(uint64_t seq) const {
  const Slot& s = slot(seq);
  const uint32_t state = s.state.load(std::memory_order_acquire);
  if (s.seq.load(std::memory_order_acquire) != seq) {
    return QueuedOutcome{absl::NotFoundError(absl::StrCat("commit queue entry ", seq,
                                                          " was settled and its slot reused")),
                         false};
  }
  if (state == kCommitted) return QueuedOutcome{};
  if (state != kFailed) return std::nullopt;
  return QueuedOutcome{Failure(s), s.final_failure.load(std::memory_order_relaxed) != 0};
}

uint32_t CommitQueue::changes() const { return futex_->Load(); }

void CommitQueue::WaitForChange(uint32_t seen, absl::Duration timeout) const {
  futex_->WaitWhile(seen, timeout);
}

}  // namespace lake::table
