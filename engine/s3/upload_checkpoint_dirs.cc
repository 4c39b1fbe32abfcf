#include "engine/s3/upload_checkpoint_dirs.h"

#include <unistd.h>

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "engine/managed_key.h"
#include "engine/s3/checkpoint_dir_record_format.h"
#include "engine/s3/upload_checkpoint_store.h"
#include "io/durable_paths.h"
#include "io/whole_file.h"

namespace lake {
namespace {

std::string RecordsDirOf(const std::string& root_dir) {
  return absl::StrCat(root_dir, "/", std::string(kUploadCheckpointDirRecordsDir));
}

absl::StatusOr<std::string> Absolute(const std::string& dir) {
  if (!dir.empty() && dir.front() == '/') return dir;
  char cwd[4096];
  if (::getcwd(cwd, sizeof cwd) == nullptr) {
    return absl::FailedPreconditionError("the working directory cannot be read");
  }
  return absl::StrCat(cwd, "/", dir);
}

}  // namespace

absl::StatusOr<std::string> RecordUploadCheckpointDir(io::FileSystem& fs,
                                                      const std::string& root_dir,
                                                      const std::string& dir) {
  absl::StatusOr<std::string> absolute = Absolute(dir);
  if (!absolute.ok()) return absolute.status();
  if (absl::Status s = io::CreateDirectoriesDurably(fs, *absolute); !s.ok()) return s;
  absl::StatusOr<std::string> real = fs.RealPath(*absolute);
  if (!real.ok()) return real.status();
  absl::StatusOr<std::string> own = fs.RealPath(UploadCheckpointDirOfRoot(root_dir));
  if (own.ok() && *own == *real) return *real;
  absl::StatusOr<EncodedCheckpointDirRecord> record = EncodeCheckpointDirRecord(*real);
  if (!record.ok()) return record.status();
  std::string records = RecordsDirOf(root_dir);
  std::string path = absl::StrCat(records, "/", record->name);
  if (fs.Stat(path).ok()) return *real;
  if (absl::Status s = io::CreateDirectoriesDurably(fs, records); !s.ok()) return s;
  absl::Status written = io::WriteWholeFileDurably(
      fs, path, absl::StrCat(path, ".", NewUuidV7(), ".tmp"), record->bytes);
  if (!written.ok() && !absl::IsAlreadyExists(written)) return written;
  return *real;
}

absl::StatusOr<std::vector<std::string>> UploadCheckpointDirsOfRoot(io::FileSystem& fs,
                                                                    const std::string& root_dir) {
  std::vector<std::string> dirs{UploadCheckpointDirOfRoot(root_dir)};
  std::string records = RecordsDirOf(root_dir);
  absl::StatusOr<std::vector<std::string>> names = fs.ListDirectory(records);
  if (absl::IsNotFound(names.status())) return dirs;
  if (!names.ok()) return names.status();
  std::sort(names->begin(), names->end());
  for (const std::string& name : *names) {
    if (!name.ends_with(kCheckpointDirRecordSuffix)) continue;  // a publication's temporary
    absl::StatusOr<std::string> bytes =
        io::ReadWholeFile(fs, absl::StrCat(records, "/", name), kMaxCheckpointDirRecordBytes);
    if (absl::IsNotFound(bytes.status())) continue;  // removed meanwhile
    if (!bytes.ok()) return bytes.status();
    absl::StatusOr<std::string> dir = DecodeCheckpointDirRecord(name, *bytes);
    if (!dir.ok()) return dir.status();
    if (std::find(dirs.begin(), dirs.end(), *dir) == dirs.end()) dirs.push_back(*dir);
  }
  return dirs;
}

}  // namespace lake
