#include "engine/stage_record_name.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

#include <string>

namespace lake {

absl::Status CheckStageRecordName(std::string_view name) {
  auto invalid = [&] {
    return absl::InvalidArgumentError(
        absl::StrCat("\"", std::string(name), "\" is not the name of a stage record"));
  };
  if (name != kStageRecordsDir && !name.starts_with(std::string(kStageRecordsDir) + "/")) {
    return invalid();
  }
  for (absl::string_view segment : absl::StrSplit(absl::string_view(name.data(), name.size()), '/')) {
    if (segment.empty() || segment == "." || segment == "..") return invalid();
    for (char c : segment) {
      bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                c == '.' || c == '_' || c == '-';
      if (!ok) return invalid();
    }
  }
  return absl::OkStatus();
}

}  // namespace lake
