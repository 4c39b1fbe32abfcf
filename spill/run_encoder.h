// Encodes records, given in strictly ascending bytewise order, into a
// spill run (run_format.h), one block at a time: a record is cut against
// the one before it and appended to the block being built; a full block is
// compressed, framed and handed to a sink, and the trailer follows the
// last block.
//
// Memory: the block being built, its compressed form, the record before
// the next one, and zstd's compressor — all charged to a SpillBudget
// (BudgetBytes tells how much before a writer is made).
#ifndef LAKE_SPILL_RUN_ENCODER_H_
#define LAKE_SPILL_RUN_ENCODER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "spill/run_format.h"
#include "spill/spill_budget.h"

typedef struct ZSTD_CCtx_s ZSTD_CCtx;

namespace lake::spill {

// Where an encoder's bytes go: a file (run_writer.h) or a string.
class RunByteSink {
 public:
  virtual ~RunByteSink() = default;
  // Appends `pieces` back to back after everything appended before.
  virtual absl::Status Append(absl::Span<const std::string_view> pieces) = 0;
};

// The zstd level of spill runs: the fastest level that still finds the
// repeats of sorted URIs. Runs are read once or twice and then deleted, so
// compression speed matters more than ratio.
inline constexpr int kDefaultRunZstdLevel = 1;

class RunEncoder {
 public:
  // Appends the header to `sink`, which must outlive the encoder.
  // Precondition: kMinBlockBytes <= block_bytes <= kMaxBlockBytes.
  static absl::StatusOr<std::unique_ptr<RunEncoder>> Create(SpillBudget& budget,
                                                            size_t block_bytes, int zstd_level,
                                                            RunByteSink* sink);
  // The bytes Create charges to the budget.
  static uint64_t BudgetBytes(size_t block_bytes, int zstd_level);
  ~RunEncoder();
  RunEncoder(const RunEncoder&) = delete;
  RunEncoder& operator=(const RunEncoder&) = delete;

  // InvalidArgument for a record longer than MaxRecordBytes(block_bytes);
  // FailedPrecondition for one not greater than the record before it.
  // Either leaves the run as it was.
  absl::Status Add(std::string_view record);
  // Appends the last block and the trailer. No Add after it.
  absl::StatusOr<RunTrailer> Finish();

  size_t block_bytes() const { return block_bytes_; }
  uint64_t records() const { return trailer_.record_count + block_records_; }

 private:
  RunEncoder(size_t block_bytes, int zstd_level, RunByteSink* sink)
      : block_bytes_(block_bytes), zstd_level_(zstd_level), sink_(sink) {}
  absl::Status FlushBlock();

  const size_t block_bytes_;
  const int zstd_level_;
  RunByteSink* const sink_;
  SpillBuffer raw_;      // the block being built
  SpillBuffer stored_;   // its compressed form
  SpillBuffer last_;     // the record before the next one
  SpillCharge compressor_charge_;
  ZSTD_CCtx* compressor_ = nullptr;
  size_t raw_used_ = 0;
  uint32_t block_records_ = 0;
  size_t last_bytes_ = 0;
  bool has_last_ = false;
  bool finished_ = false;
  RunTrailer trailer_;  // of the blocks already appended
};

// The run holding `records` (strictly ascending) whole, as bytes: for tests
// and the fuzzer, which check the file writer's format without files.
absl::StatusOr<std::string> EncodeRun(absl::Span<const std::string> records,
                                      size_t block_bytes,
                                      int zstd_level = kDefaultRunZstdLevel);

}  // namespace lake::spill

#endif  // LAKE_SPILL_RUN_ENCODER_H_
