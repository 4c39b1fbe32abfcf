// The --range argument of `lake cat`: "START..END" (half-open, bytes) or
// "START.." (to the end of the object). Decimal digits only; no sign, no
// spaces, each number below 2^64. Pure (fuzzed).
#ifndef LAKE_CLI_RANGE_TEXT_H_
#define LAKE_CLI_RANGE_TEXT_H_

#include <cstdint>
#include <optional>
#include <string_view>

#include "absl/status/statusor.h"

namespace lake::cli {

struct RangeText {
  uint64_t start = 0;
  std::optional<uint64_t> end;  // absent: to the end of the object
};

absl::StatusOr<RangeText> ParseRangeText(std::string_view text);

}  // namespace lake::cli

#endif  // LAKE_CLI_RANGE_TEXT_H_
