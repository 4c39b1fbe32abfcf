#include "engine/local/local_object_store.h"

#include <unistd.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "engine/integrity_error.h"
#include "engine/local/local_object_stream.h"
#include "engine/local/local_range_batch.h"
#include "engine/local/local_upload.h"
#include "engine/managed_key.h"
#include "engine/stage_record_name.h"
#include "io/durable_paths.h"
#include "io/errno_status.h"
#include "io/whole_file.h"

namespace lake {
namespace {

absl::StatusOr<std::string> Absolute(const std::string& path) {
  if (path.empty()) return absl::InvalidArgumentError("stage root is empty");
  if (path.front() == '/') return path;
  char cwd[4096];
  if (::getcwd(cwd, sizeof cwd) == nullptr) {
    return io::ErrnoStatus(errno, "getcwd", path);
  }
  return absl::StrCat(cwd, "/", path);
}

}  // namespace

LocalObjectStore::LocalObjectStore(io::FileSystem& fs, LocalStagePaths paths,
                                   std::unique_ptr<io::File> tenant_dir)
    : fs_(fs),
      paths_(std::move(paths)),
      tenant_dir_(std::move(tenant_dir)),
      shards_(fs, paths_.Path(ObjectsPrefix(paths_.tenant()))) {}

absl::StatusOr<std::unique_ptr<LocalObjectStore>> LocalObjectStore::Open(
    io::FileSystem& fs, const std::string& root, const std::string& tenant) {
  absl::StatusOr<std::string> absolute = Absolute(root);
  if (!absolute.ok()) return absolute.status();
  if (absl::Status s = io::CreateDirectoriesDurably(fs, *absolute); !s.ok()) {
    return s;
  }
  absl::StatusOr<std::string> real = fs.RealPath(*absolute);
  if (!real.ok()) return real.status();
  if (*real == "/") {
    return absl::InvalidArgumentError("the file system root cannot be a stage");
  }
  LocalStagePaths paths(*real, tenant);
  for (const std::string& dir :
       {paths.Path(ObjectsPrefix(tenant)), paths.staging_dir()}) {
    if (absl::Status s = io::CreateDirectoriesDurably(fs, dir); !s.ok()) return s;
  }
  absl::StatusOr<std::unique_ptr<io::File>> tenant_dir = fs.OpenDirectory(*real);
  if (!tenant_dir.ok()) return tenant_dir.status();
  if (!tenant.empty()) {
    tenant_dir = fs.OpenDirectoryBeneath(**tenant_dir, paths.tenant_dir());
    if (!tenant_dir.ok()) return tenant_dir.status();
  }
  return std::unique_ptr<LocalObjectStore>(
      new LocalObjectStore(fs, std::move(paths), std::move(*tenant_dir)));
}

absl::StatusOr<StoredObject> LocalObjectStore::Upload(
    UploadSource& source, const UploadOptions& options) {
  absl::StatusOr<std::unique_ptr<LocalUpload>> upload =
      LocalUpload::Start(fs_, paths_, shards_, options);
  if (!upload.ok()) return upload.status();
  if (absl::Status s = (*upload)->WriteAll(source); !s.ok()) return s;
  return (*upload)->Commit();
}

absl::StatusOr<std::unique_ptr<ObjectWriter>> LocalObjectStore::NewWriter(
    const UploadOptions& options) {
  absl::StatusOr<std::unique_ptr<LocalUpload>> upload =
      LocalUpload::Start(fs_, paths_, shards_, options);
  if (!upload.ok()) return upload.status();
  return std::unique_ptr<ObjectWriter>(std::move(*upload));
}

absl::Status LocalObjectStore::CheckContainment(const DataLocation& location) {
  return paths_.CheckContained(location);
}

absl::StatusOr<std::unique_ptr<io::File>> LocalObjectStore::OpenObjectFile(
    const DataLocation& location) {
  absl::StatusOr<std::string> key = paths_.KeyOfLocation(location);
  if (!key.ok()) return key.status();
  absl::StatusOr<std::unique_ptr<io::File>> file =
      fs_.OpenReadBeneath(*tenant_dir_, paths_.KeyBeneathTenantDir(*key));
  // Any other failure, a file we may not read included, is the storage's.
  if (io::IsLeavesRoot(file.status())) return LeadsOutError(location);
  return file;
}

absl::Status LocalObjectStore::LeadsOutError(const DataLocation& location) const {
  return InvalidLocationError(
      absl::StrCat("a symlink takes the location out of ",
                   paths_.tenant().empty() ? "the stage" : "tenant \"" + paths_.tenant() + "\"",
                   ": ", location.uri));
}

absl::StatusOr<uint64_t> LocalObjectStore::StoredSize(const DataLocation& location) {
  absl::StatusOr<std::unique_ptr<io::File>> file = OpenObjectFile(location);
  if (!file.ok()) return file.status();
  absl::StatusOr<io::FileInfo> info = (*file)->Stat();
  if (!info.ok()) return info.status();
  return info->size;
}

absl::StatusOr<std::unique_ptr<ObjectStream>> LocalObjectStore::Open(
    const DataLocation& location, uint64_t start, uint64_t limit) {
  absl::StatusOr<std::unique_ptr<io::File>> file = OpenObjectFile(location);
  if (!file.ok()) return file.status();
  absl::StatusOr<std::unique_ptr<LocalObjectStream>> stream =
      LocalObjectStream::Open(fs_, std::move(*file), start, limit);
  if (!stream.ok()) return stream.status();
  return std::unique_ptr<ObjectStream>(std::move(*stream));
}

void LocalObjectStore::ReadRanges(absl::Span<RangeRead> ranges) {
  ReadLocalRanges(fs_, ranges, [this](const DataLocation& location) {
    return OpenObjectFile(location);
  });
}

absl::StatusOr<bool> LocalObjectStore::ListObjectsDir(
    const std::string& objects_key,
    const std::function<bool(const ListedObject&)>& emit) {
  absl::StatusOr<std::vector<std::string>> shards =
      fs_.ListDirectory(paths_.Path(objects_key));
  if (absl::IsNotFound(shards.status())) return true;
  if (!shards.ok()) return shards.status();
  for (const std::string& shard : *shards) {
    std::string shard_key = absl::StrCat(objects_key, "/", shard);
    absl::StatusOr<std::vector<std::string>> names =
        fs_.ListDirectory(paths_.Path(shard_key));
    if (!names.ok()) return names.status();
    for (const std::string& name : *names) {
      std::string key = absl::StrCat(shard_key, "/", name);
      absl::StatusOr<io::FileInfo> info = fs_.Stat(paths_.Path(key));
      if (absl::IsNotFound(info.status())) continue;  // deleted meanwhile
      if (!info.ok()) return info.status();
      if (!info->is_regular) continue;
      if (!emit(ListedObject{paths_.UriOfKey(key), info->size,
                             info->modified_unix_micros})) {
        return false;
      }
    }
  }
  return true;
}

absl::Status LocalObjectStore::List(
    const std::function<bool(const ListedObject&)>& emit) {
  absl::StatusOr<bool> more = ListObjectsDir(ObjectsPrefix(paths_.tenant()), emit);
  if (!more.ok() || !*more || !paths_.tenant().empty()) return more.status();
  // A stage without a tenant holds every tenant's objects too.
  absl::StatusOr<std::vector<std::string>> tenants =
      fs_.ListDirectory(paths_.Path(kTenantsDir));
  if (absl::IsNotFound(tenants.status())) return absl::OkStatus();
  if (!tenants.ok()) return tenants.status();
  for (const std::string& tenant : *tenants) {
    more = ListObjectsDir(ObjectsPrefix(tenant), emit);
    if (!more.ok() || !*more) return more.status();
  }
  return absl::OkStatus();
}

absl::Status LocalObjectStore::Delete(const DataLocation& location) {
  absl::StatusOr<std::string> key = paths_.KeyOfLocation(location);
  if (!key.ok()) return key.status();
  // The object's directory is resolved beneath the tenant's and the entry
  // removed there (unlinkat), so no symlink in the tree can make a delete
  // remove anything outside it. A contained key has a directory part.
  std::string relative = paths_.KeyBeneathTenantDir(*key);
  size_t slash = relative.rfind('/');
  absl::StatusOr<std::unique_ptr<io::File>> dir =
      fs_.OpenDirectoryBeneath(*tenant_dir_, relative.substr(0, slash));
  if (absl::IsNotFound(dir.status())) return absl::OkStatus();
  if (io::IsLeavesRoot(dir.status())) return LeadsOutError(location);
  if (!dir.ok()) return dir.status();
  absl::Status removed = fs_.RemoveAt(**dir, relative.substr(slash + 1));
  if (absl::IsNotFound(removed)) return absl::OkStatus();
  if (!removed.ok()) return removed;
  if (absl::Status s = (*dir)->Sync(); !s.ok()) return s;
  return (*dir)->Close();
}

absl::StatusOr<uint64_t> LocalObjectStore::CleanStaging() {
  absl::StatusOr<std::vector<std::string>> names =
      fs_.ListDirectory(paths_.staging_dir());
  if (!names.ok()) return names.status();
  uint64_t removed = 0;
  for (const std::string& name : *names) {
    if (!name.ends_with(kStagingSuffix)) continue;
    std::string path = absl::StrCat(paths_.staging_dir(), "/", name);
    absl::StatusOr<std::unique_ptr<io::File>> file = fs_.OpenRead(path);
    if (absl::IsNotFound(file.status())) continue;  // published or cleaned
    if (!file.ok()) return file.status();
    // A live upload holds this lock for its whole life.
    absl::StatusOr<bool> locked = (*file)->TryLockExclusive();
    if (!locked.ok()) return locked.status();
    if (!*locked) continue;
    absl::Status s = fs_.Remove(path);
    if (s.ok()) ++removed;
    else if (!absl::IsNotFound(s)) return s;
  }
  if (removed > 0) {
    if (absl::Status s = io::SyncDirectory(fs_, paths_.staging_dir()); !s.ok()) {
      return s;
    }
  }
  return removed;
}

absl::StatusOr<std::optional<std::string>> LocalObjectStore::ReadStageRecord(
    std::string_view name, size_t max_bytes) {
  if (absl::Status s = CheckStageRecordName(name); !s.ok()) return s;
  absl::StatusOr<std::string> bytes = io::ReadWholeFile(fs_, paths_.Path(name), max_bytes);
  if (absl::IsNotFound(bytes.status())) return std::optional<std::string>();
  if (!bytes.ok()) return bytes.status();
  return std::optional<std::string>(std::move(*bytes));
}

absl::Status LocalObjectStore::CreateStageRecord(std::string_view name, std::string_view bytes) {
  if (absl::Status s = CheckStageRecordName(name); !s.ok()) return s;
  std::string path = paths_.Path(name);
  if (absl::Status s = io::CreateDirectoriesDurably(fs_, io::ParentPath(path)); !s.ok()) {
    return s;
  }
  return io::WriteWholeFileDurably(fs_, path, absl::StrCat(path, ".", NewUuidV7(), ".tmp"),
                                   bytes);
}

absl::StatusOr<std::vector<std::string>> LocalObjectStore::ListStageRecords(
    std::string_view dir) {
  if (absl::Status s = CheckStageRecordName(dir); !s.ok()) return s;
  absl::StatusOr<std::vector<std::string>> names = fs_.ListDirectory(paths_.Path(dir));
  if (absl::IsNotFound(names.status())) return std::vector<std::string>();
  if (!names.ok()) return names.status();
  std::vector<std::string> records;
  for (std::string& name : *names) {
    if (!name.ends_with(".tmp")) records.push_back(std::move(name));  // a crashed create's
  }
  return records;
}

}  // namespace lake
