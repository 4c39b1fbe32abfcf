// A spill run read from its file (run_format.h): a RunDecoder over the
// file's bytes.
#ifndef LAKE_SPILL_RUN_READER_H_
#define LAKE_SPILL_RUN_READER_H_

#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "absl/status/statusor.h"
#include "io/file_system.h"
#include "spill/record_source.h"
#include "spill/run_decoder.h"
#include "spill/spill_budget.h"

namespace lake::spill {

class RunReader final : public RecordSource {
 public:
  // Opens the run at `path` and checks its header and trailer (DataLoss
  // for a damaged or cut run). `fs` and `inflater` must outlive the reader.
  // Charges RunDecoder::BudgetBytes of the run's block size.
  static absl::StatusOr<std::unique_ptr<RunReader>> Open(io::FileSystem& fs,
                                                         const std::string& path,
                                                         BlockInflater* inflater,
                                                         SpillBudget& budget);
  ~RunReader() override;

  absl::StatusOr<bool> Next() override;
  std::string_view record() const override { return decoder_->record(); }
  uint64_t records() const { return decoder_->trailer().record_count; }

 private:
  class FileSource;
  explicit RunReader(std::string path);

  const std::string path_;
  std::unique_ptr<FileSource> source_;
  std::unique_ptr<RunDecoder> decoder_;
};

}  // namespace lake::spill

#endif  // LAKE_SPILL_RUN_READER_H_
