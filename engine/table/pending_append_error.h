// The error of an append that failed but may still commit.
//
// An append that failed before its registry commit call withdraws its
// checkpoint durably: it will never commit, and the caller may run it
// again. But some failures leave the outcome open — the commit's synced
// write failed (it may have reached the registry's log), a step after the
// commit failed, the checkpoint was renamed into place but its directory
// sync failed, or a withdrawal itself failed. Then the checkpoint is kept
// and recovery (TableStore::Recover, `lake recover`) settles the operation:
// it converges on the version the operation committed, or commits it once.
// Running the append again instead could append its rows twice, so this
// error is not one to retry: it names the operation to recover.
//
// It has the code Unknown (an I/O failure; never Unavailable, which means
// "retry"), the cause in its message, and the operation id as a payload.
#ifndef LAKE_ENGINE_TABLE_PENDING_APPEND_ERROR_H_
#define LAKE_ENGINE_TABLE_PENDING_APPEND_ERROR_H_

#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace lake::table {

// The payload type URL: the operation id's text.
inline constexpr std::string_view kPendingOperationPayload = "lake.dev/PendingOperation";

// The error for `operation_id`, which failed with `cause` and may still
// commit.
absl::Status PendingOperationError(const absl::Status& cause, std::string_view operation_id);

// The operation a PendingOperationError names; nullopt for any other status.
std::optional<std::string> GetPendingOperationId(const absl::Status& status);

}  // namespace lake::table

#endif  // LAKE_ENGINE_TABLE_PENDING_APPEND_ERROR_H_
