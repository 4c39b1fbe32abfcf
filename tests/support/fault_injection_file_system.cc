#include "tests/support/fault_injection_file_system.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <functional>

#include "absl/strings/str_cat.h"
#include "io/durable_paths.h"
#include "io/posix/inline_io_queue.h"

namespace lake::testing {
namespace {

absl::Status Dead() { return absl::UnknownError("simulated power loss: the machine is off"); }

class FaultFile final : public io::File {
 public:
  FaultFile(FaultInjectionFileSystem& fs, std::unique_ptr<io::File> base,
            uint64_t id, bool directory)
      : fs_(fs), base_(std::move(base)), id_(id), directory_(directory) {}

  io::File& base() const { return *base_; }

  const std::string& path() const override { return base_->path(); }
  int fd() const override { return base_->fd(); }
  bool direct() const override { return base_->direct(); }
  absl::StatusOr<size_t> PRead(uint8_t* buf, size_t len, uint64_t offset) override {
    if (absl::Status s = fs_.CheckAlive(); !s.ok()) return s;
    return base_->PRead(buf, len, offset);
  }
  absl::StatusOr<size_t> PWrite(const uint8_t* buf, size_t len, uint64_t offset) override {
    if (absl::Status s = fs_.CheckAlive(); !s.ok()) return s;
    if (absl::Status s = fs_.BeforeWrite(id_, offset, len); !s.ok()) return s;
    return base_->PWrite(buf, len, offset);
  }
  absl::StatusOr<size_t> PWriteV(absl::Span<const std::string_view> pieces,
                                 uint64_t offset) override {
    if (absl::Status s = fs_.CheckAlive(); !s.ok()) return s;
    size_t len = 0;
    for (std::string_view piece : pieces) len += piece.size();
    if (absl::Status s = fs_.BeforeWrite(id_, offset, len); !s.ok()) return s;
    return base_->PWriteV(pieces, offset);
  }
  absl::StatusOr<size_t> Read(uint8_t* buf, size_t len) override {
    if (absl::Status s = fs_.CheckAlive(); !s.ok()) return s;
    return base_->Read(buf, len);
  }
  absl::Status Sync() override {
    if (absl::Status s = fs_.CheckAlive(); !s.ok()) return s;
    if (directory_) {
      if (absl::Status s = base_->Sync(); !s.ok()) return s;
      fs_.DirectorySynced(fs_.CurrentPath(id_));
      return absl::OkStatus();
    }
    // What the sync covers is what was written before it began.
    const uint64_t mark = fs_.FileSyncBegins();
    absl::StatusOr<io::FileInfo> info = base_->Stat();
    if (!info.ok()) return info.status();
    if (absl::Status s = base_->Sync(); !s.ok()) return s;
    fs_.FileSynced(fs_.CurrentPath(id_), info->size, mark);
    return absl::OkStatus();
  }
  absl::Status Truncate(uint64_t size) override {
    if (absl::Status s = fs_.CheckAlive(); !s.ok()) return s;
    return base_->Truncate(size);
  }
  absl::Status Allocate(uint64_t offset, uint64_t len) override {
    if (absl::Status s = fs_.CheckAlive(); !s.ok()) return s;
    if (!fs_.allocations_fail_partway()) return base_->Allocate(offset, len);
    constexpr uint64_t kLastExtent = 4096;
    if (len > kLastExtent) {
      if (absl::Status s = base_->Allocate(offset, len - kLastExtent); !s.ok()) return s;
    }
    return absl::ResourceExhaustedError("fallocate " + path() +
                                        ": no space left on device (simulated)");
  }
  absl::StatusOr<uint64_t> NextUnwritten(uint64_t offset) override {
    if (absl::Status s = fs_.CheckAlive(); !s.ok()) return s;
    return base_->NextUnwritten(offset);
  }
  absl::StatusOr<io::FileInfo> Stat() override {
    if (absl::Status s = fs_.CheckAlive(); !s.ok()) return s;
    return base_->Stat();
  }
  absl::StatusOr<bool> TryLockExclusive() override {
    if (absl::Status s = fs_.CheckAlive(); !s.ok()) return s;
    return base_->TryLockExclusive();
  }
  absl::Status LockExclusive() override {
    if (absl::Status s = fs_.CheckAlive(); !s.ok()) return s;
    return base_->LockExclusive();
  }
  absl::Status LockShared() override {
    if (absl::Status s = fs_.CheckAlive(); !s.ok()) return s;
    return base_->LockShared();
  }
  absl::Status Close() override { return base_->Close(); }

