#include "engine/table/reference_journal.h"

#include <memory>
#include <optional>
#include <variant>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "engine/managed_key.h"
#include "engine/table/derived_reference_delta_format.h"
#include "engine/table/fragment_format.h"
#include "engine/table/manifest_chain.h"
#include "engine/table/manifest_format.h"
#include "engine/table/table_log.h"
#include "io/durable_paths.h"
#include "io/whole_file.h"

namespace lake::table {
namespace {

std::string RefsDir(const std::string& table_dir) {
  return absl::StrCat(table_dir, "/", std::string(kObjectRefsDir));
}

std::string DeltaPath(const std::string& table_dir, uint64_t child_version) {
  return absl::StrCat(table_dir, "/", ReferenceDeltaRelativePath(child_version));
}

absl::Status EdgeError(uint64_t child_version, std::string_view why) {
  return absl::DataLossError(absl::StrCat("the reference lineage is broken at version ",
                                          child_version, ": ", std::string(why)));
}

// Exactly `len` bytes at `offset` into `buf`; false when the file ends first.
absl::StatusOr<bool> ReadExactly(io::File& file, uint64_t offset, size_t len, std::string* buf) {
  buf->resize(len);
  size_t done = 0;
  while (done < len) {
    absl::StatusOr<size_t> n =
        file.PRead(reinterpret_cast<uint8_t*>(buf->data()) + done, len - done, offset + done);
    if (!n.ok()) return n.status();
    if (*n == 0) return false;
    done += *n;
  }
  return true;
}

absl::Status CheckEdges(const std::vector<LineageEdge>& edges) {
  for (size_t i = 0; i < edges.size(); ++i) {
    const LineageEdge& edge = edges[i];
    if (edge.child_version <= edge.parent_version) {
      return EdgeError(edge.child_version,
                       absl::StrCat("its parent ", edge.parent_version, " is not before it"));
    }
    if (i > 0 && edge.parent_version != edges[i - 1].child_version) {
      return EdgeError(edge.child_version,
                       absl::StrCat("its parent ", edge.parent_version,
                                    " is not the previous version ", edges[i - 1].child_version));
    }
  }
  return absl::OkStatus();
}

// The header must hold the registry's edge, of the same table as the
// first delta of the walk.
absl::Status CheckHeader(const ReferenceDeltaHeader& header, const LineageEdge& edge,
                         std::optional<uint64_t>* table_id) {
  if (header.parent_version != edge.parent_version || header.child_version != edge.child_version) {
    return EdgeError(edge.child_version,
                     absl::StrCat("its delta holds the edge ", header.parent_version, " -> ",
                                  header.child_version, ", not ", edge.parent_version, " -> ",
                                  edge.child_version));
  }
  if (table_id->has_value() && **table_id != header.table_id) {
    return EdgeError(edge.child_version, absl::StrCat("its delta belongs to table ",
                                                      header.table_id, ", not ", **table_id));
  }
  *table_id = header.table_id;
  return absl::OkStatus();
}

// The delta a derived record (format 3 or 4, `payload`, at the address
// `path`) names, derived from the fragment record it names in its segment.
struct DerivedDelta {
  std::string bytes;  // canonical (format 1)
  // Format 4: the fragment matched the registry's digest, which therefore
  // vouches for these bytes; format 3: the walk checks them against it as
  // any delta's.
  bool vouched_by_fragment = false;
};

// DataLoss for a record of another edge, a fragment that cannot be read
// or (format 4) whose SHA-256 is not the registry's digest.
absl::StatusOr<DerivedDelta> DeriveDelta(io::FileSystem& fs, const std::string& table_dir,
                                         const std::string& path, std::string_view payload,
                                         const LineageEdge& edge) {
  absl::StatusOr<DerivedReferenceDelta> derived = DecodeDerivedReferenceDelta(payload);
  if (!derived.ok()) return derived.status();
  if (derived->parent_version != edge.parent_version ||
      derived->child_version != edge.child_version) {
    return absl::DataLossError(absl::StrCat("it derives the edge ", derived->parent_version,
                                            " -> ", derived->child_version));
  }
  absl::StatusOr<TableLogAddress> address = ParseTableLogAddress(path);
  if (!address.ok()) return address.status();
  const std::string fragment_path = FormatTableLogAddress(
      TableLogAddress{address->segment, derived->fragment_offset, derived->fragment_payload_bytes});
  absl::StatusOr<std::string> fragment = ReadTablePath(fs, table_dir, fragment_path,
                                                       kMaxTableLogPayloadBytes,
                                                       TableLogRecordKind::kFragment);
  if (!fragment.ok()) return fragment.status();
  absl::StatusOr<FragmentSummary> summary = SummarizeFragment(*fragment);
  if (!summary.ok()) return summary.status();
  const bool vouched = RegistryDigestIsFragments(derived->format_version);
  if (vouched && summary->sha256 != edge.delta_sha256) {
    return absl::DataLossError(absl::StrCat("its fragment's digest ", summary->sha256,
                                            " is not the registry's ",
                                            edge.delta_sha256.substr(0, 64)));
  }
  absl::StatusOr<ColumnBatch> rows = DecodeFragment(*fragment, summary->schema);
  if (!rows.ok()) return rows.status();
  absl::StatusOr<EncodedReferenceDelta> delta =
      EncodeBatchReferenceDelta(derived->table_id, derived->parent_version, derived->child_version,
                                summary->schema, absl::MakeConstSpan(&*rows, 1));
  if (!delta.ok()) return absl::DataLossError(delta.status().message());
  return DerivedDelta{std::move(delta->bytes), vouched};
}

// Where a delta's bytes come from: a file read piece by piece, or a
// table log record read whole (its checksum covers it) and cut in pieces
// (or derived from the fragment it names).
class DeltaSource {
 public:
  static absl::StatusOr<DeltaSource> Open(io::FileSystem& fs, const std::string& table_dir,
                                          const std::string& path, const LineageEdge& edge) {
    DeltaSource source;
    if (IsTableLogPath(path)) {
      auto damaged = [&](const absl::Status& s) {
        return EdgeError(edge.child_version, absl::StrCat("its delta ", path, ": ", s.message()));
      };
      absl::StatusOr<TableLogRecordRead> record =
          ReadTableLogRecord(fs, table_dir, path, kMaxTableLogPayloadBytes);
      if (!record.ok()) return damaged(record.status());
      if (record->kind == TableLogRecordKind::kReferenceDelta &&
          IsDerivedReferenceDelta(record->payload)) {
        absl::StatusOr<DerivedDelta> derived =
            DeriveDelta(fs, table_dir, path, record->payload, edge);
        if (!derived.ok()) return damaged(derived.status());
        source.record_ = std::move(derived->bytes);
        source.vouched_by_fragment_ = derived->vouched_by_fragment;
        return source;
      }
      if (record->kind != TableLogRecordKind::kReferenceDelta) {
        return damaged(absl::DataLossError(absl::StrCat(
            "a record of kind ", static_cast<int>(record->kind), ", not a reference delta")));
      }
      source.record_ = std::move(record->payload);
      return source;
    }
    std::string file_path = absl::StrCat(table_dir, "/", path);
    absl::StatusOr<std::unique_ptr<io::File>> file = fs.OpenRead(file_path);
    if (absl::IsNotFound(file.status())) {
      return EdgeError(edge.child_version, absl::StrCat("its delta ", file_path, " is missing"));
    }
    if (!file.ok()) return file.status();
    source.file_ = std::move(*file);
    return source;
  }
  // As ReadExactly.
  absl::StatusOr<bool> Read(uint64_t offset, size_t len, std::string* buf) {
    if (file_ != nullptr) return ReadExactly(*file_, offset, len, buf);
    if (offset > record_.size() || record_.size() - offset < len) return false;
    buf->assign(record_, offset, len);
    return true;
  }

