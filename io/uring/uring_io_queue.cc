#include "io/uring/uring_io_queue.h"

#include <errno.h>

#include "absl/strings/str_format.h"
#include "io/errno_status.h"

namespace lake::io {
namespace {

// One SQE moves at most this much (the kernel caps a transfer near 2 GiB
// anyway); callers continue short transfers.
constexpr size_t kMaxTransferBytes = size_t{1} << 30;

unsigned TransferLength(size_t len) {
  return static_cast<unsigned>(len < kMaxTransferBytes ? len : kMaxTransferBytes);
}

}  // namespace

absl::StatusOr<std::unique_ptr<UringIoQueue>> UringIoQueue::Create(
    unsigned depth) {
  std::unique_ptr<UringIoQueue> queue(new UringIoQueue(depth));
  // COOP_TASKRUN: completions are processed when we enter the kernel
  // anyway, instead of interrupting the thread (fewer IPIs).
  int rc = io_uring_queue_init(depth, &queue->ring_, IORING_SETUP_COOP_TASKRUN);
  if (rc == -EINVAL) rc = io_uring_queue_init(depth, &queue->ring_, 0);
  if (rc < 0) return ErrnoStatus(-rc, "io_uring_queue_init", "");
  return queue;
}

UringIoQueue::~UringIoQueue() {
  // The kernel may still write into caller buffers: wait for every
  // operation before the ring (and, after us, the buffers) go away.
  std::vector<IoCompletion> ignored;
  while (in_flight_ > 0) {
    ignored.clear();
    if (!SubmitAndReap(1, &ignored).ok()) break;
  }
  io_uring_queue_exit(&ring_);
}

io_uring_sqe* UringIoQueue::NextSqe() {
  io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
  if (sqe == nullptr) {
    // The SQ has depth_ slots and in_flight_ < depth_, so only unsubmitted
    // entries can fill it: push them to the kernel and retry.
    io_uring_submit(&ring_);
    sqe = io_uring_get_sqe(&ring_);
  }
  return sqe;
}

void UringIoQueue::PrepareRead(File& file, uint8_t* buf, size_t len,
                               uint64_t offset, uint64_t tag, ReadHint hint) {
  io_uring_sqe* sqe = NextSqe();
  io_uring_prep_read(sqe, file.fd(), buf, TransferLength(len), offset);
  if (hint == ReadHint::kOffload) sqe->flags |= IOSQE_ASYNC;
  io_uring_sqe_set_data64(sqe, tag);
  ++in_flight_;
}

void UringIoQueue::PrepareWrite(File& file, const uint8_t* buf, size_t len,
                                uint64_t offset, uint64_t tag) {
  io_uring_sqe* sqe = NextSqe();
  io_uring_prep_write(sqe, file.fd(), buf, TransferLength(len), offset);
  io_uring_sqe_set_data64(sqe, tag);
  ++in_flight_;
}

unsigned UringIoQueue::ReapReady(std::vector<IoCompletion>* out) {
  io_uring_cqe* cqes[64];
  unsigned total = 0;
  for (;;) {
    unsigned n = io_uring_peek_batch_cqe(&ring_, cqes, 64);
    for (unsigned i = 0; i < n; ++i) {
      out->push_back({io_uring_cqe_get_data64(cqes[i]), cqes[i]->res});
    }
    io_uring_cq_advance(&ring_, n);
    total += n;
    if (n < 64) break;
  }
  in_flight_ -= total;
  return total;
}

absl::Status UringIoQueue::SubmitAndReap(unsigned wait_for,
                                         std::vector<IoCompletion>* out) {
  if (wait_for > in_flight_) {
    return absl::InternalError("waiting for more completions than in flight");
  }
  unsigned reaped = 0;
  for (;;) {
    int rc = io_uring_submit_and_wait(&ring_, wait_for > reaped ? 1 : 0);
    if (rc < 0 && rc != -EINTR && rc != -EAGAIN && rc != -EBUSY) {
      return ErrnoStatus(-rc, "io_uring_submit", "");
    }
    reaped += ReapReady(out);
    if (reaped >= wait_for && rc >= 0) return absl::OkStatus();
  }
}

bool UringUsable() {
  io_uring ring;
  if (io_uring_queue_init(2, &ring, 0) < 0) return false;
  io_uring_probe* probe = io_uring_get_probe_ring(&ring);
  bool usable = probe != nullptr &&
                io_uring_opcode_supported(probe, IORING_OP_READ) &&
                io_uring_opcode_supported(probe, IORING_OP_WRITE);
  if (probe != nullptr) io_uring_free_probe(probe);
  io_uring_queue_exit(&ring);
  return usable;
}

}  // namespace lake::io
