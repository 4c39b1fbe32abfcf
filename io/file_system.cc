#include "io/file_system.h"

#include <string>

#include "absl/strings/cord.h"
#include "absl/strings/string_view.h"

namespace lake::io {
namespace {

// The payload that marks a refusal to leave a root; its value is unused.
constexpr absl::string_view kLeavesRootPayload = "lake.io/leaves-root";

}  // namespace

absl::Status LeavesRootError(std::string_view path) {
  absl::Status status =
      absl::PermissionDeniedError("path leaves the root it must stay beneath: " + std::string(path));
  status.SetPayload(kLeavesRootPayload, absl::Cord());
  return status;
}

bool IsLeavesRoot(const absl::Status& status) {
  return absl::IsPermissionDenied(status) && status.GetPayload(kLeavesRootPayload).has_value();
}

}  // namespace lake::io
