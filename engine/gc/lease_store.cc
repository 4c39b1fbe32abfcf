#include "engine/gc/lease_store.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <optional>

#include "absl/strings/str_cat.h"
#include "base/failpoint.h"
#include "engine/gc/gc_locks.h"
#include "engine/gc/lease_file_format.h"
#include "engine/gc/pin_store.h"
#include "engine/location_uri.h"
#include "engine/managed_key.h"
#include "engine/operation_id.h"
#include "engine/sha256.h"
#include "io/durable_paths.h"
#include "io/whole_file.h"

namespace lake::gc {
namespace {

// A new file whose name a racing RemoveDeadLeaseFiles unlinked before we
// locked it is made again under another name, at most this many times.
constexpr int kCreateAttempts = 8;

int64_t NowMicros() { return absl::ToUnixMicros(absl::Now()); }

std::string LeaseFilePath(const std::string& root_dir, std::string_view name) {
  return absl::StrCat(LeasesDir(root_dir), "/", std::string(name));
}

// The lease files of the root, by name (NotFound: none yet).
absl::StatusOr<std::vector<std::string>> ListLeaseFiles(io::FileSystem& fs,
                                                        const std::string& root_dir) {
  absl::StatusOr<std::vector<std::string>> names = fs.ListDirectory(LeasesDir(root_dir));
  if (absl::IsNotFound(names.status())) return std::vector<std::string>();
  if (!names.ok()) return names.status();
  std::vector<std::string> files;
  for (std::string& name : *names) {
    if (name.ends_with(kLeaseFileSuffix)) files.push_back(std::move(name));
  }
  std::sort(files.begin(), files.end());
  return files;
}

// One lease file as a reader sees it: whether its owner lives, and what it
// holds. nullopt when it is gone (its owner removed it: it held nothing).
struct ReadLeaseFile {
  bool owner_alive = false;
  DecodedLeaseFile contents;
};

// Reads `path`. A dead owner's file is returned still locked by `*lock`
// (when not null), so it can be removed before anyone else takes it.
absl::StatusOr<std::optional<ReadLeaseFile>> ReadLeases(
    io::FileSystem& fs, const std::string& path, std::unique_ptr<io::File>* lock = nullptr) {
  absl::StatusOr<std::unique_ptr<io::File>> file = fs.OpenRead(path);
  if (absl::IsNotFound(file.status())) return std::optional<ReadLeaseFile>();
  if (!file.ok()) return file.status();
  // The owner holds this lock for its whole life (another descriptor of
  // this very process included).
  absl::StatusOr<bool> locked = (*file)->TryLockExclusive();
  if (!locked.ok()) return locked.status();
  ReadLeaseFile read;
  read.owner_alive = !*locked;
  absl::StatusOr<std::string> bytes = io::ReadWholeFile(fs, path, kMaxLeaseFileBytes);
  if (absl::IsNotFound(bytes.status())) return std::optional<ReadLeaseFile>();
  if (!bytes.ok()) {
    return absl::Status(bytes.status().code(),
                        absl::StrCat("lease file ", path, ": ", bytes.status().message()));
  }
  absl::StatusOr<DecodedLeaseFile> decoded = DecodeLeaseFile(*bytes);
  if (!decoded.ok()) {
    return absl::DataLossError(absl::StrCat(
        "lease file ", path, ": ", decoded.status().message(),
        read.owner_alive ? ""
                         : "; its process is gone: once its leases would have expired, remove "
                           "the file"));
  }
  read.contents = std::move(*decoded);
  if (lock != nullptr && !read.owner_alive) *lock = std::move(*file);
  return std::optional<ReadLeaseFile>(std::move(read));
}

bool Protects(const ReadLeaseFile& file, const LeaseRecord& record, absl::Time now,
              absl::Duration lease_expiry) {
  if (record.released) return false;
  if (file.owner_alive) return true;
  return now - absl::FromUnixMicros(record.leased_unix_micros) < lease_expiry;
}

struct NamedSource {
  std::string name;
  ProtectedUriSource source;
};

absl::Mutex sources_mu(absl::kConstInit);
std::vector<NamedSource>& RegisteredSources() ABSL_EXCLUSIVE_LOCKS_REQUIRED(sources_mu) {
  static std::vector<NamedSource>* const sources = new std::vector<NamedSource>;
  return *sources;
}

}  // namespace

std::string LeasesDir(const std::string& root_dir) {
  return absl::StrCat(GcDir(root_dir), "/", std::string(kLeasesDir));
}

// One file of this store.
struct LeaseStore::LeaseFile {
  std::string path;
  std::unique_ptr<io::File> file;  // holds the lock
  uint64_t bytes = 0;              // where the next record goes
  uint64_t zeroed_end = 0;         // the file's size: zeros from `bytes` on
  size_t held = 0;                 // leases recorded here, not released
  bool retired = false;            // takes no more records
};

class LeaseStore::HeldLease final : public KeyLease {
 public:
  HeldLease(std::shared_ptr<LeaseStore> store, std::shared_ptr<LeaseFile> file,
            uint64_t state_offset)
      : store_(std::move(store)), file_(std::move(file)), state_offset_(state_offset) {}
  ~HeldLease() override { store_->Release(file_, state_offset_); }

