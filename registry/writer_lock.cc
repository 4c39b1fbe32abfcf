#include "registry/writer_lock.h"

#include <unistd.h>

#include <cstdint>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace lake::registry {
namespace {

// Each round loses only to a concurrent taker or releaser; a handful of
// rounds settles any real contention.
constexpr int kMaxRounds = 100;
constexpr size_t kMaxPidBytes = 32;

// The pid written in the lock file, as text; "unknown" when it cannot be
// read (the holder may not have written it yet).
std::string HolderPid(io::File& file) {
  uint8_t buf[kMaxPidBytes];
  absl::StatusOr<size_t> n = file.PRead(buf, sizeof(buf), 0);
  uint64_t pid = 0;
  if (!n.ok() ||
      !absl::SimpleAtoi(absl::StripAsciiWhitespace(absl::string_view(
                            reinterpret_cast<const char*>(buf), *n)),
                        &pid)) {
    return "unknown";
  }
  return absl::StrCat(pid);
}

absl::Status WritePid(io::File& file) {
  std::string text = absl::StrCat(::getpid(), "\n");
  absl::StatusOr<size_t> n =
      file.PWrite(reinterpret_cast<const uint8_t*>(text.data()), text.size(), 0);
  if (!n.ok()) return n.status();
  if (*n != text.size()) {
    return absl::UnknownError(absl::StrCat("short write of the lock file ", file.path()));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<WriterLock>> WriterLock::Acquire(
    io::FileSystem& fs, const std::string& lock_path, const std::string& what) {
  for (int round = 0; round < kMaxRounds; ++round) {
    bool created = true;
    absl::StatusOr<std::unique_ptr<io::File>> file = fs.CreateNew(lock_path, false);
    if (absl::IsAlreadyExists(file.status())) {
      created = false;
      file = fs.OpenRead(lock_path);
      if (absl::IsNotFound(file.status())) continue;  // released meanwhile
    }
    if (!file.ok()) return file.status();
    absl::StatusOr<bool> locked = (*file)->TryLockExclusive();
    if (!locked.ok()) return locked.status();
    if (!*locked) {
      return absl::AbortedError(absl::StrCat(what, " is open for writing by another process (pid ",
                                             HolderPid(**file), ")"));
    }
    absl::StatusOr<io::FileInfo> info = (*file)->Stat();
    if (!info.ok()) return info.status();
    if (info->link_count == 0) continue;  // its holder removed it on release
    if (!created) {
      // A crashed holder's file: make room for one this taker creates.
      absl::Status removed = fs.Remove(lock_path);
      if (!removed.ok() && !absl::IsNotFound(removed)) return removed;
      continue;
    }
    if (absl::Status s = WritePid(**file); !s.ok()) {
      fs.Remove(lock_path).IgnoreError();
      return s;
    }
    return std::unique_ptr<WriterLock>(new WriterLock(fs, lock_path, std::move(*file)));
  }
  return absl::AbortedError(absl::StrCat("could not take the lock ", lock_path, " for ", what,
                                         " (it kept changing hands)"));
}

WriterLock::~WriterLock() {
  // Removing before unlocking: a taker that opened this file meanwhile
  // finds it unlinked once it gets the lock, and starts again.
  fs_.Remove(path_).IgnoreError();
  file_->Close().IgnoreError();
}

}  // namespace lake::registry
