// The manifest file format; its note is in manifest_format.h.
#include "engine/table/manifest_format.h"

#include <algorithm>
#include <bit>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "engine/table/byte_codec.h"
#include "engine/table/fragment_format.h"

namespace lake::table {
namespace {

constexpr size_t kHeaderFixedBytes = 8 + 4 + 5 * 8;
// The smallest fragment record: a one-byte path, two u64s, a sha256.
constexpr size_t kMinFragmentRecordBytes = 2 + 1 + 8 + 8 + kSha256RawBytes;

absl::Status Damaged(std::string_view why) {
  return absl::DataLossError(absl::StrCat("manifest is damaged: ", std::string(why)));
}

bool IsPathByte(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == '-';
}

absl::Status ValidateSha256Field(std::string_view sha256, std::string_view what) {
  if (!Sha256FromHex(sha256)) {
    return absl::InvalidArgumentError(
        absl::StrCat(std::string(what), " must be 64 lowercase hex characters"));
  }
  return absl::OkStatus();
}

bool IsReadableFormat(uint32_t format_version) {
  return format_version >= kManifestFormatVersionV1 && format_version <= kManifestFormatVersion;
}

// Entries carry a statistics flag from version 2 on.
bool EntriesHaveStatistics(uint32_t format_version) {
  return format_version >= kManifestFormatVersionV2;
}

// Entries carry a deletion vector flag from version 3 on.
bool EntriesHaveDeletionVectors(uint32_t format_version) {
  return format_version >= kManifestFormatVersionV3;
}

// A kind byte (checkpoint or link) follows the header from version 3 on.
bool HasKind(uint32_t format_version) { return format_version >= kManifestFormatVersionV3; }

// What a manifest's kind byte says (formats 3 and 4).
enum class ManifestKind : uint8_t { kCheckpoint = 0, kLink = 1 };

// One fragment entry checked alone: its path, rows, digest, statistics and
// deletion vector (whose path other entries may still repeat).
absl::Status ValidateFragmentEntry(const FragmentRef& fragment, uint32_t format_version,
                                   const Schema& schema) {
  if (absl::Status s = ValidateTablePath(fragment.path, "fragment path"); !s.ok()) return s;
  if (fragment.rows > kMaxFragmentRows) {
    return absl::InvalidArgumentError(
        absl::StrCat("fragment '", fragment.path, "' has more than ", kMaxFragmentRows, " rows"));
  }
  if (absl::Status s = ValidateSha256Field(fragment.sha256, "a fragment's sha256"); !s.ok()) {
    return s;
  }
  if (fragment.statistics) {
    if (!EntriesHaveStatistics(format_version)) {
      return absl::InvalidArgumentError("a version 1 manifest holds no statistics");
    }
    if (absl::Status s = ValidateFragmentStatistics(*fragment.statistics, schema, fragment.rows);
        !s.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("fragment '", fragment.path, "': ", std::string(s.message())));
    }
  }
  if (const std::optional<DeletionVectorRef>& vector = fragment.deletion_vector) {
    if (!EntriesHaveDeletionVectors(format_version)) {
      return absl::InvalidArgumentError(
          absl::StrCat("a version ", format_version, " manifest holds no deletion vectors"));
    }
    if (absl::Status s = ValidateTablePath(vector->path, "deletion vector path"); !s.ok()) return s;
    if (vector->path == fragment.path) {
      return absl::InvalidArgumentError(
          absl::StrCat("fragment '", fragment.path, "' is its own deletion vector"));
    }
    if (absl::Status s = ValidateSha256Field(vector->sha256, "a deletion vector's sha256");
        !s.ok()) {
      return s;
    }
    if (vector->deleted_rows == 0 || vector->deleted_rows > fragment.rows) {
      return absl::InvalidArgumentError(
          absl::StrCat("fragment '", fragment.path, "' has ", fragment.rows,
                       " rows; its deletion vector deletes ", vector->deleted_rows));
    }
  }
  return absl::OkStatus();
}

// Every field of the header (all but the fragments and total_rows).
absl::Status ValidateManifestHeader(const Manifest& m) {
  if (!IsReadableFormat(m.format_version)) {
    return absl::InvalidArgumentError(
        absl::StrCat("manifest format version ", m.format_version, " is not ",
                     kManifestFormatVersionV1, " to ", kManifestFormatVersion));
  }
  if (m.version == 0 || m.parent_version >= m.version) {
    return absl::InvalidArgumentError(
        absl::StrCat("version ", m.version, " must be above 0 and its parent ", m.parent_version));
  }
  if (m.created_unix_micros < 0) {
    return absl::InvalidArgumentError("created_unix_micros must not be negative");
  }
  if (absl::Status s = ValidateSchema(m.schema); !s.ok()) return s;
  if (absl::Status s = ValidateTablePath(m.reference_delta_path, "reference delta path"); !s.ok()) {
    return s;
  }
  return ValidateSha256Field(m.reference_delta_sha256, "reference_delta_sha256");
}

absl::Status ValidateFragments(const Manifest& manifest, size_t known_valid) {
  const std::vector<FragmentRef>& fragments = manifest.fragments;
  if (fragments.size() > kMaxManifestFragments) {
    return absl::InvalidArgumentError(
        absl::StrCat("a manifest lists at most ", kMaxManifestFragments, " fragments"));
  }
  known_valid = std::min(known_valid, fragments.size());
  const size_t added = fragments.size() - known_valid;
  // Repeats among all paths (fragments' and deletion vectors') through a
  // set, or, for a few added ones, by comparing each with the paths before
  // it (the trusted ones repeat none).
  const bool few_added = added <= 8;
  absl::flat_hash_set<std::string_view> paths;
  if (!few_added) paths.reserve(fragments.size());
  auto taken_before = [&](size_t i, const std::string& path) {
    for (size_t j = 0; j < i; ++j) {
      const FragmentRef& earlier = fragments[j];
      if (earlier.path == path ||
          (earlier.deletion_vector && earlier.deletion_vector->path == path)) {
        return true;
      }
    }
    return false;
  };
  auto repeats = [&](size_t i, const std::string& path) {
    return few_added ? taken_before(i, path) : !paths.insert(path).second;
  };
  uint64_t rows = 0;
  for (size_t i = 0; i < fragments.size(); ++i) {
    const FragmentRef& fragment = fragments[i];
    if (i >= known_valid) {
      if (absl::Status s =
              ValidateFragmentEntry(fragment, manifest.format_version, manifest.schema);
          !s.ok()) {
        return s;
      }
    }
    rows += fragment.live_rows();  // cannot wrap: 2^20 fragments × 2^24 rows
    if (i < known_valid && few_added) continue;
    if (repeats(i, fragment.path)) {
      return absl::InvalidArgumentError(
          absl::StrCat("fragment '", fragment.path, "' is listed twice"));
    }
    if (fragment.deletion_vector && repeats(i, fragment.deletion_vector->path)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the deletion vector path '", fragment.deletion_vector->path, "' is listed twice"));
    }
  }
  if (rows != manifest.total_rows) {
    return absl::InvalidArgumentError(
        absl::StrCat("total_rows is ", manifest.total_rows, " but the fragments hold ", rows));
  }
  return absl::OkStatus();
}

// u16 length + bytes; the caller has validated the length.
void WritePath(ByteWriter& w, const std::string& path) {
  w.U16(static_cast<uint16_t>(path.size()));
  w.Bytes(path);
}

bool ReadPath(ByteReader& r, std::string* path) {
  uint16_t bytes = 0;
  std::string_view text;
  if (!r.U16(&bytes) || !r.Bytes(bytes, &text)) return false;
  *path = std::string(text);
  return true;
}

// The digest's raw bytes; the caller has validated the hex.
void WriteSha256(ByteWriter& w, const std::string& hex) { w.Sha256(*Sha256FromHex(hex)); }

bool ReadSha256(ByteReader& r, std::string* hex) {
  Sha256Raw raw;
  if (!r.Sha256(&raw)) return false;
  *hex = Sha256ToHex(raw);
  return true;
}

// One fragment entry, as every format lays it out (the note's `entry`):
// shared by full lists and links.
void WriteFragmentEntry(ByteWriter& w, const FragmentRef& fragment, uint32_t format_version,
                        const Schema& schema) {
  WritePath(w, fragment.path);
  w.U64(fragment.rows);
  w.U64(fragment.size_bytes);
  WriteSha256(w, fragment.sha256);
  if (!EntriesHaveStatistics(format_version)) return;
  w.U8(fragment.statistics ? 1 : 0);
  if (fragment.statistics) WriteFragmentStatistics(w, *fragment.statistics, schema);
  if (!EntriesHaveDeletionVectors(format_version)) return;
  w.U8(fragment.deletion_vector ? 1 : 0);
  if (!fragment.deletion_vector) return;
  WritePath(w, fragment.deletion_vector->path);
  WriteSha256(w, fragment.deletion_vector->sha256);
  w.U64(fragment.deletion_vector->deleted_rows);
}

absl::Status ReadFragmentEntry(ByteReader& r, uint32_t format_version, const Schema& schema,
                               size_t index, FragmentRef* fragment) {
  auto ends_early = [&] { return Damaged(absl::StrCat("fragment ", index, " ends early")); };
  if (!ReadPath(r, &fragment->path) || !r.U64(&fragment->rows) ||
      !r.U64(&fragment->size_bytes) || !ReadSha256(r, &fragment->sha256)) {
    return ends_early();
  }
  if (!EntriesHaveStatistics(format_version)) return absl::OkStatus();
  uint8_t has_statistics = 0;
  if (!r.U8(&has_statistics)) return ends_early();
  if (has_statistics > 1) {
    return Damaged(absl::StrCat("fragment ", index, " has an unknown statistics flag"));
  }
  if (has_statistics == 1) {
    absl::StatusOr<FragmentStatistics> statistics = ReadFragmentStatistics(r, schema);
    if (!statistics.ok()) return statistics.status();
    fragment->statistics = *std::move(statistics);
  }
  if (!EntriesHaveDeletionVectors(format_version)) return absl::OkStatus();
  uint8_t has_deletion_vector = 0;
  if (!r.U8(&has_deletion_vector)) return ends_early();
  if (has_deletion_vector > 1) {
    return Damaged(absl::StrCat("fragment ", index, " has an unknown deletion vector flag"));
  }
  if (has_deletion_vector == 1) {
    DeletionVectorRef vector;
    if (!ReadPath(r, &vector.path) || !ReadSha256(r, &vector.sha256) ||
        !r.U64(&vector.deleted_rows)) {
      return ends_early();
    }
    fragment->deletion_vector = std::move(vector);
  }
  return absl::OkStatus();
}

// A u32 count of records at least `min_record_bytes` each, checked against
// the bytes left before anything is reserved for it.
absl::Status ReadCount(ByteReader& r, size_t min_record_bytes, std::string_view what,
                       uint32_t* count) {
  if (!r.U32(count)) return Damaged(absl::StrCat("the ", std::string(what), " list ends early"));
  if (*count > kMaxManifestFragments || *count > r.remaining() / min_record_bytes) {
    return Damaged(absl::StrCat(*count, " ", std::string(what), "s cannot fit"));
  }
  return absl::OkStatus();
}

absl::Status ReadEntries(ByteReader& r, uint32_t format_version, const Schema& schema,
                         std::vector<FragmentRef>* fragments) {
  uint32_t count = 0;
  if (absl::Status s = ReadCount(r, kMinFragmentRecordBytes, "fragment", &count); !s.ok()) {
    return s;
  }
  fragments->reserve(count);
  for (uint32_t i = 0; i < count; ++i) {
    FragmentRef fragment;
    if (absl::Status s = ReadFragmentEntry(r, format_version, schema, i, &fragment); !s.ok()) {
      return s;
    }
    fragments->push_back(std::move(fragment));
  }
  return absl::OkStatus();
}

void WriteEntries(ByteWriter& w, const std::vector<FragmentRef>& fragments,
                  uint32_t format_version, const Schema& schema) {
  w.U32(static_cast<uint32_t>(fragments.size()));
  for (const FragmentRef& fragment : fragments) {
    WriteFragmentEntry(w, fragment, format_version, schema);
  }
}

void WriteHeader(ByteWriter& w, const Manifest& m) {
  w.Bytes(kManifestMagic);
  w.U32(m.format_version);
  w.U64(m.table_id);
  w.U64(m.version);
  w.U64(m.parent_version);
  w.U64(static_cast<uint64_t>(m.created_unix_micros));
  w.U64(m.total_rows);
  WriteSchema(w, m.schema);
  WritePath(w, m.reference_delta_path);
  WriteSha256(w, m.reference_delta_sha256);
}

absl::Status ReadHeader(ByteReader& r, Manifest* m) {
  std::string_view magic;
  uint64_t created = 0;
  if (!r.Bytes(kManifestMagic.size(), &magic) || !r.U32(&m->format_version) ||
      !r.U64(&m->table_id) || !r.U64(&m->version) || !r.U64(&m->parent_version) ||
      !r.U64(&created) || !r.U64(&m->total_rows)) {
    return Damaged("shorter than a header");
  }
  if (magic != kManifestMagic) return Damaged("not a manifest (wrong magic)");
  if (!IsReadableFormat(m->format_version)) {
    return Damaged(absl::StrCat("unknown format version ", m->format_version, " (this lake reads ",
                                kManifestFormatVersionV1, " to ", kManifestFormatVersion, ")"));
  }
  m->created_unix_micros = static_cast<int64_t>(created);
  absl::StatusOr<Schema> schema = ReadSchema(r, "manifest is damaged");
  if (!schema.ok()) return schema.status();
  m->schema = std::move(*schema);
  if (!ReadPath(r, &m->reference_delta_path) || !ReadSha256(r, &m->reference_delta_sha256)) {
    return Damaged("the reference delta ends early");
  }
  return absl::OkStatus();
}

absl::StatusOr<ManifestLink> ReadLinkBody(ByteReader& r, Manifest header) {
  ManifestLink link;
  link.header = std::move(header);
  bool read = true;
  if (link.header.format_version == kManifestFormatVersionV3) {
    uint32_t chain_length = 0;
    link.base_version = link.header.parent_version;
    read = ReadSha256(r, &link.base_manifest_sha256) && r.U32(&chain_length) &&
           r.U64(&link.chain_bytes);
    link.chain_position = chain_length;
  } else {
    read = r.U64(&link.base_version) &&
           (link.header.format_version < kManifestFormatVersion ||
            ReadPath(r, &link.base_manifest_path)) &&
           ReadSha256(r, &link.base_manifest_sha256) && r.U64(&link.chain_position) &&
           r.U64(&link.chain_bytes);
  }
  if (!read) return Damaged("the link to its base ends early");
  uint32_t removed = 0;
  // The smallest removal: a one-byte path.
  if (absl::Status s = ReadCount(r, 2 + 1, "removed fragment", &removed); !s.ok()) return s;
  link.removed.reserve(removed);
  for (uint32_t i = 0; i < removed; ++i) {
    std::string path;
    if (!ReadPath(r, &path)) return Damaged(absl::StrCat("removed fragment ", i, " ends early"));
    link.removed.push_back(std::move(path));
  }
  if (absl::Status s = ReadEntries(r, link.header.format_version, link.header.schema, &link.added);
      !s.ok()) {
    return s;
  }
  return link;
}

absl::StatusOr<ManifestFile> ReadManifestFile(ByteReader& r) {
  Manifest m;
  if (absl::Status s = ReadHeader(r, &m); !s.ok()) return s;
  ManifestKind kind = ManifestKind::kCheckpoint;
  if (HasKind(m.format_version)) {
    uint8_t kind_byte = 0;
    if (!r.U8(&kind_byte)) return Damaged("its kind is missing");
    if (kind_byte > static_cast<uint8_t>(ManifestKind::kLink)) {
      return Damaged(absl::StrCat("unknown kind ", kind_byte));
    }
    kind = static_cast<ManifestKind>(kind_byte);
  }
  if (kind == ManifestKind::kLink) {
    absl::StatusOr<ManifestLink> link = ReadLinkBody(r, std::move(m));
    if (!link.ok()) return link.status();
    return ManifestFile(*std::move(link));
  }
  if (absl::Status s = ReadEntries(r, m.format_version, m.schema, &m.fragments); !s.ok()) return s;
  return ManifestFile(std::move(m));
}

}  // namespace