 private:
  std::shared_ptr<LeaseStore> store_;
  std::shared_ptr<LeaseFile> file_;
  uint64_t state_offset_;
};

std::shared_ptr<LeaseStore> LeaseStore::Open(io::FileSystem& fs, std::string root_dir,
                                             uint64_t retire_bytes) {
  return std::shared_ptr<LeaseStore>(new LeaseStore(fs, std::move(root_dir), retire_bytes));
}

LeaseStore::~LeaseStore() {
  // Every lease holds the store: none is held any more.
  absl::MutexLock lock(&mu_);
  if (current_ != nullptr) RemoveFile(*current_);
  for (const std::shared_ptr<LeaseFile>& file : retired_) RemoveFile(*file);
}

std::vector<std::string> LeaseStore::FilePaths() {
  absl::MutexLock lock(&mu_);
  std::vector<std::string> paths;
  for (const std::shared_ptr<LeaseFile>& file : retired_) paths.push_back(file->path);
  if (current_ != nullptr) paths.push_back(current_->path);
  return paths;
}

absl::Status LeaseStore::StartFileLocked() {
  std::string dir = LeasesDir(root_dir_);
  if (absl::Status s = io::CreateDirectoriesDurably(fs_, dir); !s.ok()) return s;
  if (!swept_dead_files_) {
    // Once per store: what dead processes left and no longer protect.
    swept_dead_files_ = true;
    absl::StatusOr<absl::Duration> expiry = AppendOperationRetention();
    absl::StatusOr<uint64_t> removed =
        expiry.ok() ? RemoveDeadLeaseFiles(fs_, root_dir_, absl::Now(), *expiry)
                    : absl::StatusOr<uint64_t>(expiry.status());
    if (!removed.ok()) {
      std::fprintf(stderr, "lake: could not remove dead processes' lease files in %s: %s\n",
                   dir.c_str(), removed.status().ToString().c_str());
    }
  }
  for (int attempt = 0; attempt < kCreateAttempts; ++attempt) {
    auto file = std::make_shared<LeaseFile>();
    file->path = LeaseFilePath(root_dir_, absl::StrCat(NewUuidV7(), std::string(kLeaseFileSuffix)));
    absl::StatusOr<std::unique_ptr<io::File>> created =
        fs_.CreateNew(file->path, /*want_direct=*/false);
    if (!created.ok()) return created.status();
    file->file = std::move(*created);
    if (absl::Status s = file->file->LockExclusive(); !s.ok()) return s;
    // RemoveDeadLeaseFiles may have found it unlocked and empty in the
    // instant before our lock, and removed it: then make another.
    absl::StatusOr<io::FileInfo> info = file->file->Stat();
    if (!info.ok()) return info.status();
    if (info->link_count == 0) continue;
    std::string header = EncodeLeaseFileHeader(static_cast<uint32_t>(::getpid()));
    if (absl::Status s = io::WriteFullyAt(*file->file, header, 0); !s.ok()) {
      RemoveFile(*file);
      return s;
    }
    file->bytes = file->zeroed_end = header.size();
    if (absl::Status s = ZeroAhead(*file, file->bytes); !s.ok()) {
      RemoveFile(*file);
      return s;
    }
    // The name is durable before any lease in it is acknowledged; the
    // header and the zeros become durable with the first lease's sync.
    if (absl::Status s = io::SyncDirectory(fs_, dir); !s.ok()) {
      RemoveFile(*file);
      return s;
    }
    if (absl::Status s = LAKE_FAILPOINT("lease_store.file_created"); !s.ok()) {
      RemoveFile(*file);
      return s;
    }
    current_ = std::move(file);
    return absl::OkStatus();
  }
  return absl::UnavailableError(absl::StrCat(
      "new lease files in ", dir, " keep disappearing: is another process removing them?"));
}

absl::Status LeaseStore::ZeroAhead(LeaseFile& file, uint64_t end) {
  static const std::string* const zeros = new std::string(kLeaseZeroAheadBytes, '\0');
  while (file.zeroed_end < end + kMaxLeaseRecordBytes) {
    if (absl::Status s = io::WriteFullyAt(*file.file, *zeros, file.zeroed_end); !s.ok()) return s;
    file.zeroed_end += zeros->size();
  }
  return absl::OkStatus();
}

void LeaseStore::RetireCurrentLocked() {
  if (current_ == nullptr) return;
  current_->retired = true;
  if (current_->held == 0) {
    RemoveFile(*current_);
  } else {
    retired_.push_back(current_);
  }
  current_.reset();
}

absl::StatusOr<std::unique_ptr<KeyLease>> LeaseStore::Lease(std::string_view uri,
                                                            LeaseDurability durability) {
  if (uri.empty() || uri.size() > kMaxLeaseUriBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("a leased URI is 1..", kMaxLeaseUriBytes, " bytes, not ", uri.size()));
  }
  if (absl::Status s = CheckLocationUri(uri); !s.ok()) return s;
  std::string record = EncodeLeaseRecord(uri, NowMicros());
  std::unique_ptr<KeyLease> lease;
  {
    absl::MutexLock lock(&mu_);
    if (current_ != nullptr && current_->bytes >= retire_bytes_) RetireCurrentLocked();
    if (current_ == nullptr) {
      if (absl::Status s = StartFileLocked(); !s.ok()) return s;
    }
    const uint64_t at = current_->bytes;
    const uint64_t state_offset = at + record.size() - 1;
    absl::Status written = ZeroAhead(*current_, at + record.size());
    if (written.ok()) written = io::WriteFullyAt(*current_->file, record, at);
    if (written.ok()) written = LAKE_FAILPOINT("lease_store.lease_written");
    if (!written.ok()) {
      // Part of a record may be there: the file takes no more (a torn
      // tail stays a tail).
      RetireCurrentLocked();
      return written;
    }
    if (absl::Status synced =
            durability == LeaseDurability::kSynced ? current_->file->Sync() : absl::OkStatus();
        !synced.ok()) {
      // Not acknowledged. After a failed sync the file's state is unknown:
      // mark the record released (best effort) and leave the file.
      (void)io::WriteFullyAt(*current_->file, std::string_view(&kLeaseReleased, 1),
                             state_offset);
      RetireCurrentLocked();
      return synced;
    }
    current_->bytes = at + record.size();
    ++current_->held;
    lease = std::make_unique<HeldLease>(shared_from_this(), current_, state_offset);
  }
  // A failure here releases the durable lease: the caller will not upload.
  if (absl::Status s = LAKE_FAILPOINT("lease_store.lease_synced"); !s.ok()) return s;
  return lease;
}

