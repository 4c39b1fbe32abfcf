#include "engine/table/logged_checkpoints.h"

#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"

namespace lake::table {

absl::StatusOr<std::vector<LoggedCheckpoint>> UnwithdrawnCheckpoints(io::FileSystem& fs,
                                                                     const std::string& table_dir,
                                                                     TableLogPosition from) {
  std::vector<LoggedCheckpoint> found;
  std::vector<bool> dropped;  // parallel to `found`: withdrawn, or superseded by a later copy
  absl::flat_hash_map<std::string, size_t> by_operation;  // index in `found`
  auto drop = [&](const std::string& operation_id) {
    auto it = by_operation.find(operation_id);
    if (it == by_operation.end()) return;
    dropped[it->second] = true;
    found[it->second].payload.clear();
    found[it->second].checkpoint = absl::CancelledError("dropped");  // its batch freed
    by_operation.erase(it);
  };
  // A version 2 record's batch: the fragment record it names, read by address.
  auto read_fragment = [&](const TableLogAddress& fragment) {
    return ReadTablePath(fs, table_dir, FormatTableLogAddress(fragment),
                         kMaxCheckpointedBatchBytes, TableLogRecordKind::kFragment);
  };
  absl::Status read = ReadTableLogFrom(
      fs, table_dir, from,
      [&](const TableLogAddress& address, const TableLogRecord& record) -> absl::Status {
        if (record.kind == TableLogRecordKind::kAppendWithdrawal) {
          absl::StatusOr<AppendWithdrawal> withdrawal = DecodeWithdrawalRecord(record);
          if (!withdrawal.ok()) {
            return absl::DataLossError(absl::StrCat(table_dir, "/",
                                                    FormatTableLogAddress(address), ": ",
                                                    withdrawal.status().message()));
          }
          drop(withdrawal->operation_id);
          return absl::OkStatus();
        }
        if (record.kind != TableLogRecordKind::kAppendCheckpoint) return absl::OkStatus();
        LoggedCheckpoint logged;
        logged.address = address;
        logged.names_fragment = NamesFragmentRecord(record.payload);
        logged.version = record.version;
        logged.payload = std::string(record.payload);
        logged.checkpoint = DecodeCheckpointRecord(record, address, read_fragment);
        if (logged.checkpoint.ok()) {
          logged.operation_id = logged.checkpoint->operation_id;
        } else if (logged.names_fragment) {
          // Its batch unreadable, its operation is still known: a withdrawal
          // (a discard) settles it.
          absl::StatusOr<AppendCheckpointReference> reference =
              DecodeAppendCheckpointReference(record.payload);
          if (reference.ok()) logged.operation_id = reference->checkpoint.operation_id;
        }
        if (!logged.operation_id.empty()) {
          drop(logged.operation_id);  // an earlier copy: this one stands for it
          by_operation[logged.operation_id] = found.size();
        }
        found.push_back(std::move(logged));
        dropped.push_back(false);
        return absl::OkStatus();
      });
  if (!read.ok()) return read;
  std::vector<LoggedCheckpoint> out;
  for (size_t i = 0; i < found.size(); ++i) {
    // A damaged record whose operation cannot be told stays, to be reported.
    if (!dropped[i]) out.push_back(std::move(found[i]));
  }
  return out;
}

std::string LoggedCheckpointPath(const std::string& table_dir, const TableLogAddress& address) {
  return absl::StrCat(table_dir, "/", FormatTableLogAddress(address));
}

}  // namespace lake::table