 private:
  FaultInjectionFileSystem& fs_;
  std::unique_ptr<io::File> base_;
  uint64_t id_;
  bool directory_;
};

}  // namespace

FaultInjectionFileSystem::FaultInjectionFileSystem(io::FileSystem& base,
                                                   std::string backup_dir)
    : base_(base), backup_dir_(std::move(backup_dir)) {}

bool FaultInjectionFileSystem::crashed() const {
  std::lock_guard<std::mutex> lock(mu_);
  return crashed_;
}

void FaultInjectionFileSystem::FailAllocationsPartway() {
  std::lock_guard<std::mutex> lock(mu_);
  allocations_fail_partway_ = true;
}

bool FaultInjectionFileSystem::allocations_fail_partway() const {
  std::lock_guard<std::mutex> lock(mu_);
  return allocations_fail_partway_;
}

absl::Status FaultInjectionFileSystem::CheckAlive() const {
  return crashed() ? Dead() : absl::OkStatus();
}

uint64_t FaultInjectionFileSystem::RegisterFile(const std::string& path) {
  std::lock_guard<std::mutex> lock(mu_);
  uint64_t id = next_file_id_++;
  file_paths_[id] = path;
  return id;
}

std::string FaultInjectionFileSystem::CurrentPath(uint64_t file_id) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = file_paths_.find(file_id);
  return it == file_paths_.end() ? std::string() : it->second;
}

uint64_t FaultInjectionFileSystem::FileSyncBegins() {
  std::lock_guard<std::mutex> lock(mu_);
  return ++next_mark_;
}

void FaultInjectionFileSystem::FileSynced(const std::string& path, uint64_t size,
                                          uint64_t mark) {
  std::lock_guard<std::mutex> lock(mu_);
  uint64_t& latest = synced_marks_[path];
  if (mark < latest) return;
  latest = mark;
  auto it = durable_sizes_.find(path);
  if (it != durable_sizes_.end()) it->second = size;
  rewritten_.erase(path);
  if (auto kept = overwritten_.find(path); kept != overwritten_.end()) {
    std::erase_if(kept->second, [&](const Overwritten& o) { return o.mark < mark; });
    if (kept->second.empty()) overwritten_.erase(kept);
  }
}

