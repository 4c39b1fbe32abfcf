#include "spill/run_writer.h"

#include <utility>

#include "io/whole_file.h"

namespace lake::spill {

class RunWriter::FileSink final : public RunByteSink {
 public:
  explicit FileSink(std::unique_ptr<io::File> file) : file_(std::move(file)) {}

  absl::Status Append(absl::Span<const std::string_view> pieces) override {
    if (absl::Status s = io::WriteFullyAt(*file_, pieces, offset_); !s.ok()) return s;
    for (std::string_view p : pieces) offset_ += p.size();
    return absl::OkStatus();
  }
  absl::Status Close() { return file_->Close(); }
  const std::string& path() const { return file_->path(); }
  uint64_t offset() const { return offset_; }

 private:
  std::unique_ptr<io::File> file_;
  uint64_t offset_ = 0;
};

absl::StatusOr<std::unique_ptr<RunWriter>> RunWriter::Create(io::FileSystem& fs,
                                                             const std::string& path,
                                                             SpillBudget& budget,
                                                             size_t block_bytes,
                                                             int zstd_level) {
  absl::StatusOr<std::unique_ptr<io::File>> file = fs.CreateNew(path, /*want_direct=*/false);
  if (!file.ok()) return file.status();
  std::unique_ptr<RunWriter> writer(new RunWriter());
  writer->sink_ = std::make_unique<FileSink>(*std::move(file));
  absl::StatusOr<std::unique_ptr<RunEncoder>> encoder =
      RunEncoder::Create(budget, block_bytes, zstd_level, writer->sink_.get());
  if (!encoder.ok()) return encoder.status();
  writer->encoder_ = *std::move(encoder);
  return writer;
}

RunWriter::RunWriter() = default;
RunWriter::~RunWriter() = default;

absl::StatusOr<RunFile> RunWriter::Finish() {
  absl::StatusOr<RunTrailer> trailer = encoder_->Finish();
  if (!trailer.ok()) return trailer.status();
  if (absl::Status s = sink_->Close(); !s.ok()) return s;
  return RunFile{sink_->path(), trailer->record_count, sink_->offset()};
}

}  // namespace lake::spill
