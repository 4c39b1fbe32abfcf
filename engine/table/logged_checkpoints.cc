#include "engine/table/logged_checkpoints.h"

#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"

namespace lake::table {

absl::StatusOr<std::vector<LoggedCheckpoint>> UnwithdrawnCheckpoints(io::FileSystem& fs,
                                                                     const std::string& table_dir,
                                                                     TableLogPosition from) {
  std::vector<LoggedCheckpoint> found;
  absl::flat_hash_map<std::string, size_t> by_operation;  // index in `found`
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
          auto it = by_operation.find(withdrawal->operation_id);
          if (it != by_operation.end()) {
            found[it->second].operation_id.clear();  // withdrawn: dropped below
            found[it->second].payload.clear();
            by_operation.erase(it);
          }
          return absl::OkStatus();
        }
        if (record.kind != TableLogRecordKind::kAppendCheckpoint) return absl::OkStatus();
        LoggedCheckpoint logged;
        logged.address = address;
        logged.version = record.version;
        logged.payload = std::string(record.payload);
        logged.checkpoint = DecodeCheckpointRecord(record);
        if (logged.checkpoint.ok()) logged.operation_id = logged.checkpoint->operation_id;
        if (!logged.operation_id.empty()) {
          auto it = by_operation.find(logged.operation_id);
          if (it != by_operation.end()) {  // an earlier copy: this one stands for it
            found[it->second].operation_id.clear();
            found[it->second].payload.clear();
          }
          by_operation[logged.operation_id] = found.size();
        }
        found.push_back(std::move(logged));
        return absl::OkStatus();
      });
  if (!read.ok()) return read;
  std::vector<LoggedCheckpoint> out;
  for (LoggedCheckpoint& logged : found) {
    // Dropped: withdrawn, or superseded by a later copy. A damaged record
    // (no operation id) stays, to be reported.
    if (logged.operation_id.empty() && logged.checkpoint.ok()) continue;
    out.push_back(std::move(logged));
  }
  return out;
}

std::string LoggedCheckpointPath(const std::string& table_dir, const TableLogAddress& address) {
  return absl::StrCat(table_dir, "/", FormatTableLogAddress(address));
}

}  // namespace lake::table
