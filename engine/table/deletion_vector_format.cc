// The deletion vector file format; its note is in deletion_vector_format.h.
#include "engine/table/deletion_vector_format.h"

#include <algorithm>
#include <iterator>

#include "absl/strings/str_cat.h"
#include "engine/table/byte_codec.h"
#include "engine/table/fragment_format.h"

namespace lake::table {
namespace {

constexpr size_t kHeaderBytes = 8 + 4 + kSha256RawBytes + 8 + 8;
static_assert(EncodedDeletionVectorBytes(0) == kHeaderBytes + kChecksum128Bytes);

absl::Status Damaged(std::string_view why) {
  return absl::DataLossError(absl::StrCat("deletion vector is damaged: ", std::string(why)));
}

}  // namespace

absl::Status ValidateDeletionVector(const DeletionVector& v) {
  if (!Sha256FromHex(v.fragment_sha256)) {
    return absl::InvalidArgumentError("a deletion vector's fragment_sha256 must be 64 lowercase hex");
  }
  if (v.fragment_rows == 0 || v.fragment_rows > kMaxFragmentRows) {
    return absl::InvalidArgumentError(absl::StrCat("a deletion vector's fragment has 1..",
                                                   kMaxFragmentRows, " rows, not ",
                                                   v.fragment_rows));
  }
  if (v.deleted_rows.empty()) {
    return absl::InvalidArgumentError("a deletion vector deletes at least one row");
  }
  for (size_t i = 0; i < v.deleted_rows.size(); ++i) {
    if (v.deleted_rows[i] >= v.fragment_rows) {
      return absl::InvalidArgumentError(absl::StrCat("deleted row ", v.deleted_rows[i],
                                                     " is past the fragment's ",
                                                     v.fragment_rows, " rows"));
    }
    if (i > 0 && v.deleted_rows[i] <= v.deleted_rows[i - 1]) {
      return absl::InvalidArgumentError("a deletion vector's rows must be strictly ascending");
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> EncodeDeletionVector(const DeletionVector& v) {
  if (absl::Status s = ValidateDeletionVector(v); !s.ok()) return s;
  std::string out;
  out.reserve(kHeaderBytes + 4 * v.deleted_rows.size() + kChecksum128Bytes);
  ByteWriter w(&out);
  w.Bytes(kDeletionVectorMagic);
  w.U32(kDeletionVectorFormatVersion);
  w.Sha256(*Sha256FromHex(v.fragment_sha256));
  w.U64(v.fragment_rows);
  w.U64(v.deleted_rows.size());
  for (uint32_t row : v.deleted_rows) w.U32(row);
  out.append(Checksum128(out));
  return out;
}

absl::StatusOr<DeletionVector> DecodeDeletionVector(std::string_view bytes) {
  if (bytes.size() < kHeaderBytes + kChecksum128Bytes) return Damaged("shorter than a header");
  if (bytes.substr(0, kDeletionVectorMagic.size()) != kDeletionVectorMagic) {
    return Damaged("not a deletion vector (wrong magic)");
  }
  std::string_view body = bytes.substr(0, bytes.size() - kChecksum128Bytes);
  if (kChecksumsEnforced && Checksum128(body) != bytes.substr(body.size())) {
    return Damaged("its digest does not match its bytes");
  }
  ByteReader r(body);
  std::string_view magic;
  uint32_t format_version = 0;
  Sha256Raw fragment_sha256;
  DeletionVector v;
  uint64_t count = 0;
  if (!r.Bytes(kDeletionVectorMagic.size(), &magic) || !r.U32(&format_version) ||
      !r.Sha256(&fragment_sha256) || !r.U64(&v.fragment_rows) || !r.U64(&count)) {
    return Damaged("shorter than a header");
  }
  if (format_version != kDeletionVectorFormatVersion) {
    return Damaged(absl::StrCat("unknown format version ", format_version, " (this lake reads ",
                                kDeletionVectorFormatVersion, ")"));
  }
  if (count != r.remaining() / 4 || r.remaining() % 4 != 0) {
    return Damaged(absl::StrCat(count, " deleted rows do not fill its ", r.remaining(),
                                " bytes of rows"));
  }
  v.fragment_sha256 = Sha256ToHex(fragment_sha256);
  v.deleted_rows.resize(count);
  for (uint64_t i = 0; i < count; ++i) r.U32(&v.deleted_rows[i]);
  if (absl::Status s = ValidateDeletionVector(v); !s.ok()) return Damaged(std::string(s.message()));
  return v;
}

std::vector<uint32_t> MergeDeletedRows(const std::vector<uint32_t>& a,
                                       const std::vector<uint32_t>& b) {
  std::vector<uint32_t> merged;
  merged.reserve(a.size() + b.size());
  std::set_union(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(merged));
  return merged;
}

}  // namespace lake::table
