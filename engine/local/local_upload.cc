#include "engine/local/local_upload.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>

#include "absl/strings/str_cat.h"
#include "base/failpoint.h"
#include "engine/managed_key.h"
#include "io/durable_paths.h"
#include "io/errno_status.h"

namespace lake {
namespace {

// Completion tags: slot index * 2, plus 1 for a read.
uint64_t WriteTag(size_t slot) { return slot * 2; }
uint64_t ReadTag(size_t slot) { return slot * 2 + 1; }

size_t RoundUp(size_t n, size_t to) { return (n + to - 1) / to * to; }

}  // namespace

LocalUpload::LocalUpload(io::FileSystem& fs, const LocalStagePaths& paths,
                         ShardDirectories& shards, UploadOptions options)
    : fs_(fs), paths_(paths), shards_(shards), options_(std::move(options)) {}

absl::StatusOr<std::unique_ptr<LocalUpload>> LocalUpload::Start(io::FileSystem& fs,
                                                                const LocalStagePaths& paths,
                                                                ShardDirectories& shards,
                                                                const UploadOptions& options) {
  std::unique_ptr<LocalUpload> upload(new LocalUpload(fs, paths, shards, options));
  if (absl::Status s = upload->Begin(); !s.ok()) return s;
  return upload;
}

LocalUpload::~LocalUpload() {
  if (!committed_) Abandon();
}

absl::Status LocalUpload::Begin() {
  absl::StatusOr<BufferLease> buffers = BufferBudget::Process().Acquire(
      kUploadChunkBytes, kUploadMinChunks, kUploadMaxChunks, options_.cancel);
  if (!buffers.ok()) return buffers.status();
  buffers_ = std::move(*buffers);
  slots_.resize(buffers_.chunk_count());
  for (size_t i = 0; i < slots_.size(); ++i) slots_[i].data = buffers_.chunk(i);

  absl::StatusOr<std::unique_ptr<io::IoQueue>> queue =
      fs_.NewIoQueue(static_cast<unsigned>(slots_.size()));
  if (!queue.ok()) return queue.status();
  queue_ = std::move(*queue);
  completions_.reserve(slots_.size());

  if (absl::Status s = CreateStagingFile(); !s.ok()) return s;
  // The key is chosen and nothing is written yet.
  if (options_.key_chosen) {
    if (absl::Status s = options_.key_chosen(paths_.UriOfKey(key_)); !s.ok()) return s;
  }
  return LAKE_FAILPOINT("local_upload.staging_created");
}

absl::Status LocalUpload::CreateStagingFile() {
  // CleanStaging may lock and remove a staging file in the instant between
  // its creation and our lock; if so, our file is unlinked: start again
  // under a new name.
  for (int attempt = 0; attempt < 8; ++attempt) {
    uuid_ = NewUuidV7();
    staging_path_ = paths_.StagingPath(uuid_);
    absl::StatusOr<std::unique_ptr<io::File>> file =
        fs_.CreateNew(staging_path_, /*want_direct=*/true);
    if (!file.ok()) return file.status();
    file_ = std::move(*file);
    if (absl::Status s = file_->LockExclusive(); !s.ok()) return s;
    absl::StatusOr<io::FileInfo> info = file_->Stat();
    if (!info.ok()) return info.status();
    if (info->link_count > 0) {
      key_ = absl::StrCat(ObjectsPrefix(paths_.tenant()), "/",
                          uuid_.substr(34), "/", uuid_);
      return absl::OkStatus();
    }
    file_.reset();
  }
  return absl::UnavailableError(
      "staging files keep disappearing: is another process cleaning "
      "staging in a loop?");
}

absl::Status LocalUpload::Fail(absl::Status status) {
  if (failure_.ok()) failure_ = std::move(status);
  return failure_;
}

absl::Status LocalUpload::Write(const uint8_t* data, size_t len) {
  if (!failure_.ok()) return failure_;
  if (committed_) return absl::FailedPreconditionError("upload is committed");
  while (len > 0) {
    Slot& slot = SlotFor(fill_seq_);
    if (absl::Status s = WaitUntilFree(slot); !s.ok()) return Fail(s);
    size_t n = std::min(len, chunk_bytes() - slot.filled);
    std::memcpy(slot.data + slot.filled, data, n);
    slot.filled += n;
    data += n;
    len -= n;
    if (slot.filled == chunk_bytes()) {
      if (absl::Status s = Seal(slot); !s.ok()) return Fail(s);
      ++fill_seq_;
    }
  }
  return absl::OkStatus();
}

absl::Status LocalUpload::WriteAll(UploadSource& source) {
  if (!failure_.ok()) return failure_;
  if (std::optional<uint64_t> hint = source.size_hint()) {
    size_hint_ = *hint;
    if (*hint >= 2 * kUploadChunkBytes) Preallocate(sealed_bytes_ + *hint, 0);
  }
  io::File* positional = source.positional_file();
  absl::Status status =
      positional != nullptr && sealed_bytes_ == 0 && SlotFor(fill_seq_).filled == 0
          ? ReadPositional(*positional, source.size_hint())
          : ReadSequential(source);
  return status.ok() ? status : Fail(status);
}

// Reads chunk-sized pieces at their offsets, several in flight, and seals
// them strictly in order. A short read marks the end of the file.
//
// With the file's size known, no read starts past that size (a read at
// exactly it finds the end of a file of whole chunks). A whole chunk that
// reaches past it means the file grew: the reads then go on to the end.
// The read of the chunk hashed next, and one at or past the known size,
// run inline: nothing would overlap them. The others run on a kernel
// worker, loading while the chunks before them are hashed.
absl::Status LocalUpload::ReadPositional(io::File& source, std::optional<uint64_t> size_hint) {
  read_source_ = &source;
  uint64_t read_seq = fill_seq_;
  uint64_t hash_seq = fill_seq_;
  const uint64_t first_seq = fill_seq_;
  uint64_t last_read_offset = size_hint.value_or(UINT64_MAX);
  for (;;) {
    while (read_seq < hash_seq + slots_.size() &&
           SlotFor(read_seq).state == SlotState::kFree) {
      const uint64_t offset = (read_seq - first_seq) * chunk_bytes();
      if (offset > last_read_offset) break;
      Slot& slot = SlotFor(read_seq);
      slot.state = SlotState::kReading;
      slot.filled = 0;
      const bool inline_read = read_seq == hash_seq || (size_hint && offset >= *size_hint);
      queue_->PrepareRead(source, slot.data, chunk_bytes(), offset,
                          ReadTag(read_seq % slots_.size()),
                          inline_read ? io::ReadHint::kInline : io::ReadHint::kOffload);
      ++read_seq;
    }
    Slot& next = SlotFor(hash_seq);
    if (next.state != SlotState::kFilled) {
      if (absl::Status s = Reap(1); !s.ok()) return s;
      continue;
    }
    if (next.filled == chunk_bytes()) {
      // A whole chunk reaching past the known size: the file grew.
      if ((hash_seq - first_seq + 1) * chunk_bytes() > last_read_offset) {
        last_read_offset = UINT64_MAX;
      }
      if (absl::Status s = Seal(next); !s.ok()) return s;
      ++hash_seq;
      continue;
    }
    // End of file inside (or at the start of) this chunk. Commit() seals
    // it; every read issued past it must find nothing.
    fill_seq_ = hash_seq;
    for (uint64_t seq = hash_seq + 1; seq < read_seq; ++seq) {
      Slot& later = SlotFor(seq);
      while (later.state == SlotState::kReading) {
        if (absl::Status s = Reap(1); !s.ok()) return s;
      }
      if (later.filled != 0) {
        return absl::FailedPreconditionError(
            "the source file changed size during the upload: " +
            source.path());
      }
      later.state = SlotState::kFree;
    }
    next.state = SlotState::kFree;  // partially filled; Commit() seals it
    read_source_ = nullptr;
    return absl::OkStatus();
  }
}

absl::Status LocalUpload::ReadSequential(UploadSource& source) {
  for (;;) {
    if (absl::Status s = CheckCancelled(options_.cancel); !s.ok()) return s;
    Slot& slot = SlotFor(fill_seq_);
    if (absl::Status s = WaitUntilFree(slot); !s.ok()) return s;
    absl::StatusOr<size_t> n =
        source.Read(slot.data + slot.filled, chunk_bytes() - slot.filled);
    if (!n.ok()) return n.status();
    if (*n == 0) return absl::OkStatus();
    slot.filled += *n;
    if (slot.filled == chunk_bytes()) {
      if (absl::Status s = Seal(slot); !s.ok()) return s;
      ++fill_seq_;
    }
  }
}

// Hashes the slot's bytes (the only place bytes are hashed) and hands them
// to a write at the next offset.
absl::Status LocalUpload::Seal(Slot& slot) {
  if (absl::Status s = CheckCancelled(options_.cancel); !s.ok()) return s;
  if (padded_) {
    return absl::InternalError("a chunk was sealed after the padded last one");
  }
  hash_.Update(slot.data, slot.filled);
  slot.offset = sealed_bytes_;
  slot.io_len = slot.filled;
  if (file_->direct() && slot.filled % io::kDirectIoAlignment != 0) {
    // Direct I/O transfers whole blocks: zero-pad the last chunk and trim
    // the file to its true size before syncing.
    slot.io_len = RoundUp(slot.filled, io::kDirectIoAlignment);
    std::memset(slot.data + slot.filled, 0, slot.io_len - slot.filled);
    padded_ = true;
  }
  sealed_bytes_ += slot.filled;
  if (slot.filled == chunk_bytes()) {  // more is likely to follow
    uint64_t ahead =
        std::min<uint64_t>(kPreallocateStepBytes, std::max<uint64_t>(chunk_bytes(), sealed_bytes_));
    // Not past the source's size while the data keeps to it: the excess
    // would be trimmed at publish, and where the file system discards
    // freed blocks, that trim waits for the disk.
    if (size_hint_.has_value() && sealed_bytes_ <= *size_hint_) {
      ahead = std::min(ahead, *size_hint_ - sealed_bytes_);
    }
    if (ahead > 0) Preallocate(sealed_bytes_, ahead);
  }
  if (absl::Status s = SubmitWrite(slot); !s.ok()) return s;
  if (options_.progress) options_.progress(sealed_bytes_, size_hint_.value_or(0));
  return LAKE_FAILPOINT("local_upload.chunk_sealed");
}

void LocalUpload::Preallocate(uint64_t end, uint64_t ahead) {
  if (end <= allocated_ || allocation_failed_) return;
  uint64_t target = end + ahead;
  // Only an optimisation: if the file system cannot, writes still work.
  if (file_->Allocate(allocated_, target - allocated_).ok()) {
    allocated_ = target;
  } else {
    allocation_failed_ = true;
  }
}

absl::Status LocalUpload::SubmitWrite(Slot& slot) {
  slot.state = SlotState::kWriting;
  slot.io_done = 0;
  size_t index = static_cast<size_t>(&slot - slots_.data());
  queue_->PrepareWrite(*file_, slot.data, slot.io_len, slot.offset,
                       WriteTag(index));
  return Reap(0);  // submit now; collect whatever already finished
}

absl::Status LocalUpload::Reap(unsigned wait_for) {
  completions_.clear();
  if (absl::Status s = queue_->SubmitAndReap(wait_for, &completions_); !s.ok()) {
    return s;
  }
  absl::Status first_error;
  for (const io::IoCompletion& completion : completions_) {
    absl::Status s = HandleCompletion(completion);
    if (first_error.ok()) first_error = s;
  }
  return first_error;
}

absl::Status LocalUpload::HandleCompletion(const io::IoCompletion& c) {
  Slot& slot = slots_[c.tag / 2];
  bool is_read = c.tag % 2 == 1;
  if (c.result < 0) {
    slot.state = SlotState::kFree;
    return io::ErrnoStatus(static_cast<int>(-c.result),
                           is_read ? "read" : "write",
                           is_read ? read_source_->path() : staging_path_);
  }
  if (is_read) {
    slot.filled = static_cast<size_t>(c.result);
    slot.state = SlotState::kFilled;
    return absl::OkStatus();
  }
  if (c.result == 0) {
    slot.state = SlotState::kFree;
    return absl::UnknownError("write made no progress: " + staging_path_);
  }
  slot.io_done += static_cast<size_t>(c.result);
  if (slot.io_done < slot.io_len) {  // a short write: send the rest
    size_t index = static_cast<size_t>(&slot - slots_.data());
    queue_->PrepareWrite(*file_, slot.data + slot.io_done,
                         slot.io_len - slot.io_done, slot.offset + slot.io_done,
                         WriteTag(index));
    return absl::OkStatus();
  }
  slot.state = SlotState::kFree;
  slot.filled = 0;
  return absl::OkStatus();
}

absl::Status LocalUpload::WaitUntilFree(Slot& slot) {
  while (slot.state != SlotState::kFree) {
    if (absl::Status s = Reap(1); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status LocalUpload::DrainInFlight() {
  absl::Status first_error;
  while (queue_ != nullptr && queue_->in_flight() > 0) {
    completions_.clear();
    absl::Status queue_status = queue_->SubmitAndReap(1, &completions_);
    if (!queue_status.ok()) return queue_status;  // its destructor still waits
    for (const io::IoCompletion& completion : completions_) {
      absl::Status s = HandleCompletion(completion);
      if (first_error.ok()) first_error = s;
    }
  }
  return first_error;
}

absl::StatusOr<StoredObject> LocalUpload::Commit() {
  if (!failure_.ok()) return failure_;
  if (committed_) return absl::FailedPreconditionError("upload is committed");
  Slot& last = SlotFor(fill_seq_);
  if (last.state == SlotState::kFree && last.filled > 0) {
    if (absl::Status s = Seal(last); !s.ok()) return Fail(s);
    ++fill_seq_;
  }
  if (absl::Status s = DrainInFlight(); !s.ok()) return Fail(s);
  if (absl::Status s = Publish(); !s.ok()) return Fail(s);
  committed_ = true;
  StoredObject stored{paths_.UriOfKey(key_), sealed_bytes_, hash_.FinishHex()};
  buffers_ = BufferLease();  // give the memory back before returning
  return stored;
}

absl::Status LocalUpload::Publish() {
  // The file may be longer than the sealed bytes: padded for direct I/O,
  // or allocated ahead (also by an allocation that failed part of the way).
  if (padded_ || allocated_ > sealed_bytes_ || allocation_failed_) {
    if (absl::Status s = file_->Truncate(sealed_bytes_); !s.ok()) return s;
  }
  if (absl::Status s = LAKE_FAILPOINT("local_upload.data_written"); !s.ok()) {
    return s;
  }
  if (absl::Status s = file_->Sync(); !s.ok()) return s;
  if (absl::Status s = LAKE_FAILPOINT("local_upload.data_synced"); !s.ok()) {
    return s;
  }
  std::string final_path = paths_.Path(key_);
  if (absl::Status s = shards_.Ensure(); !s.ok()) return s;
  absl::Status renamed = fs_.RenameNoReplace(staging_path_, final_path);
  if (absl::IsNotFound(renamed)) {
    // Its shard directory was removed since it was made.
    if (absl::Status s = io::CreateDirectoriesDurably(fs_, io::ParentPath(final_path));
        !s.ok()) {
      return s;
    }
    renamed = fs_.RenameNoReplace(staging_path_, final_path);
  }
  if (!renamed.ok()) return renamed;
  published_ = true;
  if (absl::Status s = LAKE_FAILPOINT("local_upload.renamed"); !s.ok()) return s;
  if (absl::Status s = io::SyncParentDirectory(fs_, final_path); !s.ok()) {
    return s;
  }
  if (absl::Status s = LAKE_FAILPOINT("local_upload.published"); !s.ok()) {
    return s;
  }
  // The object is durable and visible; a close error cannot change that.
  (void)file_->Close();
  return absl::OkStatus();
}

void LocalUpload::Abandon() {
  // The kernel may still be using our buffers: wait before freeing them.
  (void)DrainInFlight();
  queue_.reset();
  if (file_ != nullptr) {
    (void)file_->Close();
    file_.reset();
  }
  if (!published_ && !staging_path_.empty()) {
    // Only the private staging name is ever removed here; after the rename
    // that name no longer exists, so a published object is never touched.
    (void)fs_.Remove(staging_path_);
  }
  buffers_ = BufferLease();
}

}  // namespace lake
