#include "engine/local/local_object_stream.h"

#include <algorithm>
#include <cstring>

#include "io/errno_status.h"

namespace lake {

LocalObjectStream::LocalObjectStream(std::unique_ptr<io::File> file,
                                     uint64_t start, uint64_t limit)
    : file_(std::move(file)),
      next_offset_(start),
      end_offset_(limit > UINT64_MAX - start ? UINT64_MAX : start + limit) {}

absl::StatusOr<std::unique_ptr<LocalObjectStream>> LocalObjectStream::Open(
    io::FileSystem& fs, std::unique_ptr<io::File> file, uint64_t start,
    uint64_t limit) {
  std::unique_ptr<LocalObjectStream> stream(
      new LocalObjectStream(std::move(file), start, limit));
  if (limit <= kDirectReadMaxBytes) return stream;
  absl::StatusOr<BufferLease> buffers = BufferBudget::Process().Acquire(
      kStreamChunkBytes, kStreamMinChunks, kStreamMaxChunks, nullptr);
  if (!buffers.ok()) return buffers.status();
  stream->buffers_ = std::move(*buffers);
  absl::StatusOr<std::unique_ptr<io::IoQueue>> queue =
      fs.NewIoQueue(static_cast<unsigned>(stream->buffers_.chunk_count()));
  if (!queue.ok()) return queue.status();
  stream->queue_ = std::move(*queue);
  stream->chunks_.resize(stream->buffers_.chunk_count());
  for (size_t i = 0; i < stream->chunks_.size(); ++i) {
    stream->chunks_[i].data = stream->buffers_.chunk(i);
  }
  stream->IssueReads();
  return stream;
}

LocalObjectStream::~LocalObjectStream() { (void)Close(); }

absl::StatusOr<size_t> LocalObjectStream::ReadDirect(uint8_t* dst, size_t len) {
  if (at_end_ || next_offset_ >= end_offset_) return 0;
  size_t want = static_cast<size_t>(std::min<uint64_t>(len, end_offset_ - next_offset_));
  absl::StatusOr<size_t> n = file_->PRead(dst, want, next_offset_);
  if (!n.ok()) return n.status();
  if (*n == 0) at_end_ = true;
  next_offset_ += *n;
  return *n;
}

void LocalObjectStream::IssueReads() {
  bool prepared = false;
  while (!at_end_ && next_offset_ < end_offset_ &&
         issue_seq_ < consume_seq_ + chunks_.size()) {
    Chunk& chunk = ChunkFor(issue_seq_);
    chunk = Chunk{chunk.data};
    chunk.requested = static_cast<size_t>(
        std::min<uint64_t>(kStreamChunkBytes, end_offset_ - next_offset_));
    chunk.in_flight = true;
    queue_->PrepareRead(*file_, chunk.data, chunk.requested, next_offset_,
                        issue_seq_ % chunks_.size(), io::ReadHint::kOffload);
    next_offset_ += chunk.requested;
    ++issue_seq_;
    prepared = true;
  }
  if (prepared) Collect(0);  // submit without waiting
}

void LocalObjectStream::Collect(unsigned wait_for) {
  completions_.clear();
  absl::Status s = queue_->SubmitAndReap(wait_for, &completions_);
  if (!s.ok() && queue_failure_.ok()) queue_failure_ = s;
  for (const io::IoCompletion& c : completions_) {
    Chunk& done = chunks_[c.tag];
    done.in_flight = false;
    if (c.result < 0) {
      done.error = static_cast<int>(-c.result);
    } else {
      done.filled = static_cast<size_t>(c.result);
    }
  }
}

absl::Status LocalObjectStream::WaitFor(Chunk& chunk) {
  while (chunk.in_flight && queue_failure_.ok()) Collect(1);
  if (!queue_failure_.ok()) return queue_failure_;
  if (chunk.error != 0) {
    return io::ErrnoStatus(chunk.error, "read", file_->path());
  }
  return absl::OkStatus();
}

absl::StatusOr<size_t> LocalObjectStream::Read(uint8_t* dst, size_t len) {
  if (file_ == nullptr) return absl::FailedPreconditionError("stream is closed");
  if (queue_ == nullptr) return ReadDirect(dst, len);
  absl::StatusOr<absl::Span<const uint8_t>> view = ReadView(len);
  if (!view.ok()) return view.status();
  if (!view->empty()) std::memcpy(dst, view->data(), view->size());
  return view->size();
}

absl::StatusOr<absl::Span<const uint8_t>> LocalObjectStream::ReadView(
    size_t max_len) {
  if (file_ == nullptr) return absl::FailedPreconditionError("stream is closed");
  if (queue_ == nullptr) return ObjectStream::ReadView(max_len);
  for (;;) {
    if (consume_seq_ == issue_seq_) return absl::Span<const uint8_t>();
    Chunk& chunk = ChunkFor(consume_seq_);
    if (absl::Status s = WaitFor(chunk); !s.ok()) return s;
    if (chunk.consumed < chunk.filled) {
      size_t n = std::min(max_len, chunk.filled - chunk.consumed);
      absl::Span<const uint8_t> view(chunk.data + chunk.consumed, n);
      chunk.consumed += n;
      return view;
    }
    if (chunk.filled < chunk.requested) {
      // The file ended inside this chunk; reads issued after it find
      // nothing and are simply not consumed.
      at_end_ = true;
      return absl::Span<const uint8_t>();
    }
    ++consume_seq_;
    IssueReads();
  }
}

absl::Status LocalObjectStream::Close() {
  queue_.reset();  // waits for reads still in flight into our chunks
  buffers_ = BufferLease();
  if (file_ == nullptr) return absl::OkStatus();
  absl::Status status = file_->Close();
  file_.reset();
  return status;
}

}  // namespace lake
