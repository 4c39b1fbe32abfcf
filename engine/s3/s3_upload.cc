#include "engine/s3/s3_upload.h"

#include <algorithm>
#include <deque>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "base/buffer_budget.h"
#include "engine/sha256.h"

namespace lake {
namespace {

using s3http::CompletedPart;
using s3http::ETag;

// Source reads go into the part buffer in pieces of this size, each hashed
// while it is still in cache.
constexpr size_t kReadPieceBytes = 1 << 20;

class MultipartUpload {
 public:
  MultipartUpload(s3http::S3Client& client, const S3StageLayout& layout,
                  const S3UploadTuning& tuning, const UploadOptions& options)
      : client_(client), layout_(layout), tuning_(tuning), options_(options) {}

  ~MultipartUpload() { StopWorkers(); }

  absl::StatusOr<StoredObject> Run(UploadSource& source);

 private:
  struct PartJob {
    int number;
    size_t slot;
    size_t len;
  };

  absl::Status Fill(UploadSource& source, uint8_t* buffer, size_t* filled);
  absl::StatusOr<StoredObject> UploadEmpty();
  absl::StatusOr<StoredObject> UploadParts(UploadSource& source, size_t first_len);
  // Waits for a part buffer; Cancelled/failure statuses stop the wait.
  absl::StatusOr<size_t> TakeFreeSlot();
  void Submit(PartJob job);
  void Worker();
  void StopWorkers();
  absl::StatusOr<StoredObject> CompleteAndVerify();
  absl::Status Verify(const ETag& expected);
  absl::Status Fail(absl::Status status);
  void Abort();

  s3http::S3Client& client_;
  const S3StageLayout& layout_;
  const S3UploadTuning& tuning_;
  const UploadOptions& options_;
  std::string key_;
  std::string upload_id_;
  BufferLease buffers_;
  Sha256 hash_;
  uint64_t total_ = 0;
  s3http::CallCanceller canceller_;

