#include "cli/range_text.h"

#include <string>

namespace lake::cli {
namespace {

absl::StatusOr<uint64_t> ParseDecimal(std::string_view digits,
                                      std::string_view what) {
  if (digits.empty()) {
    return absl::InvalidArgumentError(std::string(what) + " is missing");
  }
  uint64_t value = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') {
      return absl::InvalidArgumentError(std::string(what) +
                                        " must be decimal digits");
    }
    uint64_t digit = static_cast<uint64_t>(c - '0');
    if (value > (UINT64_MAX - digit) / 10) {
      return absl::InvalidArgumentError(std::string(what) + " is too large");
    }
    value = value * 10 + digit;
  }
  return value;
}

}  // namespace

absl::StatusOr<RangeText> ParseRangeText(std::string_view text) {
  size_t dots = text.find("..");
  if (dots == std::string_view::npos) {
    return absl::InvalidArgumentError(
        "range must look like START..END or START..");
  }
  RangeText range;
  absl::StatusOr<uint64_t> start = ParseDecimal(text.substr(0, dots), "range start");
  if (!start.ok()) return start.status();
  range.start = *start;
  std::string_view end_text = text.substr(dots + 2);
  if (!end_text.empty()) {
    absl::StatusOr<uint64_t> end = ParseDecimal(end_text, "range end");
    if (!end.ok()) return end.status();
    range.end = *end;
  }
  return range;
}

}  // namespace lake::cli