  // DerivedDelta::vouched_by_fragment: the registry's digest was checked
  // against the fragment, not to be checked against these bytes.
  bool vouched_by_fragment() const { return vouched_by_fragment_; }

 private:
  std::unique_ptr<io::File> file_;
  std::string record_;
  bool vouched_by_fragment_ = false;
};

// Reads the delta of one edge piece by piece, visiting each chunk.
absl::Status WalkDelta(io::FileSystem& fs, const std::string& table_dir, const LineageEdge& edge,
                       std::optional<uint64_t>* table_id, ReferenceChangeVisitor visit) {
  absl::StatusOr<std::string> path = ReferenceDeltaPathOfEdge(fs, table_dir, edge);
  if (!path.ok()) return path.status();
  absl::StatusOr<DeltaSource> source = DeltaSource::Open(fs, table_dir, *path, edge);
  if (!source.ok()) return source.status();
  ReferenceDeltaReader reader;
  std::string piece;
  std::vector<DataLocation> entries;
  uint64_t offset = 0;
  while (!reader.done()) {
    absl::StatusOr<bool> read = source->Read(offset, reader.next_piece_bytes(), &piece);
    if (!read.ok()) return read.status();
    if (!*read) {
      return EdgeError(edge.child_version, absl::StrCat("its delta ", *path, " ends early"));
    }
    offset += piece.size();
    bool header_piece = offset == ReferenceDeltaReader::kHeaderBytes;
    if (absl::Status s = reader.Next(piece, &entries); !s.ok()) {
      return EdgeError(edge.child_version, std::string(s.message()));
    }
    if (header_piece) {
      if (absl::Status s = CheckHeader(reader.header(), edge, table_id); !s.ok()) return s;
    }
    if (!entries.empty()) {
      if (absl::Status s = visit(edge.child_version, entries, reader.last_chunk_removes()); !s.ok()) {
        return s;
      }
    }
  }
  absl::StatusOr<bool> more = source->Read(offset, 1, &piece);
  if (!more.ok()) return more.status();
  if (*more) return EdgeError(edge.child_version, "bytes follow its delta's trailer");
  if (!source->vouched_by_fragment() && reader.digest() != edge.delta_sha256) {
    return EdgeError(edge.child_version,
                     absl::StrCat("its delta's digest ", reader.digest(), " is not the registry's ",
                                  edge.delta_sha256.substr(0, 64)));
  }
  return absl::OkStatus();
}

// Reads the snapshot of `base` piece by piece, visiting each chunk as
// base.version's; sets *table_id to its table.
absl::Status WalkSnapshot(io::FileSystem& fs, const std::string& table_dir,
                          const LineageBase& base, std::optional<uint64_t>* table_id,
                          ReferenceChangeVisitor visit) {
  std::string path = absl::StrCat(table_dir, "/", ReferenceSnapshotRelativePath(base.version));
  absl::StatusOr<std::unique_ptr<io::File>> file = fs.OpenRead(path);
  if (absl::IsNotFound(file.status())) {
    return EdgeError(base.version, absl::StrCat("its reference snapshot ", path, " is missing"));
  }
  if (!file.ok()) return file.status();
  std::string piece;
  absl::StatusOr<bool> read = ReadExactly(**file, 0, kReferenceSnapshotHeaderBytes, &piece);
  if (!read.ok()) return read.status();
  if (!*read) return EdgeError(base.version, absl::StrCat("its snapshot ", path, " ends early"));
  absl::StatusOr<ReferenceSnapshotHeader> header = DecodeReferenceSnapshotHeader(piece);
  if (!header.ok()) return EdgeError(base.version, std::string(header.status().message()));
  if (header->version != base.version) {
    return EdgeError(base.version, absl::StrCat("its snapshot ", path, " is of version ",
                                                header->version));
  }
  *table_id = header->table_id;
  ReferenceDeltaReader reader;
  std::vector<DataLocation> entries;
  uint64_t offset = kReferenceSnapshotHeaderBytes;
  while (!reader.done()) {
    read = ReadExactly(**file, offset, reader.next_piece_bytes(), &piece);
    if (!read.ok()) return read.status();
    if (!*read) return EdgeError(base.version, absl::StrCat("its snapshot ", path, " ends early"));
    bool header_piece = offset == kReferenceSnapshotHeaderBytes;
    offset += piece.size();
    if (absl::Status s = reader.Next(piece, &entries); !s.ok()) {
      return EdgeError(base.version, std::string(s.message()));
    }
    if (header_piece) {
      if (absl::Status s = CheckSnapshotDelta(*header, reader.header()); !s.ok()) {
        return EdgeError(base.version, std::string(s.message()));
      }
    }
    if (!entries.empty()) {
      if (absl::Status s = visit(base.version, entries, reader.last_chunk_removes()); !s.ok()) {
        return s;
      }
    }
  }
  absl::StatusOr<bool> more = ReadExactly(**file, offset, 1, &piece);
  if (!more.ok()) return more.status();
  if (*more || offset - kReferenceSnapshotHeaderBytes != header->delta_bytes) {
    return EdgeError(base.version, "its snapshot's length is not its header's");
  }
  if (reader.digest() != base.snapshot_sha256) {
    return EdgeError(base.version, absl::StrCat("its snapshot's digest ", reader.digest(),
                                                " is not the registry's ",
                                                base.snapshot_sha256.substr(0, 64)));
  }
  return absl::OkStatus();
}

}  // namespace

std::string ReferenceSnapshotRelativePath(uint64_t version) {
  return absl::StrFormat("%s/%020u.snapshot", std::string(kObjectRefsDir), version);
}

absl::StatusOr<std::string> WriteReferenceSnapshot(io::FileSystem& fs,
                                                   const std::string& table_dir,
                                                   const ReferenceSnapshot& snapshot) {
  absl::StatusOr<EncodedReferenceSnapshot> encoded = EncodeReferenceSnapshot(snapshot);
  if (!encoded.ok()) return encoded.status();
  if (absl::Status s = io::CreateDirectoriesDurably(fs, RefsDir(table_dir)); !s.ok()) return s;
  std::string path = absl::StrCat(table_dir, "/", ReferenceSnapshotRelativePath(snapshot.version));
  std::string temp = absl::StrCat(path, ".", NewUuidV7(), ".tmp");
  absl::Status written = io::WriteWholeFileDurably(fs, path, temp, encoded->bytes);
  if (absl::IsAlreadyExists(written)) {
    absl::StatusOr<std::string> present = io::ReadWholeFile(fs, path, encoded->bytes.size());
    if (!present.ok() && !absl::IsDataLoss(present.status())) return present.status();
    if (!present.ok() || *present != encoded->bytes) {
      return absl::AlreadyExistsError(absl::StrCat("a different reference snapshot of version ",
                                                   snapshot.version, " is present at ", path));
    }
    written = io::SyncParentDirectory(fs, path);
  }
  if (!written.ok()) return written;
  return encoded->digest;
}

absl::Status EnumerateReferenceChangesFrom(io::FileSystem& fs, const std::string& table_dir,
                                           const LineageBase& base,
                                           const std::vector<LineageEdge>& edges_from_registry,
                                           ReferenceChangeVisitor visit) {
  if (absl::Status s = CheckEdges(edges_from_registry); !s.ok()) return s;
  if (!edges_from_registry.empty() && edges_from_registry[0].parent_version != base.version) {
    return EdgeError(edges_from_registry[0].child_version,
                     absl::StrCat("its parent ", edges_from_registry[0].parent_version,
                                  " is not the reference base ", base.version));
  }
  std::optional<uint64_t> table_id;
  if (absl::Status s = WalkSnapshot(fs, table_dir, base, &table_id, visit); !s.ok()) return s;
  for (const LineageEdge& edge : edges_from_registry) {
    if (absl::Status s = WalkDelta(fs, table_dir, edge, &table_id, visit); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> ReferenceDeltaPathOfEdge(io::FileSystem& fs,
                                                     const std::string& table_dir,
                                                     const LineageEdge& edge) {
  if (!IsTableLogPath(edge.manifest_path)) return ReferenceDeltaRelativePath(edge.child_version);
  absl::StatusOr<std::string> bytes = ReadTablePath(fs, table_dir, edge.manifest_path,
                                                    kMaxManifestBytes, TableLogRecordKind::kManifest);
  if (!bytes.ok()) {
    return EdgeError(edge.child_version, absl::StrCat("its manifest ", edge.manifest_path, ": ",
                                                      bytes.status().message()));
  }
  absl::StatusOr<ManifestFile> file = DecodeManifestFile(*bytes);
  if (!file.ok()) {
    return EdgeError(edge.child_version, absl::StrCat("its manifest ", edge.manifest_path, ": ",
                                                      file.status().message()));
  }
  const Manifest& header = std::holds_alternative<Manifest>(*file)
                               ? std::get<Manifest>(*file)
                               : std::get<ManifestLink>(*file).header;
  if (header.version != edge.child_version || header.parent_version != edge.parent_version) {
    return EdgeError(edge.child_version, absl::StrCat("its manifest ", edge.manifest_path,
                                                      " describes version ", header.version));
  }
  return header.reference_delta_path;
}

std::string ReferenceDeltaTableFile(uint64_t child_version, const std::string& manifest_path) {
  if (IsTableLogPath(manifest_path)) return TableFileOfPath(manifest_path);
  return ReferenceDeltaRelativePath(child_version);
}

std::string ReferenceDeltaRelativePath(uint64_t child_version) {
  return absl::StrFormat("%s/%020u.refs", std::string(kObjectRefsDir), child_version);
}

absl::StatusOr<std::string> WriteReferenceDelta(io::FileSystem& fs, const std::string& table_dir,
                                                const ReferenceDelta& delta) {
  absl::StatusOr<EncodedReferenceDelta> encoded = EncodeReferenceDelta(delta);
  if (!encoded.ok()) return encoded.status();
  return WriteEncodedReferenceDelta(fs, table_dir, delta.child_version, *encoded);
}

absl::StatusOr<std::string> WriteEncodedReferenceDelta(io::FileSystem& fs,
                                                       const std::string& table_dir,
                                                       uint64_t child_version,
                                                       const EncodedReferenceDelta& encoded) {
  if (absl::Status s = io::CreateDirectoriesDurably(fs, RefsDir(table_dir)); !s.ok()) return s;
  std::string path = DeltaPath(table_dir, child_version);
  std::string temp = absl::StrCat(path, ".", NewUuidV7(), ".tmp");
  absl::Status written = io::WriteWholeFileDurably(fs, path, temp, encoded.bytes);
  if (absl::IsAlreadyExists(written)) {
    // A retry finds its own earlier write; anything else is another delta.
    absl::StatusOr<std::string> present = io::ReadWholeFile(fs, path, encoded.bytes.size());
    if (!present.ok() && !absl::IsDataLoss(present.status())) return present.status();
    if (!present.ok() || *present != encoded.bytes) {  // DataLoss: larger than ours
      return absl::AlreadyExistsError(absl::StrCat("a different reference delta of version ",
                                                   child_version, " is present at ", path));
    }
    written = io::SyncParentDirectory(fs, path);
  }
  if (!written.ok()) return written;
  return encoded.digest;
}

absl::Status RemoveUncommittedReferenceDelta(io::FileSystem& fs, const std::string& table_dir,
                                             uint64_t child_version) {
  std::string path = DeltaPath(table_dir, child_version);
  absl::Status removed = fs.Remove(path);
  if (absl::IsNotFound(removed)) return absl::OkStatus();
  if (!removed.ok()) return removed;
  return io::SyncParentDirectory(fs, path);
}

absl::Status EnumerateReferenceChanges(io::FileSystem& fs, const std::string& table_dir,
                                       const std::vector<LineageEdge>& edges_from_registry,
                                       ReferenceChangeVisitor visit) {
  if (absl::Status s = CheckEdges(edges_from_registry); !s.ok()) return s;
  std::optional<uint64_t> table_id;
  for (const LineageEdge& edge : edges_from_registry) {
    if (absl::Status s = WalkDelta(fs, table_dir, edge, &table_id, visit); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status EnumerateReferences(io::FileSystem& fs, const std::string& table_dir,
                                 const std::vector<LineageEdge>& edges_from_registry,
                                 ReferenceVisitor visit) {
  return EnumerateReferenceChanges(
      fs, table_dir, edges_from_registry,
      [&](uint64_t version, const std::vector<DataLocation>& chunk, bool removed) {
        return removed ? absl::OkStatus() : visit(version, chunk);
      });
}

absl::Status EnumerateReferencesFrom(io::FileSystem& fs, const std::string& table_dir,
                                     const LineageBase& base,
                                     const std::vector<LineageEdge>& edges_from_registry,
                                     ReferenceVisitor visit) {
  return EnumerateReferenceChangesFrom(
      fs, table_dir, base, edges_from_registry,
      [&](uint64_t version, const std::vector<DataLocation>& chunk, bool removed) {
        return removed ? absl::OkStatus() : visit(version, chunk);
      });
}

absl::Status ReferenceReplay::Apply(uint64_t version, const std::vector<DataLocation>& chunk,
                                    bool removed) {
  if (version != version_) {
    version_ = version;
    added_by_version_.clear();
  }
  for (const DataLocation& location : chunk) {
    if (!removed) {
      references_.insert(location);
      added_by_version_.insert(location);
      continue;
    }
    if (added_by_version_.contains(location)) {
      return EdgeError(version, absl::StrCat("its delta adds and removes ",
                                             location.uri.substr(0, 256)));
    }
    if (references_.erase(location) == 0) {
      return EdgeError(version, absl::StrCat("it removes ", location.uri.substr(0, 256),
                                             ", which no earlier version references"));
    }
  }
  return absl::OkStatus();
}

std::vector<DataLocation> ReferenceReplay::Take() && {
  return std::vector<DataLocation>(std::make_move_iterator(references_.begin()),
                                   std::make_move_iterator(references_.end()));
}

}  // namespace lake::table
