#include "engine/push_upload_bridge.h"

#include <algorithm>
#include <cstring>

namespace lake {

PushUploadBridge::PushUploadBridge(PullUpload upload)
    : pipe_(kPushPipeBytes), result_(absl::UnknownError("upload did not run")) {
  thread_ = std::thread([this, upload = std::move(upload)] {
    absl::StatusOr<StoredObject> result = upload(*this);
    absl::MutexLock lock(&mu_);
    result_ = std::move(result);
    upload_done_ = true;
  });
}

PushUploadBridge::~PushUploadBridge() {
  if (!committed_) Finish(absl::CancelledError("the writer was dropped before it was committed"));
  if (thread_.joinable()) thread_.join();
}

void PushUploadBridge::Finish(absl::Status end) {
  absl::MutexLock lock(&mu_);
  ended_ = true;
  end_status_ = std::move(end);
}

absl::Status PushUploadBridge::Write(const uint8_t* data, size_t len) {
  if (committed_) return absl::FailedPreconditionError("upload is committed");
  absl::MutexLock lock(&mu_);
  while (len > 0) {
    mu_.Await(absl::Condition(
        +[](PushUploadBridge* self) ABSL_EXCLUSIVE_LOCKS_REQUIRED(self->mu_) {
          return self->pipe_size_ < self->pipe_.size() || self->upload_done_;
        },
        this));
    if (upload_done_) {
      // The upload ended before taking everything: it failed.
      return result_.ok() ? absl::InternalError("the upload ended before the writer")
                          : result_.status();
    }
    size_t end = (pipe_start_ + pipe_size_) % pipe_.size();
    size_t n = std::min({len, pipe_.size() - pipe_size_, pipe_.size() - end});
    std::memcpy(pipe_.data() + end, data, n);
    pipe_size_ += n;
    data += n;
    len -= n;
  }
  return absl::OkStatus();
}

absl::StatusOr<size_t> PushUploadBridge::Read(uint8_t* dst, size_t len) {
  absl::MutexLock lock(&mu_);
  mu_.Await(absl::Condition(
      +[](PushUploadBridge* self) ABSL_EXCLUSIVE_LOCKS_REQUIRED(self->mu_) {
        return self->pipe_size_ > 0 || self->ended_;
      },
      this));
  if (pipe_size_ == 0) {
    if (!end_status_.ok()) return end_status_;
    return 0;
  }
  size_t n = std::min({len, pipe_size_, pipe_.size() - pipe_start_});
  std::memcpy(dst, pipe_.data() + pipe_start_, n);
  pipe_start_ = (pipe_start_ + n) % pipe_.size();
  pipe_size_ -= n;
  return n;
}

absl::StatusOr<StoredObject> PushUploadBridge::Commit() {
  if (committed_) return absl::FailedPreconditionError("upload is committed");
  committed_ = true;
  Finish(absl::OkStatus());
  thread_.join();
  absl::MutexLock lock(&mu_);
  return std::move(result_);
}

}  // namespace lake
