#include "engine/s3/s3_parallel_object_stream.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "base/cancel_token.h"
#include "engine/byte_range.h"
#include "engine/range_reader.h"
#include "engine/s3/s3_object_stream.h"

namespace lake {

absl::Status ValidateS3DownloadTuning(const S3DownloadTuning& tuning) {
  if (tuning.streams < 1 || tuning.streams > kS3MaxDownloadStreams) {
    return absl::InvalidArgumentError(absl::StrCat("S3 download streams must be 1..",
                                                   kS3MaxDownloadStreams, ", not ",
                                                   tuning.streams));
  }
  if (tuning.range_bytes < kS3MinDownloadRangeBytes ||
      tuning.range_bytes > kS3MaxDownloadRangeBytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the S3 download range size must be ", kS3MinDownloadRangeBytes, " .. ",
        kS3MaxDownloadRangeBytes, " bytes, not ", tuning.range_bytes));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<ObjectStream>> S3ParallelObjectStream::Open(
    s3http::S3Client& client, const std::string& bucket, const std::string& key,
    uint64_t size_bytes, const S3DownloadTuning& tuning) {
  auto single_get = [&]() -> absl::StatusOr<std::unique_ptr<ObjectStream>> {
    absl::StatusOr<std::unique_ptr<S3ObjectStream>> stream =
        S3ObjectStream::Open(client, bucket, key, size_bytes, std::nullopt);
    if (!stream.ok()) return stream.status();
    return std::unique_ptr<ObjectStream>(std::move(*stream));
  };
  const uint64_t range_bytes = tuning.range_bytes;
  if (tuning.streams < 2 || range_bytes == 0 || size_bytes / 2 < range_bytes) {
    return single_get();
  }
  const uint64_t range_count = (size_bytes + range_bytes - 1) / range_bytes;
  const size_t chunk = (range_bytes + BufferBudget::kAlignment - 1) /
                       BufferBudget::kAlignment * BufferBudget::kAlignment;
  // A read takes what the budget can lend now, or the single GET: it never
  // waits for memory another operation holds.
  CancelToken do_not_wait;
  do_not_wait.Cancel();
  absl::StatusOr<BufferLease> buffers = BufferBudget::Process().Acquire(
      chunk, 2, static_cast<size_t>(std::min<uint64_t>(tuning.streams, range_count)),
      &do_not_wait);
  if (!buffers.ok()) return single_get();
  // Any failure of the HEAD (and a size other than the declared one) is
  // left to the single GET to report as it always has.
  absl::StatusOr<s3http::ObjectInfo> info = client.HeadObject(bucket, key);
  if (!info.ok() || info->size != size_bytes) return single_get();
  std::unique_ptr<S3ParallelObjectStream> stream(new S3ParallelObjectStream(
      client, bucket, key, size_bytes, s3http::FormatETag(info->etag), range_bytes,
      std::move(*buffers)));
  stream->Start();
  return std::unique_ptr<ObjectStream>(std::move(stream));
}

S3ParallelObjectStream::S3ParallelObjectStream(s3http::S3Client& client, std::string bucket,
                                               std::string key, uint64_t size_bytes,
                                               std::string etag, size_t range_bytes,
                                               BufferLease buffers)
    : client_(client),
      bucket_(std::move(bucket)),
      key_(std::move(key)),
      size_bytes_(size_bytes),
      etag_(std::move(etag)),
      range_bytes_(range_bytes),
      range_count_((size_bytes + range_bytes - 1) / range_bytes),
      buffers_(std::move(buffers)) {}

S3ParallelObjectStream::~S3ParallelObjectStream() { Close().IgnoreError(); }

uint64_t S3ParallelObjectStream::RangeLength(uint64_t range) const {
  return std::min<uint64_t>(range_bytes_, size_bytes_ - RangeStart(range));
}

void S3ParallelObjectStream::Start() {
  const size_t slots = buffers_.chunk_count();
  {
    absl::MutexLock lock(&mu_);
    slots_.resize(slots);
    for (size_t i = 0; i < slots; ++i) {
      slots_[i].range = i;
      slots_[i].assigned = i < range_count_;
    }
  }
  workers_.reserve(slots);
  for (size_t i = 0; i < slots; ++i) workers_.emplace_back([this, i] { Worker(i); });
}

void S3ParallelObjectStream::Worker(size_t slot) {
  const size_t slots = buffers_.chunk_count();
  for (uint64_t range = slot; range < range_count_; range += slots) {
    {
      absl::MutexLock lock(&mu_);
      while (!closing_ && failure_.ok() &&
             !(slots_[slot].assigned && slots_[slot].range == range)) {
        assigned_.Wait(&mu_);
      }
      if (closing_ || !failure_.ok()) return;
    }
    if (absl::Status s = Fetch(slot, range); !s.ok()) {
      Fail(std::move(s));
      return;
    }
  }
}

absl::Status S3ParallelObjectStream::Fetch(size_t slot, uint64_t range) {
  const ByteRange interval{RangeStart(range), RangeStart(range) + RangeLength(range)};
  absl::StatusOr<std::unique_ptr<S3ObjectStream>> stream = S3ObjectStream::Open(
      client_, bucket_, key_, size_bytes_, interval, etag_, &canceller_);
  if (!stream.ok()) return stream.status();
  uint8_t* buffer = buffers_.chunk(slot);
  uint64_t received = 0;
  while (received < interval.length()) {
    absl::StatusOr<size_t> n = (*stream)->Read(
        buffer + received, static_cast<size_t>(interval.length() - received));
    if (!n.ok()) return n.status();
    if (*n == 0) {
      return PrematureEofError(interval.length(), received, interval,
                               absl::StrCat("s3://", bucket_, "/", key_));
    }
    received += *n;
    absl::MutexLock lock(&mu_);
    slots_[slot].filled = received;
    if (waiting_for_ == slot) arrived_.Signal();
  }
  return (*stream)->Close();
}

void S3ParallelObjectStream::Fail(absl::Status status) {
  {
    absl::MutexLock lock(&mu_);
    if (failure_.ok()) failure_ = std::move(status);
    arrived_.SignalAll();
    assigned_.SignalAll();
  }
  canceller_.Cancel();  // the other ranges are of no use now
}

absl::StatusOr<absl::Span<const uint8_t>> S3ParallelObjectStream::Next(size_t max_len) {
  if (max_len == 0) return absl::InvalidArgumentError("read capacity must be positive");
  const size_t slots = buffers_.chunk_count();
  absl::MutexLock lock(&mu_);
  for (;;) {
    if (!failure_.ok()) return failure_;
    if (closing_) return absl::FailedPreconditionError("stream is closed");
    if (reading_ >= range_count_) return absl::Span<const uint8_t>();
    const size_t slot = static_cast<size_t>(reading_ % slots);
    Slot& held = slots_[slot];
    if (consumed_ == RangeLength(reading_)) {
      // Every byte of this range was handed out in an earlier call, so no
      // view of its buffer is valid any more: the buffer takes the range
      // `slots` ahead.
      held.range = reading_ + slots;
      held.assigned = held.range < range_count_;
      held.filled = 0;
      ++reading_;
      consumed_ = 0;
      assigned_.SignalAll();
      continue;
    }
    if (held.filled > consumed_) {
      size_t n = static_cast<size_t>(std::min<uint64_t>(max_len, held.filled - consumed_));
      absl::Span<const uint8_t> view(buffers_.chunk(slot) + consumed_, n);
      consumed_ += n;
      return view;
    }
    waiting_for_ = slot;
    arrived_.Wait(&mu_);
    waiting_for_ = kNotWaiting;
  }
}

absl::StatusOr<size_t> S3ParallelObjectStream::Read(uint8_t* dst, size_t len) {
  // The bytes of the view stay put until the next call: a worker writes
  // only past `filled`, and the buffer is reassigned only by a later Next.
  absl::StatusOr<absl::Span<const uint8_t>> view = Next(len);
  if (!view.ok()) return view.status();
  if (!view->empty()) std::memcpy(dst, view->data(), view->size());
  return view->size();
}

absl::StatusOr<absl::Span<const uint8_t>> S3ParallelObjectStream::ReadView(size_t max_len) {
  return Next(max_len);
}

absl::Status S3ParallelObjectStream::Close() {
  {
    absl::MutexLock lock(&mu_);
    if (closing_) return absl::OkStatus();
    closing_ = true;
    arrived_.SignalAll();
    assigned_.SignalAll();
  }
  canceller_.Cancel();
  for (std::thread& worker : workers_) worker.join();
  workers_.clear();
  return absl::OkStatus();
}

}  // namespace lake
