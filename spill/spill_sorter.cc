#include "spill/spill_sorter.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_format.h"
#include "base/failpoint.h"
#include "spill/merger.h"
#include "spill/run_reader.h"

namespace lake::spill {
namespace {

// The source of no records: what Finish returns when none was added.
class NoRecords final : public RecordSource {
 public:
  absl::StatusOr<bool> Next() override { return false; }
  std::string_view record() const override { return {}; }
};

uint64_t WriterBytes(const SpillOptions& options) {
  return RunEncoder::BudgetBytes(options.block_bytes, options.zstd_level);
}

uint64_t MergeFixedBytes(const SpillOptions& options) {
  return BlockInflater::BudgetBytes(options.block_bytes) +
         Merger::BudgetBytes(0, MaxRecordBytes(options.block_bytes));
}

uint64_t MergeInputBytes(const SpillOptions& options) {
  return RunDecoder::BudgetBytes(options.block_bytes) + Merger::kInputOverheadBytes;
}

size_t FanIn(uint64_t limit, uint64_t fixed, const SpillOptions& options) {
  if (limit < fixed) return 0;
  return static_cast<size_t>(
      std::min<uint64_t>(options.max_fan_in, (limit - fixed) / MergeInputBytes(options)));
}

uint64_t RunBufferBytes(uint64_t limit, const SpillOptions& options) {
  return limit - WriterBytes(options);
}

}  // namespace

size_t SpillSorter::FinalFanIn(uint64_t limit, const SpillOptions& options) {
  return FanIn(limit, MergeFixedBytes(options), options);
}

size_t SpillSorter::PassFanIn(uint64_t limit, const SpillOptions& options) {
  return FanIn(limit, MergeFixedBytes(options) + WriterBytes(options), options);
}

uint64_t SpillSorter::MinimumBudget(const SpillOptions& options) {
  // Room for the longest record in the run buffer (with slack for the
  // views' alignment), and a pass of two inputs.
  uint64_t run = WriterBytes(options) + RunBuffer::Cost(MaxRecordBytes(options.block_bytes)) +
                 alignof(std::string_view);
  uint64_t pass = MergeFixedBytes(options) + WriterBytes(options) + 2 * MergeInputBytes(options);
  return std::max(run, pass);
}

absl::StatusOr<std::unique_ptr<SpillSorter>> SpillSorter::Create(io::FileSystem& fs,
                                                                 std::string directory,
                                                                 SpillBudget& budget,
                                                                 SpillOptions options) {
  if (options.block_bytes < kMinBlockBytes || options.block_bytes > kMaxBlockBytes) {
    return absl::InvalidArgumentError(
        absl::StrFormat("spill block size %d is outside %d..%d", options.block_bytes,
                        kMinBlockBytes, kMaxBlockBytes));
  }
  if (options.max_fan_in < 2) {
    return absl::InvalidArgumentError(
        absl::StrFormat("spill merge fan-in %d is below 2", options.max_fan_in));
  }
  if (budget.limit() < MinimumBudget(options)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "spill budget of %d bytes is below %d, the least a sort with %d-byte blocks needs",
        budget.limit(), MinimumBudget(options), options.block_bytes));
  }
  std::unique_ptr<SpillSorter> sorter(new SpillSorter(fs, budget, options));
  absl::StatusOr<std::unique_ptr<SpillDirectory>> dir =
      SpillDirectory::Create(fs, std::move(directory));
  if (!dir.ok()) return dir.status();
  sorter->directory_ = *std::move(dir);
  return sorter;
}

SpillSorter::~SpillSorter() = default;

absl::Status SpillSorter::Fail(absl::Status status) {
  failure_ = status;
  buffer_ = RunBuffer();
  runs_.clear();
  if (directory_ != nullptr) (void)directory_->Remove();
  directory_.reset();
  return status;
}

absl::Status SpillSorter::Add(std::string_view record) {
  if (!failure_.ok()) return failure_;
  if (directory_ == nullptr) return absl::FailedPreconditionError("spill sorter: Add after Finish");
  if (record.size() > MaxRecordBytes(options_.block_bytes)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "a spill record of %d bytes is longer than %d, the most a block of %d bytes holds",
        record.size(), MaxRecordBytes(options_.block_bytes), options_.block_bytes));
  }
  if (!buffer_.allocated()) {
    absl::StatusOr<RunBuffer> buffer =
        RunBuffer::Create(budget_, RunBufferBytes(budget_.limit(), options_));
    if (!buffer.ok()) return Fail(buffer.status());
    buffer_ = *std::move(buffer);
  }
  if (!buffer_.Add(record)) {
    if (absl::Status s = WriteBufferedRun(); !s.ok()) return Fail(s);
    if (!buffer_.Add(record)) {
      return Fail(absl::InternalError("spill sorter: a record does not fit an empty run buffer"));
    }
  }
  ++stats_.records_added;
  return absl::OkStatus();
}

absl::Status SpillSorter::WriteBufferedRun() {
  buffer_.Sort();
  absl::StatusOr<std::unique_ptr<RunWriter>> writer =
      RunWriter::Create(fs_, directory_->NewFilePath("run"), budget_, options_.block_bytes,
                        options_.zstd_level);
  if (!writer.ok()) return writer.status();
  std::unique_ptr<RecordSource> records = buffer_.SortedRecords();
  for (;;) {
    absl::StatusOr<bool> more = records->Next();
    if (!more.ok()) return more.status();
    if (!*more) break;
    if (absl::Status s = (*writer)->Add(records->record()); !s.ok()) return s;
  }
  absl::StatusOr<RunFile> run = (*writer)->Finish();
  if (!run.ok()) return run.status();
  buffer_.Clear();
  disk_bytes_ += run->bytes;
  stats_.bytes_written += run->bytes;
  stats_.peak_disk_bytes = std::max(stats_.peak_disk_bytes, disk_bytes_);
  ++stats_.runs_written;
  runs_.push_back(*std::move(run));
  return LAKE_FAILPOINT("spill.run_written");
}

