#include "io/posix/inline_io_queue.h"

#include <errno.h>

namespace lake::io {
namespace {

// Recovers an errno for the completion from a failed File call's status.
int64_t NegativeErrno(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kNotFound: return -ENOENT;
    case absl::StatusCode::kPermissionDenied: return -EACCES;
    case absl::StatusCode::kResourceExhausted: return -ENOSPC;
    case absl::StatusCode::kUnavailable: return -EAGAIN;
    case absl::StatusCode::kInvalidArgument: return -EINVAL;
    default: return -EIO;
  }
}

}  // namespace

void InlineIoQueue::PrepareRead(File& file, uint8_t* buf, size_t len,
                                uint64_t offset, uint64_t tag, ReadHint) {
  prepared_.push_back({&file, buf, nullptr, len, offset, tag});
}

void InlineIoQueue::PrepareWrite(File& file, const uint8_t* buf, size_t len,
                                 uint64_t offset, uint64_t tag) {
  prepared_.push_back({&file, nullptr, buf, len, offset, tag});
}

absl::Status InlineIoQueue::SubmitAndReap(unsigned wait_for,
                                          std::vector<IoCompletion>* out) {
  if (wait_for > in_flight()) {
    return absl::InternalError("waiting for more completions than in flight");
  }
  for (const Operation& op : prepared_) {
    absl::StatusOr<size_t> n =
        op.read_buf != nullptr ? op.file->PRead(op.read_buf, op.len, op.offset)
                               : op.file->PWrite(op.write_buf, op.len, op.offset);
    done_.push_back({op.tag, n.ok() ? static_cast<int64_t>(*n)
                                    : NegativeErrno(n.status())});
  }
  prepared_.clear();
  out->insert(out->end(), done_.begin(), done_.end());
  done_.clear();
  return absl::OkStatus();
}

}  // namespace lake::io
