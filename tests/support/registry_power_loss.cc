#include "tests/support/registry_power_loss.h"

#include <filesystem>
#include <map>
#include <mutex>
#include <string>

#include "rocksdb/file_system.h"

namespace lake::testing {

// The synced bytes of every file created through the environment, and
// whether the power is lost; its own file system.
class RegistryPowerLoss::Files : public rocksdb::FileSystemWrapper {
 public:
  Files() : FileSystemWrapper(rocksdb::FileSystem::Default()) {}
  const char* Name() const override { return "LakeRegistryPowerLoss"; }

  bool crashed() {
    std::lock_guard<std::mutex> lock(mu_);
    return crashed_;
  }
  void Crash() {
    std::lock_guard<std::mutex> lock(mu_);
    crashed_ = true;
  }
  void Synced(const std::string& path, uint64_t bytes) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!crashed_) synced_[path] = bytes;
  }
  void DropUnsynced() {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [path, bytes] : synced_) {
      std::error_code error;
      if (std::filesystem::exists(path, error)) std::filesystem::resize_file(path, bytes, error);
    }
  }

  rocksdb::IOStatus NewWritableFile(const std::string& path, const rocksdb::FileOptions& options,
                                    std::unique_ptr<rocksdb::FSWritableFile>* file,
                                    rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus DeleteFile(const std::string& path, const rocksdb::IOOptions& options,
                               rocksdb::IODebugContext* dbg) override {
    if (crashed()) return rocksdb::IOStatus::OK();
    rocksdb::IOStatus s = target()->DeleteFile(path, options, dbg);
    std::lock_guard<std::mutex> lock(mu_);
    if (s.ok()) synced_.erase(path);
    return s;
  }
  rocksdb::IOStatus RenameFile(const std::string& from, const std::string& to,
                               const rocksdb::IOOptions& options,
                               rocksdb::IODebugContext* dbg) override {
    if (crashed()) return rocksdb::IOStatus::OK();
    rocksdb::IOStatus s = target()->RenameFile(from, to, options, dbg);
    std::lock_guard<std::mutex> lock(mu_);
    if (s.ok()) {
      auto it = synced_.find(from);
      if (it != synced_.end()) {
        synced_[to] = it->second;
        synced_.erase(from);
      } else {
        synced_.erase(to);  // it stands whole
      }
    }
    return s;
  }

 private:
  std::mutex mu_;
  bool crashed_ = false;
  std::map<std::string, uint64_t> synced_;
};

namespace {

// A file whose syncs are remembered; after the crash, nothing reaches it.
class TrackedFile : public rocksdb::FSWritableFileOwnerWrapper {
 public:
  TrackedFile(std::unique_ptr<rocksdb::FSWritableFile> file, std::string path,
              RegistryPowerLoss::Files& files)
      : FSWritableFileOwnerWrapper(std::move(file)), path_(std::move(path)), files_(files) {}

  rocksdb::IOStatus Append(const rocksdb::Slice& data, const rocksdb::IOOptions& options,
                           rocksdb::IODebugContext* dbg) override {
    if (files_.crashed()) return rocksdb::IOStatus::OK();
    return target()->Append(data, options, dbg);
  }
  rocksdb::IOStatus Append(const rocksdb::Slice& data, const rocksdb::IOOptions& options,
                           const rocksdb::DataVerificationInfo& info,
                           rocksdb::IODebugContext* dbg) override {
    if (files_.crashed()) return rocksdb::IOStatus::OK();
    return target()->Append(data, options, info, dbg);
  }
  rocksdb::IOStatus PositionedAppend(const rocksdb::Slice& data, uint64_t offset,
                                     const rocksdb::IOOptions& options,
                                     rocksdb::IODebugContext* dbg) override {
    if (files_.crashed()) return rocksdb::IOStatus::OK();
    return target()->PositionedAppend(data, offset, options, dbg);
  }
  rocksdb::IOStatus PositionedAppend(const rocksdb::Slice& data, uint64_t offset,
                                     const rocksdb::IOOptions& options,
                                     const rocksdb::DataVerificationInfo& info,
                                     rocksdb::IODebugContext* dbg) override {
    if (files_.crashed()) return rocksdb::IOStatus::OK();
    return target()->PositionedAppend(data, offset, options, info, dbg);
  }
  rocksdb::IOStatus Truncate(uint64_t size, const rocksdb::IOOptions& options,
                             rocksdb::IODebugContext* dbg) override {
    if (files_.crashed()) return rocksdb::IOStatus::OK();
    return target()->Truncate(size, options, dbg);
  }
  rocksdb::IOStatus Flush(const rocksdb::IOOptions& options, rocksdb::IODebugContext* dbg) override {
    if (files_.crashed()) return rocksdb::IOStatus::OK();
    return target()->Flush(options, dbg);
  }
  rocksdb::IOStatus Sync(const rocksdb::IOOptions& options, rocksdb::IODebugContext* dbg) override {
    return Synced(target()->Sync(options, dbg), options);
  }
  rocksdb::IOStatus Fsync(const rocksdb::IOOptions& options, rocksdb::IODebugContext* dbg) override {
    return Synced(target()->Fsync(options, dbg), options);
  }
  rocksdb::IOStatus RangeSync(uint64_t, uint64_t, const rocksdb::IOOptions&,
                              rocksdb::IODebugContext*) override {
    return rocksdb::IOStatus::OK();  // a hint to start writing back: proves nothing
  }

 private:
  rocksdb::IOStatus Synced(rocksdb::IOStatus synced, const rocksdb::IOOptions& options) {
    if (synced.ok()) files_.Synced(path_, target()->GetFileSize(options, nullptr));
    return synced;
  }

  std::string path_;
  RegistryPowerLoss::Files& files_;
};

}  // namespace

rocksdb::IOStatus RegistryPowerLoss::Files::NewWritableFile(
    const std::string& path, const rocksdb::FileOptions& options,
    std::unique_ptr<rocksdb::FSWritableFile>* file, rocksdb::IODebugContext* dbg) {
  rocksdb::IOStatus s = target()->NewWritableFile(path, options, file, dbg);
  if (!s.ok()) return s;
  Synced(path, 0);
  *file = std::make_unique<TrackedFile>(std::move(*file), path, *this);
  return s;
}

RegistryPowerLoss::RegistryPowerLoss()
    : files_(std::make_shared<Files>()), env_(rocksdb::NewCompositeEnv(files_)) {}

RegistryPowerLoss::~RegistryPowerLoss() = default;

rocksdb::Env* RegistryPowerLoss::env() const { return env_.get(); }

void RegistryPowerLoss::Crash() { files_->Crash(); }

void RegistryPowerLoss::DropUnsynced() { files_->DropUnsynced(); }

}  // namespace lake::testing
