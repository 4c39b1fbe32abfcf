#include "engine/gc/gc_locks.h"

#include <openssl/rand.h>
#include <unistd.h>

#include <cstdlib>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "io/durable_paths.h"
#include "io/whole_file.h"

namespace lake::gc {
namespace {

// A pid as the run lock holds it: decimal text and a newline.
constexpr size_t kMaxPidTextBytes = 32;

std::string LockPath(const std::string& root_dir, std::string_view name) {
  return absl::StrCat(GcDir(root_dir), "/", std::string(name));
}

// Makes sure the lock file exists. Its content is not durable state (see
// the header), so only <root>/gc itself is made durable.
absl::Status CreateLockFile(io::FileSystem& fs, const std::string& root_dir,
                            const std::string& path) {
  if (absl::Status s = io::CreateDirectoriesDurably(fs, GcDir(root_dir)); !s.ok()) return s;
  absl::StatusOr<std::unique_ptr<io::File>> created = fs.CreateNew(path, /*want_direct=*/false);
  if (absl::IsAlreadyExists(created.status())) return absl::OkStatus();
  if (!created.ok()) return created.status();
  return (*created)->Close();
}

// The lock file opened for reading (shared holders) or writing (exclusive
// holders, which write into it), created when missing.
absl::StatusOr<std::unique_ptr<io::File>> OpenLockFile(io::FileSystem& fs,
                                                       const std::string& root_dir,
                                                       std::string_view name, bool for_writing) {
  std::string path = LockPath(root_dir, name);
  auto open = [&] { return for_writing ? fs.OpenForRewrite(path) : fs.OpenRead(path); };
  absl::StatusOr<std::unique_ptr<io::File>> file = open();
  if (!absl::IsNotFound(file.status())) return file;
  if (absl::Status s = CreateLockFile(fs, root_dir, path); !s.ok()) return s;
  return open();
}

uint64_t NewDeletionEpoch() {
  uint64_t epoch = 0;
  if (RAND_bytes(reinterpret_cast<unsigned char*>(&epoch), sizeof epoch) != 1) std::abort();
  return epoch;
}

// The epoch in the first 8 bytes of refs.lock; 0 for a shorter file (no
// exclusive hold has written one yet).
absl::StatusOr<uint64_t> ReadDeletionEpoch(io::File& file) {
  uint64_t epoch = 0;
  size_t total = 0;
  while (total < sizeof epoch) {
    absl::StatusOr<size_t> n =
        file.PRead(reinterpret_cast<uint8_t*>(&epoch) + total, sizeof epoch - total, total);
    if (!n.ok()) return n.status();
    if (*n == 0) return uint64_t{0};
    total += *n;
  }
  return epoch;
}

// Whoever the run lock's file names, for a refusal's message.
std::string RunLockHolder(io::FileSystem& fs, const std::string& root_dir) {
  absl::StatusOr<std::string> text =
      io::ReadWholeFile(fs, LockPath(root_dir, kRunLockName), kMaxPidTextBytes);
  uint64_t pid = 0;
  if (text.ok() && absl::SimpleAtoi(absl::StripAsciiWhitespace(*text), &pid) && pid > 0) {
    return absl::StrCat("process ", pid);
  }
  return "another process";
}

}  // namespace

std::string GcDir(const std::string& root_dir) {
  return absl::StrCat(root_dir, "/", std::string(kGcDir));
}

absl::StatusOr<GcHold> HoldGcRun(io::FileSystem& fs, const std::string& root_dir, bool wait) {
  absl::StatusOr<std::unique_ptr<io::File>> file =
      OpenLockFile(fs, root_dir, kRunLockName, /*for_writing=*/true);
  if (!file.ok()) return file.status();
  if (wait) {
    if (absl::Status s = (*file)->LockExclusive(); !s.ok()) return s;
  } else {
    absl::StatusOr<bool> locked = (*file)->TryLockExclusive();
    if (!locked.ok()) return locked.status();
    if (!*locked) {
      return absl::AlreadyExistsError(absl::StrCat(
          "a garbage collection of ", root_dir, " is running in ", RunLockHolder(fs, root_dir),
          ": one plan or apply per root at a time"));
    }
  }
  // Ours now: name this process for whoever is refused next.
  std::string pid = absl::StrCat(::getpid(), "\n");
  if (absl::Status s = (*file)->Truncate(0); !s.ok()) return s;
  if (absl::Status s = io::WriteFullyAt(**file, pid, 0); !s.ok()) return s;
  return GcHold(std::move(*file), 0);
}

absl::StatusOr<GcHold> HoldReferencesShared(io::FileSystem& fs, const std::string& root_dir) {
  absl::StatusOr<std::unique_ptr<io::File>> file =
      OpenLockFile(fs, root_dir, kReferencesLockName, /*for_writing=*/false);
  if (!file.ok()) return file.status();
  if (absl::Status s = (*file)->LockShared(); !s.ok()) return s;
  absl::StatusOr<uint64_t> epoch = ReadDeletionEpoch(**file);
  if (!epoch.ok()) return epoch.status();
  return GcHold(std::move(*file), *epoch);
}

absl::StatusOr<GcHold> HoldReferencesExclusive(io::FileSystem& fs, const std::string& root_dir) {
  absl::StatusOr<std::unique_ptr<io::File>> file =
      OpenLockFile(fs, root_dir, kReferencesLockName, /*for_writing=*/true);
  if (!file.ok()) return file.status();
  if (absl::Status s = (*file)->LockExclusive(); !s.ok()) return s;
  // Before anything can be deleted under this hold: every remembered size
  // found under an earlier epoch stops counting.
  uint64_t epoch = NewDeletionEpoch();
  if (absl::Status s = io::WriteFullyAt(
          **file, std::string_view(reinterpret_cast<const char*>(&epoch), sizeof epoch), 0);
      !s.ok()) {
    return s;
  }
  return GcHold(std::move(*file), epoch);
}

}  // namespace lake::gc
