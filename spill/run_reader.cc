#include "spill/run_reader.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace lake::spill {
namespace {

// A run's damage names the run.
absl::Status WithPath(const absl::Status& status, const std::string& path) {
  return absl::Status(status.code(), absl::StrCat(status.message(), " (", path, ")"));
}

}  // namespace

class RunReader::FileSource final : public RunByteSource {
 public:
  FileSource(std::unique_ptr<io::File> file, uint64_t size)
      : file_(std::move(file)), size_(size) {}

  uint64_t size() const override { return size_; }
  absl::Status ReadAt(uint64_t offset, size_t len, char* dst) override {
    while (len > 0) {
      absl::StatusOr<size_t> n = file_->PRead(reinterpret_cast<uint8_t*>(dst), len, offset);
      if (!n.ok()) return n.status();
      if (*n == 0) {
        return absl::DataLossError(
            absl::StrCat("spill run: ", file_->path(), " ended while it was read (cut short)"));
      }
      dst += *n;
      offset += *n;
      len -= *n;
    }
    return absl::OkStatus();
  }

 private:
  std::unique_ptr<io::File> file_;
  const uint64_t size_;
};

absl::StatusOr<std::unique_ptr<RunReader>> RunReader::Open(io::FileSystem& fs,
                                                           const std::string& path,
                                                           BlockInflater* inflater,
                                                           SpillBudget& budget) {
  absl::StatusOr<std::unique_ptr<io::File>> file = fs.OpenRead(path);
  if (!file.ok()) return file.status();
  absl::StatusOr<io::FileInfo> info = (*file)->Stat();
  if (!info.ok()) return info.status();
  std::unique_ptr<RunReader> reader(new RunReader(path));
  reader->source_ = std::make_unique<FileSource>(*std::move(file), info->size);
  absl::StatusOr<std::unique_ptr<RunDecoder>> decoder =
      RunDecoder::Open(reader->source_.get(), inflater, budget);
  if (!decoder.ok()) return WithPath(decoder.status(), path);
  reader->decoder_ = *std::move(decoder);
  return reader;
}

RunReader::RunReader(std::string path) : path_(std::move(path)) {}
RunReader::~RunReader() = default;

absl::StatusOr<bool> RunReader::Next() {
  absl::StatusOr<bool> more = decoder_->Next();
  if (!more.ok()) return WithPath(more.status(), path_);
  return more;
}

}  // namespace lake::spill
