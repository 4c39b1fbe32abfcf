// The reference delta format; its note is in reference_delta_format.h.
#include "engine/table/reference_delta_format.h"

#include <algorithm>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "engine/table/byte_codec.h"

namespace lake::table {
namespace {

constexpr size_t kHeaderChecksummedBytes = ReferenceDeltaReader::kHeaderBytes - 8;

absl::Status Damaged(uint64_t child_version, std::string_view why) {
  return absl::DataLossError(absl::StrCat("the reference delta of version ", child_version,
                                          " is damaged: ", std::string(why)));
}

// OK when `location` is what MakeDataLocation gives back for its fields,
// with a uri short enough to encode; `why` is the complaint otherwise.
bool IsCanonicalEntry(const DataLocation& location, std::string* why) {
  if (location.uri.size() > kMaxReferenceUriBytes) {
    *why = absl::StrCat("a uri is longer than ", kMaxReferenceUriBytes, " bytes");
    return false;
  }
  absl::Status s = CheckCanonicalLocation(location.uri, location.content_type,
                                          location.size_bytes, location.sha256);
  if (!s.ok()) *why = std::string(s.message());
  return s.ok();
}

bool ReadEntry(ByteReader& r, DataLocation* location) {
  uint16_t uri_bytes = 0;
  uint8_t content_type_bytes = 0;
  std::string_view uri;
  std::string_view content_type;
  Sha256Raw sha256;
  if (!r.U16(&uri_bytes) || !r.Bytes(uri_bytes, &uri) || !r.U8(&content_type_bytes) ||
      !r.Bytes(content_type_bytes, &content_type) || !r.U64(&location->size_bytes) ||
      !r.Sha256(&sha256)) {
    return false;
  }
  // Assigned in place: a reader reuses the strings of its previous chunk.
  location->uri.assign(uri);
  location->content_type.assign(content_type);
  static constexpr char kHex[] = "0123456789abcdef";
  location->sha256.resize(2 * sha256.size());
  for (size_t i = 0; i < sha256.size(); ++i) {
    location->sha256[2 * i] = kHex[sha256[i] >> 4];
    location->sha256[2 * i + 1] = kHex[sha256[i] & 15];
  }
  return true;
}

// One entry as the encoder reads it: the fields of a DataLocation, where
// they are (a batch's columns, or a delta's locations).
struct ReferenceView {
  std::string_view uri;
  std::string_view content_type;
  uint64_t size_bytes = 0;
  std::string_view sha256;

  auto Key() const { return std::tie(uri, content_type, size_bytes, sha256); }
};

ReferenceView ViewOf(const DataLocation& location) {
  return ReferenceView{location.uri, location.content_type, location.size_bytes,
                       location.sha256};
}

// The encoded size of one entry (the payload layout in the format note).
size_t EntryBytes(const ReferenceView& entry) {
  return 2 + entry.uri.size() + 1 + entry.content_type.size() + 8 + kSha256RawBytes;
}

// The 8 bytes of `uri` from `from`, big-endian, zeros past its end: for
// two URIs that agree before `from`, a smaller key means a smaller URI (no
// canonical URI holds a NUL, so a zero pad sorts as the end of one).
uint64_t UriKeyFrom(std::string_view uri, size_t from) {
  uint64_t key = 0;
  for (size_t i = 0; i < 8; ++i) {
    const size_t at = from + i;
    key = key << 8 | (at < uri.size() ? static_cast<uint8_t>(uri[at]) : 0);
  }
  return key;
}

// Sorts by ReferenceLess's order and drops repeats. A batch's URIs mostly
// share a long prefix (the stage's root): each entry is keyed by the 8
// bytes after the prefix they all share, so that most comparisons compare
// two integers instead of two strings that agree for tens of bytes.
void Canonicalize(std::vector<ReferenceView>* entries) {
  if (entries->empty()) return;
  std::string_view first = entries->front().uri;
  size_t shared = first.size();
  for (const ReferenceView& entry : *entries) {
    shared = std::min(shared, entry.uri.size());
    shared = static_cast<size_t>(
        std::mismatch(first.begin(), first.begin() + shared, entry.uri.begin()).first -
        first.begin());
  }
  std::vector<std::pair<uint64_t, const ReferenceView*>> keyed;
  keyed.reserve(entries->size());
  for (const ReferenceView& entry : *entries) {
    keyed.emplace_back(UriKeyFrom(entry.uri, shared), &entry);
  }
  std::sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) {
    if (a.first != b.first) return a.first < b.first;
    return a.second->Key() < b.second->Key();
  });
  std::vector<ReferenceView> sorted;
  sorted.reserve(keyed.size());
  for (const auto& [key, entry] : keyed) sorted.push_back(*entry);
  *entries = std::move(sorted);
  entries->erase(std::unique(entries->begin(), entries->end(),
                             [](const ReferenceView& a, const ReferenceView& b) {
                               return a.Key() == b.Key();
                             }),
                 entries->end());
}

