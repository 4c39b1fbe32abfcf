// An IoQueue on one io_uring ring (liburing). One owner at a time; the
// owner may change threads between calls (no SINGLE_ISSUER).
#ifndef LAKE_IO_URING_URING_IO_QUEUE_H_
#define LAKE_IO_URING_URING_IO_QUEUE_H_

#include <liburing.h>

#include <memory>

#include "io/file_system.h"

namespace lake::io {

class UringIoQueue final : public IoQueue {
 public:
  static absl::StatusOr<std::unique_ptr<UringIoQueue>> Create(unsigned depth);
  ~UringIoQueue() override;

  unsigned depth() const override { return depth_; }
  unsigned in_flight() const override { return in_flight_; }
  void PrepareRead(File& file, uint8_t* buf, size_t len, uint64_t offset,
                   uint64_t tag, ReadHint hint) override;
  void PrepareWrite(File& file, const uint8_t* buf, size_t len,
                    uint64_t offset, uint64_t tag) override;
  absl::Status SubmitAndReap(unsigned wait_for,
                             std::vector<IoCompletion>* out) override;

 private:
  explicit UringIoQueue(unsigned depth) : depth_(depth) {}
  io_uring_sqe* NextSqe();
  unsigned ReapReady(std::vector<IoCompletion>* out);

  io_uring ring_{};
  unsigned depth_;
  unsigned in_flight_ = 0;
};

// True when this process can create rings and the kernel has the
// operations lake uses.
bool UringUsable();

}  // namespace lake::io

#endif  // LAKE_IO_URING_URING_IO_QUEUE_H_