  absl::Mutex mu_;
  std::deque<PartJob> jobs_ ABSL_GUARDED_BY(mu_);
  std::vector<size_t> free_slots_ ABSL_GUARDED_BY(mu_);
  std::vector<CompletedPart> done_ ABSL_GUARDED_BY(mu_);
  absl::Status failure_ ABSL_GUARDED_BY(mu_);
  bool closing_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::thread> workers_;
};

absl::Status MultipartUpload::Fail(absl::Status status) {
  {
    absl::MutexLock lock(&mu_);
    if (failure_.ok()) failure_ = status;
  }
  canceller_.Cancel();  // stops the parts in flight
  return status;
}

absl::Status MultipartUpload::Fill(UploadSource& source, uint8_t* buffer, size_t* filled) {
  *filled = 0;
  while (*filled < tuning_.part_bytes) {
    if (absl::Status s = CheckCancelled(options_.cancel); !s.ok()) return s;
    size_t want = std::min(kReadPieceBytes, tuning_.part_bytes - *filled);
    absl::StatusOr<size_t> n = source.Read(buffer + *filled, want);
    if (!n.ok()) return n.status();
    if (*n == 0) break;
    hash_.Update(buffer + *filled, *n);
    *filled += *n;
    total_ += *n;
  }
  if (options_.progress && *filled > 0) {
    options_.progress(total_, source.size_hint().value_or(0));
  }
  return absl::OkStatus();
}

absl::StatusOr<StoredObject> MultipartUpload::Run(UploadSource& source) {
  key_ = layout_.NewObjectKey();
  if (options_.key_chosen) {
    if (absl::Status s = options_.key_chosen(layout_.UriOfKey(key_)); !s.ok()) return s;
  }
  // Part buffers are whole pages so the budget can hand them out.
  size_t chunk = (tuning_.part_bytes + BufferBudget::kAlignment - 1) /
                 BufferBudget::kAlignment * BufferBudget::kAlignment;
  absl::StatusOr<BufferLease> buffers = BufferBudget::Process().Acquire(
      chunk, 1, static_cast<size_t>(tuning_.concurrency), options_.cancel);
  if (!buffers.ok()) return buffers.status();
  buffers_ = std::move(*buffers);

  size_t first_len = 0;
  if (absl::Status s = Fill(source, buffers_.chunk(0), &first_len); !s.ok()) return s;
  if (first_len == 0) return UploadEmpty();
  return UploadParts(source, first_len);
}

absl::StatusOr<StoredObject> MultipartUpload::UploadEmpty() {
  absl::StatusOr<ETag> etag = client_.PutObject(layout_.bucket(), key_, {},
                                                std::string(s3http::kEmptyPayloadSha256),
                                                options_.content_type);
  if (!etag.ok()) return etag.status();
  absl::StatusOr<s3http::ObjectInfo> info = client_.HeadObject(layout_.bucket(), key_);
  if (!info.ok()) return info.status();
  if (info->size != 0) {
    (void)client_.DeleteObject(layout_.bucket(), key_);
    return absl::DataLossError(absl::StrCat("the stored empty object has ", info->size, " bytes"));
  }
  return StoredObject{layout_.UriOfKey(key_), 0, hash_.FinishHex()};
}

absl::StatusOr<StoredObject> MultipartUpload::UploadParts(UploadSource& source,
                                                          size_t first_len) {
  absl::StatusOr<std::string> upload_id =
      client_.CreateMultipartUpload(layout_.bucket(), key_, options_.content_type);
  if (!upload_id.ok()) return upload_id.status();
  upload_id_ = std::move(*upload_id);
  {
    absl::MutexLock lock(&mu_);
    for (size_t slot = 1; slot < buffers_.chunk_count(); ++slot) free_slots_.push_back(slot);
  }
  for (size_t i = 0; i < buffers_.chunk_count(); ++i) {
    workers_.emplace_back([this] { Worker(); });
  }
  Submit({1, 0, first_len});
  for (int number = 2;; ++number) {
    absl::StatusOr<size_t> slot = TakeFreeSlot();
    if (!slot.ok()) break;
    size_t len = 0;
    if (absl::Status s = Fill(source, buffers_.chunk(*slot), &len); !s.ok()) {
      (void)Fail(s);
      break;
    }
    if (len == 0) {
      absl::MutexLock lock(&mu_);
      free_slots_.push_back(*slot);
      break;
    }
    if (number > kS3MaxParts) {
      (void)Fail(absl::OutOfRangeError(absl::StrCat(
          "the source does not fit in ", kS3MaxParts, " parts of ", tuning_.part_bytes,
          " bytes; no part ", number, " is sent")));
      break;
    }
    Submit({number, *slot, len});
  }
  StopWorkers();
  absl::Status failure;
  {
    absl::MutexLock lock(&mu_);
    failure = failure_;
  }
  if (!failure.ok()) {
    Abort();
    return failure;
  }
  return CompleteAndVerify();
}

absl::StatusOr<size_t> MultipartUpload::TakeFreeSlot() {
  for (;;) {
    {
      absl::MutexLock lock(&mu_);
      mu_.AwaitWithTimeout(
          absl::Condition(
              +[](MultipartUpload* self) ABSL_EXCLUSIVE_LOCKS_REQUIRED(self->mu_) {
                return !self->failure_.ok() || !self->free_slots_.empty();
              },
              this),
          absl::Milliseconds(50));
      if (!failure_.ok()) return failure_;
      if (!free_slots_.empty()) {
        size_t slot = free_slots_.back();
        free_slots_.pop_back();
        return slot;
      }
    }
    if (absl::Status s = CheckCancelled(options_.cancel); !s.ok()) return Fail(s);
  }
}

void MultipartUpload::Submit(PartJob job) {
  absl::MutexLock lock(&mu_);
  jobs_.push_back(job);
}

void MultipartUpload::Worker() {
  for (;;) {
    PartJob job;
    {
      absl::MutexLock lock(&mu_);
      mu_.Await(absl::Condition(
          +[](MultipartUpload* self) ABSL_EXCLUSIVE_LOCKS_REQUIRED(self->mu_) {
            return !self->jobs_.empty() || self->closing_;
          },
          this));
      if (jobs_.empty()) return;
      job = jobs_.front();
      jobs_.pop_front();
      if (!failure_.ok()) {
        free_slots_.push_back(job.slot);
        continue;
      }
    }
    const uint8_t* data = buffers_.chunk(job.slot);
    std::string sha256 = s3http::PayloadSha256Hex(
        std::string_view(reinterpret_cast<const char*>(data), job.len));
    absl::StatusOr<ETag> etag =
        client_.UploadPart(layout_.bucket(), key_, upload_id_, job.number,
                           absl::Span<const uint8_t>(data, job.len), sha256, &canceller_);
    bool failed = false;
    {
      absl::MutexLock lock(&mu_);
      if (etag.ok()) {
        done_.push_back(CompletedPart{job.number, *etag});
      } else if (failure_.ok()) {
        failure_ = etag.status();
        failed = true;
      }
      free_slots_.push_back(job.slot);
    }
    if (failed) canceller_.Cancel();
  }
}

void MultipartUpload::StopWorkers() {
  {
    absl::MutexLock lock(&mu_);
    closing_ = true;
  }
  for (std::thread& worker : workers_) worker.join();
  workers_.clear();
}

void MultipartUpload::Abort() {
  if (upload_id_.empty()) return;
  (void)client_.AbortMultipartUpload(layout_.bucket(), key_, upload_id_, kS3AbortBudget);
}

absl::StatusOr<StoredObject> MultipartUpload::CompleteAndVerify() {
  std::vector<CompletedPart> parts;
  {
    absl::MutexLock lock(&mu_);
    parts = done_;
  }
  std::sort(parts.begin(), parts.end(),
            [](const CompletedPart& a, const CompletedPart& b) { return a.part_number < b.part_number; });
  std::vector<s3http::Md5Digest> md5s;
  for (const CompletedPart& part : parts) {
    absl::StatusOr<s3http::Md5Digest> md5 = s3http::Md5DigestOfETag(part.etag);
    if (!md5.ok()) {
      Abort();
      return md5.status();
    }
    md5s.push_back(*md5);
  }
  absl::StatusOr<ETag> expected = s3http::ComputeMultipartETag(md5s);
  if (!expected.ok()) {
    Abort();
    return expected.status();
  }
  absl::StatusOr<s3http::CompleteMultipartUploadResult> completed =
      client_.CompleteMultipartUpload(layout_.bucket(), key_, upload_id_, parts);
  // A lost answer (or a retry finding the upload already completed) is
  // settled by what the object now is.
  bool settle_by_head = completed.ok() || s3http::RetryPolicy::IsRetryable(completed.status()) ||
                        absl::IsNotFound(completed.status());
  if (!settle_by_head) {
    Abort();
    return completed.status();
  }
  absl::Status verified = Verify(*expected);
  if (!verified.ok()) {
    if (completed.ok()) {
      (void)client_.DeleteObject(layout_.bucket(), key_);
    } else {
      Abort();
      return completed.status();
    }
    return verified;
  }
  return StoredObject{layout_.UriOfKey(key_), total_, hash_.FinishHex()};
}

absl::Status MultipartUpload::Verify(const ETag& expected) {
  absl::StatusOr<s3http::ObjectInfo> info = client_.HeadObject(layout_.bucket(), key_);
  if (!info.ok()) return info.status();
  if (info->size != total_ || !(info->etag == expected)) {
    return absl::DataLossError(absl::StrCat(
        "the completed object is not the parts sent: ", info->size, " bytes, ETag ",
        s3http::FormatETag(info->etag), "; expected ", total_, " bytes, ETag ",
        s3http::FormatETag(expected)));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<StoredObject> UploadToS3(s3http::S3Client& client, const S3StageLayout& layout,
                                        const S3UploadTuning& tuning, UploadSource& source,
                                        const UploadOptions& options) {
  if (tuning.concurrency < 1 || tuning.concurrency > kS3MaxConcurrency) {
    return absl::InvalidArgumentError(absl::StrCat(
        "S3 upload concurrency must be 1..", kS3MaxConcurrency, ", not ", tuning.concurrency));
  }
  if (tuning.part_bytes == 0) return absl::InvalidArgumentError("S3 part size must be positive");
  MultipartUpload upload(client, layout, tuning, options);
  return upload.Run(source);
}

}  // namespace lake