absl::Status FaultInjectionFileSystem::BeforeWrite(uint64_t file_id, uint64_t offset,
                                                   size_t len) {
  std::lock_guard<std::mutex> lock(mu_);
  auto path = file_paths_.find(file_id);
  if (path == file_paths_.end()) return absl::OkStatus();
  auto durable = durable_sizes_.find(path->second);
  if (durable == durable_sizes_.end() || offset >= durable->second) return absl::OkStatus();
  // Read through a descriptor of its own: the writer's may be write-only.
  int fd = ::open(path->second.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return absl::UnknownError(absl::StrCat("open ", path->second, " to keep its bytes"));
  std::string synced(static_cast<size_t>(std::min<uint64_t>(len, durable->second - offset)), '\0');
  ssize_t n = ::pread(fd, synced.data(), synced.size(), static_cast<off_t>(offset));
  ::close(fd);
  if (n < 0) return absl::UnknownError(absl::StrCat("read ", path->second, " to keep its bytes"));
  // Shorter when the writer cut the file below its durable size.
  synced.resize(static_cast<size_t>(n));
  overwritten_[path->second].push_back({offset, std::move(synced), next_mark_});
  return absl::OkStatus();
}

void FaultInjectionFileSystem::DirectorySynced(const std::string& dir) {
  std::lock_guard<std::mutex> lock(mu_);
  std::erase_if(pending_, [&](const PendingEntry& entry) {
    bool durable = io::ParentPath(entry.path) == dir;
    if (durable && entry.op == EntryOp::kRemove && !entry.backup.empty()) {
      ::unlink(entry.backup.c_str());
    }
    return durable;
  });
}

namespace {

// Whether page `page` of `path` reached the disk in the torn crash `seed`
// (splitmix64 of the three: a fixed, even choice per page).
bool PageSurvives(uint64_t seed, const std::string& path, uint64_t page) {
  uint64_t x = seed ^ std::hash<std::string>{}(path) ^ (page * 0x9E3779B97F4A7C15ull);
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  x ^= x >> 31;
  return (x & 1) != 0;
}

}  // namespace

void FaultInjectionFileSystem::Crash() { CrashWith(nullptr); }

void FaultInjectionFileSystem::CrashTorn(uint64_t seed) { CrashWith(&seed); }

void FaultInjectionFileSystem::CrashWith(const uint64_t* torn_seed) {
  std::lock_guard<std::mutex> lock(mu_);
  crashed_ = true;
  // Undo what no directory sync made durable, newest first, keeping the
  // durable-size map keyed by where each file ends up.
  for (auto it = pending_.rbegin(); it != pending_.rend(); ++it) {
    switch (it->op) {
      case EntryOp::kCreateFile:
        ::unlink(it->path.c_str());
        durable_sizes_.erase(it->path);
        break;
      case EntryOp::kCreateDirectory: {
        std::error_code ignored;
        std::filesystem::remove_all(it->path, ignored);
        break;
      }
      case EntryOp::kRename:
        if (::rename(it->path.c_str(), it->from.c_str()) == 0) {
          auto node = durable_sizes_.extract(it->path);
          if (!node.empty()) {
            node.key() = it->from;
            durable_sizes_.insert(std::move(node));
          }
          if (rewritten_.erase(it->path) != 0) rewritten_.insert(it->from);
          if (auto moved = overwritten_.extract(it->path); !moved.empty()) {
            moved.key() = it->from;
            overwritten_.insert(std::move(moved));
          }
        }
        break;
      case EntryOp::kRemove:
        if (it->backup.empty()) {
          ::mkdir(it->path.c_str(), 0755);
        } else {
          ::link(it->backup.c_str(), it->path.c_str());
          ::unlink(it->backup.c_str());
        }
        break;
    }
  }
  pending_.clear();
  // Overwritten synced bytes get their content back, newest write first
  // (in a torn crash, only on the pages that did not survive).
  for (const auto& [path, writes] : overwritten_) {
    int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) continue;
    for (auto w = writes.rbegin(); w != writes.rend(); ++w) {
      for (uint64_t at = 0; at < w->synced_bytes.size();) {
        uint64_t offset = w->offset + at;
        uint64_t page = offset / kPageBytes;
        uint64_t n = std::min<uint64_t>(w->synced_bytes.size() - at, (page + 1) * kPageBytes - offset);
        if (torn_seed == nullptr || !PageSurvives(*torn_seed, path, page)) {
          (void)!::pwrite(fd, w->synced_bytes.data() + at, n, static_cast<off_t>(offset));
        }
        at += n;
      }
    }
    ::close(fd);
  }
  overwritten_.clear();
  // A rewrite that no sync made durable leaves nothing to rely on.
  for (const std::string& path : rewritten_) {
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) continue;
    int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) continue;
    std::string junk(static_cast<size_t>(st.st_size), '\xEE');
    (void)!::pwrite(fd, junk.data(), junk.size(), 0);
    ::close(fd);
  }
  rewritten_.clear();
  // Then cut every surviving file back to what its last sync made durable
  // (in a torn crash, to its last page past that which survived, the lost
  // ones before it zeroed).
  for (const auto& [path, size] : durable_sizes_) {
    uint64_t keep = size;
    struct stat st;
    if (torn_seed != nullptr && ::stat(path.c_str(), &st) == 0 &&
        static_cast<uint64_t>(st.st_size) > size) {
      const uint64_t end = static_cast<uint64_t>(st.st_size);
      int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
      for (uint64_t offset = size; fd >= 0 && offset < end;) {
        uint64_t page = offset / kPageBytes;
        uint64_t n = std::min<uint64_t>(end - offset, (page + 1) * kPageBytes - offset);
        if (PageSurvives(*torn_seed, path, page)) {
          keep = offset + n;
        } else {
          std::string zeros(static_cast<size_t>(n), '\0');
          (void)!::pwrite(fd, zeros.data(), zeros.size(), static_cast<off_t>(offset));
        }
        offset += n;
      }
      if (fd >= 0) ::close(fd);
    }
    ::truncate(path.c_str(), static_cast<off_t>(keep));
  }
}

