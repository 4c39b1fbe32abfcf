#include "registry/commit_errors.h"

#include <string>
#include <vector>

#include "absl/strings/cord.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace lake::registry {
namespace {

// Payload texts: "<table id>:<expected>:<actual>" and "<table id>:<version>".
constexpr char kVersionConflictUrl[] = "type.lake.dev/RegistryVersionConflict";
constexpr char kCommittedOperationUrl[] = "type.lake.dev/RegistryCommittedOperation";
constexpr char kCommitOutcomeUnknownUrl[] = "type.lake.dev/RegistryCommitOutcomeUnknown";

// The numbers of a payload of exactly `count` of them.
std::optional<std::vector<uint64_t>> PayloadNumbers(const absl::Status& status,
                                                    const char* url, size_t count) {
  auto payload = status.GetPayload(url);
  if (!payload.has_value()) return std::nullopt;
  std::vector<std::string> parts = absl::StrSplit(std::string(*payload), ':');
  if (parts.size() != count) return std::nullopt;
  std::vector<uint64_t> numbers(count);
  for (size_t i = 0; i < count; ++i) {
    if (!absl::SimpleAtoi(parts[i], &numbers[i])) return std::nullopt;
  }
  return numbers;
}

}  // namespace

absl::Status VersionConflictError(const VersionConflict& conflict) {
  absl::Status status = absl::AbortedError(absl::StrCat(
      "version conflict on table ", conflict.table_id, ": expected version ",
      conflict.expected_version, ", but the table is at version ", conflict.actual_version));
  status.SetPayload(kVersionConflictUrl,
                    absl::Cord(absl::StrCat(conflict.table_id, ":", conflict.expected_version,
                                            ":", conflict.actual_version)));
  return status;
}

absl::Status OperationCommittedError(std::string_view operation_id,
                                     const CommittedOperation& committed) {
  absl::Status status = absl::AlreadyExistsError(absl::StrCat(
      "operation ", std::string(operation_id), " already committed version ",
      committed.version, " of table ", committed.table_id));
  status.SetPayload(kCommittedOperationUrl,
                    absl::Cord(absl::StrCat(committed.table_id, ":", committed.version)));
  return status;
}

absl::Status CommitOutcomeUnknownError(const absl::Status& cause) {
  absl::Status status(cause.code(), absl::StrCat(cause.message(),
                                                 " (the commit may have happened all the same)"));
  status.SetPayload(kCommitOutcomeUnknownUrl, absl::Cord());
  return status;
}

std::optional<VersionConflict> GetVersionConflict(const absl::Status& status) {
  std::optional<std::vector<uint64_t>> n = PayloadNumbers(status, kVersionConflictUrl, 3);
  if (!n) return std::nullopt;
  return VersionConflict{(*n)[0], (*n)[1], (*n)[2]};
}

std::optional<CommittedOperation> GetCommittedOperation(const absl::Status& status) {
  std::optional<std::vector<uint64_t>> n = PayloadNumbers(status, kCommittedOperationUrl, 2);
  if (!n) return std::nullopt;
  return CommittedOperation{(*n)[0], (*n)[1]};
}

bool IsCommitOutcomeUnknown(const absl::Status& status) {
  return !status.ok() && status.GetPayload(kCommitOutcomeUnknownUrl).has_value();
}

}  // namespace lake::registry
