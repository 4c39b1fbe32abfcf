#include "tests/support/stage_fixture.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "engine/file_upload_source.h"
#include "engine/location_uri.h"

namespace lake::testing {

absl::StatusOr<size_t> MemorySource::Read(uint8_t* dst, size_t len) {
  size_t n = std::min({len, max_chunk_, bytes_.size() - offset_});
  if (n > 0) std::memcpy(dst, bytes_.data() + offset_, n);
  offset_ += n;
  return n;
}

StageFixture::StageFixture(const std::string& tenant) {
  stage = OpenAnother(tenant);
}

std::unique_ptr<ManagedStage> StageFixture::OpenAnother(const std::string& tenant) const {
  absl::StatusOr<io::FileSystem*> fs = io::DefaultFileSystem();
  if (!fs.ok()) throw std::runtime_error(fs.status().ToString());
  absl::StatusOr<std::unique_ptr<LocalObjectStore>> store =
      LocalObjectStore::Open(**fs, stage_root(), tenant);
  if (!store.ok()) throw std::runtime_error(store.status().ToString());
  return std::make_unique<ManagedStage>(std::move(*store));
}

absl::StatusOr<DataLocation> StageFixture::UploadBytes(const std::vector<uint8_t>& bytes,
                                                       UploadOptions options) {
  MemorySource source(bytes);
  return stage->Upload(source, options);
}

absl::StatusOr<DataLocation> StageFixture::UploadFile(const std::string& path,
                                                      UploadOptions options) {
  absl::StatusOr<io::FileSystem*> fs = io::DefaultFileSystem();
  if (!fs.ok()) return fs.status();
  absl::StatusOr<std::unique_ptr<FileUploadSource>> source =
      FileUploadSource::Open(**fs, path);
  if (!source.ok()) return source.status();
  return stage->Upload(**source, options);
}

std::string StageFixture::PathOf(const DataLocation& location) const {
  return ParseLocationUri(location.uri)->path;
}

std::vector<std::string> StageFixture::StagingFiles() const {
  return FilesUnder(stage_root() + "/.staging");
}

std::vector<std::string> StageFixture::ObjectFiles() const {
  std::vector<std::string> files = FilesUnder(stage_root());
  std::erase_if(files, [](const std::string& f) { return f.rfind(".staging/", 0) == 0; });
  return files;
}

absl::Status ReadAll(ObjectReader& reader, std::vector<uint8_t>* out) {
  std::vector<uint8_t> buf(70001);
  for (;;) {
    absl::StatusOr<size_t> n = reader.Read(buf.data(), buf.size());
    if (!n.ok()) return n.status();
    if (*n == 0) return absl::OkStatus();
    out->insert(out->end(), buf.begin(), buf.begin() + static_cast<long>(*n));
  }
}

}  // namespace lake::testing
