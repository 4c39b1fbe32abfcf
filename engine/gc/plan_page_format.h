// A page of a deletion plan: at most kMaxPlanPageEntries candidates (S3
// DeleteObjects' limit), each with the size and modification time the
// inventory saw, in strictly ascending URI order.
//
// The pages of a plan form a content-addressed chain: a page's identity is
// the SHA-256 of its bytes before the trailer (the trailer holds it, and
// the page's file is named after it, <plan>/pages/<sha256>.page); each page
// names the next page's identity, the last page names none (32 zero
// bytes), and the manifest (plan_manifest_format.h) names the first. So
// the manifest's digest covers every page: changing, dropping, adding or
// reordering one breaks a link. Pages are sealed last to first, when every
// next identity is known.
//
// Format (version 1). Integers are little-endian.
//
//   page    := magic "LAKEGCPG" (8 bytes)
//              u32 format_version (1)
//              u32 entry_count           1..kMaxPlanPageEntries
//              u64 page_index            1-based position in the chain
//              plan_id[36]               the plan's id (canonical UUIDv7 text)
//              next_page_sha256[32]      raw; all zero on the last page
//              entry_count × entry
//              sha256[32]                SHA-256 of every byte before it
//   entry   := u8 kind                   1 stage object, 2 table file
//              u16 uri_bytes             1..kMaxPlanUriBytes
//              uri                       printable ASCII (0x21..0x7e)
//              u64 size_bytes            < 2^63
//              i64 modified_unix_micros
//
// The decoder fails closed (DataLoss) on another magic or version, a count
// or length out of bounds or past the end, trailing bytes, an unknown kind,
// a uri with other bytes, URIs not strictly ascending, or a digest that
// does not match. Pages are read whole: at most kMaxPlanPageBytes.
#ifndef LAKE_ENGINE_GC_PLAN_PAGE_FORMAT_H_
#define LAKE_ENGINE_GC_PLAN_PAGE_FORMAT_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace lake::gc {

inline constexpr std::string_view kPlanPageMagic = "LAKEGCPG";
inline constexpr uint32_t kPlanPageFormatVersion = 1;
// S3's DeleteObjects takes at most 1,000 keys per request.
inline constexpr size_t kMaxPlanPageEntries = 1000;
// As reference deltas (kMaxReferenceUriBytes): longer than any managed uri.
inline constexpr size_t kMaxPlanUriBytes = 4096;
inline constexpr size_t kPlanPageHeaderBytes = 8 + 4 + 4 + 8 + 36 + 32;
inline constexpr size_t kPlanPageEntryFixedBytes = 1 + 2 + 8 + 8;
inline constexpr size_t kMaxPlanPageBytes =
    kPlanPageHeaderBytes + kMaxPlanPageEntries * (kPlanPageEntryFixedBytes + kMaxPlanUriBytes) + 32;

enum class CandidateKind : uint8_t {
  kStageObject = 1,  // a managed object of the root's stage
  kTableFile = 2,    // a file in a table directory no committed version names
};

struct Candidate {
  CandidateKind kind = CandidateKind::kStageObject;
  std::string uri;
  uint64_t size_bytes = 0;
  int64_t modified_unix_micros = 0;

  bool operator==(const Candidate&) const = default;
};

struct PlanPage {
  uint64_t page_index = 0;
  std::string plan_id;
  std::string next_page_sha256;  // 64 lowercase hex, or "" on the last page
  std::vector<Candidate> entries;

  bool operator==(const PlanPage&) const = default;
};

struct EncodedPlanPage {
  std::string bytes;
  std::string sha256;  // 64 lowercase hex: the page's identity
};

// InvalidArgument when the page breaks a rule above (an empty page, too
// many entries, a bad uri, URIs out of order, a bad plan id or hash).
absl::StatusOr<EncodedPlanPage> EncodePlanPage(const PlanPage& page);
// The page in `bytes`, whose identity is returned in *sha256 (may be null).
absl::StatusOr<PlanPage> DecodePlanPage(std::string_view bytes, std::string* sha256);

// Checks a candidate's uri against the format's rules (InvalidArgument).
absl::Status ValidateCandidateUri(std::string_view uri);

}  // namespace lake::gc

#endif  // LAKE_ENGINE_GC_PLAN_PAGE_FORMAT_H_
