// Reads a spill run (run_format.h) record by record from any byte source,
// checking everything the format promises as it goes; a run that breaks a
// promise is DataLoss, and no record of a block is returned before its
// checksum has been checked. The header and the trailer are checked when
// the decoder opens, so a cut run is refused before its first record; the
// trailer's counts and digest are checked when the last block has been
// read, before Next reports the end.
//
// Memory: one raw block and the current record (each of the run's block
// size) per decoder, charged to a SpillBudget; the compressed block and the
// zstd decompressor live in a BlockInflater that the decoders of a merge
// share, since they read one at a time.
#ifndef LAKE_SPILL_RUN_DECODER_H_
#define LAKE_SPILL_RUN_DECODER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "spill/record_source.h"
#include "spill/run_format.h"
#include "spill/spill_budget.h"

typedef struct ZSTD_DCtx_s ZSTD_DCtx;

namespace lake::spill {

// Where a decoder's bytes come from: a file (run_reader.h) or memory.
class RunByteSource {
 public:
  virtual ~RunByteSource() = default;
  virtual uint64_t size() const = 0;
  // Reads exactly `len` bytes at `offset` (offset + len <= size()) into
  // `dst`; a source that delivers fewer is DataLoss.
  virtual absl::Status ReadAt(uint64_t offset, size_t len, char* dst) = 0;
};

// The compressed block and the decompressor shared by the decoders of one
// merge. Not thread-safe: one decoder at a time.
class BlockInflater {
 public:
  static absl::StatusOr<std::unique_ptr<BlockInflater>> Create(SpillBudget& budget,
                                                               size_t max_block_bytes);
  static uint64_t BudgetBytes(size_t max_block_bytes);
  ~BlockInflater();
  BlockInflater(const BlockInflater&) = delete;
  BlockInflater& operator=(const BlockInflater&) = delete;

  char* stored() const { return stored_.data(); }
  size_t max_block_bytes() const { return max_block_bytes_; }
  // Decompresses `stored` into `raw` (room for `raw_bytes`), which must be
  // exactly `raw_bytes` long.
  absl::Status Inflate(std::string_view stored, char* raw, size_t raw_bytes);

 private:
  explicit BlockInflater(size_t max_block_bytes) : max_block_bytes_(max_block_bytes) {}
  const size_t max_block_bytes_;
  SpillBuffer stored_;
  SpillCharge decompressor_charge_;
  ZSTD_DCtx* decompressor_ = nullptr;
};

class RunDecoder final : public RecordSource {
 public:
  // Reads and checks the header and trailer of the run in `source`. A run
  // whose blocks are larger than the inflater's max_block_bytes is
  // DataLoss. `source` and `inflater` must outlive the decoder.
  static absl::StatusOr<std::unique_ptr<RunDecoder>> Open(RunByteSource* source,
                                                          BlockInflater* inflater,
                                                          SpillBudget& budget);
  // The bytes Open charges for a run of `block_bytes` blocks (at most).
  static uint64_t BudgetBytes(size_t block_bytes);

  absl::StatusOr<bool> Next() override;
  std::string_view record() const override { return {key_.data(), key_bytes_}; }
  const RunTrailer& trailer() const { return trailer_; }

 private:
  RunDecoder(RunByteSource* source, BlockInflater* inflater, RunHeader header,
             RunTrailer trailer)
      : source_(source), inflater_(inflater), header_(header), trailer_(trailer) {}
  absl::Status ReadBlock();
  absl::Status DecodeRecord();
  absl::Status CheckTotals() const;

  RunByteSource* const source_;
  BlockInflater* const inflater_;
  const RunHeader header_;
  const RunTrailer trailer_;
  SpillBuffer raw_;  // the current block, uncompressed
  SpillBuffer key_;  // the current record
  uint64_t offset_ = kRunHeaderBytes;  // of the next block
  uint64_t data_end_ = 0;              // where the trailer begins
  std::string_view block_;             // the raw bytes of the current block
  size_t block_pos_ = 0;
  uint32_t block_records_left_ = 0;
  size_t key_bytes_ = 0;
  bool has_key_ = false;
  RunTrailer seen_;  // the totals of the blocks read so far
};

// Every record of the run `bytes`, or the error a RunDecoder would give:
// for tests and the fuzzer, which check the file reader's decoding without
// files.
absl::StatusOr<std::vector<std::string>> DecodeRun(std::string_view bytes,
                                                   size_t max_block_bytes = kMaxBlockBytes);

}  // namespace lake::spill

#endif  // LAKE_SPILL_RUN_DECODER_H_
