#include "engine/gc/plan_page_format.h"

#include "absl/strings/str_cat.h"
#include "engine/operation_id.h"
#include "engine/sha256.h"
#include "engine/table/byte_codec.h"

namespace lake::gc {
namespace {

using table::ByteReader;
using table::ByteWriter;
using table::Sha256Raw;

constexpr uint64_t kMaxSizeBytes = (uint64_t{1} << 63) - 1;

absl::Status Damaged(std::string_view why) {
  return absl::DataLossError(absl::StrCat("a plan page is damaged: ", std::string(why)));
}

bool IsZero(const Sha256Raw& raw) {
  for (uint8_t b : raw) {
    if (b != 0) return false;
  }
  return true;
}

bool ValidKind(uint8_t kind) {
  return kind == static_cast<uint8_t>(CandidateKind::kStageObject) ||
         kind == static_cast<uint8_t>(CandidateKind::kTableFile);
}

}  // namespace

absl::Status ValidateCandidateUri(std::string_view uri) {
  if (uri.empty() || uri.size() > kMaxPlanUriBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("a candidate uri must be 1..", kMaxPlanUriBytes, " bytes"));
  }
  for (char c : uri) {
    if (c < 0x21 || c > 0x7e) {
      return absl::InvalidArgumentError("a candidate uri must be printable ASCII");
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<EncodedPlanPage> EncodePlanPage(const PlanPage& page) {
  if (page.entries.empty() || page.entries.size() > kMaxPlanPageEntries) {
    return absl::InvalidArgumentError(
        absl::StrCat("a plan page holds 1..", kMaxPlanPageEntries, " entries, not ",
                     page.entries.size()));
  }
  if (page.page_index == 0) return absl::InvalidArgumentError("plan pages count from 1");
  if (!ParseOperationId(page.plan_id).ok()) {
    return absl::InvalidArgumentError("the plan id is not a canonical UUIDv7");
  }
  Sha256Raw next{};
  if (!page.next_page_sha256.empty()) {
    std::optional<Sha256Raw> raw = table::Sha256FromHex(page.next_page_sha256);
    if (!raw || IsZero(*raw)) {
      return absl::InvalidArgumentError("the next page's sha256 is not 64 lowercase hex");
    }
    next = *raw;
  }
  std::string bytes;
  ByteWriter w(&bytes);
  w.Bytes(kPlanPageMagic);
  w.U32(kPlanPageFormatVersion);
  w.U32(static_cast<uint32_t>(page.entries.size()));
  w.U64(page.page_index);
  w.Bytes(page.plan_id);
  w.Sha256(next);
  const std::string* previous = nullptr;
  for (const Candidate& entry : page.entries) {
    if (absl::Status s = ValidateCandidateUri(entry.uri); !s.ok()) return s;
    if (previous != nullptr && !(*previous < entry.uri)) {
      return absl::InvalidArgumentError(
          absl::StrCat("plan page entries are not in ascending uri order at ", entry.uri));
    }
    if (!ValidKind(static_cast<uint8_t>(entry.kind)) || entry.size_bytes > kMaxSizeBytes) {
      return absl::InvalidArgumentError(absl::StrCat("invalid plan entry ", entry.uri));
    }
    previous = &entry.uri;
    w.U8(static_cast<uint8_t>(entry.kind));
    w.U16(static_cast<uint16_t>(entry.uri.size()));
    w.Bytes(entry.uri);
    w.U64(entry.size_bytes);
    w.U64(static_cast<uint64_t>(entry.modified_unix_micros));
  }
  std::string digest = Sha256Hex(bytes);
  w.Sha256(*table::Sha256FromHex(digest));
  return EncodedPlanPage{std::move(bytes), std::move(digest)};
}

absl::StatusOr<PlanPage> DecodePlanPage(std::string_view bytes, std::string* sha256) {
  if (bytes.size() > kMaxPlanPageBytes) return Damaged("larger than a page can be");
  if (bytes.size() < kPlanPageHeaderBytes + table::kSha256RawBytes) return Damaged("too short");
  std::string_view body = bytes.substr(0, bytes.size() - table::kSha256RawBytes);
  ByteReader trailer(bytes.substr(body.size()));
  Sha256Raw stored;
  trailer.Sha256(&stored);
  std::string digest = Sha256Hex(body);
  if (table::kChecksumsEnforced && table::Sha256ToHex(stored) != digest) {
    return Damaged("its sha256 does not match its bytes");
  }
  ByteReader r(body);
  std::string_view magic;
  uint32_t version = 0, count = 0;
  PlanPage page;
  r.Bytes(kPlanPageMagic.size(), &magic);
  if (magic != kPlanPageMagic) return Damaged("not a plan page (magic)");
  r.U32(&version);
  if (version != kPlanPageFormatVersion) {
    return Damaged(absl::StrCat("unknown format version ", version));
  }
  r.U32(&count);
  if (count == 0 || count > kMaxPlanPageEntries) {
    return Damaged(absl::StrCat("entry count ", count, " is out of bounds"));
  }
  r.U64(&page.page_index);
  if (page.page_index == 0) return Damaged("page index 0");
  std::string_view plan_id;
  r.Bytes(36, &plan_id);
  if (!ParseOperationId(plan_id).ok()) return Damaged("the plan id is not a canonical UUIDv7");
  page.plan_id = std::string(plan_id);
  Sha256Raw next;
  r.Sha256(&next);
  if (!IsZero(next)) page.next_page_sha256 = table::Sha256ToHex(next);
  page.entries.reserve(count);
  for (uint32_t i = 0; i < count; ++i) {
    uint8_t kind = 0;
    uint16_t uri_bytes = 0;
    std::string_view uri;
    uint64_t size = 0, modified = 0;
    if (!r.U8(&kind) || !r.U16(&uri_bytes) || !r.Bytes(uri_bytes, &uri) || !r.U64(&size) ||
        !r.U64(&modified)) {
      return Damaged(absl::StrCat("entry ", i, " runs past the end"));
    }
    if (!ValidKind(kind)) return Damaged(absl::StrCat("entry ", i, " has unknown kind ", kind));
    if (!ValidateCandidateUri(uri).ok()) {
      return Damaged(absl::StrCat("entry ", i, " has an invalid uri"));
    }
    if (size > kMaxSizeBytes) return Damaged(absl::StrCat("entry ", i, " has an invalid size"));
    if (!page.entries.empty() && !(page.entries.back().uri < uri)) {
      return Damaged(absl::StrCat("entry ", i, " is not after the entry before it"));
    }
    page.entries.push_back(Candidate{static_cast<CandidateKind>(kind), std::string(uri), size,
                                     static_cast<int64_t>(modified)});
  }
  if (r.remaining() != 0) return Damaged("bytes follow its last entry");
  if (sha256 != nullptr) *sha256 = std::move(digest);
  return page;
}

}  // namespace lake::gc