size_t ChunkCount(size_t entries) {
  return (entries + kReferenceDeltaChunkEntries - 1) / kReferenceDeltaChunkEntries;
}

// Appends `entries` as chunks (the chunk layout in the format note).
void WriteChunks(ByteWriter& w, std::string& out, absl::Span<const ReferenceView> entries) {
  for (size_t first = 0; first < entries.size(); first += kReferenceDeltaChunkEntries) {
    absl::Span<const ReferenceView> chunk =
        entries.subspan(first, std::min(entries.size() - first, kReferenceDeltaChunkEntries));
    // The frame (count, payload size, payload checksum) is filled in once
    // the payload after it is written.
    size_t frame_at = out.size();
    out.append(ReferenceDeltaReader::kChunkFrameBytes, '\0');
    size_t payload_at = out.size();
    for (const ReferenceView& entry : chunk) {
      w.U16(static_cast<uint16_t>(entry.uri.size()));
      w.Bytes(entry.uri);
      w.U8(static_cast<uint8_t>(entry.content_type.size()));
      w.Bytes(entry.content_type);
      w.U64(entry.size_bytes);
      w.Sha256(*Sha256FromHex(entry.sha256));
    }
    std::string frame;
    ByteWriter f(&frame);
    f.U32(static_cast<uint32_t>(chunk.size()));
    f.U32(static_cast<uint32_t>(out.size() - payload_at));
    f.U64(Checksum64(std::string_view(out).substr(payload_at)));
    out.replace(frame_at, frame.size(), frame);
  }
}

// The delta's bytes and digest. Precondition: `added` and `removed` are
// each canonical (sorted, unique, each a canonical DataLocation with a uri
// of at most kMaxReferenceUriBytes), `removed` has at most
// kMaxReferenceDeltaRemovals entries, and child_version > parent_version.
// The one writer of the format: its output is sized once and written in
// place; format 1 when nothing is removed, else 2.
EncodedReferenceDelta EncodeCanonical(uint64_t table_id, uint64_t parent_version,
                                      uint64_t child_version,
                                      absl::Span<const ReferenceView> added,
                                      absl::Span<const ReferenceView> removed = {}) {
  size_t total = ReferenceDeltaReader::kHeaderBytes +
                 (ChunkCount(added.size()) + ChunkCount(removed.size())) *
                     ReferenceDeltaReader::kChunkFrameBytes +
                 ReferenceDeltaReader::kTrailerBytes;
  for (const ReferenceView& entry : added) total += EntryBytes(entry);
  for (const ReferenceView& entry : removed) total += EntryBytes(entry);
  EncodedReferenceDelta encoded;
  std::string& out = encoded.bytes;
  out.reserve(total);
  ByteWriter w(&out);
  w.Bytes(kReferenceDeltaMagic);
  w.U32(removed.empty() ? kReferenceDeltaFormatVersionV1 : kReferenceDeltaFormatVersion);
  w.U32(static_cast<uint32_t>(removed.size()));
  w.U64(table_id);
  w.U64(parent_version);
  w.U64(child_version);
  w.U64(added.size());
  w.U64(Checksum64(out));
  WriteChunks(w, out, added);
  WriteChunks(w, out, removed);
  encoded.digest = Sha256Hex(out);
  w.Sha256(*Sha256FromHex(encoded.digest));
  return encoded;
}

absl::Status CheckVersions(uint64_t parent_version, uint64_t child_version) {
  if (child_version <= parent_version) {
    return absl::InvalidArgumentError(absl::StrCat(
        "child version ", child_version, " is not after parent version ", parent_version));
  }
  return absl::OkStatus();
}

// Calls `visit(column, row)` for every non-null cell of every file column
// of `batch`; InvalidArgument when a file column's vectors are not
// num_rows long.
template <typename Visit>
absl::Status ForEachFileCell(const ColumnBatch& batch, Visit visit) {
  for (size_t i = 0; i < batch.columns.size(); ++i) {
    const ColumnData& c = batch.columns[i];
    if (c.type != ColumnType::kFile) continue;
    if (c.valid.size() != batch.num_rows || c.strings.size() != batch.num_rows ||
        c.content_types.size() != batch.num_rows || c.int64s.size() != batch.num_rows ||
        c.sha256s.size() != batch.num_rows) {
      return absl::InvalidArgumentError(
          absl::StrCat("column '", batch.schema.columns[i].name, "': row count differs"));
    }
    for (size_t row = 0; row < batch.num_rows; ++row) {
      if (!c.IsNull(row)) visit(c, row);
    }
  }
  return absl::OkStatus();
}

