// A spill run written to a new file (run_format.h).
//
// A run is never synced and never renamed into place: it is scratch that
// only the process writing it reads, after Finish, through the page cache,
// which has it whole. A crash makes the run garbage along with the whole
// spill directory (spill_directory.h), which the next spill removes — so
// a sync would buy nothing but latency. A run cut short or damaged anyway
// (a full disk mid-write, a bug, a file touched by someone else) is
// refused by its reader: the trailer, at a fixed place from the end, is
// missing or does not confirm the blocks.
#ifndef LAKE_SPILL_RUN_WRITER_H_
#define LAKE_SPILL_RUN_WRITER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "io/file_system.h"
#include "spill/run_encoder.h"
#include "spill/spill_budget.h"

namespace lake::spill {

// A finished run on disk.
struct RunFile {
  std::string path;
  uint64_t records = 0;
  uint64_t bytes = 0;
};

class RunWriter {
 public:
  // Creates `path` (AlreadyExists if present) and writes the header. `fs`
  // must outlive the writer. Charges RunEncoder::BudgetBytes.
  static absl::StatusOr<std::unique_ptr<RunWriter>> Create(io::FileSystem& fs,
                                                           const std::string& path,
                                                           SpillBudget& budget,
                                                           size_t block_bytes, int zstd_level);
  ~RunWriter();

  // As RunEncoder::Add: strictly ascending records, each at most
  // MaxRecordBytes(block_bytes) long.
  absl::Status Add(std::string_view record) { return encoder_->Add(record); }
  // Writes the last block and the trailer and closes the file.
  absl::StatusOr<RunFile> Finish();

 private:
  class FileSink;
  RunWriter();

  std::unique_ptr<FileSink> sink_;
  std::unique_ptr<RunEncoder> encoder_;
};

}  // namespace lake::spill

#endif  // LAKE_SPILL_RUN_WRITER_H_
