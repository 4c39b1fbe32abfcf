#include "engine/gc/root_fingerprint.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "engine/events/experiment_store.h"
#include "engine/events/shard_log.h"
#include "engine/gc/collector_guards.h"
#include "engine/sha256.h"
#include "engine/table/append_checkpoint_store.h"
#include "engine/table/reference_delta_format.h"
#include "engine/table/reference_journal.h"

namespace lake::gc {
namespace {

// Appends a field to a digest's input: its length, then its bytes, so no
// two sequences of fields give the same input.
void Field(std::string* input, std::string_view field) {
  absl::StrAppend(input, field.size(), ":", std::string(field), ";");
}

// The last kTrailerBytes of a delta: its own digest.
absl::StatusOr<std::string> DeltaTrailer(io::FileSystem& fs, const std::string& path) {
  absl::StatusOr<std::unique_ptr<io::File>> file = fs.OpenRead(path);
  if (!file.ok()) return file.status();
  absl::StatusOr<io::FileInfo> info = (*file)->Stat();
  if (!info.ok()) return info.status();
  constexpr size_t kTrailer = table::ReferenceDeltaReader::kTrailerBytes;
  if (info->size < kTrailer) return std::string();
  std::string trailer(kTrailer, '\0');
  absl::StatusOr<size_t> n = (*file)->PRead(reinterpret_cast<uint8_t*>(trailer.data()), kTrailer,
                                            info->size - kTrailer);
  if (!n.ok()) return n.status();
  trailer.resize(*n);
  return trailer;
}

absl::StatusOr<std::string> EventLogsDigest(io::FileSystem& fs, const std::string& root_dir) {
  events::ExperimentStore store(fs, root_dir);
  absl::StatusOr<std::vector<events::ExperimentInfo>> experiments = store.List(std::nullopt);
  if (!experiments.ok()) return experiments.status();
  std::string input;
  for (const events::ExperimentInfo& e : *experiments) {
    Field(&input, "experiment");
    Field(&input, e.pipeline);
    Field(&input, e.experiment);
    std::string shards_dir = store.ShardsDir(e.pipeline, e.experiment);
    absl::StatusOr<std::vector<std::string>> shards = events::ListShards(fs, shards_dir);
    if (!shards.ok()) return shards.status();
    for (const std::string& shard : *shards) {
      Field(&input, "shard");
      Field(&input, shard);
      std::string refs_dir =
          absl::StrCat(shards_dir, "/", shard, "/", std::string(table::kObjectRefsDir));
      absl::StatusOr<std::vector<std::string>> names = fs.ListDirectory(refs_dir);
      if (absl::IsNotFound(names.status())) continue;
      if (!names.ok()) return names.status();
      std::vector<std::string> deltas;
      for (std::string& name : *names) {
        if (name.ends_with(".refs")) deltas.push_back(std::move(name));
      }
      std::sort(deltas.begin(), deltas.end());
      for (const std::string& name : deltas) Field(&input, name);
      if (!deltas.empty()) {
        absl::StatusOr<std::string> trailer = DeltaTrailer(fs, refs_dir + "/" + deltas.back());
        if (!trailer.ok()) return trailer.status();
        Field(&input, *trailer);
      }
    }
  }
  return Sha256Hex(input);
}

absl::StatusOr<std::string> PendingAppendsDigest(io::FileSystem& fs,
                                                 const std::string& root_dir) {
  std::string dir = absl::StrCat(root_dir, "/", std::string(table::kAppendCheckpointsDir));
  std::string input;
  absl::StatusOr<io::FileInfo> present = fs.Stat(dir);
  if (absl::IsNotFound(present.status())) return Sha256Hex(input);
  if (!present.ok()) return present.status();
  absl::StatusOr<table::AppendCheckpointStore> store = table::AppendCheckpointStore::Open(fs, dir);
  if (!store.ok()) return store.status();
  std::string after;
  for (;;) {
    absl::StatusOr<table::PendingCheckpointList> listed =
        store->List(table::kMaxListedAppendCheckpoints, absl::Now(), after);
    if (!listed.ok()) return listed.status();
    for (const table::PendingCheckpointEntry& entry : listed->entries) {
      Field(&input, entry.operation_id);
      Field(&input, absl::StrCat(entry.size_bytes));
    }
    if (listed->more == 0 || listed->last_considered.empty()) break;
    after = listed->last_considered;
  }
  return Sha256Hex(input);
}

}  // namespace

std::string RootFingerprint::DescribeChangeSince(const RootFingerprint& before) const {
  std::vector<std::string> changes;
  if (tables != before.tables) changes.push_back("a table was created or committed");
  if (event_logs != before.event_logs) {
    changes.push_back("an event log recorded blob locations, or an experiment came or went");
  }
  if (pending_appends != before.pending_appends) {
    changes.push_back("the pending append checkpoints changed");
  }
  if (pins != before.pins) changes.push_back("the pin set changed");
  if (changes.empty()) return "nothing changed";
  return absl::StrJoin(changes, "; ");
}

absl::StatusOr<RootFingerprint> ComputeRootFingerprint(io::FileSystem& fs,
                                                       const std::string& root_dir,
                                                       registry::Registry* registry) {
  RootFingerprint f;
  if (registry != nullptr) {
    absl::StatusOr<std::string> tables = registry->Fingerprint();
    if (!tables.ok()) return tables.status();
    f.tables = *tables;
  } else {
    f.tables = Sha256Hex("");  // no registrations: as Registry::Fingerprint of none
  }
  absl::StatusOr<std::string> event_logs = EventLogsDigest(fs, root_dir);
  if (!event_logs.ok()) return event_logs.status();
  f.event_logs = *event_logs;
  absl::StatusOr<std::string> pending = PendingAppendsDigest(fs, root_dir);
  if (!pending.ok()) return pending.status();
  f.pending_appends = *pending;
  absl::StatusOr<std::string> pins = DigestOfPins(fs, root_dir);
  if (!pins.ok()) return pins.status();
  f.pins = *pins;
  std::string input;
  for (const std::string* part :
       {&f.tables, &f.event_logs, &f.pending_appends, &f.pins}) {
    Field(&input, *part);
  }
  f.combined = Sha256Hex(absl::StrCat("lake-root-fingerprint-v1;", input));
  return f;
}

}  // namespace lake::gc