absl::Status CheckBatchesOf(const Schema& schema, absl::Span<const ColumnBatch> batches) {
  for (const ColumnBatch& batch : batches) {
    if (batch.schema != schema || batch.columns.size() != schema.columns.size()) {
      return absl::InvalidArgumentError("a batch is not of the table's schema");
    }
  }
  return absl::OkStatus();
}

}  // namespace

bool ReferenceLess(const DataLocation& a, const DataLocation& b) {
  return std::tie(a.uri, a.content_type, a.size_bytes, a.sha256) <
         std::tie(b.uri, b.content_type, b.size_bytes, b.sha256);
}

void CanonicalizeReferences(std::vector<DataLocation>* references) {
  std::sort(references->begin(), references->end(), ReferenceLess);
  references->erase(std::unique(references->begin(), references->end()), references->end());
}

absl::StatusOr<ReferenceDelta> BuildReferenceDelta(uint64_t table_id, uint64_t parent_version,
                                                   uint64_t child_version, const Schema& schema,
                                                   absl::Span<const ColumnBatch> batches) {
  if (absl::Status s = CheckVersions(parent_version, child_version); !s.ok()) return s;
  if (absl::Status s = CheckBatchesOf(schema, batches); !s.ok()) return s;
  ReferenceDelta delta{table_id, parent_version, child_version, {}, {}};
  for (const ColumnBatch& batch : batches) {
    absl::Status s = ForEachFileCell(batch, [&](const ColumnData& c, size_t row) {
      delta.added.push_back(
          DataLocation{std::string(c.strings.At(row)), std::string(c.content_types.At(row)),
                       static_cast<uint64_t>(c.int64s[row]), std::string(c.sha256s.At(row))});
    });
    if (!s.ok()) return s;
  }
  CanonicalizeReferences(&delta.added);
  return delta;
}

absl::StatusOr<EncodedReferenceDelta> EncodeBatchReferenceDelta(
    uint64_t table_id, uint64_t parent_version, uint64_t child_version, const Schema& schema,
    absl::Span<const ColumnBatch> batches) {
  if (absl::Status s = CheckVersions(parent_version, child_version); !s.ok()) return s;
  if (absl::Status s = CheckBatchesOf(schema, batches); !s.ok()) return s;
  std::vector<ReferenceView> entries;
  for (const ColumnBatch& batch : batches) {
    absl::Status s = ForEachFileCell(batch, [&](const ColumnData& c, size_t row) {
      entries.push_back(ReferenceView{c.strings.At(row), c.content_types.At(row),
                                      static_cast<uint64_t>(c.int64s[row]), c.sha256s.At(row)});
    });
    if (!s.ok()) return s;
  }
  // Validate checked each cell's canonical form; only the bound of this
  // format is left.
  for (const ReferenceView& entry : entries) {
    if (entry.uri.size() > kMaxReferenceUriBytes) {
      return absl::InvalidArgumentError(absl::StrCat("reference '", std::string(entry.uri.substr(0, 128)),
                                                     "' cannot be recorded: a uri is longer than ",
                                                     kMaxReferenceUriBytes, " bytes"));
    }
  }
  Canonicalize(&entries);
  return EncodeCanonical(table_id, parent_version, child_version, entries);
}

absl::StatusOr<EncodedReferenceDelta> EncodeReferenceDelta(const ReferenceDelta& delta) {
  if (absl::Status s = CheckVersions(delta.parent_version, delta.child_version); !s.ok()) {
    return s;
  }
  if (delta.removed.size() > kMaxReferenceDeltaRemovals) {
    return absl::InvalidArgumentError(absl::StrCat("the delta of version ", delta.child_version,
                                                   " removes more than ",
                                                   kMaxReferenceDeltaRemovals, " references"));
  }
  auto views = [](const std::vector<DataLocation>& locations,
                  std::vector<ReferenceView>* entries) -> absl::Status {
    entries->reserve(locations.size());
    for (const DataLocation& location : locations) {
      std::string why;
      if (!IsCanonicalEntry(location, &why)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "reference '", location.uri.substr(0, 128), "' cannot be recorded: ", why));
      }
      entries->push_back(ViewOf(location));
    }
    Canonicalize(entries);
    return absl::OkStatus();
  };
  std::vector<ReferenceView> added;
  std::vector<ReferenceView> removed;
  if (absl::Status s = views(delta.added, &added); !s.ok()) return s;
  if (absl::Status s = views(delta.removed, &removed); !s.ok()) return s;
  return EncodeCanonical(delta.table_id, delta.parent_version, delta.child_version, added,
                         removed);
}