absl::StatusOr<std::unique_ptr<io::File>> FaultInjectionFileSystem::OpenRead(
    const std::string& path) {
  if (absl::Status s = CheckAlive(); !s.ok()) return s;
  absl::StatusOr<std::unique_ptr<io::File>> file = base_.OpenRead(path);
  if (!file.ok()) return file.status();
  return std::unique_ptr<io::File>(
      new FaultFile(*this, std::move(*file), RegisterFile(path), false));
}

absl::StatusOr<std::unique_ptr<io::File>> FaultInjectionFileSystem::OpenReadBeneath(
    const io::File& root, const std::string& relative) {
  if (absl::Status s = CheckAlive(); !s.ok()) return s;
  absl::StatusOr<std::unique_ptr<io::File>> file =
      base_.OpenReadBeneath(static_cast<const FaultFile&>(root).base(), relative);
  if (!file.ok()) return file.status();
  std::string path = (*file)->path();
  return std::unique_ptr<io::File>(
      new FaultFile(*this, std::move(*file), RegisterFile(path), false));
}

absl::StatusOr<std::unique_ptr<io::File>> FaultInjectionFileSystem::OpenDirectoryBeneath(
    const io::File& root, const std::string& relative) {
  if (absl::Status s = CheckAlive(); !s.ok()) return s;
  absl::StatusOr<std::unique_ptr<io::File>> dir =
      base_.OpenDirectoryBeneath(static_cast<const FaultFile&>(root).base(), relative);
  if (!dir.ok()) return dir.status();
  std::string path = (*dir)->path();
  return std::unique_ptr<io::File>(
      new FaultFile(*this, std::move(*dir), RegisterFile(path), true));
}

absl::StatusOr<std::unique_ptr<io::File>> FaultInjectionFileSystem::CreateNew(
    const std::string& path, bool want_direct) {
  if (absl::Status s = CheckAlive(); !s.ok()) return s;
  absl::StatusOr<std::unique_ptr<io::File>> file = base_.CreateNew(path, want_direct);
  if (!file.ok()) return file.status();
  {
    std::lock_guard<std::mutex> lock(mu_);
    durable_sizes_[path] = 0;
    pending_.push_back({EntryOp::kCreateFile, path, "", ""});
  }
  return std::unique_ptr<io::File>(
      new FaultFile(*this, std::move(*file), RegisterFile(path), false));
}

absl::StatusOr<std::unique_ptr<io::File>> FaultInjectionFileSystem::OpenForRewrite(
    const std::string& path) {
  if (absl::Status s = CheckAlive(); !s.ok()) return s;
  absl::StatusOr<std::unique_ptr<io::File>> file = base_.OpenForRewrite(path);
  if (!file.ok()) return file.status();
  absl::StatusOr<io::FileInfo> info = (*file)->Stat();
  if (!info.ok()) return info.status();
  {
    std::lock_guard<std::mutex> lock(mu_);
    durable_sizes_.try_emplace(path, info->size);
    rewritten_.insert(path);
  }
  return std::unique_ptr<io::File>(
      new FaultFile(*this, std::move(*file), RegisterFile(path), false));
}

absl::StatusOr<std::unique_ptr<io::File>> FaultInjectionFileSystem::OpenForAppend(
    const std::string& path) {
  if (absl::Status s = CheckAlive(); !s.ok()) return s;
  absl::StatusOr<std::unique_ptr<io::File>> file = base_.OpenForAppend(path);
  if (!file.ok()) return file.status();
  absl::StatusOr<io::FileInfo> info = (*file)->Stat();
  if (!info.ok()) return info.status();
  {
    std::lock_guard<std::mutex> lock(mu_);
    durable_sizes_.try_emplace(path, info->size);
  }
  return std::unique_ptr<io::File>(
      new FaultFile(*this, std::move(*file), RegisterFile(path), false));
}

