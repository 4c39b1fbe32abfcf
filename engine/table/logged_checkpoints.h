// The append checkpoints a table's log holds past its committed watermark
// (table_log.h's CommittedLogWatermark): where recovery, the listing of
// pending appends and the collector find the appends that may not have
// committed, when versions are in the table log.
//
// Invariant (kept by TableStore's commits): every checkpoint record whose
// append is unsettled — neither committed (the registry holds its
// operation record) nor withdrawn (a withdrawal record of its operation id
// follows it) — lies past the committed watermark. A commit's records end
// with its manifest, which moves the watermark past everything before it,
// so a commit copies every unsettled checkpoint record it would pass over
// to after its manifest, in the same write and sync (its "carried"
// checkpoints), always self-contained (format version 1, its batch
// inline: append_record_format.h): a copy
// never names a record elsewhere, which the collector might take. In the steady state nothing lies between the watermark
// and the log's end and a commit reads nothing for it; an unsettled
// checkpoint costs each commit one copy until recovery settles it.
#ifndef LAKE_ENGINE_TABLE_LOGGED_CHECKPOINTS_H_
#define LAKE_ENGINE_TABLE_LOGGED_CHECKPOINTS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/table/append_record_format.h"
#include "engine/table/table_log.h"
#include "io/file_system.h"

namespace lake::table {

// One checkpoint record past the watermark, with no withdrawal after it.
struct LoggedCheckpoint {
  TableLogAddress address;
  // The payload names its batch's fragment record (checkpoint format
  // version 2, append_record_format.h) instead of holding it.
  bool names_fragment = false;
  uint64_t version = 0;  // the record's: the checkpoint's base_version + 1
  std::string payload;   // the record's payload
  // The record decoded, a version 2's batch read from its fragment record
  // (DecodeCheckpointRecord); DataLoss when either is damaged.
  absl::StatusOr<AppendCheckpoint> checkpoint = absl::UnknownError("not decoded");
  // The checkpoint's operation id; empty when the record is damaged so far
  // that it cannot be told (a version 2 whose fragment is damaged still has
  // one).
  std::string operation_id;
};

// The checkpoint records of the table in `table_dir`'s log from `from` on
// (ReadTableLogFrom) that no later withdrawal record there withdraws, in
// log order, one per operation id (the last copy: a carried checkpoint is
// the same checkpoint again, self-contained). A version 2 record's fragment
// record is read by address (it lies in the same segment before it, so a
// scan that reached the record passed it whole). Fails closed as ReadTableLogFrom does, and with
// DataLoss when a withdrawal record does not decode (which operation it
// settles cannot be told).
absl::StatusOr<std::vector<LoggedCheckpoint>> UnwithdrawnCheckpoints(io::FileSystem& fs,
                                                                     const std::string& table_dir,
                                                                     TableLogPosition from);

// Where LoggedCheckpoint names itself to an operator (a PendingAppend's
// path, a discard's result): <table_dir>/<its address as a table path>.
std::string LoggedCheckpointPath(const std::string& table_dir, const TableLogAddress& address);

}  // namespace lake::table

#endif  // LAKE_ENGINE_TABLE_LOGGED_CHECKPOINTS_H_