absl::StatusOr<ReferenceDelta> DecodeReferenceDelta(std::string_view bytes) {
  ReferenceDeltaReader reader;
  ReferenceDelta delta;
  std::vector<DataLocation> entries;
  ByteReader r(bytes);
  while (!reader.done()) {
    std::string_view piece;
    if (!r.Bytes(reader.next_piece_bytes(), &piece)) {
      return absl::DataLossError("the reference delta is damaged: it ends early");
    }
    if (absl::Status s = reader.Next(piece, &entries); !s.ok()) return s;
    std::vector<DataLocation>& into = reader.last_chunk_removes() ? delta.removed : delta.added;
    into.insert(into.end(), entries.begin(), entries.end());
  }
  if (r.remaining() != 0) {
    return Damaged(reader.header().child_version, "bytes follow its trailer");
  }
  delta.table_id = reader.header().table_id;
  delta.parent_version = reader.header().parent_version;
  delta.child_version = reader.header().child_version;
  return delta;
}

// ---- ReferenceDeltaReader ----

size_t ReferenceDeltaReader::next_piece_bytes() const {
  switch (stage_) {
    case Stage::kHeader:
      return kHeaderBytes;
    case Stage::kChunkFrame:
      return kChunkFrameBytes;
    case Stage::kChunkPayload:
      return chunk_payload_bytes_;
    case Stage::kTrailer:
      return kTrailerBytes;
    case Stage::kDone:
    case Stage::kFailed:
      return 0;
  }
  return 0;
}

absl::Status ReferenceDeltaReader::Next(std::string_view piece,
                                        std::vector<DataLocation>* entries) {
  // The caller's entries of the previous chunk become the spares whose
  // strings the next chunk's entries are read into (no allocation per
  // entry once the first chunk is read).
  if (!entries->empty()) spare_.swap(*entries);
  entries->clear();
  if (stage_ == Stage::kFailed || stage_ == Stage::kDone) {
    return absl::FailedPreconditionError("the reference delta reader has finished");
  }
  if (piece.size() != next_piece_bytes()) {
    return absl::InvalidArgumentError("a piece of the wrong size was given to the delta reader");
  }
  absl::Status status;
  switch (stage_) {
    case Stage::kHeader:
      status = ReadHeader(piece);
      break;
    case Stage::kChunkFrame:
      status = ReadChunkFrame(piece);
      break;
    case Stage::kChunkPayload:
      status = ReadChunkPayload(piece, entries);
      break;
    case Stage::kTrailer:
      status = ReadTrailer(piece);
      break;
    case Stage::kDone:
    case Stage::kFailed:
      break;
  }
  if (!status.ok()) {
    stage_ = Stage::kFailed;
    entries->clear();
  }
  return status;
}

uint64_t ReferenceDeltaReader::SectionEnd() const {
  return entries_read_ < header_.added_count ? header_.added_count
                                             : header_.added_count + header_.removed_count;
}

ReferenceDeltaReader::Stage ReferenceDeltaReader::AfterEntries() const {
  return entries_read_ < header_.added_count + header_.removed_count ? Stage::kChunkFrame
                                                                     : Stage::kTrailer;
}

