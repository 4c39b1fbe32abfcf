// The verified full read of a large S3 object as consecutive ranges fetched
// in parallel (managed-objects.md, "Full opens are integrity-verified"; the
// network half of issue 21).
//
// One HEAD gives the object's size and ETag. The object is cut into ranges
// of range_bytes; each is fetched by its own GET, pinned with If-Match to
// that ETag and checked exactly like a range read (S3ObjectStream with a
// range), and a range whose body breaks or stalls is resumed alone from
// its first missing byte. Up to `streams` ranges are in flight or waiting
// to be read, each in its own buffer.
//
// Invariants:
//  - the caller receives the object's bytes in order, each exactly once:
//    range k is delivered only after ranges 0..k-1, and a byte only after
//    the GET that carried it declared exactly its range and the pinned
//    ETag. The VerifiedReader above hashes what it receives, in order, so
//    the size and digest checks at EOF are those of the single GET;
//  - no byte of another object is ever delivered: a 412 or another ETag is
//    ObjectChanged, a wrong Content-Range or Content-Length is DataLoss;
//    the first failure of any range fails every later read (sticky);
//  - memory: the buffers are streams x range_bytes (rounded up to whole
//    pages), lent by the process BufferBudget for the life of the stream
//    (besides, each GET in flight has the transport's stream buffer, 1 MiB
//    by default, as the single GET has);
//    a range's buffer is reused for range k + streams only after the
//    caller has read all of range k (and a view of it is no longer valid);
//  - one worker thread per buffer; Close (or destruction) cancels the GETs
//    in flight and joins the workers.
//
// Open falls back to the single resuming GET (S3ObjectStream) — which needs
// no budget and no HEAD — when the object is smaller than two ranges, when
// streams < 2, when the budget cannot lend two buffers right now (a read
// never waits for memory), and when the HEAD reports a size other than the
// declared one (the single GET then shows the VerifiedReader the object as
// it is: SizeShort or SizeLong).
#ifndef LAKE_ENGINE_S3_S3_PARALLEL_OBJECT_STREAM_H_
#define LAKE_ENGINE_S3_S3_PARALLEL_OBJECT_STREAM_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "base/buffer_budget.h"
#include "engine/object_stream.h"
#include "io/s3http/call_canceller.h"
#include "io/s3http/s3_client.h"

namespace lake {

// Defaults, by measurement: LAKE_BENCH_SWEEP of bench/s3, a verified
// 1 GiB read with the bytes discarded, against Ceph RGW on loopback, on 2
// shared cores, medians of 5 interleaved rounds (wall s / CPU s):
//   1 stream (the single GET) 2.84 / 1.46    2 x 16 MiB 2.85 / 1.57
//   4 x 8 MiB  2.94 / 1.65                   4 x 16 MiB 2.59 / 1.58
//   4 x 32 MiB 2.45 / 1.58                   8 x 16 MiB 2.67 / 1.60
// (curl's raw 4 x 16 MiB into /dev/null: 1.6 s). On loopback one
// connection already carries ~600 MiB/s and the read is CPU-bound (the
// SHA-256 alone is ~0.75 s, and the server shares the cores), so the
// settings differ by little more than the noise (another sweep, 7 rounds:
// 1 stream 2.09, 4 x 16 MiB 2.19, 4 x 32 MiB 2.20, 8 x 16 MiB 2.15).
// 4 x 16 MiB is among the fastest, costs no more CPU than more or larger
// ranges, holds 64 MiB (a sixteenth of the default budget), and gives a
// network whose single connection is slower than its link (S3 over a WAN)
// four of them, as rclone does.
inline constexpr int kS3DefaultDownloadStreams = 4;
inline constexpr int kS3MaxDownloadStreams = 16;
inline constexpr size_t kS3DownloadRangeBytes = 16ull << 20;
// Smaller ranges cost a request each for little data; larger ones than
// this would let one read hold a large part of the default budget.
inline constexpr size_t kS3MinDownloadRangeBytes = 64ull << 10;
inline constexpr size_t kS3MaxDownloadRangeBytes = 1ull << 30;

struct S3DownloadTuning {
  int streams = kS3DefaultDownloadStreams;  // 1: always the single GET
  size_t range_bytes = kS3DownloadRangeBytes;
};

// InvalidArgument unless streams is 1..16 and range_bytes 64 KiB .. 1 GiB.
absl::Status ValidateS3DownloadTuning(const S3DownloadTuning& tuning);

class S3ParallelObjectStream final : public ObjectStream {
 public:
  // The stream of a verified full read of s3://bucket/key, declared
  // size_bytes: parallel, or the single GET (see above).
  static absl::StatusOr<std::unique_ptr<ObjectStream>> Open(
      s3http::S3Client& client, const std::string& bucket, const std::string& key,
      uint64_t size_bytes, const S3DownloadTuning& tuning);
  ~S3ParallelObjectStream() override;

  absl::StatusOr<size_t> Read(uint8_t* dst, size_t len) override;
  // A view of the range buffer itself: no copy.
  absl::StatusOr<absl::Span<const uint8_t>> ReadView(size_t max_len) override;
  absl::Status Close() override;

 private:
  // One buffer and the range it holds.
  struct Slot {
    uint64_t range = 0;  // index of the range it holds or will fetch
    bool assigned = false;
    uint64_t filled = 0;  // bytes of that range received so far
  };

  S3ParallelObjectStream(s3http::S3Client& client, std::string bucket, std::string key,
                         uint64_t size_bytes, std::string etag, size_t range_bytes,
                         BufferLease buffers);
  void Start();
  void Worker(size_t slot);
  // Fetches range `range` into buffer `slot`, publishing progress.
  absl::Status Fetch(size_t slot, uint64_t range);
  void Fail(absl::Status status);
  uint64_t RangeStart(uint64_t range) const { return range * range_bytes_; }
  uint64_t RangeLength(uint64_t range) const;
  // Waits until the caller's next bytes are there; the view of them (empty
  // at the end), or the failure.
  absl::StatusOr<absl::Span<const uint8_t>> Next(size_t max_len);

  s3http::S3Client& client_;
  const std::string bucket_;
  const std::string key_;
  const uint64_t size_bytes_;
  const std::string etag_;  // quoted, as HEAD gave it
  const size_t range_bytes_;
  const uint64_t range_count_;
  BufferLease buffers_;
  s3http::CallCanceller canceller_;
  std::vector<std::thread> workers_;

  absl::Mutex mu_;
  // The caller waits on `arrived_` (bytes of the range it reads, a failure),
  // workers on `assigned_` (a buffer given a new range, closing): a worker's
  // progress wakes only the caller, and only when it waits for that buffer.
  absl::CondVar arrived_;
  absl::CondVar assigned_;
  std::vector<Slot> slots_ ABSL_GUARDED_BY(mu_);
  absl::Status failure_ ABSL_GUARDED_BY(mu_);  // the first failure, sticky
  bool closing_ ABSL_GUARDED_BY(mu_) = false;
  // The caller's position: the range being read and the bytes of it read.
  uint64_t reading_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t consumed_ ABSL_GUARDED_BY(mu_) = 0;
  // The buffer whose bytes the caller waits for (kNotWaiting: none), so
  // that the other workers' progress does not wake it.
  static constexpr size_t kNotWaiting = SIZE_MAX;
  size_t waiting_for_ ABSL_GUARDED_BY(mu_) = kNotWaiting;
};

}  // namespace lake

#endif  // LAKE_ENGINE_S3_S3_PARALLEL_OBJECT_STREAM_H_
