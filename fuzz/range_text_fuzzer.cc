// Fuzzes lake::cli::ParseRangeText, the --range argument of `lake cat`.
//
// The accepted language, decided here exactly: START ".." END, where START
// is one or more ASCII digits, END is zero or more ASCII digits (empty: to
// the end of the object), and each number is below 2^64. Leading zeros are
// allowed, in any number ("007..0010" is 7..10). Nothing else is accepted:
// no sign, space, second "..", or other byte. The parser does not order
// START and END (5..3 is accepted); the caller checks that.
//
// Properties checked (a violation traps):
//   1. Any input: no crash, ASan or UBSan finding.
//   2. Accepted exactly when the input is in the language above (checked
//      against an independent reference, in both directions).
//   3. Accepted input: printing start and end back in decimal reproduces the
//      input modulo leading zeros, i.e. to_string(start) ".." to_string(end)
//      (or nothing after ".." when end is absent) equals the input with the
//      leading zeros of each number stripped (keeping one digit: "000" is
//      "0"). That printed form parses back to the same range.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "cli/range_text.h"
#include "fuzz/property_check.h"

namespace {

using lake::fuzz::Check;

bool AllDigits(std::string_view text) {
  for (char c : text) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// "0042" -> "42", "000" -> "0"; `digits` is non-empty.
std::string_view StripLeadingZeros(std::string_view digits) {
  size_t first = digits.find_first_not_of('0');
  return first == std::string_view::npos ? digits.substr(digits.size() - 1)
                                         : digits.substr(first);
}

// Non-empty decimal digits whose value is below 2^64.
bool FitsUint64(std::string_view digits) {
  constexpr std::string_view kMax = "18446744073709551615";  // 2^64 - 1
  std::string_view stripped = StripLeadingZeros(digits);
  if (stripped.size() != kMax.size()) return stripped.size() < kMax.size();
  return stripped <= kMax;
}

struct ReferenceRange {
  std::string_view start;               // digits as written
  std::optional<std::string_view> end;  // absent when END is empty
};

std::optional<ReferenceRange> ReferenceParse(std::string_view text) {
  size_t dots = text.find("..");
  if (dots == std::string_view::npos) return std::nullopt;
  std::string_view start = text.substr(0, dots);
  std::string_view end = text.substr(dots + 2);
  if (start.empty() || !AllDigits(start) || !FitsUint64(start)) {
    return std::nullopt;
  }
  if (!AllDigits(end)) return std::nullopt;  // also refuses a second ".."
  if (end.empty()) return ReferenceRange{start, std::nullopt};
  if (!FitsUint64(end)) return std::nullopt;
  return ReferenceRange{start, end};
}

std::string Print(const lake::cli::RangeText& range) {
  std::string text = std::to_string(range.start) + "..";
  if (range.end.has_value()) text += std::to_string(*range.end);
  return text;
}

std::string StripNumbers(const ReferenceRange& reference) {
  std::string text = std::string(StripLeadingZeros(reference.start)) + "..";
  if (reference.end.has_value()) text += StripLeadingZeros(*reference.end);
  return text;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<lake::cli::RangeText> parsed = lake::cli::ParseRangeText(text);
  std::optional<ReferenceRange> reference = ReferenceParse(text);
  Check(parsed.ok() == reference.has_value());
  if (!parsed.ok()) return 0;

  Check(parsed->end.has_value() == reference->end.has_value());
  std::string printed = Print(*parsed);
  Check(printed == StripNumbers(*reference));

  absl::StatusOr<lake::cli::RangeText> reparsed =
      lake::cli::ParseRangeText(printed);
  Check(reparsed.ok());
  Check(reparsed->start == parsed->start);
  Check(reparsed->end == parsed->end);
  return 0;
}