absl::Status ReferenceDeltaReader::ReadHeader(std::string_view piece) {
  ByteReader r(piece);
  std::string_view magic;
  uint32_t version = 0;
  uint32_t removed_count = 0;
  uint64_t checksum = 0;
  r.Bytes(kReferenceDeltaMagic.size(), &magic);
  r.U32(&version);
  r.U32(&removed_count);
  header_.removed_count = removed_count;
  r.U64(&header_.table_id);
  r.U64(&header_.parent_version);
  r.U64(&header_.child_version);
  r.U64(&header_.added_count);
  r.U64(&checksum);  // the piece is exactly kHeaderBytes, so every read succeeded
  uint64_t child = header_.child_version;
  if (magic != kReferenceDeltaMagic) {
    return absl::DataLossError("the file is not a reference delta (wrong magic)");
  }
  if (kChecksumsEnforced && Checksum64(piece.substr(0, kHeaderChecksummedBytes)) != checksum) {
    return absl::DataLossError(
        "a reference delta is damaged: its header does not match its checksum");
  }
  if (version != kReferenceDeltaFormatVersion && version != kReferenceDeltaFormatVersionV1) {
    return Damaged(child, absl::StrCat("unknown format version ", version, " (this lake reads ",
                                       kReferenceDeltaFormatVersionV1, " and ",
                                       kReferenceDeltaFormatVersion, ")"));
  }
  // Canonical: format 1 exactly when nothing is removed.
  if (version == kReferenceDeltaFormatVersionV1 && removed_count != 0) {
    return Damaged(child, absl::StrCat("it removes ", removed_count,
                                       " references, which a format 1 delta never does"));
  }
  if (version == kReferenceDeltaFormatVersion && removed_count == 0) {
    return Damaged(child, "a format 2 delta removes at least one reference");
  }
  if (header_.child_version <= header_.parent_version) {
    return Damaged(
        child, absl::StrCat("its parent version ", header_.parent_version, " is not before it"));
  }
  hasher_.Update(reinterpret_cast<const uint8_t*>(piece.data()), piece.size());
  stage_ = AfterEntries();
  return absl::OkStatus();
}

absl::Status ReferenceDeltaReader::ReadChunkFrame(std::string_view piece) {
  ByteReader r(piece);
  r.U32(&chunk_entries_);
  r.U32(&chunk_payload_bytes_);
  r.U64(&chunk_checksum_);
  uint64_t expected =
      std::min<uint64_t>(SectionEnd() - entries_read_, kReferenceDeltaChunkEntries);
  uint64_t child = header_.child_version;
  if (chunk_entries_ != expected) {
    return Damaged(child,
                   absl::StrCat("a chunk holds ", chunk_entries_, " entries, not ", expected));
  }
  if (chunk_payload_bytes_ > kMaxReferenceChunkBytes) {
    return Damaged(child, absl::StrCat("a chunk of ", chunk_payload_bytes_, " bytes is too large"));
  }
  hasher_.Update(reinterpret_cast<const uint8_t*>(piece.data()), piece.size());
  stage_ = Stage::kChunkPayload;
  return absl::OkStatus();
}

absl::Status ReferenceDeltaReader::ReadChunkPayload(std::string_view piece,
                                                    std::vector<DataLocation>* entries) {
  uint64_t child = header_.child_version;
  if (kChecksumsEnforced && Checksum64(piece) != chunk_checksum_) {
    return Damaged(child, absl::StrCat("the chunk after entry ", entries_read_,
                                       " does not match its checksum"));
  }
  ByteReader r(piece);
  // The removals start a list of their own, in its own order.
  chunk_removes_ = entries_read_ >= header_.added_count;
  if (chunk_removes_ && entries_read_ == header_.added_count) has_last_ = false;
  entries->swap(spare_);
  entries->resize(chunk_entries_);
  for (uint32_t i = 0; i < chunk_entries_; ++i) {
    DataLocation& location = (*entries)[i];
    if (!ReadEntry(r, &location)) {
      return Damaged(child, absl::StrCat("entry ", entries_read_ + i, " ends early"));
    }
    std::string why;
    if (!IsCanonicalEntry(location, &why)) {
      return Damaged(child, absl::StrCat("entry ", entries_read_ + i, ": ", why));
    }
    const DataLocation& previous = i == 0 ? last_ : (*entries)[i - 1];
    if ((has_last_ || i > 0) && !ReferenceLess(previous, location)) {
      return Damaged(child,
                     absl::StrCat("entry ", entries_read_ + i, " is out of order or repeated"));
    }
  }
  if (r.remaining() != 0) return Damaged(child, "a chunk has bytes after its entries");
  hasher_.Update(reinterpret_cast<const uint8_t*>(piece.data()), piece.size());
  entries_read_ += chunk_entries_;
  if (!entries->empty()) {
    last_ = entries->back();
    has_last_ = true;
  }
  stage_ = AfterEntries();
  return absl::OkStatus();
}

absl::Status ReferenceDeltaReader::ReadTrailer(std::string_view piece) {
  std::string digest = hasher_.FinishHex();
  ByteReader r(piece);
  Sha256Raw stored;
  r.Sha256(&stored);
  if (kChecksumsEnforced && Sha256ToHex(stored) != digest) {
    return Damaged(header_.child_version, "its digest does not match its bytes");
  }
  digest_ = std::move(digest);
  stage_ = Stage::kDone;
  return absl::OkStatus();
}

}  // namespace lake::table
