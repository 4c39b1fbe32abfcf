#include "registry/rocksdb_status.h"

#include <string>

#include "absl/strings/str_cat.h"

namespace lake::registry {

absl::Status FromRocksDbStatus(const rocksdb::Status& status, std::string_view what) {
  if (status.ok()) return absl::OkStatus();
  std::string message = absl::StrCat(std::string(what), ": ", status.ToString());
  if (status.IsCorruption()) return absl::DataLossError(message);
  if (status.IsNotFound()) return absl::NotFoundError(message);
  if (status.IsInvalidArgument()) return absl::InvalidArgumentError(message);
  if (status.IsBusy() || status.IsTryAgain() || status.IsTimedOut()) {
    return absl::UnavailableError(message);
  }
  if (status.IsNotSupported()) return absl::UnimplementedError(message);
  if (status.IsNoSpace()) return absl::ResourceExhaustedError(message);
  return absl::UnknownError(message);
}

}  // namespace lake::registry
