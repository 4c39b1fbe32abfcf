// Fuzzes lake::table::ParseCellText, the reader of --param text, and the
// base64 and timestamp text forms.
//
// The first input byte picks the column type (its value mod 7, plus 1: the
// digits '1'..'7' are the ColumnType codes utf8..file), the rest is the text. Properties checked (a violation traps):
//   1. Any input: no crash, leak, ASan or UBSan finding, no exception.
//   2. Refused input: InvalidArgument.
//   3. Accepted input: the value is null (only for "NULL") or of the
//      column's type; utf8 is the text itself; binary re-encodes to the
//      text (strict base64); int64 prints back to the text when that has no
//      sign or leading zeros; a timestamp formats (FormatTimestampMicros) to
//      text that parses back to the same micros when its year is 0000..9999;
//      float64 is finite.
//   4. DecodeBase64 of any text either fails or re-encodes to the text.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

#include "base/utf8.h"
#include "engine/table/cell_text.h"
#include "fuzz/property_check.h"

namespace {

using lake::table::CellValue;
using lake::table::ColumnType;

using lake::fuzz::Check;

// ISO-8601 text of a year within 0000..9999 (four digits, no sign).
bool HasFourDigitYear(const std::string& text) { return text.size() > 4 && text[4] == '-' && text[0] != '-'; }

void CheckValue(ColumnType type, std::string_view text, const CellValue& value) {
  if (std::holds_alternative<std::monostate>(value)) {
    Check(text == lake::table::kNullText);
    return;
  }
  Check(lake::table::CellValueType(value) == type);
  switch (type) {
    case ColumnType::kUtf8:
      Check(std::get<std::string>(value) == text);
      Check(lake::IsValidUtf8(text));
      break;
    case ColumnType::kBinary:
      Check(lake::table::EncodeBase64(std::get<lake::table::Binary>(value).bytes) == text);
      break;
    case ColumnType::kInt64: {
      int64_t number = std::get<int64_t>(value);
      bool plain = !text.empty() && text[0] != '+' && text[0] != '-' && (text[0] != '0' || text.size() == 1);
      if (plain) Check(std::to_string(number) == text);
      break;
    }
    case ColumnType::kFloat64:
      Check(std::isfinite(std::get<double>(value)));
      break;
    case ColumnType::kTimestamp: {
      int64_t micros = std::get<lake::table::TimestampMicros>(value).micros;
      std::string formatted = lake::table::FormatTimestampMicros(micros);
      Check(formatted.size() >= 27 && formatted.back() == 'Z');
      if (HasFourDigitYear(formatted)) {
        absl::StatusOr<int64_t> again = lake::table::ParseTimestampText(formatted);
        Check(again.ok() && *again == micros);
      }
      break;
    }
    case ColumnType::kBool:
      Check(text == (std::get<bool>(value) ? "true" : "false"));
      break;
    case ColumnType::kFile:
      Check(false);  // only NULL is accepted for a file column
      break;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  ColumnType type = static_cast<ColumnType>(data[0] % 7 + 1);
  std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);

  absl::StatusOr<CellValue> value = lake::table::ParseCellText(type, text);
  if (value.ok()) {
    CheckValue(type, text, *value);
  } else {
    Check(value.status().code() == absl::StatusCode::kInvalidArgument);
  }

  absl::StatusOr<std::string> bytes = lake::table::DecodeBase64(text);
  if (bytes.ok()) Check(lake::table::EncodeBase64(*bytes) == text);
  return 0;
}
