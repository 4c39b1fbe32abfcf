// The reference snapshot format; its note is in reference_snapshot_format.h.
#include "engine/table/reference_snapshot_format.h"

#include "absl/strings/str_cat.h"
#include "engine/table/byte_codec.h"

namespace lake::table {
namespace {

constexpr size_t kHeaderChecksummedBytes = kReferenceSnapshotHeaderBytes - 8;

absl::Status Damaged(std::string_view why) {
  return absl::DataLossError(
      absl::StrCat("a reference snapshot is damaged: ", std::string(why)));
}

}  // namespace

absl::StatusOr<EncodedReferenceSnapshot> EncodeReferenceSnapshot(
    const ReferenceSnapshot& snapshot) {
  if (snapshot.version == 0) {
    return absl::InvalidArgumentError("a reference snapshot is of a version >= 1");
  }
  absl::StatusOr<EncodedReferenceDelta> delta = EncodeReferenceDelta(
      ReferenceDelta{snapshot.table_id, 0, snapshot.version, snapshot.references, {}});
  if (!delta.ok()) return delta.status();
  EncodedReferenceSnapshot out;
  ByteWriter w(&out.bytes);
  w.Bytes(kReferenceSnapshotMagic);
  w.U32(kReferenceSnapshotFormatVersion);
  w.U64(snapshot.table_id);
  w.U64(snapshot.version);
  w.U64(delta->bytes.size());
  w.U64(Checksum64(out.bytes));
  out.bytes.append(delta->bytes);
  out.digest = std::move(delta->digest);
  return out;
}

absl::StatusOr<ReferenceSnapshotHeader> DecodeReferenceSnapshotHeader(std::string_view bytes) {
  if (bytes.size() < kReferenceSnapshotHeaderBytes) return Damaged("its header is short");
  ByteReader r(bytes.substr(0, kReferenceSnapshotHeaderBytes));
  std::string_view magic;
  uint32_t format_version = 0;
  ReferenceSnapshotHeader header;
  uint64_t checksum = 0;
  if (!r.Bytes(kReferenceSnapshotMagic.size(), &magic) || !r.U32(&format_version) ||
      !r.U64(&header.table_id) || !r.U64(&header.version) || !r.U64(&header.delta_bytes) ||
      !r.U64(&checksum)) {
    return Damaged("its header is short");
  }
  if (magic != kReferenceSnapshotMagic) return Damaged("it does not begin with LAKESNAP");
  if (format_version != kReferenceSnapshotFormatVersion) {
    return Damaged(absl::StrCat("unknown format version ", format_version,
                                " (this lake reads version ",
                                kReferenceSnapshotFormatVersion, ")"));
  }
  if (kChecksumsEnforced &&
      checksum != Checksum64(bytes.substr(0, kHeaderChecksummedBytes))) {
    return Damaged("its header checksum does not match");
  }
  if (header.version == 0) return Damaged("it claims version 0");
  return header;
}

absl::Status CheckSnapshotDelta(const ReferenceSnapshotHeader& snapshot,
                                const ReferenceDeltaHeader& delta) {
  if (delta.table_id != snapshot.table_id || delta.parent_version != 0 ||
      delta.child_version != snapshot.version) {
    return Damaged(absl::StrCat("its header names table ", snapshot.table_id, " version ",
                                snapshot.version, ", its references table ", delta.table_id,
                                " versions ", delta.parent_version, " to ",
                                delta.child_version));
  }
  // A snapshot holds a version's references: nothing to remove.
  if (delta.removed_count != 0) {
    return Damaged(absl::StrCat("its references remove ", delta.removed_count, " locations"));
  }
  return absl::OkStatus();
}

absl::StatusOr<ReferenceSnapshot> DecodeReferenceSnapshot(std::string_view bytes,
                                                          std::string* digest) {
  absl::StatusOr<ReferenceSnapshotHeader> header = DecodeReferenceSnapshotHeader(bytes);
  if (!header.ok()) return header.status();
  std::string_view body = bytes.substr(kReferenceSnapshotHeaderBytes);
  if (body.size() != header->delta_bytes) {
    return Damaged(absl::StrCat("it holds ", body.size(), " bytes of references, its header says ",
                                header->delta_bytes));
  }
  ReferenceDeltaReader reader;
  ReferenceSnapshot snapshot{header->table_id, header->version, {}};
  std::vector<DataLocation> entries;
  size_t offset = 0;
  while (!reader.done()) {
    size_t n = reader.next_piece_bytes();
    if (body.size() - offset < n) return Damaged("its references are cut short");
    absl::Status read = reader.Next(body.substr(offset, n), &entries);
    if (!read.ok()) return Damaged(std::string(read.message()));
    if (offset == 0) {
      if (absl::Status s = CheckSnapshotDelta(*header, reader.header()); !s.ok()) return s;
    }
    offset += n;
    snapshot.references.insert(snapshot.references.end(), entries.begin(), entries.end());
  }
  if (offset != body.size()) return Damaged("bytes follow its references");
  if (digest != nullptr) *digest = reader.digest();
  return snapshot;
}

}  // namespace lake::table
