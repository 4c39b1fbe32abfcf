// The typed outcomes of a version compare-and-set that did not commit, or
// may not have.
//
// They travel as absl::Status values carrying a payload, so the engine can
// tell a lost race (retry on the new version) from a replayed operation
// (converge on the version it already produced) from a commit whose synced
// write failed (it may have reached the write-ahead log: the outcome is
// unknown until the operation's record is looked up) without parsing
// messages.
#ifndef LAKE_REGISTRY_COMMIT_ERRORS_H_
#define LAKE_REGISTRY_COMMIT_ERRORS_H_

#include <cstdint>
#include <optional>

#include "absl/status/status.h"

namespace lake::registry {

// The table was not at the expected version: another commit won.
struct VersionConflict {
  uint64_t table_id = 0;
  uint64_t expected_version = 0;
  uint64_t actual_version = 0;

  bool operator==(const VersionConflict&) const = default;
};

// The operation id already has a record: the version it produced.
struct CommittedOperation {
  uint64_t table_id = 0;
  uint64_t version = 0;

  bool operator==(const CommittedOperation&) const = default;
};

// Aborted, naming the table and both versions, with the payload.
absl::Status VersionConflictError(const VersionConflict& conflict);
// AlreadyExists, naming the operation, table and version, with the payload.
absl::Status OperationCommittedError(std::string_view operation_id,
                                     const CommittedOperation& committed);

// `cause` (the failed synced write's error: its code and message) with a
// payload saying the commit may have happened all the same.
absl::Status CommitOutcomeUnknownError(const absl::Status& cause);

// The payloads, if `status` carries one.
std::optional<VersionConflict> GetVersionConflict(const absl::Status& status);
std::optional<CommittedOperation> GetCommittedOperation(const absl::Status& status);
// True for a status made by CommitOutcomeUnknownError.
bool IsCommitOutcomeUnknown(const absl::Status& status);

}  // namespace lake::registry

#endif  // LAKE_REGISTRY_COMMIT_ERRORS_H_
