#include "engine/local/shard_directories.h"

#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "io/durable_paths.h"

namespace lake {

absl::Status ShardDirectories::Ensure() {
  absl::MutexLock lock(&mu_);
  if (ensured_) return absl::OkStatus();
  // One listing, so that processes starting together do not all queue on
  // objects/'s lock with 256 mkdirs each.
  absl::StatusOr<std::vector<std::string>> names = fs_.ListDirectory(objects_dir_);
  if (!names.ok()) return names.status();
  const absl::flat_hash_set<std::string> present(names->begin(), names->end());
  for (int shard = 0; shard < kShardDirectoryCount; ++shard) {
    const std::string name = absl::StrFormat("%02x", shard);
    if (present.contains(name)) continue;
    absl::Status created = fs_.CreateDirectory(absl::StrCat(objects_dir_, "/", name));
    if (!created.ok() && !absl::IsAlreadyExists(created)) return created;
  }
  // One sync names them all durably: those made here, and those another
  // process made and may not have synced yet.
  if (absl::Status s = io::SyncDirectory(fs_, objects_dir_); !s.ok()) return s;
  ensured_ = true;
  return absl::OkStatus();
}

}  // namespace lake
