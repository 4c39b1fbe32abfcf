#include "engine/s3/s3_upload.h"

#include <algorithm>
#include <deque>
#include <map>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "base/buffer_budget.h"
#include "base/failpoint.h"
#include "engine/file_upload_source.h"
#include "engine/managed_key.h"
#include "engine/sha256.h"

namespace lake {
namespace {

using s3http::CompletedPart;
using s3http::ETag;

// Source reads go into the part buffer in pieces of this size, each hashed
// while it is still in cache.
constexpr size_t kReadPieceBytes = 1 << 20;

bool EndsCheckpoint(const absl::Status& status) {
  return absl::IsCancelled(status) || absl::IsOutOfRange(status) || absl::IsDataLoss(status);
}

std::string Mib(uint64_t bytes) {
  return absl::StrCat(bytes >> 20, ".", ((bytes & ((1 << 20) - 1)) * 10) >> 20, " MiB");
}

class MultipartUpload {
 public:
  MultipartUpload(s3http::S3Client& client, const S3StageLayout& layout,
                  const S3UploadTuning& tuning, const UploadOptions& options,
                  const S3UploadCheckpointing& checkpointing)
      : client_(client),
        layout_(layout),
        tuning_(tuning),
        options_(options),
        checkpointing_(checkpointing),
        part_bytes_(tuning.part_bytes) {}

  ~MultipartUpload() { StopWorkers(); }

  // A fresh upload; with `identity`, checkpointed.
  absl::StatusOr<StoredObject> Run(UploadSource& source, const SourceFileIdentity* identity);
  // Continues `checkpoint`, whose lock `held` is.
  absl::StatusOr<StoredObject> Resume(UploadSource& source, UploadCheckpoint checkpoint,
                                      std::unique_ptr<HeldUploadCheckpoint> held);

 private:
  struct PartJob {
    int number;
    size_t slot;
    size_t len;
  };
  struct DonePart {
    ETag etag;
    std::string sha256;
  };

  void Notice(const std::string& line) const {
    if (options_.notice) options_.notice(line);
  }
  absl::Status Fill(UploadSource& source, uint8_t* buffer, size_t* filled);
  absl::Status AcquireBuffers();
  absl::StatusOr<StoredObject> UploadEmpty();
  absl::StatusOr<StoredObject> UploadParts(UploadSource& source, int first_number,
                                           size_t first_len);
  // Waits for a part buffer, and (checkpointed) for `number` to be inside
  // the published prefix + window. Cancelled/failure statuses stop it.
  absl::StatusOr<size_t> TakeFreeSlot(int number);
  void Submit(PartJob job);
  void Worker();
  // Publishes the in-order prefix of completed parts when it grew.
  void PublishPrefix();
  // The publisher thread of a checkpointed upload: publishes whenever a
  // part completed (so no part worker waits on a sync), and once more when
  // the workers are done, so every completed part is recorded before
  // Complete is sent.
  void Publisher();
  void StopWorkers();
  absl::StatusOr<StoredObject> CompleteAndVerify();
  // Whether the object at the key is what was sent: `expected` (the
  // composite ETag) and the size by HEAD, else its size and SHA-256 by one
  // streamed read.
  absl::Status Verify(const ETag& expected);
  absl::Status StreamMatches();
  absl::StatusOr<ETag> ExpectedETag();
  absl::Status Fail(absl::Status status);
  void Abort();
  // Removes the checkpoint (success and terminal failures; the caller has
  // aborted what is unfinished). A failure to remove it is only noticed: a
  // leftover names a finished upload, which a resume settles or refuses.
  void RemoveCheckpoint();
  // ListParts, every page: the remote parts must agree with `checkpoint`.
  // NotFound when the upload is gone.
  absl::Status Reconcile(const UploadCheckpoint& checkpoint);
  // Rereads the recorded parts, checking each one's SHA-256.
  absl::Status VerifyRecordedParts(UploadSource& source, const UploadCheckpoint& checkpoint);

