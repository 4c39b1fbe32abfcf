#include "engine/events/blob_references.h"

#include <algorithm>
#include <optional>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "engine/events/shard_log.h"
#include "engine/table/byte_codec.h"
#include "io/whole_file.h"

namespace lake::events {
namespace {

constexpr std::string_view kRefsSuffix = ".refs";
constexpr size_t kStepDigits = 20;
// One batch's blobs: far fewer than a frame's bytes.
constexpr size_t kMaxDeltaBytes = size_t{64} << 20;

std::string RefsDir(const std::string& shard_dir) {
  return absl::StrCat(shard_dir, "/", std::string(table::kObjectRefsDir));
}

std::optional<uint64_t> ParseStepFileName(std::string_view name) {
  if (name.size() != kStepDigits + kRefsSuffix.size() ||
      name.substr(kStepDigits) != kRefsSuffix ||
      !std::all_of(name.begin(), name.begin() + kStepDigits,
                   [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  uint64_t step = 0;
  if (!absl::SimpleAtoi(absl::string_view(name.data(), kStepDigits), &step) || step == 0) {
    return std::nullopt;
  }
  return step;
}

// The recorded steps of a shard, ascending; DataLoss for a gap.
absl::StatusOr<std::vector<uint64_t>> ListSteps(io::FileSystem& fs, const std::string& shard_dir) {
  absl::StatusOr<std::vector<std::string>> names = fs.ListDirectory(RefsDir(shard_dir));
  if (absl::IsNotFound(names.status())) return std::vector<uint64_t>();
  if (!names.ok()) return names.status();
  std::vector<uint64_t> steps;
  for (const std::string& name : *names) {
    if (std::optional<uint64_t> step = ParseStepFileName(name)) steps.push_back(*step);
  }
  std::sort(steps.begin(), steps.end());
  for (size_t i = 0; i < steps.size(); ++i) {
    if (steps[i] != i + 1) {
      return absl::DataLossError(absl::StrCat("the blob journal of ", shard_dir, " has no step ",
                                              i + 1));
    }
  }
  return steps;
}

}  // namespace

uint64_t ShardJournalId(std::string_view shard_id) { return table::Checksum64(shard_id); }

ShardBlobJournal::ShardBlobJournal(io::FileSystem& fs, std::string shard_dir,
                                   uint64_t journal_id, uint64_t last_step)
    : fs_(fs), shard_dir_(std::move(shard_dir)), journal_id_(journal_id), last_step_(last_step) {}

absl::StatusOr<std::unique_ptr<ShardBlobJournal>> ShardBlobJournal::Open(
    io::FileSystem& fs, std::string shard_dir, std::string_view shard_id) {
  absl::StatusOr<std::vector<uint64_t>> steps = ListSteps(fs, shard_dir);
  if (!steps.ok()) return steps.status();
  uint64_t last = steps->empty() ? 0 : steps->back();
  return std::unique_ptr<ShardBlobJournal>(
      new ShardBlobJournal(fs, std::move(shard_dir), ShardJournalId(shard_id), last));
}

absl::Status ShardBlobJournal::Record(std::vector<DataLocation> locations) {
  if (locations.empty()) return absl::OkStatus();
  absl::MutexLock lock(&mu_);
  table::ReferenceDelta delta;
  delta.table_id = journal_id_;
  delta.parent_version = last_step_;
  delta.child_version = last_step_ + 1;
  delta.added = std::move(locations);
  absl::StatusOr<std::string> digest = table::WriteReferenceDelta(fs_, shard_dir_, delta);
  if (absl::IsAlreadyExists(digest.status())) {
    // Left by a write whose outcome was unknown: that step names nothing
    // acknowledged, and only this writer (holding the shard) writes here.
    if (absl::Status s =
            table::RemoveUncommittedReferenceDelta(fs_, shard_dir_, delta.child_version);
        !s.ok()) {
      return s;
    }
    digest = table::WriteReferenceDelta(fs_, shard_dir_, delta);
  }
  if (!digest.ok()) return digest.status();
  ++last_step_;
  return absl::OkStatus();
}

absl::Status EnumerateShardBlobReferences(io::FileSystem& fs, const std::string& shard_dir,
                                          std::string_view shard_id,
                                          table::ReferenceVisitor visit) {
  absl::StatusOr<std::vector<uint64_t>> steps = ListSteps(fs, shard_dir);
  if (!steps.ok()) return steps.status();
  for (uint64_t step : *steps) {
    std::string path = absl::StrCat(shard_dir, "/", table::ReferenceDeltaRelativePath(step));
    absl::StatusOr<std::string> bytes = io::ReadWholeFile(fs, path, kMaxDeltaBytes);
    if (!bytes.ok()) return bytes.status();
    absl::StatusOr<table::ReferenceDelta> delta = table::DecodeReferenceDelta(*bytes);
    if (!delta.ok()) {
      return absl::DataLossError(absl::StrCat(path, ": ", delta.status().message()));
    }
    if (delta->table_id != ShardJournalId(shard_id) || delta->parent_version != step - 1 ||
        delta->child_version != step) {
      return absl::DataLossError(absl::StrCat(path, " is not step ", step,
                                              " of the blob journal of shard ",
                                              std::string(shard_id)));
    }
    if (absl::Status s = visit(step, delta->added); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status EnumerateEventLogReferences(io::FileSystem& fs, const std::string& shards_dir,
                                         table::ReferenceVisitor visit) {
  absl::StatusOr<std::vector<std::string>> shards = ListShards(fs, shards_dir);
  if (!shards.ok()) return shards.status();
  for (const std::string& id : *shards) {
    if (absl::Status s =
            EnumerateShardBlobReferences(fs, absl::StrCat(shards_dir, "/", id), id, visit);
        !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

}  // namespace lake::events
