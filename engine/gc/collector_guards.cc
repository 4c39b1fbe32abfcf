// The stand-in for gc-leases' locks, leases and pins (collector_guards.h).
#include "engine/gc/collector_guards.h"

#include "absl/strings/str_cat.h"
#include "engine/gc/gc_layout.h"
#include "engine/sha256.h"
#include "io/durable_paths.h"

namespace lake::gc {
namespace {

constexpr std::string_view kRunLockFile = "run.lock";
constexpr std::string_view kRefsLockFile = "refs.lock";

class FileHold final : public CollectorHold {
 public:
  explicit FileHold(std::unique_ptr<io::File> file) : file_(std::move(file)) {}

 private:
  std::unique_ptr<io::File> file_;  // the flock goes with the descriptor
};

absl::StatusOr<std::unique_ptr<io::File>> OpenLockFile(io::FileSystem& fs,
                                                       const std::string& root_dir,
                                                       std::string_view name) {
  std::string dir = GcDirOf(root_dir);
  if (absl::Status s = io::CreateDirectoriesDurably(fs, dir); !s.ok()) return s;
  std::string path = absl::StrCat(dir, "/", std::string(name));
  absl::StatusOr<std::unique_ptr<io::File>> created = fs.CreateNew(path, false);
  if (!created.ok() && !absl::IsAlreadyExists(created.status())) return created.status();
  return fs.OpenRead(path);
}

}  // namespace

absl::StatusOr<std::unique_ptr<CollectorHold>> HoldCollectorRun(io::FileSystem& fs,
                                                                const std::string& root_dir,
                                                                bool wait) {
  absl::StatusOr<std::unique_ptr<io::File>> file = OpenLockFile(fs, root_dir, kRunLockFile);
  if (!file.ok()) return file.status();
  if (wait) {
    if (absl::Status s = (*file)->LockExclusive(); !s.ok()) return s;
  } else {
    absl::StatusOr<bool> locked = (*file)->TryLockExclusive();
    if (!locked.ok()) return locked.status();
    if (!*locked) {
      return absl::AlreadyExistsError(absl::StrCat(
          "another garbage collection plan or apply is running on ", root_dir));
    }
  }
  return std::unique_ptr<CollectorHold>(new FileHold(std::move(*file)));
}

absl::StatusOr<std::unique_ptr<CollectorHold>> HoldReferencesForDelete(
    io::FileSystem& fs, const std::string& root_dir) {
  absl::StatusOr<std::unique_ptr<io::File>> file = OpenLockFile(fs, root_dir, kRefsLockFile);
  if (!file.ok()) return file.status();
  if (absl::Status s = (*file)->LockExclusive(); !s.ok()) return s;
  return std::unique_ptr<CollectorHold>(new FileHold(std::move(*file)));
}

absl::Status ForEachLeasedOrPinnedUri(io::FileSystem&, const std::string&, absl::Time, absl::Duration,
                                 const std::function<absl::Status(std::string_view)>&) {
  return absl::OkStatus();  // no leases or pins before gc-leases merges
}

absl::StatusOr<std::string> DigestOfPins(io::FileSystem&, const std::string&) {
  return Sha256Hex("lake pins: none");
}

}  // namespace lake::gc
