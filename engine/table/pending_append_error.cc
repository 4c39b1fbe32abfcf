#include "engine/table/pending_append_error.h"

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"

namespace lake::table {

absl::Status PendingOperationError(const absl::Status& cause, std::string_view operation_id) {
  absl::Status status = absl::UnknownError(absl::StrCat(
      "append operation ", std::string(operation_id), " may still commit (", cause.ToString(absl::StatusToStringMode::kWithNoExtraData),
      "): its checkpoint is kept for recovery to settle (lake_db_recover, lake recover); do "
      "not run the append again"));
  status.SetPayload(std::string(kPendingOperationPayload), absl::Cord(std::string(operation_id)));
  return status;
}

std::optional<std::string> GetPendingOperationId(const absl::Status& status) {
  if (!absl::IsUnknown(status)) return std::nullopt;
  auto payload = status.GetPayload(std::string(kPendingOperationPayload));
  if (!payload.has_value() || payload->empty()) return std::nullopt;
  return std::string(*payload);
}

}  // namespace lake::table