void LeaseStore::Release(const std::shared_ptr<LeaseFile>& file, uint64_t state_offset) {
  absl::MutexLock lock(&mu_);
  absl::Status released =
      io::WriteFullyAt(*file->file, std::string_view(&kLeaseReleased, 1), state_offset);
  if (released.ok()) released = LAKE_FAILPOINT("lease_store.release_written");
  if (!released.ok()) {
    // The key stays protected while this process lives, and then until
    // the lease expires: only a delay of its collection.
    std::fprintf(stderr, "lake: could not record the release of a lease in %s: %s\n",
                 file->path.c_str(), released.ToString().c_str());
  }
  --file->held;
  if (file->retired && file->held == 0) {
    RemoveFile(*file);
    retired_.erase(std::remove(retired_.begin(), retired_.end(), file), retired_.end());
  }
}

void LeaseStore::RemoveFile(LeaseFile& file) {
  if (file.file == nullptr) return;
  // Unlinked while still locked: no one can take it for a dead process's.
  // Not synced: a removal a power loss undoes leaves a dead process's file
  // whose leases are released (or expire), which the next sweep removes.
  absl::Status removed = fs_.Remove(file.path);
  if (!removed.ok() && !absl::IsNotFound(removed)) {
    // It holds no held lease: once this process is gone it is a dead
    // file with nothing to protect, removed by the next sweep.
    std::fprintf(stderr, "lake: could not remove lease file %s: %s\n", file.path.c_str(),
                 removed.ToString().c_str());
  }
  (void)file.file->Close();
  file.file.reset();
}

