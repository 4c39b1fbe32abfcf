// A local stage in a scratch directory, on the process's default file
// system (io_uring, or pread/pwrite under LAKE_IO=sync), plus helpers to
// upload and read through it.
#ifndef LAKE_TESTS_SUPPORT_STAGE_FIXTURE_H_
#define LAKE_TESTS_SUPPORT_STAGE_FIXTURE_H_

#include <memory>
#include <string>
#include <vector>

#include "engine/local/local_object_store.h"
#include "engine/managed_stage.h"
#include "tests/support/test_files.h"

namespace lake::testing {

// An UploadSource over bytes in memory, served `max_chunk` at a time.
class MemorySource final : public UploadSource {
 public:
  explicit MemorySource(const std::vector<uint8_t>& bytes, size_t max_chunk = 65536)
      : bytes_(bytes), max_chunk_(max_chunk) {}
  // The source reads the caller's bytes in place: a temporary would dangle.
  explicit MemorySource(std::vector<uint8_t>&& bytes, size_t max_chunk = 65536) = delete;
  absl::StatusOr<size_t> Read(uint8_t* dst, size_t len) override;
  uint64_t delivered() const { return offset_; }

 private:
  const std::vector<uint8_t>& bytes_;
  size_t max_chunk_;
  size_t offset_ = 0;
};

struct StageFixture {
  explicit StageFixture(const std::string& tenant = "");
  // Another stage handle on the same root (e.g. with a different tenant).
  std::unique_ptr<ManagedStage> OpenAnother(const std::string& tenant) const;

  std::string stage_root() const { return dir.Join("stage"); }
  LocalObjectStore& local() { return static_cast<LocalObjectStore&>(stage->store()); }

  absl::StatusOr<DataLocation> UploadBytes(const std::vector<uint8_t>& bytes,
                                           UploadOptions options = {});
  absl::StatusOr<DataLocation> UploadFile(const std::string& path,
                                          UploadOptions options = {});
  // The path on disk of a local location.
  std::string PathOf(const DataLocation& location) const;
  // Staging files currently in .staging.
  std::vector<std::string> StagingFiles() const;
  // Published object keys.
  std::vector<std::string> ObjectFiles() const;

  TempDir dir;
  std::unique_ptr<ManagedStage> stage;
};

// Reads a whole object through a reader; the status of the last read.
absl::Status ReadAll(ObjectReader& reader, std::vector<uint8_t>* out);

}  // namespace lake::testing

#endif  // LAKE_TESTS_SUPPORT_STAGE_FIXTURE_H_
