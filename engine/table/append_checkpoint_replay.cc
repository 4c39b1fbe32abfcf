#include "engine/table/append_checkpoint_replay.h"

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "engine/operation_id.h"

namespace lake::table {

absl::Status ExpiredOperationError(std::string_view operation_id, absl::Duration age,
                                   absl::Duration retention) {
  absl::Status status = absl::FailedPreconditionError(absl::StrCat(
      "append operation ", std::string(operation_id), " is ", absl::FormatDuration(age),
      " old, past the retention horizon of ", absl::FormatDuration(retention),
      " (LAKE_APPEND_OPERATION_RETENTION_SECS): it is rejected, not replayed"));
  status.SetPayload(std::string(kExpiredAppendOperationPayload),
                    absl::Cord(std::string(operation_id)));
  return status;
}

bool IsExpiredOperation(const absl::Status& status) {
  return absl::IsFailedPrecondition(status) &&
         status.GetPayload(std::string(kExpiredAppendOperationPayload)).has_value();
}

absl::Status ValidateForReplay(const AppendCheckpoint& checkpoint,
                               std::string_view expected_stage_identity, absl::Time now,
                               absl::Duration retention) {
  absl::StatusOr<OperationId> id = ParseOperationId(checkpoint.operation_id);
  if (!id.ok()) {
    return absl::DataLossError(
        absl::StrCat("append checkpoint is damaged: ", id.status().message()));
  }
  if (checkpoint.stage_identity != expected_stage_identity) {
    return absl::FailedPreconditionError(absl::StrCat(
        "append checkpoint ", checkpoint.operation_id, " was written for the stage ",
        checkpoint.stage_identity, ", not this root's stage ",
        std::string(expected_stage_identity), ": it is kept and not replayed"));
  }
  if (IsOperationExpired(*id, now, retention)) {
    return ExpiredOperationError(checkpoint.operation_id, now - OperationIdTime(*id), retention);
  }
  return absl::OkStatus();
}

}  // namespace lake::table