absl::StatusOr<uint64_t> RemoveDeadLeaseFiles(io::FileSystem& fs, const std::string& root_dir,
                                              absl::Time now, absl::Duration lease_expiry) {
  absl::StatusOr<std::vector<std::string>> names = ListLeaseFiles(fs, root_dir);
  if (!names.ok()) return names.status();
  uint64_t removed = 0;
  for (const std::string& name : *names) {
    std::string path = LeaseFilePath(root_dir, name);
    std::unique_ptr<io::File> lock;
    absl::StatusOr<std::optional<ReadLeaseFile>> read = ReadLeases(fs, path, &lock);
    if (absl::IsDataLoss(read.status())) continue;  // kept for an operator
    if (!read.ok()) return read.status();
    if (!read->has_value() || (*read)->owner_alive) continue;
    const ReadLeaseFile& file = **read;
    bool protects = std::any_of(
        file.contents.records.begin(), file.contents.records.end(),
        [&](const LeaseRecord& record) { return Protects(file, record, now, lease_expiry); });
    if (protects) continue;
    absl::Status s = fs.Remove(path);  // still locked by us
    if (s.ok()) {
      ++removed;
    } else if (!absl::IsNotFound(s)) {
      return s;
    }
  }
  if (removed > 0) {
    if (absl::Status s = io::SyncDirectory(fs, LeasesDir(root_dir)); !s.ok()) return s;
  }
  return removed;
}

absl::Status ForEachProtectedUri(io::FileSystem& fs, const std::string& root_dir,
                                 absl::Time now, absl::Duration lease_expiry,
                                 const std::function<absl::Status(std::string_view uri)>& visit) {
  std::vector<std::string> uris;
  absl::StatusOr<std::vector<std::string>> names = ListLeaseFiles(fs, root_dir);
  if (!names.ok()) return names.status();
  for (const std::string& name : *names) {
    absl::StatusOr<std::optional<ReadLeaseFile>> read =
        ReadLeases(fs, LeaseFilePath(root_dir, name));
    if (!read.ok()) return read.status();
    if (!read->has_value()) continue;  // removed: it held no lease
    for (const LeaseRecord& record : (*read)->contents.records) {
      if (Protects(**read, record, now, lease_expiry)) uris.push_back(record.uri);
    }
  }
  auto collect = [&](std::string_view uri) {
    uris.emplace_back(uri);
    return absl::OkStatus();
  };
  if (absl::Status s = ForEachPinnedUri(fs, root_dir, collect); !s.ok()) return s;
  std::vector<NamedSource> sources;
  {
    absl::MutexLock lock(&sources_mu);
    sources = RegisteredSources();
  }
  for (const NamedSource& source : sources) {
    absl::Status s = source.source(fs, root_dir, now, collect);
    if (!s.ok()) {
      return absl::Status(s.code(), absl::StrCat(source.name, ": ", s.message()));
    }
  }
  std::sort(uris.begin(), uris.end());
  uris.erase(std::unique(uris.begin(), uris.end()), uris.end());
  for (const std::string& uri : uris) {
    if (absl::Status s = visit(uri); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> PinSetDigest(io::FileSystem& fs, const std::string& root_dir) {
  std::vector<std::string> uris;
  absl::Status listed = ForEachPinnedUri(fs, root_dir, [&](std::string_view uri) {
    uris.emplace_back(uri);
    return absl::OkStatus();
  });
  if (!listed.ok()) return listed;
  std::sort(uris.begin(), uris.end());
  Sha256 digest;
  for (const std::string& uri : uris) {
    uint64_t length = uri.size();  // little-endian on every host lake builds for
    digest.Update(reinterpret_cast<const uint8_t*>(&length), sizeof length);
    digest.Update(reinterpret_cast<const uint8_t*>(uri.data()), uri.size());
  }
  return digest.FinishHex();
}

void RegisterProtectedUriSource(std::string name, ProtectedUriSource source) {
  absl::MutexLock lock(&sources_mu);
  RegisteredSources().push_back(NamedSource{std::move(name), std::move(source)});
}

}  // namespace lake::gc
