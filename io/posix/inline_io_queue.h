// An IoQueue that performs each operation synchronously at submit time
// through File::PRead/PWrite: the `sync` backend (LAKE_IO=sync), and the
// queue of any file system that must see every transfer (fault injection).
#ifndef LAKE_IO_POSIX_INLINE_IO_QUEUE_H_
#define LAKE_IO_POSIX_INLINE_IO_QUEUE_H_

#include <vector>

#include "io/file_system.h"

namespace lake::io {

class InlineIoQueue final : public IoQueue {
 public:
  explicit InlineIoQueue(unsigned depth) : depth_(depth) {}

  unsigned depth() const override { return depth_; }
  unsigned in_flight() const override {
    return static_cast<unsigned>(prepared_.size() + done_.size());
  }
  void PrepareRead(File& file, uint8_t* buf, size_t len, uint64_t offset,
                   uint64_t tag, ReadHint hint) override;
  void PrepareWrite(File& file, const uint8_t* buf, size_t len,
                    uint64_t offset, uint64_t tag) override;
  absl::Status SubmitAndReap(unsigned wait_for,
                             std::vector<IoCompletion>* out) override;

 private:
  struct Operation {
    File* file;
    uint8_t* read_buf;
    const uint8_t* write_buf;
    size_t len;
    uint64_t offset;
    uint64_t tag;
  };
  unsigned depth_;
  std::vector<Operation> prepared_;
  std::vector<IoCompletion> done_;
};

}  // namespace lake::io

#endif  // LAKE_IO_POSIX_INLINE_IO_QUEUE_H_
