// The checks a recovered append checkpoint must pass before it is
// replayed, and the typed error of an operation too old to replay.
//
// Recovery loads a checkpoint (which verifies its digests and its file
// name), then asks ValidateForReplay whether this root may replay it:
//   - DataLoss: the checkpoint's operation id is not a canonical UUIDv7
//     (a decoded checkpoint always has one; a hand-built one may not);
//   - FailedPrecondition: it was written for another stage than the
//     root's — kept, never replayed nor removed, for an operator to look at;
//   - FailedPrecondition that IsExpiredOperation recognises: the operation
//     is older than the retention horizon — recovery rejects it explicitly
//     and removes its checkpoint;
//   - OK: replay it.
#ifndef LAKE_ENGINE_TABLE_APPEND_CHECKPOINT_REPLAY_H_
#define LAKE_ENGINE_TABLE_APPEND_CHECKPOINT_REPLAY_H_

#include <string_view>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "engine/table/append_checkpoint_format.h"

namespace lake::table {

// The payload type URL marking an expired operation's status.
inline constexpr std::string_view kExpiredAppendOperationPayload =
    "lake.dev/ExpiredAppendOperation";

absl::Status ValidateForReplay(const AppendCheckpoint& checkpoint,
                               std::string_view expected_stage_identity, absl::Time now,
                               absl::Duration retention);

// The error for an operation past the retention horizon (FailedPrecondition,
// carrying kExpiredAppendOperationPayload with the operation id).
absl::Status ExpiredOperationError(std::string_view operation_id, absl::Duration age,
                                   absl::Duration retention);

// True for a status made by ExpiredOperationError.
bool IsExpiredOperation(const absl::Status& status);

}  // namespace lake::table

#endif  // LAKE_ENGINE_TABLE_APPEND_CHECKPOINT_REPLAY_H_
