#include "engine/table/append_checkpoint_store.h"

#include <algorithm>

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "engine/managed_key.h"
#include "engine/operation_id.h"
#include "io/durable_paths.h"
#include "io/whole_file.h"

namespace lake::table {
namespace {

// The payload of the pending-append error: the operation id (fixed
// length), a newline, then the path.
absl::Status PendingAppendError(const absl::Status& cause, const std::string& operation_id,
                                const std::string& path) {
  absl::Status status = absl::UnavailableError(absl::StrCat(
      "append checkpoint ", operation_id, " is published at ", path,
      " but its directory entry may not be durable (", cause.ToString(),
      "): the append is pending, neither committed nor abandoned"));
  status.SetPayload(std::string(kPendingAppendPayload),
                    absl::Cord(absl::StrCat(operation_id, "\n", path)));
  return status;
}

// The operation id a checkpoint file name holds, if it is one.
std::optional<OperationId> OperationIdOfName(std::string_view name) {
  if (name.size() != kOperationIdLength + kAppendCheckpointSuffix.size() ||
      !name.ends_with(kAppendCheckpointSuffix)) {
    return std::nullopt;
  }
  absl::StatusOr<OperationId> id = ParseOperationId(name.substr(0, kOperationIdLength));
  if (!id.ok()) return std::nullopt;
  return *id;
}

bool IsTemporaryName(std::string_view name) {
  return name.size() > 1 && name[0] == '.' && name.ends_with(kAppendCheckpointTempSuffix);
}

}  // namespace

std::optional<PendingAppendInfo> GetPendingAppend(const absl::Status& status) {
  if (!absl::IsUnavailable(status)) return std::nullopt;
  auto payload = status.GetPayload(std::string(kPendingAppendPayload));
  if (!payload) return std::nullopt;
  std::string text(*payload);
  if (text.size() <= kOperationIdLength + 1 || text[kOperationIdLength] != '\n') {
    return std::nullopt;
  }
  return PendingAppendInfo{text.substr(0, kOperationIdLength),
                           text.substr(kOperationIdLength + 1)};
}

absl::StatusOr<AppendCheckpointStore> AppendCheckpointStore::Open(io::FileSystem& fs,
                                                                  std::string checkpoints_dir) {
  if (absl::Status s = io::CreateDirectoriesDurably(fs, checkpoints_dir); !s.ok()) return s;
  return AppendCheckpointStore(fs, std::move(checkpoints_dir));
}

std::string AppendCheckpointStore::PathOf(std::string_view operation_id) const {
  return absl::StrCat(dir_, "/", std::string(operation_id), std::string(kAppendCheckpointSuffix));
}

absl::StatusOr<std::string> AppendCheckpointStore::Publish(const AppendCheckpoint& checkpoint) {
  // Encoding validates the operation id first, so it is safe in a path.
  absl::StatusOr<std::string> bytes = EncodeAppendCheckpoint(checkpoint);
  if (!bytes.ok()) return bytes.status();
  std::string path = PathOf(checkpoint.operation_id);
  bool published = false;
  absl::Status written = absl::NotFoundError("no spare");
  std::vector<std::string> pending_spares;
  if (std::optional<std::string> spare = TakeSpares(&pending_spares)) {
    written = io::RewriteWholeFileDurably(*fs_, path, *spare, *bytes, &published);
    // A spare that failed half-way is of no further use.
    if (!written.ok() && !published) (void)fs_->Remove(*spare);
  }
  if (absl::IsNotFound(written) && !published) {  // no spare, or it was cleaned away
    std::string temp = absl::StrCat(dir_, "/.", checkpoint.operation_id,
                                    std::string(kAppendCheckpointTempSuffix));
    written = io::WriteWholeFileDurably(*fs_, path, temp, *bytes, &published);
  }
  // The directory sync that published this checkpoint made the earlier
  // spare renames durable too.
  RestoreSpares(std::move(pending_spares), /*now_durable=*/written.ok());
  if (written.ok()) return path;
  if (published) return PendingAppendError(written, checkpoint.operation_id, path);
  return written;
}

absl::StatusOr<PendingCheckpointList> AppendCheckpointStore::List(size_t max_entries,
                                                                  absl::Time now,
                                                                  std::string_view after) const {
  absl::StatusOr<std::vector<std::string>> names = fs_->ListDirectory(dir_);
  if (!names.ok()) return names.status();
  std::vector<OperationId> ids;
  for (const std::string& name : *names) {
    std::optional<OperationId> id = OperationIdOfName(name);
    if (id && id->text() > after) ids.push_back(std::move(*id));
  }
  PendingCheckpointList list;
  if (ids.size() > max_entries) {
    std::nth_element(ids.begin(), ids.begin() + max_entries, ids.end());
    list.more = ids.size() - max_entries;
    ids.erase(ids.begin() + max_entries, ids.end());
  }
  std::sort(ids.begin(), ids.end());
  if (!ids.empty()) list.last_considered = ids.back().text();
  for (const OperationId& id : ids) {
    std::string path = PathOf(id.text());
    absl::StatusOr<io::FileInfo> info = fs_->Stat(path);
    if (absl::IsNotFound(info.status())) continue;  // removed since the listing
    if (!info.ok()) return info.status();
    if (!info->is_regular) continue;
    absl::Time time = OperationIdTime(id);
    list.entries.push_back({id.text(), std::move(path), info->size, time, now - time});
  }
  return list;
}

absl::StatusOr<AppendCheckpoint> AppendCheckpointStore::Load(std::string_view operation_id) const {
  if (absl::Status s = ParseOperationId(operation_id).status(); !s.ok()) return s;
  std::string path = PathOf(operation_id);
  absl::StatusOr<std::string> bytes = io::ReadWholeFile(*fs_, path, kMaxAppendCheckpointBytes);
  if (!bytes.ok()) return bytes.status();
  absl::StatusOr<AppendCheckpoint> checkpoint = DecodeAppendCheckpoint(*bytes);
  if (!checkpoint.ok()) {
    return absl::DataLossError(absl::StrCat(path, ": ", checkpoint.status().message()));
  }
  if (checkpoint->operation_id != operation_id) {
    return absl::DataLossError(absl::StrCat(path, " holds the checkpoint of another operation, ",
                                            checkpoint->operation_id));
  }
  return checkpoint;
}

std::optional<std::string> AppendCheckpointStore::TakeSpares(
    std::vector<std::string>* pending) const {
  absl::MutexLock lock(&spares_->mu);
  pending->swap(spares_->pending);
  if (spares_->durable.empty()) return std::nullopt;
  std::string spare = std::move(spares_->durable.back());
  spares_->durable.pop_back();
  return spare;
}

void AppendCheckpointStore::RestoreSpares(std::vector<std::string> pending,
                                          bool now_durable) const {
  absl::MutexLock lock(&spares_->mu);
  std::vector<std::string>& into = now_durable ? spares_->durable : spares_->pending;
  for (std::string& spare : pending) into.push_back(std::move(spare));
}

absl::Status AppendCheckpointStore::Remove(std::string_view operation_id) const {
  if (absl::Status s = ParseOperationId(operation_id).status(); !s.ok()) return s;
  std::string path = PathOf(operation_id);
  bool keep_spare;
  {
    absl::MutexLock lock(&spares_->mu);
    keep_spare = spares_->durable.size() + spares_->pending.size() < kMaxSpareCheckpoints;
  }
  if (keep_spare) {
    std::string spare =
        absl::StrCat(dir_, "/.spare-", NewUuidV7(), std::string(kAppendCheckpointTempSuffix));
    absl::Status renamed = fs_->RenameNoReplace(path, spare);
    if (absl::IsNotFound(renamed)) return absl::OkStatus();
    if (renamed.ok()) {
      absl::MutexLock lock(&spares_->mu);
      spares_->pending.push_back(std::move(spare));
      return absl::OkStatus();
    }
  }
  absl::Status removed = fs_->Remove(path);
  if (absl::IsNotFound(removed)) return absl::OkStatus();
  return removed;
}

absl::Status AppendCheckpointStore::Withdraw(std::string_view operation_id) const {
  if (absl::Status s = ParseOperationId(operation_id).status(); !s.ok()) return s;
  // Unlinked, not made a spare: a spare's rename would need the same
  // directory sync, and this is the rare path of a failed append.
  absl::Status removed = fs_->Remove(PathOf(operation_id));
  if (!removed.ok() && !absl::IsNotFound(removed)) return removed;
  return io::SyncDirectory(*fs_, dir_);
}

absl::StatusOr<std::string> AppendCheckpointStore::Discard(std::string_view operation_id) const {
  if (absl::Status s = ParseOperationId(operation_id).status(); !s.ok()) return s;
  std::string discarded_dir = absl::StrCat(dir_, "/", std::string(kDiscardedAppendCheckpointsDir));
  if (absl::Status s = io::CreateDirectoriesDurably(*fs_, discarded_dir); !s.ok()) return s;
  const std::string id(operation_id);
  std::string to =
      absl::StrCat(discarded_dir, "/", id, std::string(kAppendCheckpointSuffix));
  absl::Status moved = fs_->RenameNoReplace(PathOf(operation_id), to);
  if (absl::IsNotFound(moved)) {
    return absl::NotFoundError(
        absl::StrCat("no pending append checkpoint ", id, " in ", dir_));
  }
  if (absl::IsAlreadyExists(moved)) {
    return absl::AlreadyExistsError(
        absl::StrCat("append checkpoint ", id, " was discarded before: ", to));
  }
  if (!moved.ok()) return moved;
  // The new name first: a power loss then leaves the checkpoint in one of
  // the two places, never in neither.
  if (absl::Status s = io::SyncDirectory(*fs_, discarded_dir); !s.ok()) return s;
  if (absl::Status s = io::SyncDirectory(*fs_, dir_); !s.ok()) return s;
  return to;
}

absl::StatusOr<uint64_t> AppendCheckpointStore::CleanTemporaryFiles() const {
  {
    absl::MutexLock lock(&spares_->mu);
    spares_->durable.clear();
    spares_->pending.clear();
  }
  absl::StatusOr<std::vector<std::string>> names = fs_->ListDirectory(dir_);
  if (!names.ok()) return names.status();
  uint64_t removed = 0;
  for (const std::string& name : *names) {
    if (!IsTemporaryName(name)) continue;
    absl::Status s = fs_->Remove(absl::StrCat(dir_, "/", name));
    if (absl::IsNotFound(s)) continue;
    if (!s.ok()) return s;
    ++removed;
  }
  return removed;
}

}  // namespace lake::table