absl::StatusOr<std::unique_ptr<RecordSource>> SpillSorter::OpenMerge(
    std::vector<RunFile> runs, std::unique_ptr<BlockInflater>* inflater) {
  absl::StatusOr<std::unique_ptr<BlockInflater>> made =
      BlockInflater::Create(budget_, options_.block_bytes);
  if (!made.ok()) return made.status();
  *inflater = *std::move(made);
  std::vector<std::unique_ptr<RecordSource>> inputs;
  inputs.reserve(runs.size());
  for (const RunFile& run : runs) {
    absl::StatusOr<std::unique_ptr<RunReader>> reader =
        RunReader::Open(fs_, run.path, inflater->get(), budget_);
    if (!reader.ok()) return reader.status();
    inputs.push_back(*std::move(reader));
  }
  absl::StatusOr<std::unique_ptr<Merger>> merger =
      Merger::Create(std::move(inputs), budget_, MaxRecordBytes(options_.block_bytes));
  if (!merger.ok()) return merger.status();
  return std::unique_ptr<RecordSource>(*std::move(merger));
}

// Merges the `inputs` smallest runs into one run.
absl::Status SpillSorter::MergePass(size_t inputs) {
  std::sort(runs_.begin(), runs_.end(),
            [](const RunFile& a, const RunFile& b) { return a.bytes < b.bytes; });
  std::vector<RunFile> merged(std::make_move_iterator(runs_.begin()),
                              std::make_move_iterator(runs_.begin() + inputs));
  runs_.erase(runs_.begin(), runs_.begin() + inputs);
  RunFile output;
  {
    std::unique_ptr<BlockInflater> inflater;
    absl::StatusOr<std::unique_ptr<RecordSource>> records = OpenMerge(merged, &inflater);
    if (!records.ok()) return records.status();
    absl::StatusOr<std::unique_ptr<RunWriter>> writer =
        RunWriter::Create(fs_, directory_->NewFilePath("run"), budget_, options_.block_bytes,
                          options_.zstd_level);
    if (!writer.ok()) return writer.status();
    for (;;) {
      absl::StatusOr<bool> more = (*records)->Next();
      if (!more.ok()) return more.status();
      if (!*more) break;
      if (absl::Status s = (*writer)->Add((*records)->record()); !s.ok()) return s;
    }
    absl::StatusOr<RunFile> run = (*writer)->Finish();
    if (!run.ok()) return run.status();
    output = *std::move(run);
  }
  disk_bytes_ += output.bytes;
  stats_.bytes_written += output.bytes;
  stats_.peak_disk_bytes = std::max(stats_.peak_disk_bytes, disk_bytes_);
  ++stats_.merge_passes;
  runs_.push_back(std::move(output));
  if (absl::Status s = LAKE_FAILPOINT("spill.merge_pass_written"); !s.ok()) return s;
  for (const RunFile& run : merged) {
    if (absl::Status s = fs_.Remove(run.path); !s.ok()) return s;
    disk_bytes_ -= run.bytes;
  }
  return absl::OkStatus();
}

// Merges passes until at most `fan_in` runs are left. Each pass merges the
// fewest runs that get there, at most a pass's fan-in: a pass of k runs
// leaves k − 1 fewer, and records merged early are merged again later.
absl::Status SpillSorter::MergeUntilFanIn(size_t fan_in) {
  const size_t pass_fan_in = PassFanIn(budget_.limit(), options_);
  while (runs_.size() > fan_in) {
    size_t inputs = std::min(pass_fan_in, runs_.size() - fan_in + 1);
    if (absl::Status s = MergePass(inputs); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<SortedRecords>> SpillSorter::Finish() {
  if (!failure_.ok()) return failure_;
  if (directory_ == nullptr) return absl::FailedPreconditionError("spill sorter: finished twice");
  std::unique_ptr<SortedRecords> out(new SortedRecords());
  if (runs_.empty()) {
    // Everything is in memory: no run to write or read.
    if (buffer_.empty()) {
      out->records_ = std::make_unique<NoRecords>();
    } else {
      buffer_.Sort();
      out->buffer_ = std::move(buffer_);
      out->records_ = out->buffer_.SortedRecords();
    }
  } else {
    if (!buffer_.empty()) {
      if (absl::Status s = WriteBufferedRun(); !s.ok()) return Fail(s);
    }
    buffer_ = RunBuffer();  // the merge's buffers take its place
    if (absl::Status s = MergeUntilFanIn(FinalFanIn(budget_.limit(), options_)); !s.ok()) {
      return Fail(s);
    }
    stats_.final_fan_in = runs_.size();
    absl::StatusOr<std::unique_ptr<RecordSource>> records =
        OpenMerge(std::move(runs_), &out->inflater_);
    runs_.clear();
    if (!records.ok()) {
      out.reset();
      return Fail(records.status());
    }
    out->records_ = *std::move(records);
  }
  out->directory_ = std::move(directory_);
  return out;
}

SortedRecords::~SortedRecords() { Release(); }

void SortedRecords::Release() {
  records_.reset();
  inflater_.reset();
  buffer_ = RunBuffer();
  // An error leaves the directory unlocked for the next sweep.
  if (directory_ != nullptr) (void)directory_->Remove();
  directory_.reset();
}

absl::StatusOr<bool> SortedRecords::Next() {
  if (done_) return false;
  absl::StatusOr<bool> more = records_->Next();
  if (!more.ok() || !*more) {
    done_ = true;
    Release();
  }
  return more;
}

}  // namespace lake::spill