absl::Status ValidateTablePath(std::string_view path, std::string_view what) {
  auto bad = [&](std::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat(
        std::string(what), " '", std::string(path.substr(0, 64)), "' ", std::string(why)));
  };
  if (path.empty() || path.size() > kMaxTablePathBytes) {
    return bad(absl::StrCat("must be 1..", kMaxTablePathBytes, " bytes"));
  }
  size_t start = 0;
  while (true) {
    size_t slash = path.find('/', start);
    std::string_view segment = path.substr(
        start, slash == std::string_view::npos ? std::string_view::npos : slash - start);
    if (segment.empty()) return bad("has an empty segment (absolute, or a doubled '/')");
    if (segment == "." || segment == "..") return bad("has a '.' or '..' segment");
    for (char c : segment) {
      if (!IsPathByte(c)) return bad("may hold only [A-Za-z0-9._-] and '/'");
    }
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  return absl::OkStatus();
}

absl::Status ValidateManifest(const Manifest& m, size_t known_valid_fragments) {
  if (absl::Status s = ValidateManifestHeader(m); !s.ok()) return s;
  return ValidateFragments(m, known_valid_fragments);
}

namespace {

// The base and position fields of a link (the note's "Links").
absl::Status ValidateChainFields(const ManifestLink& link) {
  const Manifest& header = link.header;
  if (header.format_version == kManifestFormatVersionV3) {
    if (link.base_version != header.parent_version) {
      return absl::InvalidArgumentError(absl::StrCat("a format 3 link's base is its parent ",
                                                     header.parent_version, ", not ",
                                                     link.base_version));
    }
    if (link.chain_position == 0 || link.chain_position > kMaxManifestChainLength) {
      return absl::InvalidArgumentError(absl::StrCat("chain_length ", link.chain_position,
                                                     " is not in 1..", kMaxManifestChainLength));
    }
    return absl::OkStatus();
  }
  if (header.format_version >= kManifestFormatVersion) {
    if (absl::Status s = ValidateTablePath(link.base_manifest_path, "base manifest path");
        !s.ok()) {
      return s;
    }
  } else if (!link.base_manifest_path.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("a format ", header.format_version,
                                                   " link names no base manifest path"));
  }
  if (link.base_version == 0 || link.base_version > header.parent_version) {
    return absl::InvalidArgumentError(absl::StrCat("base_version ", link.base_version,
                                                   " is not in 1..parent_version (",
                                                   header.parent_version, ")"));
  }
  if (link.chain_position == 0 ||
      std::popcount(link.chain_position) > static_cast<int>(kMaxManifestChainLength)) {
    return absl::InvalidArgumentError(absl::StrCat("chain_position ", link.chain_position,
                                                   " is 0 or has more than ",
                                                   kMaxManifestChainLength, " bits set"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidateManifestLink(const ManifestLink& link) {
  const Manifest& header = link.header;
  if (!HasKind(header.format_version)) {
    return absl::InvalidArgumentError(absl::StrCat("a manifest link is of format version ",
                                                   kManifestFormatVersionV3, " or ",
                                                   kManifestFormatVersion, ", not ",
                                                   header.format_version));
  }
  if (absl::Status s = ValidateManifestHeader(header); !s.ok()) return s;
  if (header.parent_version == 0) {
    return absl::InvalidArgumentError("a table's first version is no link: it has no parent");
  }
  if (!header.fragments.empty()) {
    return absl::InvalidArgumentError("a link's header lists no fragments");
  }
  if (absl::Status s = ValidateSha256Field(link.base_manifest_sha256, "base_manifest_sha256");
      !s.ok()) {
    return s;
  }
  if (absl::Status s = ValidateChainFields(link); !s.ok()) return s;
  if (link.removed.size() > kMaxManifestFragments || link.added.size() > kMaxManifestFragments) {
    return absl::InvalidArgumentError(
        absl::StrCat("a link changes at most ", kMaxManifestFragments, " fragments each way"));
  }
  absl::flat_hash_set<std::string_view> removed;
  for (const std::string& path : link.removed) {
    if (absl::Status s = ValidateTablePath(path, "removed fragment path"); !s.ok()) return s;
    if (!removed.insert(path).second) {
      return absl::InvalidArgumentError(absl::StrCat("fragment '", path, "' is removed twice"));
    }
  }
  absl::flat_hash_set<std::string_view> added;
  for (const FragmentRef& fragment : link.added) {
    if (!added.insert(fragment.path).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("fragment '", fragment.path, "' is added twice"));
    }
    if (absl::Status s = ValidateFragmentEntry(fragment, header.format_version, header.schema);
        !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> EncodeManifest(const Manifest& m, size_t known_valid_fragments) {
  if (absl::Status s = ValidateManifest(m, known_valid_fragments); !s.ok()) return s;
  std::string out;
  ByteWriter w(&out);
  WriteHeader(w, m);
  if (HasKind(m.format_version)) w.U8(static_cast<uint8_t>(ManifestKind::kCheckpoint));
  WriteEntries(w, m.fragments, m.format_version, m.schema);
  out.append(Checksum128(out));
  return out;
}

absl::StatusOr<std::string> EncodeManifestLink(const ManifestLink& link) {
  if (absl::Status s = ValidateManifestLink(link); !s.ok()) return s;
  std::string out;
  ByteWriter w(&out);
  WriteHeader(w, link.header);
  w.U8(static_cast<uint8_t>(ManifestKind::kLink));
  if (link.header.format_version == kManifestFormatVersionV3) {
    WriteSha256(w, link.base_manifest_sha256);
    w.U32(static_cast<uint32_t>(link.chain_position));
  } else {
    w.U64(link.base_version);
    if (link.header.format_version >= kManifestFormatVersion) WritePath(w, link.base_manifest_path);
    WriteSha256(w, link.base_manifest_sha256);
    w.U64(link.chain_position);
  }
  w.U64(link.chain_bytes);
  w.U32(static_cast<uint32_t>(link.removed.size()));
  for (const std::string& path : link.removed) WritePath(w, path);
  WriteEntries(w, link.added, link.header.format_version, link.header.schema);
  out.append(Checksum128(out));
  return out;
}

size_t ManifestEntryBytes(const FragmentRef& fragment, uint32_t format_version,
                          const Schema& schema) {
  std::string out;
  ByteWriter w(&out);
  WriteFragmentEntry(w, fragment, format_version, schema);
  return out.size();
}

absl::StatusOr<ManifestFile> DecodeManifestFile(std::string_view bytes) {
  if (bytes.size() < kHeaderFixedBytes + kChecksum128Bytes) return Damaged("shorter than a header");
  if (bytes.substr(0, kManifestMagic.size()) != kManifestMagic) {
    return Damaged("not a manifest (wrong magic)");
  }
  std::string_view body = bytes.substr(0, bytes.size() - kChecksum128Bytes);
  if (kChecksumsEnforced && Checksum128(body) != bytes.substr(body.size())) {
    return Damaged("its digest does not match its bytes");
  }
  ByteReader r(body);
  absl::StatusOr<ManifestFile> file = ReadManifestFile(r);
  if (!file.ok()) return file.status();
  if (r.remaining() != 0) return Damaged("bytes follow the fragment list");
  absl::Status valid = std::holds_alternative<Manifest>(*file)
                           ? ValidateManifest(std::get<Manifest>(*file))
                           : ValidateManifestLink(std::get<ManifestLink>(*file));
  if (!valid.ok()) return Damaged(std::string(valid.message()));
  return file;
}

absl::StatusOr<Manifest> DecodeManifest(std::string_view bytes) {
  absl::StatusOr<ManifestFile> file = DecodeManifestFile(bytes);
  if (!file.ok()) return file.status();
  if (!std::holds_alternative<Manifest>(*file)) {
    return Damaged("it is a link to a base version, not a full fragment list");
  }
  return std::get<Manifest>(*std::move(file));
}

}  // namespace lake::table
