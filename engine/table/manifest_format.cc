// The manifest file format; its note is in manifest_format.h.
#include "engine/table/manifest_format.h"

#include <algorithm>
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

absl::Status ValidateFragments(const Manifest& manifest, size_t known_valid) {
  const std::vector<FragmentRef>& fragments = manifest.fragments;
  if (fragments.size() > kMaxManifestFragments) {
    return absl::InvalidArgumentError(
        absl::StrCat("a manifest lists at most ", kMaxManifestFragments, " fragments"));
  }
  known_valid = std::min(known_valid, fragments.size());
  const size_t added = fragments.size() - known_valid;
  // Repeats among all paths through a set, or, for a few added ones, by
  // comparing each with the paths before it (the trusted ones repeat none).
  const bool few_added = added <= 8;
  absl::flat_hash_set<std::string_view> paths;
  if (!few_added) paths.reserve(fragments.size());
  uint64_t rows = 0;
  // A deletion vector's path repeats no fragment's nor another vector's.
  auto path_taken = [&](size_t i, const std::string& path) {
    for (size_t j = 0; j < i; ++j) {
      const FragmentRef& earlier = fragments[j];
      if (earlier.path == path ||
          (earlier.deletion_vector && earlier.deletion_vector->path == path)) {
        return true;
      }
    }
    return false;
  };
  for (size_t i = 0; i < fragments.size(); ++i) {
    const FragmentRef& fragment = fragments[i];
    const std::optional<DeletionVectorRef>& vector = fragment.deletion_vector;
    if (vector && vector->deleted_rows > fragment.rows) {
      return absl::InvalidArgumentError(absl::StrCat("fragment '", fragment.path, "' has ",
                                                     fragment.rows, " rows, its deletion vector deletes ",
                                                     vector->deleted_rows));
    }
    rows += fragment.live_rows();  // cannot wrap: 2^20 fragments × 2^24 rows
    if (i < known_valid && few_added) continue;
    bool repeated = false;
    bool vector_repeated = false;
    if (few_added) {
      repeated = path_taken(i, fragment.path);
      vector_repeated = vector && (vector->path == fragment.path || path_taken(i, vector->path));
    } else {
      repeated = !paths.insert(fragment.path).second;
      vector_repeated = vector && !paths.insert(vector->path).second;
    }
    if (repeated) {
      return absl::InvalidArgumentError(
          absl::StrCat("fragment '", fragment.path, "' is listed twice"));
    }
    if (vector_repeated) {
      return absl::InvalidArgumentError(absl::StrCat("the deletion vector path '", vector->path,
                                                     "' is listed twice"));
    }
    if (i < known_valid) continue;
    if (absl::Status s = ValidateTablePath(fragment.path, "fragment path"); !s.ok()) return s;
    if (fragment.rows > kMaxFragmentRows) {
      return absl::InvalidArgumentError(
          absl::StrCat("fragment '", fragment.path, "' has more than ", kMaxFragmentRows, " rows"));
    }
    if (absl::Status s = ValidateSha256Field(fragment.sha256, "a fragment's sha256"); !s.ok()) {
      return s;
    }
    if (fragment.statistics) {
      if (manifest.format_version == kManifestFormatVersionV1) {
        return absl::InvalidArgumentError("a version 1 manifest holds no statistics");
      }
      if (absl::Status s = ValidateFragmentStatistics(*fragment.statistics, manifest.schema, fragment.rows);
          !s.ok()) {
        return absl::InvalidArgumentError(absl::StrCat("fragment '", fragment.path, "': ", std::string(s.message())));
      }
    }
    if (vector) {
      if (manifest.format_version < kManifestFormatVersion) {
        return absl::InvalidArgumentError(absl::StrCat("a version ", manifest.format_version,
                                                       " manifest holds no deletion vectors"));
      }
      if (absl::Status s = ValidateTablePath(vector->path, "deletion vector path"); !s.ok()) return s;
      if (absl::Status s = ValidateSha256Field(vector->sha256, "a deletion vector's sha256"); !s.ok()) {
        return s;
      }
      if (vector->deleted_rows == 0) {
        return absl::InvalidArgumentError(absl::StrCat("fragment '", fragment.path,
                                                       "' has a deletion vector that deletes no row"));
      }
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

absl::Status ReadFragments(ByteReader& r, uint32_t format_version, const Schema& schema,
                           std::vector<FragmentRef>* fragments) {
  uint32_t count = 0;
  if (!r.U32(&count)) return Damaged("the fragment list ends early");
  if (count > kMaxManifestFragments || count > r.remaining() / kMinFragmentRecordBytes) {
    return Damaged(absl::StrCat(count, " fragments cannot fit"));
  }
  fragments->reserve(count);
  for (uint32_t i = 0; i < count; ++i) {
    absl::StatusOr<FragmentRef> fragment = ReadManifestFragmentEntry(r, format_version, schema, i);
    if (!fragment.ok()) return fragment.status();
    fragments->push_back(*std::move(fragment));
  }
  return absl::OkStatus();
}

bool IsKnownFormat(uint32_t format_version) {
  return format_version == kManifestFormatVersion ||
         format_version == kManifestFormatVersionV2 || format_version == kManifestFormatVersionV1;
}

absl::StatusOr<Manifest> ReadManifest(ByteReader& r) {
  Manifest m;
  std::string_view magic;
  uint64_t created = 0;
  if (!r.Bytes(kManifestMagic.size(), &magic) || !r.U32(&m.format_version) || !r.U64(&m.table_id) ||
      !r.U64(&m.version) || !r.U64(&m.parent_version) || !r.U64(&created) ||
      !r.U64(&m.total_rows)) {
    return Damaged("shorter than a header");
  }
  if (magic != kManifestMagic) return Damaged("not a manifest (wrong magic)");
  if (!IsKnownFormat(m.format_version)) {
    return Damaged(absl::StrCat("unknown format version ", m.format_version, " (this lake reads ",
                                kManifestFormatVersionV1, " to ", kManifestFormatVersion, ")"));
  }
  m.created_unix_micros = static_cast<int64_t>(created);
  absl::StatusOr<Schema> schema = ReadSchema(r, "manifest is damaged");
  if (!schema.ok()) return schema.status();
  m.schema = std::move(*schema);
  if (!ReadPath(r, &m.reference_delta_path) || !ReadSha256(r, &m.reference_delta_sha256)) {
    return Damaged("the reference delta ends early");
  }
  if (absl::Status s = ReadFragments(r, m.format_version, m.schema, &m.fragments); !s.ok()) return s;
  return m;
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
  if (!IsKnownFormat(m.format_version)) {
    return absl::InvalidArgumentError(absl::StrCat("manifest format version ", m.format_version,
                                                   " is not ", kManifestFormatVersionV1, " to ",
                                                   kManifestFormatVersion));
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
  if (absl::Status s = ValidateSha256Field(m.reference_delta_sha256, "reference_delta_sha256");
      !s.ok()) {
    return s;
  }
  return ValidateFragments(m, known_valid_fragments);
}

uint32_t ManifestFormatFor(const std::vector<FragmentRef>& fragments) {
  for (const FragmentRef& fragment : fragments) {
    if (fragment.deletion_vector) return kManifestFormatVersion;
  }
  return kManifestFormatVersionV2;
}

void WriteManifestFragmentEntry(ByteWriter& w, const FragmentRef& fragment,
                                uint32_t format_version, const Schema& schema) {
  WritePath(w, fragment.path);
  w.U64(fragment.rows);
  w.U64(fragment.size_bytes);
  WriteSha256(w, fragment.sha256);
  if (format_version == kManifestFormatVersionV1) return;
  w.U8(fragment.statistics ? 1 : 0);
  if (fragment.statistics) WriteFragmentStatistics(w, *fragment.statistics, schema);
  if (format_version == kManifestFormatVersionV2) return;
  w.U8(fragment.deletion_vector ? 1 : 0);
  if (!fragment.deletion_vector) return;
  WritePath(w, fragment.deletion_vector->path);
  WriteSha256(w, fragment.deletion_vector->sha256);
  w.U64(fragment.deletion_vector->deleted_rows);
}

absl::StatusOr<FragmentRef> ReadManifestFragmentEntry(ByteReader& r, uint32_t format_version,
                                                      const Schema& schema, size_t index) {
  auto ends_early = [&] { return Damaged(absl::StrCat("fragment ", index, " ends early")); };
  FragmentRef fragment;
  if (!ReadPath(r, &fragment.path) || !r.U64(&fragment.rows) || !r.U64(&fragment.size_bytes) ||
      !ReadSha256(r, &fragment.sha256)) {
    return ends_early();
  }
  if (format_version == kManifestFormatVersionV1) return fragment;
  uint8_t has_statistics = 0;
  if (!r.U8(&has_statistics)) return ends_early();
  if (has_statistics > 1) {
    return Damaged(absl::StrCat("fragment ", index, " has an unknown statistics flag"));
  }
  if (has_statistics == 1) {
    absl::StatusOr<FragmentStatistics> statistics = ReadFragmentStatistics(r, schema);
    if (!statistics.ok()) return statistics.status();
    fragment.statistics = *std::move(statistics);
  }
  if (format_version == kManifestFormatVersionV2) return fragment;
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
    fragment.deletion_vector = std::move(vector);
  }
  return fragment;
}

absl::StatusOr<std::string> EncodeManifest(const Manifest& m, size_t known_valid_fragments) {
  if (absl::Status s = ValidateManifest(m, known_valid_fragments); !s.ok()) return s;
  std::string out;
  ByteWriter w(&out);
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
  w.U32(static_cast<uint32_t>(m.fragments.size()));
  for (const FragmentRef& fragment : m.fragments) {
    WriteManifestFragmentEntry(w, fragment, m.format_version, m.schema);
  }
  out.append(Checksum128(out));
  return out;
}

absl::StatusOr<Manifest> DecodeManifest(std::string_view bytes) {
  if (bytes.size() < kHeaderFixedBytes + kChecksum128Bytes) return Damaged("shorter than a header");
  if (bytes.substr(0, kManifestMagic.size()) != kManifestMagic) {
    return Damaged("not a manifest (wrong magic)");
  }
  std::string_view body = bytes.substr(0, bytes.size() - kChecksum128Bytes);
  if (kChecksumsEnforced && Checksum128(body) != bytes.substr(body.size())) {
    return Damaged("its digest does not match its bytes");
  }
  ByteReader r(body);
  absl::StatusOr<Manifest> manifest = ReadManifest(r);
  if (!manifest.ok()) return manifest.status();
  if (r.remaining() != 0) return Damaged("bytes follow the fragment list");
  if (absl::Status s = ValidateManifest(*manifest); !s.ok()) {
    return Damaged(std::string(s.message()));
  }
  return manifest;
}

}  // namespace lake::table