absl::StatusOr<std::unique_ptr<io::File>> FaultInjectionFileSystem::OpenDirectory(
    const std::string& path) {
  if (absl::Status s = CheckAlive(); !s.ok()) return s;
  absl::StatusOr<std::unique_ptr<io::File>> dir = base_.OpenDirectory(path);
  if (!dir.ok()) return dir.status();
  return std::unique_ptr<io::File>(
      new FaultFile(*this, std::move(*dir), RegisterFile(path), true));
}

absl::Status FaultInjectionFileSystem::CreateDirectory(const std::string& path) {
  if (absl::Status s = CheckAlive(); !s.ok()) return s;
  absl::Status s = base_.CreateDirectory(path);
  if (s.ok()) {
    std::lock_guard<std::mutex> lock(mu_);
    pending_.push_back({EntryOp::kCreateDirectory, path, "", ""});
  }
  return s;
}

absl::Status FaultInjectionFileSystem::RenameNoReplace(const std::string& from,
                                                       const std::string& to) {
  if (absl::Status s = CheckAlive(); !s.ok()) return s;
  absl::Status s = base_.RenameNoReplace(from, to);
  if (!s.ok()) return s;
  std::lock_guard<std::mutex> lock(mu_);
  pending_.push_back({EntryOp::kRename, to, from, ""});
  auto node = durable_sizes_.extract(from);
  if (!node.empty()) {
    node.key() = to;
    durable_sizes_.insert(std::move(node));
  }
  if (rewritten_.erase(from) != 0) rewritten_.insert(to);
  if (auto moved = overwritten_.extract(from); !moved.empty()) {
    moved.key() = to;
    overwritten_.insert(std::move(moved));
  }
  for (auto& [id, path] : file_paths_) {
    if (path == from) path = to;
  }
  return absl::OkStatus();
}

absl::Status FaultInjectionFileSystem::Remove(const std::string& path) {
  return RemoveKeepingBackup(path, [&] { return base_.Remove(path); });
}

absl::Status FaultInjectionFileSystem::RemoveAt(const io::File& dir, const std::string& name) {
  return RemoveKeepingBackup(dir.path() + "/" + name, [&] {
    return base_.RemoveAt(static_cast<const FaultFile&>(dir).base(), name);
  });
}

absl::Status FaultInjectionFileSystem::RemoveKeepingBackup(
    const std::string& path, const std::function<absl::Status()>& remove) {
  if (absl::Status s = CheckAlive(); !s.ok()) return s;
  std::string backup;
  absl::StatusOr<io::FileInfo> info = base_.Stat(path);
  if (info.ok() && !info->is_directory) {
    std::lock_guard<std::mutex> lock(mu_);
    backup = absl::StrCat(backup_dir_, "/removed-", next_backup_++);
    if (::link(path.c_str(), backup.c_str()) != 0) backup.clear();
  }
  absl::Status s = remove();
  std::lock_guard<std::mutex> lock(mu_);
  if (!s.ok()) {
    if (!backup.empty()) ::unlink(backup.c_str());
    return s;
  }
  pending_.push_back({EntryOp::kRemove, path, "", backup});
  return s;
}

absl::StatusOr<std::vector<std::string>> FaultInjectionFileSystem::ListDirectory(
    const std::string& path) {
  if (absl::Status s = CheckAlive(); !s.ok()) return s;
  return base_.ListDirectory(path);
}

absl::StatusOr<io::FileInfo> FaultInjectionFileSystem::Stat(const std::string& path) {
  if (absl::Status s = CheckAlive(); !s.ok()) return s;
  return base_.Stat(path);
}

absl::StatusOr<std::string> FaultInjectionFileSystem::RealPath(const std::string& path) {
  if (absl::Status s = CheckAlive(); !s.ok()) return s;
  return base_.RealPath(path);
}

absl::StatusOr<std::unique_ptr<io::IoQueue>> FaultInjectionFileSystem::NewIoQueue(
    unsigned depth) {
  if (absl::Status s = CheckAlive(); !s.ok()) return s;
  return std::unique_ptr<io::IoQueue>(new io::InlineIoQueue(depth));
}

}  // namespace lake::testing
