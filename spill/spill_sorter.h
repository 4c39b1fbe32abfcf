// Sorts more byte-string records than fit in memory, in bounded memory:
// records gather in a run buffer; a full buffer is sorted and written as a
// run (a file in the operation's spill directory); at the end the runs
// are merged with a bounded fan-in — in several passes when there are more
// runs than the fan-in, each pass merging the smallest runs into one — and
// the last merge is read as a stream. Records come out in ascending
// bytewise order, each once: equal records are collapsed within a run and
// across runs.
//
// Memory. Every buffer is charged to the operation's SpillBudget: the run
// buffer, a run writer's blocks and compressor, each merge input's block
// and current record (fan-in × 2 blocks), the merge's shared compressed
// block and decompressor, its output record, and the output run's writer
// in a pass. The plan is made from the budget when the sorter is created:
//   run buffer = limit − one run writer
//   fan-in     = (limit − fixed merge buffers) / one input, within
//                2..max_fan_in (a pass, which also writes a run, has less)
// so peak() <= limit() however many records come. If everything fits in
// one run buffer, nothing touches the disk.
//
// Files. The runs live in a SpillDirectory the sorter creates; it is
// removed when the merged stream reaches its end, when the sorter or the
// stream fails (before the error returns) and when either is destroyed.
// A process that dies leaves it for the next sorter's sweep.
//
// Thread safety: none; one thread uses a sorter and its stream.
#ifndef LAKE_SPILL_SPILL_SORTER_H_
#define LAKE_SPILL_SPILL_SORTER_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "io/file_system.h"
#include "spill/record_source.h"
#include "spill/run_buffer.h"
#include "spill/run_decoder.h"
#include "spill/run_encoder.h"
#include "spill/run_writer.h"
#include "spill/spill_budget.h"
#include "spill/spill_directory.h"

namespace lake::spill {

// The steps of a sort as failpoints (base/failpoint.h): after a run is
// written from the run buffer, and after a merge pass has written its
// output run (before its input runs are removed).
inline constexpr std::array<std::string_view, 2> kSpillFailpoints = {
    "spill.run_written",
    "spill.merge_pass_written",
};

struct SpillOptions {
  // Raw bytes of a run's block: what a merge input buffers (twice), and
  // the bound on one record (MaxRecordBytes).
  size_t block_bytes = 64 << 10;
  // The most runs one merge reads at once, which bounds its open files.
  size_t max_fan_in = 128;
  int zstd_level = kDefaultRunZstdLevel;
};

// What a sort did, for tests and benchmarks.
struct SpillStats {
  uint64_t records_added = 0;
  uint64_t runs_written = 0;       // from the run buffer
  uint64_t merge_passes = 0;       // merges that wrote a run
  uint64_t bytes_written = 0;      // by runs and passes together
  uint64_t peak_disk_bytes = 0;    // the most run bytes on disk at once
  size_t final_fan_in = 0;         // runs read by the last merge
};

class SortedRecords;

class SpillSorter {
 public:
  // The fan-in of the last merge and of a merge pass for `limit` bytes,
  // and the smallest limit with which a sort works (a run buffer that
  // holds the longest record, and a fan-in of 2).
  static size_t FinalFanIn(uint64_t limit, const SpillOptions& options);
  static size_t PassFanIn(uint64_t limit, const SpillOptions& options);
  static uint64_t MinimumBudget(const SpillOptions& options);

  // Creates the spill directory `directory` (SpillDirectory::Create, which
  // sweeps abandoned siblings first). InvalidArgument for options out of
  // bounds or a budget below MinimumBudget. `fs` and `budget` must
  // outlive the sorter and its stream.
  static absl::StatusOr<std::unique_ptr<SpillSorter>> Create(io::FileSystem& fs,
                                                             std::string directory,
                                                             SpillBudget& budget,
                                                             SpillOptions options = {});
  ~SpillSorter();

  // InvalidArgument for a record longer than MaxRecordBytes(block_bytes)
  // (the sorter is unchanged and may go on). Any other error fails the
  // sorter: its directory is gone, and every later call returns the error.
  absl::Status Add(std::string_view record);

  // Ends the input and returns the records in order. The sorter is spent
  // (whatever the outcome): its runs and directory now belong to the
  // stream.
  absl::StatusOr<std::unique_ptr<SortedRecords>> Finish();

  const SpillStats& stats() const { return stats_; }

 private:
  SpillSorter(io::FileSystem& fs, SpillBudget& budget, SpillOptions options)
      : fs_(fs), budget_(budget), options_(options) {}
  absl::Status Fail(absl::Status status);
  absl::Status WriteBufferedRun();
  absl::Status MergeUntilFanIn(size_t fan_in);
  absl::Status MergePass(size_t inputs);
  absl::StatusOr<std::unique_ptr<RecordSource>> OpenMerge(std::vector<RunFile> runs,
                                                          std::unique_ptr<BlockInflater>* inflater);

  io::FileSystem& fs_;
  SpillBudget& budget_;
  const SpillOptions options_;
  std::unique_ptr<SpillDirectory> directory_;
  RunBuffer buffer_;
  std::vector<RunFile> runs_;
  uint64_t disk_bytes_ = 0;
  SpillStats stats_;
  absl::Status failure_;
};

// The sorted, collapsed records of a SpillSorter, read once. Owns the
// sort's runs and directory.
class SortedRecords final : public RecordSource {
 public:
  ~SortedRecords() override;

  // At the end the runs and the directory are removed before false is
  // returned; an error removes them before it returns.
  absl::StatusOr<bool> Next() override;
  std::string_view record() const override { return records_->record(); }

 private:
  friend class SpillSorter;
  SortedRecords() = default;
  void Release();

  // Declared in the order they are built; destroyed readers first.
  std::unique_ptr<SpillDirectory> directory_;
  RunBuffer buffer_;
  std::unique_ptr<BlockInflater> inflater_;
  std::unique_ptr<RecordSource> records_;
  bool done_ = false;
};

}  // namespace lake::spill

#endif  // LAKE_SPILL_SPILL_SORTER_H_
