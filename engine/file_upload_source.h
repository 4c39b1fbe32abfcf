// An UploadSource reading a path: a regular file is offered to the store
// for positional reads; anything else (a pipe, /dev/stdin) is read in order.
#ifndef LAKE_ENGINE_FILE_UPLOAD_SOURCE_H_
#define LAKE_ENGINE_FILE_UPLOAD_SOURCE_H_

#include <memory>
#include <string>

#include "engine/upload_source.h"
#include "io/file_system.h"

namespace lake {

class FileUploadSource final : public UploadSource {
 public:
  static absl::StatusOr<std::unique_ptr<FileUploadSource>> Open(
      io::FileSystem& fs, const std::string& path);

  absl::StatusOr<size_t> Read(uint8_t* dst, size_t len) override;
  io::File* positional_file() override {
    return regular_ ? file_.get() : nullptr;
  }
  std::optional<uint64_t> size_hint() const override { return size_; }
  const SourceFileIdentity* file_identity() const override {
    return identity_ ? &*identity_ : nullptr;
  }

 private:
  FileUploadSource(std::unique_ptr<io::File> file, bool regular,
                   std::optional<uint64_t> size)
      : file_(std::move(file)), regular_(regular), size_(size) {}

  std::unique_ptr<io::File> file_;
  bool regular_;
  std::optional<uint64_t> size_;
  uint64_t offset_ = 0;
  std::optional<SourceFileIdentity> identity_;
};

}  // namespace lake

#endif  // LAKE_ENGINE_FILE_UPLOAD_SOURCE_H_
