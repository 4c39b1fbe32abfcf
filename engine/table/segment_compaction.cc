// TableStore::CompactSegments (table_store.h): the rewrite of a table's
// mostly-dead rolled log segments (segment_rewrite.h) as a new version,
// committed through CommitVersionLocked like every other version.
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "base/failpoint.h"
#include "engine/gc/gc_locks.h"
#include "engine/managed_key.h"
#include "engine/table/reference_delta_format.h"
#include "engine/table/segment_rewrite.h"
#include "engine/table/table_log.h"
#include "engine/table/table_store.h"

namespace lake::table {

absl::StatusOr<std::vector<SegmentUse>> TableStore::MeasureRolledSegments(
    const registry::TableRecord& table, const std::vector<uint64_t>& segments) {
  const std::string table_dir = TableDir(table.name);
  absl::StatusOr<std::vector<registry::VersionRecord>> versions =
      registry_.ListVersions(table.table_id);
  if (!versions.ok()) return versions.status();
  absl::StatusOr<std::vector<registry::RetiredVersionRecord>> retired =
      registry_.ListRetiredVersions(table.table_id);
  if (!retired.ok()) return retired.status();
  absl::flat_hash_set<uint64_t> retired_versions;
  for (const registry::RetiredVersionRecord& r : *retired) retired_versions.insert(r.version);
  SegmentLiveBytes live;
  ManifestChainReader reader(fs_, table_dir);  // ascending: each link read once
  for (const registry::VersionRecord& v : *versions) {
    if (retired_versions.contains(v.version) || v.version > table.current_version) continue;
    absl::StatusOr<const ResolvedManifest*> resolved = reader.Resolve(v.version, v.manifest_path);
    if (!resolved.ok()) return resolved.status();
    if (absl::Status s = live.NameVersion(**resolved); !s.ok()) {
      return absl::DataLossError(absl::StrCat("version ", v.version, " of ",
                                              table.name.ToString(), ": ", s.message()));
    }
  }
  std::vector<SegmentUse> uses;
  for (size_t i = 0; i + 1 < segments.size(); ++i) {  // all but the active one
    absl::StatusOr<io::FileInfo> info =
        fs_.Stat(absl::StrCat(table_dir, "/", TableLogSegmentRelativePath(segments[i])));
    if (!info.ok()) return info.status();
    uses.push_back(SegmentUse{segments[i], info->size, live.Of(segments[i])});
  }
  return uses;
}

absl::StatusOr<std::vector<SegmentUse>> TableStore::DescribeSegments(const TableName& name) {
  absl::StatusOr<registry::TableRecord> table = registry_.GetTable(name);
  if (!table.ok()) return table.status();
  absl::StatusOr<std::vector<uint64_t>> segments = ListTableLogSegments(fs_, TableDir(name));
  if (!segments.ok()) return segments.status();
  return MeasureRolledSegments(*table, *segments);
}

absl::StatusOr<std::optional<SegmentCompactionOutcome>> TableStore::CompactSegments(
    const TableName& name) {
  using Outcome = std::optional<SegmentCompactionOutcome>;
  if (registry_.read_only()) {
    return absl::FailedPreconditionError(
        "this root is open read-only: compaction needs the writer");
  }
  // From before the first record is read to the commit, no collection
  // deletes table files.
  absl::StatusOr<gc::GcHold> hold = gc::HoldReferencesShared(fs_, root_dir_);
  if (!hold.ok()) return hold.status();
  const std::string table_dir = TableDir(name);

  // 1. The live bytes of each rolled segment over every retained version,
  // before the commit turn: appends go on meanwhile. A segment rolled
  // since is left for the next run; what is copied is chosen below on the
  // version the commit builds on, so a commit in between only makes the
  // measure older, never the new version wrong.
  absl::StatusOr<registry::TableRecord> measured = registry_.GetTable(name);
  if (!measured.ok()) return measured.status();
  if (measured->current_version == 0) return Outcome();
  absl::StatusOr<std::vector<uint64_t>> segments = ListTableLogSegments(fs_, table_dir);
  if (!segments.ok()) return segments.status();
  if (segments->size() < 2) return Outcome();  // only the active one
  absl::StatusOr<std::vector<SegmentUse>> uses = MeasureRolledSegments(*measured, *segments);
  if (!uses.ok()) return uses.status();
  SegmentCompactionOutcome outcome;
  outcome.table_id = measured->table_id;
  absl::flat_hash_set<uint64_t> mostly_dead;
  for (const SegmentUse& use : *uses) {
    // Nothing live: the collector's already (once the cutoff passes).
    if (use.live_bytes == 0 || !IsMostlyDeadSegment(use.live_bytes, use.file_bytes)) continue;
    mostly_dead.insert(use.segment);
    outcome.rewritten.push_back(use);
  }
  if (mostly_dead.empty()) return Outcome();
  if (absl::Status s = LAKE_FAILPOINT(kSegmentCompactionFailpoints[0]); !s.ok()) return s;

  // One commit at a time across the root's writers: what is copied is
  // chosen on the version the compare-and-set builds on.
  absl::StatusOr<registry::CommitTurn> turn = AwaitQuiescentTurn();
  if (!turn.ok()) return turn.status();
  absl::MutexLock lock(&commit_mu_);
  absl::StatusOr<registry::TableRecord> table = registry_.GetTable(name);
  if (!table.ok()) return table.status();
  if (table->table_id != measured->table_id) {
    return absl::AbortedError(absl::StrCat(name.ToString(), " was dropped and created again"));
  }
  const uint64_t base = table->current_version;
  absl::StatusOr<ResolvedManifest> current = CurrentManifestLocked(*table);
  if (!current.ok()) return current.status();
  absl::StatusOr<std::optional<SegmentRewrite>> rewrite =
      PlanSegmentRewrite(fs_, table_dir, current->manifest, mostly_dead);
  if (!rewrite.ok()) return rewrite.status();
  if (!rewrite->has_value()) return Outcome();  // only older versions name records there
  // Only the segments the current version names a record in are rewritten.
  absl::flat_hash_set<uint64_t> named;  // the segments the current version names a record in
  for (const FragmentRef& f : current->manifest.fragments) {
    for (const std::string* path :
         {&f.path, f.deletion_vector ? &f.deletion_vector->path : nullptr}) {
      if (path == nullptr || !IsTableLogPath(*path)) continue;
      absl::StatusOr<TableLogAddress> address = ParseTableLogAddress(*path);
      if (address.ok()) named.insert(address->segment);
    }
  }
  std::erase_if(outcome.rewritten,
                [&](const SegmentUse& use) { return !named.contains(use.segment); });
  outcome.copied_fragments = (*rewrite)->copied_fragments;
  outcome.copied_vectors = (*rewrite)->copied_vectors;
  outcome.copied_bytes = (*rewrite)->copied_bytes;
  if (absl::Status s = LAKE_FAILPOINT(kSegmentCompactionFailpoints[1]); !s.ok()) return s;

  // 2..3. The copies, an empty reference delta (the same references) and
  // the manifest, then the commit: CommitVersionLocked.
  NewVersion next;
  next.rewrite = &**rewrite;
  next.written_failpoint = kSegmentCompactionFailpoints[2];
  absl::StatusOr<EncodedReferenceDelta> no_references =
      EncodeReferenceDelta(ReferenceDelta{table->table_id, base, base + 1, {}, {}});
  if (!no_references.ok()) return no_references.status();
  next.delta = *std::move(no_references);
  next.operation_id = NewUuidV7();
  absl::StatusOr<registry::TableRecord> committed = CommitVersionLocked(*table, base, next);
  if (!committed.ok()) return committed.status();
  outcome.version = committed->current_version;
  outcome.operation_id = next.operation_id;
  if (absl::Status s = LAKE_FAILPOINT(kSegmentCompactionFailpoints[3]); !s.ok()) return s;
  return Outcome(std::move(outcome));
}

}  // namespace lake::table
