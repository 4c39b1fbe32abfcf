// The raw byte stream of a local object from an offset, reading ahead.
//
// Small reads (at most kDirectReadMaxBytes in all) go straight into the
// caller's buffer with one positioned read each: no ring, no buffers.
// Larger ones keep up to kStreamMaxChunks chunks in flight through the I/O
// queue, offloaded to a kernel worker, so the next chunk loads while the
// caller hashes or decodes the current one. The stream never reads past
// start + `limit` (the caller's cap plus its one-byte probe), so it does no
// I/O the reader will not consume. Memory is the chunk ring (from the
// process BufferBudget), whatever the object's size.
#ifndef LAKE_ENGINE_LOCAL_LOCAL_OBJECT_STREAM_H_
#define LAKE_ENGINE_LOCAL_LOCAL_OBJECT_STREAM_H_

#include <memory>
#include <vector>

#include "base/buffer_budget.h"
#include "engine/object_stream.h"
#include "io/file_system.h"

namespace lake {

inline constexpr uint64_t kDirectReadMaxBytes = 256 << 10;
inline constexpr size_t kStreamChunkBytes = 512 << 10;
inline constexpr size_t kStreamMinChunks = 2;
inline constexpr size_t kStreamMaxChunks = 4;

class LocalObjectStream final : public ObjectStream {
 public:
  static absl::StatusOr<std::unique_ptr<LocalObjectStream>> Open(
      io::FileSystem& fs, std::unique_ptr<io::File> file, uint64_t start,
      uint64_t limit);
  ~LocalObjectStream() override;

  absl::StatusOr<size_t> Read(uint8_t* dst, size_t len) override;
  absl::StatusOr<absl::Span<const uint8_t>> ReadView(size_t max_len) override;
  absl::Status Close() override;

 private:
  struct Chunk {
    uint8_t* data = nullptr;
    bool in_flight = false;
    size_t requested = 0;
    size_t filled = 0;
    size_t consumed = 0;
    int error = 0;  // errno of a failed read
  };

  LocalObjectStream(std::unique_ptr<io::File> file, uint64_t start,
                    uint64_t limit);
  absl::StatusOr<size_t> ReadDirect(uint8_t* dst, size_t len);
  void IssueReads();
  void Collect(unsigned wait_for);
  absl::Status WaitFor(Chunk& chunk);
  Chunk& ChunkFor(uint64_t seq) { return chunks_[seq % chunks_.size()]; }

  std::unique_ptr<io::File> file_;
  uint64_t next_offset_;   // next byte to request from the file
  uint64_t end_offset_;    // start + limit
  bool at_end_ = false;    // a read came back short: nothing follows

  std::unique_ptr<io::IoQueue> queue_;
  BufferLease buffers_;
  std::vector<Chunk> chunks_;
  std::vector<io::IoCompletion> completions_;
  uint64_t consume_seq_ = 0;
  uint64_t issue_seq_ = 0;
  absl::Status queue_failure_;
};

}  // namespace lake

#endif  // LAKE_ENGINE_LOCAL_LOCAL_OBJECT_STREAM_H_