  s3http::S3Client& client_;
  const S3StageLayout& layout_;
  const S3UploadTuning& tuning_;
  const UploadOptions& options_;
  const S3UploadCheckpointing& checkpointing_;
  size_t part_bytes_;
  std::string key_;
  std::string upload_id_;
  BufferLease buffers_;
  Sha256 hash_;
  std::string sha256_;  // hash_'s digest once every byte was read
  uint64_t total_ = 0;
  s3http::CallCanceller canceller_;

  // Checkpointing: the record (its parts are rebuilt at each publication),
  // its lock, and the window the gate holds.
  std::unique_ptr<HeldUploadCheckpoint> held_;
  UploadCheckpoint record_;
  int window_ = 0;
  absl::Mutex publish_mu_ ABSL_ACQUIRED_BEFORE(mu_);

  absl::Mutex mu_;
  std::deque<PartJob> jobs_ ABSL_GUARDED_BY(mu_);
  std::vector<size_t> free_slots_ ABSL_GUARDED_BY(mu_);
  std::map<int, DonePart> done_ ABSL_GUARDED_BY(mu_);
  int published_prefix_ ABSL_GUARDED_BY(mu_) = 0;
  bool publish_wanted_ ABSL_GUARDED_BY(mu_) = false;
  bool publisher_closing_ ABSL_GUARDED_BY(mu_) = false;
  std::thread publisher_;
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
  while (*filled < part_bytes_) {
    if (absl::Status s = CheckCancelled(options_.cancel); !s.ok()) return s;
    size_t want = std::min(kReadPieceBytes, part_bytes_ - *filled);
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

absl::Status MultipartUpload::AcquireBuffers() {
  // Part buffers are whole pages so the budget can hand them out.
  size_t chunk = (part_bytes_ + BufferBudget::kAlignment - 1) / BufferBudget::kAlignment *
                 BufferBudget::kAlignment;
  absl::StatusOr<BufferLease> buffers = BufferBudget::Process().Acquire(
      chunk, 1, static_cast<size_t>(tuning_.concurrency), options_.cancel);
  if (!buffers.ok()) return buffers.status();
  buffers_ = std::move(*buffers);
  return absl::OkStatus();
}

absl::StatusOr<StoredObject> MultipartUpload::Run(UploadSource& source,
                                                  const SourceFileIdentity* identity) {
  key_ = layout_.NewObjectKey();
  if (options_.key_chosen) {
    if (absl::Status s = options_.key_chosen(layout_.UriOfKey(key_)); !s.ok()) return s;
  }
  if (absl::Status s = AcquireBuffers(); !s.ok()) return s;

  size_t first_len = 0;
  if (absl::Status s = Fill(source, buffers_.chunk(0), &first_len); !s.ok()) return s;
  if (first_len == 0) return UploadEmpty();
  absl::StatusOr<std::string> upload_id =
      client_.CreateMultipartUpload(layout_.bucket(), key_, options_.content_type);
  if (!upload_id.ok()) return upload_id.status();
  upload_id_ = std::move(*upload_id);
  if (identity != nullptr) {
    int64_t now = absl::ToUnixMicros(absl::Now());
    record_.id = NewUuidV7();
    record_.key = key_;
    record_.upload_id = upload_id_;
    record_.bucket = layout_.bucket();
    record_.prefix = layout_.prefix();
    record_.endpoint = checkpointing_.endpoint;
    record_.tenant = layout_.tenant();
    record_.content_type = options_.content_type;
    record_.source_path = identity->real_path;
    record_.source_device = identity->device;
    record_.source_inode = identity->inode;
    record_.source_size = identity->size;
    record_.source_mtime_micros = identity->modified_unix_micros;
    record_.part_bytes = part_bytes_;
    record_.window = static_cast<uint32_t>(tuning_.concurrency);
    record_.created_unix_micros = now;
    record_.updated_unix_micros = now;
    absl::StatusOr<std::unique_ptr<HeldUploadCheckpoint>> held =
        checkpointing_.store->Create(record_);
    if (held.ok()) {
      held_ = std::move(*held);
      window_ = tuning_.concurrency;
    } else {
      Notice(absl::StrCat("no upload checkpoint is written: ", held.status().ToString()));
    }
  }
  return UploadParts(source, 1, first_len);
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

absl::StatusOr<StoredObject> MultipartUpload::UploadParts(UploadSource& source, int first_number,
                                                          size_t first_len) {
  {
    absl::MutexLock lock(&mu_);
    for (size_t slot = 1; slot < buffers_.chunk_count(); ++slot) free_slots_.push_back(slot);
  }
  for (size_t i = 0; i < buffers_.chunk_count(); ++i) {
    workers_.emplace_back([this] { Worker(); });
  }
  if (held_ != nullptr) publisher_ = std::thread([this] { Publisher(); });
  // The first part is inside the window: it follows the recorded prefix.
  Submit({first_number, 0, first_len});
  for (int number = first_number + 1;; ++number) {
    absl::StatusOr<size_t> slot = TakeFreeSlot(number);
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
          "the source does not fit in ", kS3MaxParts, " parts of ", part_bytes_,
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
    if (held_ == nullptr || EndsCheckpoint(failure)) {
      Abort();
      RemoveCheckpoint();
    } else {
      Notice(absl::StrCat("upload ", held_->id(), " is kept for a resume (lake put again, or lake "
                          "uploads resume ", held_->id(), ")"));
    }
    return failure;
  }
  return CompleteAndVerify();
}

absl::StatusOr<size_t> MultipartUpload::TakeFreeSlot(int number) {
  for (;;) {
    {
      absl::MutexLock lock(&mu_);
      auto ready = [this, number]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return !failure_.ok() ||
               (!free_slots_.empty() &&
                (held_ == nullptr || number <= published_prefix_ + window_));
      };
      mu_.AwaitWithTimeout(absl::Condition(&ready), absl::Milliseconds(50));
      if (!failure_.ok()) return failure_;
      if (ready()) {
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
    if (etag.ok() && held_ != nullptr) {
      if (absl::Status s = LAKE_FAILPOINT(kS3UploadFailpoints[0]); !s.ok()) etag = s;
    }
    bool failed = false;
    {
      absl::MutexLock lock(&mu_);
      if (etag.ok()) {
        done_[job.number] = DonePart{*etag, std::move(sha256)};
      } else if (failure_.ok()) {
        failure_ = etag.status();
        failed = true;
      }
      free_slots_.push_back(job.slot);
    }
    if (failed) canceller_.Cancel();
    if (etag.ok() && held_ != nullptr) {
      absl::MutexLock lock(&mu_);
      publish_wanted_ = true;
    }
  }
}

void MultipartUpload::Publisher() {
  for (;;) {
    bool closing = false;
    {
      absl::MutexLock lock(&mu_);
      mu_.Await(absl::Condition(
          +[](MultipartUpload* self) ABSL_EXCLUSIVE_LOCKS_REQUIRED(self->mu_) {
            return self->publish_wanted_ || self->publisher_closing_;
          },
          this));
      publish_wanted_ = false;
      closing = publisher_closing_;
    }
    PublishPrefix();
    if (closing) return;
  }
}

void MultipartUpload::PublishPrefix() {
  absl::MutexLock publishing(&publish_mu_);
  UploadCheckpoint record;
  int prefix = 0;
  {
    absl::MutexLock lock(&mu_);
    if (!failure_.ok()) return;
    prefix = published_prefix_;
    while (done_.contains(prefix + 1)) ++prefix;
    if (prefix == published_prefix_) return;
    record = record_;
    record.parts.clear();
    for (int n = 1; n <= prefix; ++n) {
      const DonePart& part = done_.at(n);
      record.parts.push_back({part.etag.hex, part.sha256});
    }
  }
  record.updated_unix_micros = absl::ToUnixMicros(absl::Now());
  absl::Status published = held_->Publish(record);
  absl::MutexLock lock(&mu_);
  if (!published.ok()) {
    if (failure_.ok()) failure_ = published;
    canceller_.Cancel();
    return;
  }
  published_prefix_ = prefix;
}

void MultipartUpload::StopWorkers() {
  {
    absl::MutexLock lock(&mu_);
    closing_ = true;
  }
  for (std::thread& worker : workers_) worker.join();
  workers_.clear();
  if (publisher_.joinable()) {
    {
      absl::MutexLock lock(&mu_);
      publisher_closing_ = true;
    }
    publisher_.join();
  }
}

void MultipartUpload::Abort() {
  if (upload_id_.empty()) return;
  (void)client_.AbortMultipartUpload(layout_.bucket(), key_, upload_id_, kS3AbortBudget);
}

void MultipartUpload::RemoveCheckpoint() {
  if (held_ == nullptr) return;
  if (absl::Status s = held_->Remove(); !s.ok()) {
    Notice(absl::StrCat("upload checkpoint ", held_->id(), " could not be removed: ", s.ToString()));
  }
  held_.reset();
}

absl::StatusOr<ETag> MultipartUpload::ExpectedETag() {
  std::vector<s3http::Md5Digest> md5s;
  absl::MutexLock lock(&mu_);
  for (const auto& [number, part] : done_) {
    absl::StatusOr<s3http::Md5Digest> md5 = s3http::Md5DigestOfETag(part.etag);
    if (!md5.ok()) return md5.status();
    md5s.push_back(*md5);
  }
  return s3http::ComputeMultipartETag(md5s);
}

absl::StatusOr<StoredObject> MultipartUpload::CompleteAndVerify() {
  sha256_ = hash_.FinishHex();
  std::vector<CompletedPart> parts;
  {
    absl::MutexLock lock(&mu_);
    for (const auto& [number, part] : done_) parts.push_back(CompletedPart{number, part.etag});
  }
  absl::StatusOr<ETag> expected = ExpectedETag();
  if (!expected.ok()) {
    Abort();
    RemoveCheckpoint();
    return expected.status();
  }
  if (held_ != nullptr) {
    if (absl::Status s = LAKE_FAILPOINT(kS3UploadFailpoints[1]); !s.ok()) return s;
  }
  absl::StatusOr<s3http::CompleteMultipartUploadResult> completed =
      client_.CompleteMultipartUpload(layout_.bucket(), key_, upload_id_, parts);
  // A lost answer (or a retry finding the upload already completed) is
  // settled by what the object now is.
  bool settle = completed.ok() || s3http::RetryPolicy::IsRetryable(completed.status()) ||
                absl::IsNotFound(completed.status());
  if (!settle) {
    if (held_ == nullptr) Abort();
    return completed.status();
  }
  absl::Status verified = Verify(*expected);
  if (!verified.ok()) {
    if (completed.ok() || absl::IsDataLoss(verified)) {
      (void)client_.DeleteObject(layout_.bucket(), key_);
      Abort();
      RemoveCheckpoint();
      return verified;
    }
    if (held_ == nullptr) Abort();
    return completed.status();
  }
  RemoveCheckpoint();
  return StoredObject{layout_.UriOfKey(key_), total_, sha256_};
}

absl::Status MultipartUpload::Verify(const ETag& expected) {
  absl::StatusOr<s3http::ObjectInfo> info = client_.HeadObject(layout_.bucket(), key_);
  if (!info.ok()) return info.status();
  if (info->size == total_ && info->etag == expected) return absl::OkStatus();
  if (info->size == total_) {
    // Not the composite MD5 lake computes (SSE-KMS gives another digest):
    // the bytes themselves decide.
    absl::Status streamed = StreamMatches();
    if (streamed.ok() || !absl::IsDataLoss(streamed)) return streamed;
  }
  return absl::DataLossError(absl::StrCat(
      "the completed object is not the parts sent: ", info->size, " bytes, ETag ",
      s3http::FormatETag(info->etag), "; expected ", total_, " bytes, ETag ",
      s3http::FormatETag(expected)));
}

absl::Status MultipartUpload::StreamMatches() {
  absl::StatusOr<s3http::OpenedGet> get =
      client_.OpenGet(layout_.bucket(), key_, std::nullopt, "", &canceller_);
  if (!get.ok()) return get.status();
  Sha256 hash;
  uint64_t size = 0;
  uint8_t* buffer = buffers_.chunk(0);
  for (;;) {
    absl::StatusOr<size_t> n = get->call->ReadBody(buffer, part_bytes_);
    if (!n.ok()) return n.status();
    if (*n == 0) break;
    hash.Update(buffer, *n);
    size += *n;
  }
  std::string sha256 = hash.FinishHex();
  if (size != total_ || sha256 != sha256_) {
    return absl::DataLossError(absl::StrCat("the completed object has ", size,
                                            " bytes of SHA-256 ", sha256, "; expected ", total_,
                                            " bytes of ", sha256_));
  }
  return absl::OkStatus();
}

absl::Status MultipartUpload::Reconcile(const UploadCheckpoint& c) {
  const int recorded = static_cast<int>(c.parts.size());
  const int trusted_limit = recorded + static_cast<int>(c.window);
  int marker = 0;
  std::map<int, s3http::ListedPart> remote;
  for (;;) {
    absl::StatusOr<s3http::ListPartsResult> page = client_.ListParts(
        layout_.bucket(), key_, upload_id_, marker, checkpointing_.list_parts_page);
    if (!page.ok()) return page.status();
    for (const s3http::ListedPart& part : page->parts) {
      if (part.part_number > trusted_limit) {
        return absl::DataLossError(absl::StrCat(
            "upload ", c.id, ": S3 holds part ", part.part_number, ", beyond the ", recorded,
            " recorded parts and their window of ", c.window, "; nothing is trusted"));
      }
      if (part.part_number <= recorded) remote[part.part_number] = part;
    }
    if (!page->is_truncated) break;
    marker = *page->next_part_number_marker;
  }
  for (int n = 1; n <= recorded; ++n) {
    auto it = remote.find(n);
    const CheckpointPart& want = c.parts[static_cast<size_t>(n - 1)];
    if (it == remote.end() || it->second.etag.hex != want.etag) {
      return absl::DataLossError(absl::StrCat("upload ", c.id, ": recorded part ", n,
                                              " is missing on S3 or has another ETag"));
    }
  }
  return absl::OkStatus();
}

absl::Status MultipartUpload::VerifyRecordedParts(UploadSource& source,
                                                  const UploadCheckpoint& c) {
  uint8_t* buffer = buffers_.chunk(0);
  for (size_t i = 0; i < c.parts.size(); ++i) {
    size_t len = 0;
    if (absl::Status s = Fill(source, buffer, &len); !s.ok()) return s;
    bool last = total_ == c.source_size;
    if ((len != part_bytes_ && !last) || len == 0 ||
        s3http::PayloadSha256Hex(std::string_view(reinterpret_cast<const char*>(buffer), len)) !=
            c.parts[i].sha256) {
      return absl::AbortedError(absl::StrCat("upload ", c.id, ": part ", i + 1, " of ",
                                             c.source_path,
                                             " is not what was uploaded: the source changed"));
    }
    ETag etag;
    etag.hex = c.parts[i].etag;
    absl::MutexLock lock(&mu_);
    done_[static_cast<int>(i + 1)] = DonePart{etag, c.parts[i].sha256};
  }
  return absl::OkStatus();
}

absl::StatusOr<StoredObject> MultipartUpload::Resume(UploadSource& source,
                                                     UploadCheckpoint checkpoint,
                                                     std::unique_ptr<HeldUploadCheckpoint> held) {
  key_ = checkpoint.key;
  upload_id_ = checkpoint.upload_id;
  part_bytes_ = checkpoint.part_bytes;
  if (options_.key_chosen) {
    if (absl::Status s = options_.key_chosen(layout_.UriOfKey(key_)); !s.ok()) return s;
  }
  absl::Status reconciled = Reconcile(checkpoint);
  bool gone = absl::IsNotFound(reconciled);
  if (!reconciled.ok() && !gone) return reconciled;
  if (gone && checkpoint.bytes_done() != checkpoint.source_size) {
    return absl::NotFoundError(absl::StrCat(
        "upload ", checkpoint.id, ": its multipart upload is gone from S3 (aborted outside lake, "
        "or expired); `lake uploads abort ", checkpoint.id, "` forgets it, then put afresh"));
  }
  if (absl::Status s = AcquireBuffers(); !s.ok()) return s;
  if (absl::Status s = VerifyRecordedParts(source, checkpoint); !s.ok()) return s;
  Notice(absl::StrCat("resuming upload ", checkpoint.id, ": ", checkpoint.parts.size(),
                      " parts (", Mib(total_), " of ", Mib(checkpoint.source_size),
                      ") reused and verified; ", gone ? "settling its completion" : "sending the rest"));
  record_ = checkpoint;
  window_ = std::max(static_cast<int>(checkpoint.window), tuning_.concurrency);
  record_.window = static_cast<uint32_t>(window_);
  held_ = std::move(held);
  {
    absl::MutexLock lock(&mu_);
    published_prefix_ = static_cast<int>(checkpoint.parts.size());
  }
  if (gone) {
    // Its Complete was sent and its answer lost: the object decides.
    sha256_ = hash_.FinishHex();
    absl::StatusOr<ETag> expected = ExpectedETag();
    if (!expected.ok()) return expected.status();
    absl::Status verified = Verify(*expected);
    if (absl::IsNotFound(verified)) {
      return absl::NotFoundError(absl::StrCat(
          "upload ", checkpoint.id, ": its multipart upload is gone from S3 and no object is at "
          "its key; `lake uploads abort ", checkpoint.id, "` forgets it, then put afresh"));
    }
    if (!verified.ok()) {
      if (absl::IsDataLoss(verified)) {
        (void)client_.DeleteObject(layout_.bucket(), key_);
        RemoveCheckpoint();
      }
      return verified;
    }
    RemoveCheckpoint();
    return StoredObject{layout_.UriOfKey(key_), total_, sha256_};
  }
  size_t len = 0;
  if (absl::Status s = Fill(source, buffers_.chunk(0), &len); !s.ok()) return s;
  if (len == 0) return CompleteAndVerify();
  return UploadParts(source, static_cast<int>(checkpoint.parts.size()) + 1, len);
}

bool SameStage(const UploadCheckpoint& c, const S3StageLayout& layout,
               const S3UploadCheckpointing& checkpointing) {
  return c.bucket == layout.bucket() && c.prefix == layout.prefix() &&
         c.tenant == layout.tenant() && c.endpoint == checkpointing.endpoint;
}

bool SameSource(const UploadCheckpoint& c, const SourceFileIdentity& identity) {
  return c.source_path == identity.real_path && c.source_device == identity.device &&
         c.source_inode == identity.inode && c.source_size == identity.size &&
         c.source_mtime_micros == identity.modified_unix_micros;
}

absl::Status ValidateTuning(const S3UploadTuning& tuning) {
  if (tuning.concurrency < 1 || tuning.concurrency > kS3MaxConcurrency) {
    return absl::InvalidArgumentError(absl::StrCat(
        "S3 upload concurrency must be 1..", kS3MaxConcurrency, ", not ", tuning.concurrency));
  }
  if (tuning.part_bytes == 0) return absl::InvalidArgumentError("S3 part size must be positive");
  return absl::OkStatus();
}

// Checkpoint `id`, held for a resume or an abort by this process alone:
// FailedPrecondition when the stage keeps no checkpoints, NotFound when it
// has no such one, Aborted while another process holds it.
absl::StatusOr<std::unique_ptr<HeldUploadCheckpoint>> HoldCheckpoint(
    const S3UploadCheckpointing& checkpointing, std::string_view id) {
  if (checkpointing.store == nullptr) {
    return absl::FailedPreconditionError("this stage keeps no upload checkpoints");
  }
  absl::StatusOr<std::optional<std::unique_ptr<HeldUploadCheckpoint>>> held =
      checkpointing.store->TryLock(id);
  if (!held.ok()) return held.status();
  if (!held->has_value()) {
    return absl::AbortedError(absl::StrCat("upload ", std::string(id),
                                           " is in progress in another process"));
  }
  return std::move(**held);
}

}  // namespace

bool CheckpointsPartBytes(uint64_t part_bytes) {
  return part_bytes == kS3CheckpointPartBytes ||
         (IsResumablePartBytes(part_bytes) && !LAKE_FAILPOINT(kAnyPartSizeResumableFailpoint).ok());
}

absl::StatusOr<StoredObject> UploadToS3(s3http::S3Client& client, const S3StageLayout& layout,
                                        const S3UploadTuning& tuning, UploadSource& source,
                                        const UploadOptions& options,
                                        const S3UploadCheckpointing& checkpointing) {
  if (absl::Status s = ValidateTuning(tuning); !s.ok()) return s;
  const SourceFileIdentity* identity = source.file_identity();
  auto notice = [&options](const std::string& line) {
    if (options.notice) options.notice(line);
  };
  if (checkpointing.store == nullptr || identity == nullptr) identity = nullptr;
  if (identity != nullptr && !CheckpointsPartBytes(tuning.part_bytes)) {
    notice(absl::StrCat("no upload checkpoint is written: parts of ", tuning.part_bytes,
                        " bytes are not resumable (only ", kS3CheckpointPartBytes, ")"));
    identity = nullptr;
  }
  if (identity != nullptr) {
    absl::StatusOr<std::vector<ListedUploadCheckpoint>> listed = checkpointing.store->List(false);
    if (!listed.ok()) {
      notice(absl::StrCat("upload checkpoints are not read: ", listed.status().ToString()));
    } else {
      for (const ListedUploadCheckpoint& entry : *listed) {
        if (!entry.checkpoint.ok()) {
          notice(absl::StrCat("upload checkpoint ", entry.id, " cannot be resumed: ",
                              entry.checkpoint.status().ToString()));
          continue;
        }
        const UploadCheckpoint& c = *entry.checkpoint;
        if (c.source_path != identity->real_path || !SameStage(c, layout, checkpointing)) continue;
        absl::StatusOr<std::optional<std::unique_ptr<HeldUploadCheckpoint>>> held =
            checkpointing.store->TryLock(entry.id);
        if (!held.ok()) continue;  // removed meanwhile
        if (!held->has_value()) {
          notice(absl::StrCat("upload ", c.id, " of this file is in progress in another process; "
                              "this upload goes on its own"));
          continue;
        }
        absl::StatusOr<UploadCheckpoint> current = checkpointing.store->Load(entry.id);
        if (!current.ok()) continue;
        if (!SameSource(*current, *identity)) {
          notice(absl::StrCat("upload checkpoint ", c.id, " is stale: ", c.source_path,
                              " changed since; starting afresh (`lake uploads abort ", c.id,
                              "` removes it)"));
          continue;
        }
        MultipartUpload upload(client, layout, tuning, options, checkpointing);
        return upload.Resume(source, std::move(*current), std::move(**held));
      }
    }
  }
  MultipartUpload upload(client, layout, tuning, options, checkpointing);
  return upload.Run(source, identity);
}

absl::StatusOr<StoredObject> ResumeS3Upload(s3http::S3Client& client, const S3StageLayout& layout,
                                            const S3UploadTuning& tuning, io::FileSystem& fs,
                                            std::string_view id, const UploadOptions& options,
                                            const S3UploadCheckpointing& checkpointing) {
  if (absl::Status s = ValidateTuning(tuning); !s.ok()) return s;
  absl::StatusOr<std::unique_ptr<HeldUploadCheckpoint>> held = HoldCheckpoint(checkpointing, id);
  if (!held.ok()) return held.status();
  absl::StatusOr<UploadCheckpoint> c = checkpointing.store->Load(id);
  if (!c.ok()) return c.status();
  if (!SameStage(*c, layout, checkpointing)) {
    return absl::FailedPreconditionError(absl::StrCat(
        "upload ", c->id, " goes to another stage (s3://", c->bucket, "/", c->prefix, ")"));
  }
  absl::StatusOr<std::unique_ptr<FileUploadSource>> source =
      FileUploadSource::Open(fs, c->source_path);
  if (!source.ok()) return source.status();
  const SourceFileIdentity* identity = (*source)->file_identity();
  if (identity == nullptr || !SameSource(*c, *identity)) {
    return absl::AbortedError(absl::StrCat("upload ", c->id, " is stale: ", c->source_path,
                                           " changed since its checkpoint; it is not resumed"));
  }
  UploadOptions resumed = options;
  resumed.content_type = c->content_type;
  MultipartUpload upload(client, layout, tuning, resumed, checkpointing);
  absl::StatusOr<StoredObject> stored = upload.Resume(**source, std::move(*c), std::move(*held));
  if (stored.ok()) stored->content_type = resumed.content_type;
  return stored;
}

absl::Status AbortS3Upload(s3http::S3Client& client, std::string_view id,
                           const S3UploadCheckpointing& checkpointing) {
  absl::StatusOr<std::unique_ptr<HeldUploadCheckpoint>> held = HoldCheckpoint(checkpointing, id);
  if (!held.ok()) return held.status();
  absl::StatusOr<UploadCheckpoint> c = checkpointing.store->Load(id);
  if (c.ok()) {
    absl::Status aborted =
        client.AbortMultipartUpload(c->bucket, c->key, c->upload_id, kS3AbortBudget);
    if (!aborted.ok() && !absl::IsNotFound(aborted)) return aborted;
  } else if (!absl::IsDataLoss(c.status())) {
    return c.status();
  }
  return (*held)->Remove();
}

absl::StatusOr<uint64_t> ExpireStaleS3Uploads(s3http::S3Client& client,
                                              const S3UploadCheckpointing& checkpointing,
                                              absl::Time now, absl::Duration horizon) {
  if (checkpointing.store == nullptr) return uint64_t{0};
  absl::StatusOr<std::vector<ListedUploadCheckpoint>> listed = checkpointing.store->List(false);
  if (!listed.ok()) return listed.status();
  uint64_t expired = 0;
  for (const ListedUploadCheckpoint& entry : *listed) {
    if (!entry.checkpoint.ok() || !IsStaleUploadCheckpoint(*entry.checkpoint, now, horizon)) {
      continue;
    }
    absl::Status aborted = AbortS3Upload(client, entry.id, checkpointing);
    if (absl::IsAborted(aborted) || absl::IsNotFound(aborted)) continue;  // held, or gone
    if (!aborted.ok()) return aborted;
    ++expired;
  }
  return expired;
}

}  // namespace lake
