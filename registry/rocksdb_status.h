// rocksdb::Status → absl::Status, so RocksDB failures reach callers typed.
#ifndef LAKE_REGISTRY_ROCKSDB_STATUS_H_
#define LAKE_REGISTRY_ROCKSDB_STATUS_H_

#include <string_view>

#include "absl/status/status.h"
#include "rocksdb/status.h"

namespace lake::registry {

// `what` names the operation ("open registry /r/registry"). The mapping:
// Corruption → DataLoss, NotFound → NotFound, InvalidArgument →
// InvalidArgument, Busy/TryAgain/TimedOut → Unavailable, NotSupported →
// Unimplemented, IOError with no space → ResourceExhausted, anything else
// (IOError, Incomplete, ...) → Unknown.
absl::Status FromRocksDbStatus(const rocksdb::Status& status, std::string_view what);

}  // namespace lake::registry

#endif  // LAKE_REGISTRY_ROCKSDB_STATUS_H_
