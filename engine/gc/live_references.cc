#include "engine/gc/live_references.h"

#include <optional>
#include <variant>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "engine/events/blob_references.h"
#include "engine/events/experiment_store.h"
#include "engine/gc/collector_guards.h"
#include "engine/location_uri.h"
#include "engine/table/append_checkpoint_store.h"
#include "engine/table/fragment_format.h"
#include "engine/table/logged_checkpoints.h"
#include "engine/table/manifest_format.h"
#include "engine/table/reference_journal.h"
#include "engine/table/table_log.h"
#include "engine/table/table_store.h"
#include "io/whole_file.h"

namespace lake::gc {
namespace {

constexpr std::string_view kStopped =
    " The collection stopped before writing a plan; nothing was deleted.";

// `status` with what failed and what the operator can do, same code.
absl::Status Explained(const absl::Status& status, std::string_view what,
                       std::string_view remedy) {
  return absl::Status(status.code(), absl::StrCat(std::string(what), ": ", status.message(), ".",
                                                  std::string(kStopped), " ",
                                                  std::string(remedy)));
}

constexpr std::string_view kRestoreRemedy =
    "Restore the file from a backup, or repair the root, then plan again: a collection never "
    "skips what it cannot read.";

// The files of every retained version — and of every version retired at or
// after `released_before`: its manifest, its reference delta and the
// fragments its manifest lists — and the reference base's snapshot. A
// version's manifest includes its chain: every link back to the full list
// it resolves from, retired versions' links too (at most
// kMaxManifestChainLength per version), so every retained version still
// resolves after a collection. A
// version retired before that keeps only its reference delta, and only
// while it is after `deltas_kept_after` (the reference base, or before it
// the oldest version retired too recently: RecentlyReleased reads those);
// its manifest, and the fragments no kept version lists, are the plan's.
absl::Status TableFiles(const GcRoot& root, const std::string& table_dir,
                        const std::string& name,
                        const std::vector<registry::VersionRecord>& versions,
                        const absl::flat_hash_set<uint64_t>& released,
                        const table::RetainedLineage& lineage, uint64_t deltas_kept_after,
                        const LiveReferenceVisitor& visit) {
  // A table path names a file, or a record of the table log (of `kind`:
  // its address says where it is), which keeps its whole segment.
  auto visit_path = [&](const std::string& path, const Referrer& referrer,
                        table::TableLogRecordKind kind) -> absl::Status {
    absl::StatusOr<std::string> file = table::CheckedTableFileOfPath(path);
    if (!file.ok()) {
      return Explained(file.status(),
                       absl::StrCat("table ", name, " version ", referrer.version, " names ", path),
                       kRestoreRemedy);
    }
    std::string uri = FormatFileUri(absl::StrCat(table_dir, "/", *file));
    if (!table::IsTableLogPath(path)) return visit(uri, nullptr, referrer);
    Referrer record = referrer;
    record.table_path = path;
    record.record_kind = kind;
    return visit(uri, nullptr, record);
  };
  uint64_t base = lineage.base.has_value() ? lineage.base->version : 0;
  if (base != 0) {
    if (absl::Status s = visit_path(table::ReferenceSnapshotRelativePath(base),
                                    Referrer{Referrer::Kind::kTableFile, name, base},
                                    table::TableLogRecordKind::kReferenceDelta);  // a file
        !s.ok()) {
      return s;
    }
  }
  absl::flat_hash_set<std::string> previous;  // the fragments of the kept version before
  absl::flat_hash_set<std::string> chain_files;  // the manifests visited
  // Versions resolved in ascending order: each link read once.
  table::ManifestChainReader reader(root.fs, table_dir);
  for (const registry::VersionRecord& version : versions) {
    Referrer referrer{Referrer::Kind::kTableFile, name, version.version};
    bool is_released = released.contains(version.version);
    if (!is_released || version.version > deltas_kept_after) {
      // The delta's file, or the segment of its version's records.
      if (absl::Status s = visit(FormatFileUri(absl::StrCat(
                                     table_dir, "/", table::ReferenceDeltaTableFile(version.version, version.manifest_path))),
                                 nullptr, referrer);
          !s.ok()) {
        return s;
      }
    }
    if (is_released) continue;
    absl::StatusOr<const table::ResolvedManifest*> resolved =
        reader.Resolve(version.version, version.manifest_path);
    if (!resolved.ok()) {
      std::string manifest_path = absl::StrCat(table_dir, "/", version.manifest_path);
      return Explained(absl::IsNotFound(resolved.status())
                           ? absl::DataLossError(resolved.status().message())
                           : resolved.status(),
                       absl::StrCat("table ", name, " version ", version.version, " manifest ",
                                    manifest_path),
                       kRestoreRemedy);
    }
    // Its manifest and every link back to the full list it resolves from,
    // retired versions' among them: a retained version always resolves.
    for (const std::string& file : (*resolved)->chain_files) {
      if (!chain_files.insert(file).second) continue;
      if (absl::Status s = visit_path(file, referrer, table::TableLogRecordKind::kManifest);
          !s.ok()) {
        return s;
      }
    }
    const table::Manifest* manifest = &(*resolved)->manifest;
    absl::flat_hash_set<std::string> current;
    current.reserve(manifest->fragments.size());
    for (const table::FragmentRef& fragment : manifest->fragments) {
      // An append's manifest is its parent's and one more: visit only what
      // is new, so the walk stays linear in the table's fragments. A
      // fragment's deletion vector is a table file of the version too.
      const std::pair<const std::string*, table::TableLogRecordKind> paths[] = {
          {&fragment.path, table::TableLogRecordKind::kFragment},
          {fragment.deletion_vector ? &fragment.deletion_vector->path : nullptr,
           table::TableLogRecordKind::kDeletionVector}};
      for (const auto& [path, kind] : paths) {
        if (path == nullptr) continue;
        if (!previous.contains(*path)) {
          if (absl::Status s = visit_path(*path, referrer, kind); !s.ok()) {
            return s;
          }
        }
        current.insert(*path);
      }
    }
    previous = std::move(current);
  }
  return absl::OkStatus();
}

// What versions retired too recently (at or after the cutoff) but before
// the reference base held, that the walk from the base misses: a
// reference version `oldest` (or a later one before the base) held and
// the base does not was removed by a delta of a version in (oldest, base].
// Those removals are visited, each as held by the version before it; so a
// DELETE's objects stay live until the cutoff has passed since the last
// version holding them was released. Their deltas are kept meanwhile
// (TableFiles).
absl::Status RecentlyReleased(const GcRoot& root, const std::string& name,
                              const std::string& table_dir,
                              const std::vector<registry::VersionRecord>& versions,
                              uint64_t oldest, uint64_t base, const LiveReferenceVisitor& visit) {
  std::vector<table::LineageEdge> edges;
  for (const registry::VersionRecord& v : versions) {
    if (v.version <= oldest || v.version > base) continue;
    edges.push_back(table::LineageEdge{v.parent_version, v.version, v.reference_delta_sha256,
                                       v.manifest_path});
  }
  absl::Status walked = table::EnumerateReferenceChanges(
      root.fs, table_dir, edges,
      [&](uint64_t version, const std::vector<DataLocation>& chunk, bool removed) -> absl::Status {
        if (!removed) return absl::OkStatus();
        Referrer referrer{Referrer::Kind::kTable, name, version - 1};
        for (const DataLocation& location : chunk) {
          if (absl::Status s = visit(location.uri, &location, referrer); !s.ok()) return s;
        }
        return absl::OkStatus();
      });
  if (!walked.ok()) {
    return Explained(walked, absl::StrCat("the references released recently by table ", name),
                     kRestoreRemedy);
  }
  return absl::OkStatus();
}

// One table's references and files: `versions` replayed through the
// reference journal from `table_dir`, checked against `current_version`;
// the files of versions retired before `released_before` are left out.
absl::Status Table(const GcRoot& root, const std::string& name, const std::string& table_dir,
                   uint64_t table_id, uint64_t current_version,
                   const std::vector<registry::VersionRecord>& versions,
                   absl::Time released_before, const LiveReferenceVisitor& visit) {
  if (versions.size() != current_version ||
      (!versions.empty() && versions.back().version != current_version)) {
    return Explained(absl::DataLossError(absl::StrCat("the registry holds ", versions.size(),
                                                      " version records for current version ",
                                                      current_version)),
                     absl::StrCat("table ", name), kRestoreRemedy);
  }
  absl::StatusOr<table::RetainedLineage> lineage =
      table::ReadRetainedLineage(*root.registry, table_id, versions);
  if (!lineage.ok()) {
    return Explained(lineage.status(), absl::StrCat("the reference base of table ", name),
                     kRestoreRemedy);
  }
  absl::Status walked = table::EnumerateLineage(
      root.fs, table_dir, *lineage,
      [&](uint64_t version, const std::vector<DataLocation>& chunk) -> absl::Status {
        Referrer referrer{Referrer::Kind::kTable, name, version};
        for (const DataLocation& location : chunk) {
          if (absl::Status s = visit(location.uri, &location, referrer); !s.ok()) return s;
        }
        return absl::OkStatus();
      });
  if (!walked.ok()) {
    return Explained(walked, absl::StrCat("the references of table ", name), kRestoreRemedy);
  }
  absl::StatusOr<std::vector<registry::RetiredVersionRecord>> retired =
      root.registry->ListRetiredVersions(table_id);
  if (!retired.ok()) {
    return Explained(retired.status(), absl::StrCat("the retired versions of table ", name),
                     kRestoreRemedy);
  }
  absl::flat_hash_set<uint64_t> released;
  uint64_t base = lineage->base.has_value() ? lineage->base->version : 0;
  std::optional<uint64_t> oldest_recent;  // retired before the base, at or after the cutoff
  for (const registry::RetiredVersionRecord& r : *retired) {
    if (absl::FromUnixMicros(r.retired_unix_micros) < released_before) {
      released.insert(r.version);
    } else if (r.version < base && (!oldest_recent || r.version < *oldest_recent)) {
      oldest_recent = r.version;
    }
  }
  if (oldest_recent) {
    if (absl::Status s = RecentlyReleased(root, name, table_dir, versions, *oldest_recent, base,
                                          visit);
        !s.ok()) {
      return s;
    }
  }
  return TableFiles(root, table_dir, name, versions, released, *lineage,
                    oldest_recent.value_or(base), visit);
}

absl::Status Tables(const GcRoot& root, absl::Time released_before,
                    const LiveReferenceVisitor& visit, LiveWalkPart part) {
  if (root.registry == nullptr) return absl::OkStatus();
  absl::StatusOr<std::vector<registry::TableRecord>> tables = root.registry->ListTables();
  if (!tables.ok()) return Explained(tables.status(), "the registry's tables", kRestoreRemedy);
  for (size_t i = 0; i < tables->size(); ++i) {
    if (i % part.count != part.index) continue;
    const registry::TableRecord& table = (*tables)[i];
    std::string name = table.name.ToString();
    absl::StatusOr<std::vector<registry::VersionRecord>> versions =
        root.registry->ListVersions(table.table_id);
    if (!versions.ok()) {
      return Explained(versions.status(), absl::StrCat("the versions of table ", name),
                       kRestoreRemedy);
    }
    if (absl::Status s = Table(root, name, table::TableDirectory(root.root_dir, table.name),
                               table.table_id, table.current_version, *versions, released_before,
                               visit);
        !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

// Tables dropped at or after `released_before`: what they referenced stays
// live until the cutoff has passed since the drop's commit, whatever the
// objects' age, and so do their files.
absl::Status DroppedTables(const GcRoot& root, absl::Time released_before,
                           const LiveReferenceVisitor& visit) {
  if (root.registry == nullptr) return absl::OkStatus();
  absl::StatusOr<std::vector<registry::DroppedTableRecord>> dropped =
      root.registry->ListDroppedTables();
  if (!dropped.ok()) return Explained(dropped.status(), "the registry's dropped tables", kRestoreRemedy);
  for (const registry::DroppedTableRecord& d : *dropped) {
    if (absl::FromUnixMicros(d.dropped_unix_micros) < released_before) continue;
    std::string name = absl::StrCat(d.table.name.ToString(), " (dropped, id ", d.table.table_id, ")");
    absl::StatusOr<std::vector<registry::VersionRecord>> versions =
        root.registry->ListDroppedTableVersions(d.table.table_id);
    if (!versions.ok()) {
      return Explained(versions.status(), absl::StrCat("the versions of table ", name),
                       kRestoreRemedy);
    }
    absl::StatusOr<std::string> dir = table::LocateDroppedTableDirectory(root.fs, root.root_dir, d);
    if (!dir.ok()) return Explained(dir.status(), absl::StrCat("table ", name), kRestoreRemedy);
    if (absl::Status s = Table(root, name, *dir, d.table.table_id, d.table.current_version,
                               *versions, released_before, visit);
        !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

absl::Status EventLogs(const GcRoot& root, const LiveReferenceVisitor& visit) {
  events::ExperimentStore store(root.fs, root.root_dir);
  absl::StatusOr<std::vector<events::ExperimentInfo>> experiments = store.List(std::nullopt);
  if (!experiments.ok()) {
    return Explained(experiments.status(), "the experiments of the root's event logs",
                     kRestoreRemedy);
  }
  for (const events::ExperimentInfo& e : *experiments) {
    std::string name = absl::StrCat(e.pipeline, "/", e.experiment);
    absl::Status walked = events::EnumerateEventLogReferences(
        root.fs, store.ShardsDir(e.pipeline, e.experiment),
        [&](uint64_t step, const std::vector<DataLocation>& chunk) -> absl::Status {
          Referrer referrer{Referrer::Kind::kEventLog, name, step};
          for (const DataLocation& location : chunk) {
            if (absl::Status s = visit(location.uri, &location, referrer); !s.ok()) return s;
          }
          return absl::OkStatus();
        });
    if (!walked.ok()) {
      return Explained(walked, absl::StrCat("the blob references of event log ", name),
                       kRestoreRemedy);
    }
  }
  return absl::OkStatus();
}

// The FILE cells of one checkpoint's batch.
absl::Status CheckpointLocations(const table::AppendCheckpoint& checkpoint,
                                 const LiveReferenceVisitor& visit) {
  absl::StatusOr<table::FragmentSummary> summary = table::SummarizeFragment(checkpoint.batch);
  if (!summary.ok()) return summary.status();
  absl::StatusOr<table::ColumnBatch> batch =
      table::DecodeFragment(checkpoint.batch, summary->schema, table::FragmentCheck::kFull);
  if (!batch.ok()) return batch.status();
  Referrer referrer{Referrer::Kind::kPendingAppend, checkpoint.operation_id, 0};
  for (size_t c = 0; c < batch->columns.size(); ++c) {
    if (batch->columns[c].type != table::ColumnType::kFile) continue;
    for (size_t row = 0; row < batch->num_rows; ++row) {
      if (batch->columns[c].IsNull(row)) continue;
      DataLocation location = std::get<DataLocation>(batch->Cell(row, c));
      if (absl::Status s = visit(location.uri, &location, referrer); !s.ok()) return s;
    }
  }
  return absl::OkStatus();
}

// The checkpoint records past each table's committed watermark that no
// withdrawal record there withdraws (logged_checkpoints.h): the segment
// holding each stays (a table file; a version 2 record's batch is the
// fragment record it names, which its decoder requires in the same
// segment), and the FILE cells of its batch are live. Whether its operation committed is not asked: a committed one
// still past the watermark (a crash between a commit and the next) only
// keeps what its version keeps anyway. The watermark is read before the
// log: a commit in between only moves it on, over records the walk sees.
absl::Status LoggedPendingAppends(const GcRoot& root, const LiveReferenceVisitor& visit) {
  if (root.registry == nullptr) return absl::OkStatus();
  absl::StatusOr<std::vector<registry::TableRecord>> tables = root.registry->ListTables();
  if (!tables.ok()) return Explained(tables.status(), "the registry's tables", kRestoreRemedy);
  for (const registry::TableRecord& table : *tables) {
    const std::string name = table.name.ToString();
    const std::string table_dir = table::TableDirectory(root.root_dir, table.name);
    absl::StatusOr<std::vector<table::LoggedCheckpoint>> pending = table::UnwithdrawnCheckpoints(
        root.fs, table_dir, table::CommittedLogWatermark(table.manifest_path));
    if (!pending.ok()) {
      return Explained(pending.status(), absl::StrCat("the table log of ", name), kRestoreRemedy);
    }
    for (const table::LoggedCheckpoint& c : *pending) {
      Referrer referrer{Referrer::Kind::kTableFile, name, c.version};
      std::string segment = table::TableLogSegmentRelativePath(c.address.segment);
      if (absl::Status s =
              visit(FormatFileUri(absl::StrCat(table_dir, "/", segment)), nullptr, referrer);
          !s.ok()) {
        return s;
      }
      absl::Status s = c.checkpoint.ok() ? CheckpointLocations(*c.checkpoint, visit)
                                         : c.checkpoint.status();
      if (!s.ok()) {
        std::string path = table::LoggedCheckpointPath(table_dir, c.address);
        return Explained(
            s, absl::StrCat("pending append checkpoint record ", path),
            absl::StrCat("Settle it with `lake recover`, or set it aside with `lake recover "
                         "--discard <operation id>`, then plan again."));
      }
    }
  }
  return absl::OkStatus();
}

absl::Status PendingAppends(const GcRoot& root, const LiveReferenceVisitor& visit) {
  if (absl::Status s = LoggedPendingAppends(root, visit); !s.ok()) return s;
  std::string dir = absl::StrCat(root.root_dir, "/", std::string(table::kAppendCheckpointsDir));
  absl::StatusOr<io::FileInfo> present = root.fs.Stat(dir);
  if (absl::IsNotFound(present.status())) return absl::OkStatus();
  if (!present.ok()) return present.status();
  absl::StatusOr<table::AppendCheckpointStore> store =
      table::AppendCheckpointStore::Open(root.fs, dir);
  if (!store.ok()) return store.status();
  std::string after;
  for (;;) {
    absl::StatusOr<table::PendingCheckpointList> listed =
        store->List(table::kMaxListedAppendCheckpoints, absl::Now(), after);
    if (!listed.ok()) {
      return Explained(listed.status(), "the pending append checkpoints", kRestoreRemedy);
    }
    for (const table::PendingCheckpointEntry& entry : listed->entries) {
      absl::StatusOr<table::AppendCheckpoint> checkpoint = store->Load(entry.operation_id);
      if (absl::IsNotFound(checkpoint.status())) continue;  // settled since it was listed
      absl::Status s = checkpoint.ok() ? CheckpointLocations(*checkpoint, visit)
                                       : checkpoint.status();
      if (!s.ok()) {
        return Explained(
            s, absl::StrCat("pending append checkpoint ", entry.operation_id),
            absl::StrCat("Settle it with `lake recover`, or set it aside (kept) with `lake "
                         "recover --discard ",
                         entry.operation_id, "`, then plan again."));
      }
    }
    if (listed->more == 0 || listed->last_considered.empty()) return absl::OkStatus();
    after = listed->last_considered;
  }
}

}  // namespace

std::string DescribeReferrer(const Referrer& r) {
  switch (r.kind) {
    case Referrer::Kind::kTable:
      return absl::StrCat("table ", r.name, " version ", r.version);
    case Referrer::Kind::kEventLog:
      return absl::StrCat("event log ", r.name, " (blob journal step ", r.version, ")");
    case Referrer::Kind::kPendingAppend:
      return absl::StrCat("pending append ", r.name);
    case Referrer::Kind::kProtected:
      return "a lease or pin";
    case Referrer::Kind::kTableFile:
      return absl::StrCat("table ", r.name, " version ", r.version, " (a table file)");
  }
  return "unknown";
}

absl::Status ForEachLiveReference(const GcRoot& root, absl::Time now,
                                  absl::Duration lease_expiry, absl::Time released_before,
                                  const LiveReferenceVisitor& visit, LiveWalkPart part) {
  if (part.count == 0 || part.index >= part.count) {
    return absl::InvalidArgumentError("a live walk part out of its range");
  }
  if (absl::Status s = Tables(root, released_before, visit, part); !s.ok()) return s;
  if (part.index != 0) return absl::OkStatus();
  if (absl::Status s = DroppedTables(root, released_before, visit); !s.ok()) return s;
  if (absl::Status s = EventLogs(root, visit); !s.ok()) return s;
  if (absl::Status s = PendingAppends(root, visit); !s.ok()) return s;
  Referrer protected_referrer{Referrer::Kind::kProtected, "", 0};
  return ForEachLeasedOrPinnedUri(root.fs, root.root_dir, now, lease_expiry,
                                  [&](std::string_view uri) {
                                    return visit(uri, nullptr, protected_referrer);
                                  });
}

}  // namespace lake::gc
