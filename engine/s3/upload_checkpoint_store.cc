#include "engine/s3/upload_checkpoint_store.h"

#include <algorithm>
#include <map>
#include <mutex>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "base/failpoint.h"
#include "engine/gc/lease_store.h"
#include "engine/location_uri.h"
#include "engine/operation_id.h"
#include "engine/s3/upload_checkpoint_dirs.h"
#include "io/durable_paths.h"
#include "io/whole_file.h"

namespace lake {
namespace {

constexpr std::string_view kLockSuffix = ".lock";
constexpr std::string_view kCheckpointSuffix = ".ckpt";
constexpr std::string_view kTempSuffix = ".tmp";

std::string SeqName(std::string_view id, uint64_t seq, std::string_view suffix) {
  return absl::StrFormat("%s.%020d%s", std::string(id), seq, std::string(suffix));
}

// Splits "<id>.<seq>.<ckpt|tmp>" or "<id>.lock"; false for other names.
bool ParseName(std::string_view name, std::string* id, uint64_t* seq, std::string* suffix) {
  std::vector<std::string> parts = absl::StrSplit(std::string(name), '.');
  if (parts.size() == 2 && parts[1] == "lock") {
    *id = parts[0];
    *seq = 0;
    *suffix = std::string(kLockSuffix);
  } else if (parts.size() == 3 && (parts[2] == "ckpt" || parts[2] == "tmp") &&
             parts[1].size() == 20 && absl::SimpleAtoi(parts[1], seq)) {
    *id = parts[0];
    *suffix = "." + parts[2];
  } else {
    return false;
  }
  return ParseOperationId(*id).ok();
}

}  // namespace

std::string UploadCheckpointDirOfRoot(const std::string& root_dir) {
  return absl::StrCat(root_dir, "/", std::string(kUploadCheckpointsDir));
}

absl::Status HeldUploadCheckpoint::Publish(const UploadCheckpoint& checkpoint) {
  if (checkpoint.id != id_) {
    return absl::InvalidArgumentError("a checkpoint is published under its own id only");
  }
  absl::StatusOr<std::string> bytes = EncodeUploadCheckpoint(checkpoint);
  if (!bytes.ok()) return bytes.status();
  uint64_t next = seq_ + 1;
  std::string path = absl::StrCat(dir_, "/", SeqName(id_, next, kCheckpointSuffix));
  std::string temp = absl::StrCat(dir_, "/", SeqName(id_, next, kTempSuffix));
  (void)fs_.Remove(temp);  // a crashed publication's leftover
  if (absl::Status s = io::WriteWholeFileDurably(fs_, path, temp, *bytes); !s.ok()) return s;
  seq_ = next;
  if (absl::Status s = LAKE_FAILPOINT(kUploadCheckpointFailpoints[0]); !s.ok()) return s;
  if (next > 1) {
    absl::Status s = fs_.Remove(absl::StrCat(dir_, "/", SeqName(id_, next - 1, kCheckpointSuffix)));
    if (!s.ok() && !absl::IsNotFound(s)) return s;
  }
  return LAKE_FAILPOINT(kUploadCheckpointFailpoints[1]);
}

absl::Status HeldUploadCheckpoint::Remove() {
  absl::StatusOr<std::vector<std::string>> names = fs_.ListDirectory(dir_);
  if (!names.ok()) return names.status();
  for (const std::string& name : *names) {
    std::string id, suffix;
    uint64_t seq = 0;
    if (!ParseName(name, &id, &seq, &suffix) || id != id_ || suffix == std::string(kLockSuffix)) continue;
    absl::Status s = fs_.Remove(absl::StrCat(dir_, "/", name));
    if (!s.ok() && !absl::IsNotFound(s)) return s;
  }
  if (absl::Status s = io::SyncDirectory(fs_, dir_); !s.ok()) return s;
  absl::Status s = fs_.Remove(absl::StrCat(dir_, "/", id_, std::string(kLockSuffix)));
  if (!s.ok() && !absl::IsNotFound(s)) return s;
  lock_.reset();
  return io::SyncDirectory(fs_, dir_);
}

absl::StatusOr<std::unique_ptr<HeldUploadCheckpoint>> UploadCheckpointStore::Create(
    const UploadCheckpoint& checkpoint) {
  if (absl::Status s = io::CreateDirectoriesDurably(fs_, dir_); !s.ok()) return s;
  absl::StatusOr<std::unique_ptr<io::File>> lock =
      fs_.CreateNew(absl::StrCat(dir_, "/", checkpoint.id, std::string(kLockSuffix)), false);
  if (!lock.ok()) return lock.status();
  absl::StatusOr<bool> locked = (*lock)->TryLockExclusive();
  if (!locked.ok()) return locked.status();
  if (!*locked) return absl::InternalError("a new checkpoint's lock is held by another");
  auto held = std::make_unique<HeldUploadCheckpoint>(fs_, dir_, checkpoint.id, std::move(*lock), 0);
  if (absl::Status s = held->Publish(checkpoint); !s.ok()) {
    (void)held->Remove();
    return s;
  }
  return held;
}

absl::StatusOr<std::optional<std::unique_ptr<HeldUploadCheckpoint>>> UploadCheckpointStore::TryLock(
    std::string_view id) {
  if (!ParseOperationId(id).ok()) {
    return absl::InvalidArgumentError(absl::StrCat("'", std::string(id), "' is not an upload id"));
  }
  absl::StatusOr<std::unique_ptr<io::File>> lock =
      fs_.OpenForRewrite(absl::StrCat(dir_, "/", std::string(id), std::string(kLockSuffix)));
  if (!lock.ok()) {
    if (absl::IsNotFound(lock.status())) {
      return absl::NotFoundError(absl::StrCat("no upload checkpoint ", std::string(id)));
    }
    return lock.status();
  }
  absl::StatusOr<bool> locked = (*lock)->TryLockExclusive();
  if (!locked.ok()) return locked.status();
  if (!*locked) return std::nullopt;
  absl::StatusOr<io::FileInfo> info = (*lock)->Stat();
  if (!info.ok()) return info.status();
  if (info->link_count == 0) return absl::NotFoundError(absl::StrCat("no upload checkpoint ", std::string(id)));
  absl::StatusOr<uint64_t> seq = CurrentSeq(id);
  if (!seq.ok()) return seq.status();
  if (*seq == 0) return absl::NotFoundError(absl::StrCat("upload checkpoint ", std::string(id), " has no record"));
  return std::make_unique<HeldUploadCheckpoint>(fs_, dir_, std::string(id), std::move(*lock), *seq);
}

absl::StatusOr<uint64_t> UploadCheckpointStore::CurrentSeq(std::string_view want) {
  absl::StatusOr<std::vector<std::string>> names = fs_.ListDirectory(dir_);
  if (!names.ok()) {
    if (absl::IsNotFound(names.status())) return uint64_t{0};
    return names.status();
  }
  uint64_t best = 0;
  for (const std::string& name : *names) {
    std::string id, suffix;
    uint64_t seq = 0;
    if (ParseName(name, &id, &seq, &suffix) && id == want && suffix == kCheckpointSuffix) {
      best = std::max(best, seq);
    }
  }
  return best;
}

absl::StatusOr<UploadCheckpoint> UploadCheckpointStore::Load(std::string_view id) {
  absl::StatusOr<uint64_t> seq = CurrentSeq(id);
  if (!seq.ok()) return seq.status();
  if (*seq == 0) return absl::NotFoundError(absl::StrCat("no upload checkpoint ", std::string(id)));
  std::string path = absl::StrCat(dir_, "/", SeqName(id, *seq, kCheckpointSuffix));
  absl::StatusOr<std::string> bytes = io::ReadWholeFile(fs_, path, kMaxUploadCheckpointBytes);
  if (!bytes.ok()) return bytes.status();
  absl::StatusOr<UploadCheckpoint> checkpoint = DecodeUploadCheckpoint(*bytes);
  if (!checkpoint.ok()) {
    return absl::DataLossError(absl::StrCat(path, ": ", std::string(checkpoint.status().message())));
  }
  if (checkpoint->id != id) {
    return absl::DataLossError(absl::StrCat(path, ": it records the id ", checkpoint->id));
  }
  return checkpoint;
}

absl::StatusOr<std::vector<ListedUploadCheckpoint>> UploadCheckpointStore::List(bool probe_locks) {
  absl::StatusOr<std::vector<std::string>> names = fs_.ListDirectory(dir_);
  if (!names.ok()) {
    if (absl::IsNotFound(names.status())) return std::vector<ListedUploadCheckpoint>{};
    return names.status();
  }
  std::map<std::string, bool> ids;  // id → has a checkpoint file
  for (const std::string& name : *names) {
    std::string id, suffix;
    uint64_t seq = 0;
    if (!ParseName(name, &id, &seq, &suffix)) continue;
    ids[id] |= suffix == kCheckpointSuffix;
  }
  std::vector<ListedUploadCheckpoint> out;
  for (const auto& [id, has_checkpoint] : ids) {
    if (!has_checkpoint) continue;  // being created or removed
    ListedUploadCheckpoint listed;
    listed.id = id;
    listed.checkpoint = Load(id);
    if (!listed.checkpoint.ok() && absl::IsNotFound(listed.checkpoint.status())) continue;
    if (probe_locks) {
      absl::StatusOr<std::unique_ptr<io::File>> lock =
          fs_.OpenForRewrite(absl::StrCat(dir_, "/", std::string(id), std::string(kLockSuffix)));
      if (lock.ok()) {
        absl::StatusOr<bool> free = (*lock)->TryLockExclusive();
        listed.locked = free.ok() && !*free;
      }
    }
    out.push_back(std::move(listed));
  }
  return out;
}

bool IsStaleUploadCheckpoint(const UploadCheckpoint& checkpoint, absl::Time now,
                             absl::Duration horizon) {
  return absl::FromUnixMicros(checkpoint.updated_unix_micros) + horizon < now;
}

void RegisterUploadCheckpointKeys() {
  static std::once_flag once;
  std::call_once(once, [] {
    gc::RegisterProtectedUriSource(
        "upload checkpoints",
        [](io::FileSystem& fs, const std::string& root_dir, absl::Time now,
           const std::function<absl::Status(std::string_view)>& emit) -> absl::Status {
          absl::StatusOr<absl::Duration> horizon = AppendOperationRetention();
          if (!horizon.ok()) return horizon.status();
          absl::StatusOr<std::vector<std::string>> dirs = UploadCheckpointDirsOfRoot(fs, root_dir);
          if (!dirs.ok()) return dirs.status();
          for (const std::string& dir : *dirs) {
            UploadCheckpointStore store(fs, dir);
            absl::StatusOr<std::vector<ListedUploadCheckpoint>> listed = store.List(false);
            if (!listed.ok()) return listed.status();
            for (const ListedUploadCheckpoint& entry : *listed) {
              if (!entry.checkpoint.ok()) return entry.checkpoint.status();
              if (IsStaleUploadCheckpoint(*entry.checkpoint, now, *horizon)) continue;
              if (absl::Status s =
                      emit(FormatS3Uri(entry.checkpoint->bucket, entry.checkpoint->key));
                  !s.ok()) {
                return s;
              }
            }
          }
          return absl::OkStatus();
        });
  });
}

}  // namespace lake
