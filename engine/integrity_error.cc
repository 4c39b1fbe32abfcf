#include "engine/integrity_error.h"

#include <string>

#include "absl/strings/cord.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace lake {
namespace {

// Payload text: "<kind number>:<expected>:<observed>".
constexpr char kPayloadUrl[] = "type.lake.dev/ObjectIntegrityError";

}  // namespace

std::string_view IntegrityKindName(IntegrityKind kind) {
  switch (kind) {
    case IntegrityKind::kSizeShort: return "SizeShort";
    case IntegrityKind::kSizeLong: return "SizeLong";
    case IntegrityKind::kDigestMismatch: return "DigestMismatch";
    case IntegrityKind::kPrematureEof: return "PrematureEof";
    case IntegrityKind::kInvalidLocation: return "InvalidLocation";
    case IntegrityKind::kObjectChanged: return "ObjectChanged";
  }
  return "Unknown";
}

absl::Status IntegrityError(IntegrityKind kind, uint64_t expected,
                            uint64_t observed, std::string_view message) {
  std::string text = absl::StrCat(std::string(IntegrityKindName(kind)), ": ",
                                  std::string(message));
  absl::Status status = kind == IntegrityKind::kInvalidLocation
                            ? absl::InvalidArgumentError(text)
                            : absl::DataLossError(text);
  status.SetPayload(kPayloadUrl,
                    absl::Cord(absl::StrCat(static_cast<int>(kind), ":",
                                            expected, ":", observed)));
  return status;
}

absl::Status InvalidLocationError(std::string_view message) {
  return IntegrityError(IntegrityKind::kInvalidLocation, 0, 0, message);
}

std::optional<IntegrityDetail> GetIntegrityDetail(const absl::Status& status) {
  auto payload = status.GetPayload(kPayloadUrl);
  if (!payload.has_value()) return std::nullopt;
  std::vector<std::string> parts =
      absl::StrSplit(std::string(*payload), ':');
  int kind = 0;
  IntegrityDetail detail{IntegrityKind::kInvalidLocation};
  if (parts.size() != 3 || !absl::SimpleAtoi(parts[0], &kind) ||
      kind < 0 || kind > static_cast<int>(IntegrityKind::kObjectChanged) ||
      !absl::SimpleAtoi(parts[1], &detail.expected) ||
      !absl::SimpleAtoi(parts[2], &detail.observed)) {
    return std::nullopt;
  }
  detail.kind = static_cast<IntegrityKind>(kind);
  return detail;
}

}  // namespace lake
