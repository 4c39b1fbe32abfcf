#include "engine/table/derived_reference_delta_format.h"

#include "absl/strings/str_cat.h"
#include "engine/table/byte_codec.h"
#include "engine/table/reference_delta_format.h"

namespace lake::table {
namespace {

// Why `delta` cannot be encoded, or "" when it can.
std::string FieldProblem(const DerivedReferenceDelta& delta) {
  if (delta.format_version < kOldestDerivedReferenceDeltaFormatVersion ||
      delta.format_version > kDerivedReferenceDeltaFormatVersion) {
    return absl::StrCat("format version ", delta.format_version, " is not ",
                        kOldestDerivedReferenceDeltaFormatVersion, " or ",
                        kDerivedReferenceDeltaFormatVersion);
  }
  if (delta.table_id == 0) return "a table id of 0";
  if (delta.child_version <= delta.parent_version) {
    return absl::StrCat("child version ", delta.child_version, " is not past parent version ",
                        delta.parent_version);
  }
  if (delta.fragment_payload_bytes == 0) return "a fragment of 0 bytes";
  return "";
}

// The magic and format version every derived delta opens with.
constexpr size_t kVersionedMagicBytes = 12;

}  // namespace

bool IsDerivedReferenceDelta(std::string_view payload) {
  if (payload.size() < kVersionedMagicBytes ||
      payload.substr(0, kReferenceDeltaMagic.size()) != kReferenceDeltaMagic) {
    return false;
  }
  ByteReader r(payload.substr(kReferenceDeltaMagic.size(), 4));
  uint32_t version = 0;
  r.U32(&version);
  return version >= kOldestDerivedReferenceDeltaFormatVersion &&
         version <= kDerivedReferenceDeltaFormatVersion;
}

absl::StatusOr<std::string> EncodeDerivedReferenceDelta(const DerivedReferenceDelta& delta) {
  if (std::string problem = FieldProblem(delta); !problem.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("derived reference delta: ", problem));
  }
  std::string out;
  out.reserve(kDerivedReferenceDeltaBytes);
  ByteWriter w(&out);
  w.Bytes(kReferenceDeltaMagic);
  w.U32(delta.format_version);
  w.U32(0);
  w.U64(delta.table_id);
  w.U64(delta.parent_version);
  w.U64(delta.child_version);
  w.U64(delta.fragment_offset);
  w.U64(delta.fragment_payload_bytes);
  return out;
}

absl::StatusOr<DerivedReferenceDelta> DecodeDerivedReferenceDelta(std::string_view payload) {
  auto damaged = [](std::string_view why) {
    return absl::DataLossError(absl::StrCat("derived reference delta: ", std::string(why)));
  };
  if (payload.size() != kDerivedReferenceDeltaBytes) {
    return damaged(absl::StrCat(payload.size(), " bytes, not ", kDerivedReferenceDeltaBytes));
  }
  ByteReader r(payload);
  std::string_view magic;
  uint32_t zero = 0;
  DerivedReferenceDelta delta;
  r.Bytes(kReferenceDeltaMagic.size(), &magic);
  r.U32(&delta.format_version);
  r.U32(&zero);
  r.U64(&delta.table_id);
  r.U64(&delta.parent_version);
  r.U64(&delta.child_version);
  r.U64(&delta.fragment_offset);
  r.U64(&delta.fragment_payload_bytes);
  if (magic != kReferenceDeltaMagic) return damaged("not a reference delta (bad magic)");
  if (zero != 0) return damaged("its reserved bytes are not zero");
  if (std::string problem = FieldProblem(delta); !problem.empty()) return damaged(problem);
  return delta;
}

}  // namespace lake::table
