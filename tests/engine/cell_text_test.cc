// Cell values from --param text, by column type (CLI.md, "Values"), and
// the text forms of timestamps and binary in JSON output.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <variant>

#include "engine/table/cell_text.h"
#include "tests/support/status_checks.h"

namespace lake::table {
namespace {

CellValue Parsed(ColumnType type, std::string_view text) {
  absl::StatusOr<CellValue> value = ParseCellText(type, text);
  REQUIRE_MESSAGE(value.ok(), (std::string(text) + ": " + value.status().ToString()));
  return *value;
}

std::string ErrorOf(ColumnType type, std::string_view text) {
  absl::StatusOr<CellValue> value = ParseCellText(type, text);
  REQUIRE_MESSAGE(!value.ok(), text);
  CHECK(value.status().code() == absl::StatusCode::kInvalidArgument);
  return std::string(value.status().message());
}

int64_t Micros(std::string_view text) { return std::get<TimestampMicros>(Parsed(ColumnType::kTimestamp, text)).micros; }

constexpr const char* kTimestampHelp =
    " is not a timestamp (ISO-8601 with a zone, e.g. 2026-11-30T07:35:56.000123Z, or integer microseconds "
    "since the Unix epoch)";

TEST_CASE("NULL is null for every type, and only NULL") {
  for (ColumnType type : {ColumnType::kUtf8, ColumnType::kInt64, ColumnType::kFloat64, ColumnType::kBool,
                          ColumnType::kBinary, ColumnType::kTimestamp, ColumnType::kFile}) {
    CHECK(std::holds_alternative<std::monostate>(Parsed(type, "NULL")));
  }
  CHECK(Parsed(ColumnType::kUtf8, "null") == CellValue(std::string("null")));
  CHECK(Parsed(ColumnType::kUtf8, "NULL ") == CellValue(std::string("NULL ")));
  CHECK(ErrorOf(ColumnType::kInt64, "null") == "'null' is not an int64 (a decimal integer)");
}

TEST_CASE("int64 is a whole decimal within range") {
  CHECK(Parsed(ColumnType::kInt64, "0") == CellValue(int64_t{0}));
  CHECK(Parsed(ColumnType::kInt64, "-42") == CellValue(int64_t{-42}));
  CHECK(Parsed(ColumnType::kInt64, "+7") == CellValue(int64_t{7}));
  CHECK(Parsed(ColumnType::kInt64, "007") == CellValue(int64_t{7}));
  CHECK(Parsed(ColumnType::kInt64, "9223372036854775807") == CellValue(std::numeric_limits<int64_t>::max()));
  CHECK(Parsed(ColumnType::kInt64, "-9223372036854775808") == CellValue(std::numeric_limits<int64_t>::min()));
  CHECK(ErrorOf(ColumnType::kInt64, "9223372036854775808") == "'9223372036854775808' is out of int64 range");
  CHECK(ErrorOf(ColumnType::kInt64, "-9223372036854775809") == "'-9223372036854775809' is out of int64 range");
  for (std::string_view bad : {"", " 1", "1 ", "1.0", "0x10", "1e3", "-", "+", "+-5", "--5", "1_000", "١"}) {
    CHECK(ErrorOf(ColumnType::kInt64, bad).find("is not an int64 (a decimal integer)") != std::string::npos);
  }
  CHECK(ErrorOf(ColumnType::kInt64, "abc") == "'abc' is not an int64 (a decimal integer)");
}

TEST_CASE("float64 is a decimal rounded to nearest") {
  CHECK(Parsed(ColumnType::kFloat64, "1.5") == CellValue(1.5));
  CHECK(Parsed(ColumnType::kFloat64, "-0.25") == CellValue(-0.25));
  CHECK(Parsed(ColumnType::kFloat64, ".5") == CellValue(0.5));
  CHECK(Parsed(ColumnType::kFloat64, "5.") == CellValue(5.0));
  CHECK(Parsed(ColumnType::kFloat64, "1e3") == CellValue(1000.0));
  CHECK(Parsed(ColumnType::kFloat64, "1E-3") == CellValue(0.001));
  CHECK(Parsed(ColumnType::kFloat64, "+2.5e+2") == CellValue(250.0));
  CHECK(Parsed(ColumnType::kFloat64, "42") == CellValue(42.0));
  CHECK(Parsed(ColumnType::kFloat64, "0.1") == CellValue(0.1));
  CHECK(Parsed(ColumnType::kFloat64, "1.7976931348623157e308") == CellValue(std::numeric_limits<double>::max()));
  CHECK(Parsed(ColumnType::kFloat64, "4.9e-324") == CellValue(std::numeric_limits<double>::denorm_min()));
  CHECK(Parsed(ColumnType::kFloat64, "0e-400") == CellValue(0.0));
  double negative_zero = std::get<double>(Parsed(ColumnType::kFloat64, "-0"));
  CHECK(negative_zero == 0.0);
  CHECK(std::signbit(negative_zero));
}

TEST_CASE("float64 refuses hex, inf, nan and values out of range") {
  CHECK(ErrorOf(ColumnType::kFloat64, "1e309") == "'1e309' is out of float64 range");
  CHECK(ErrorOf(ColumnType::kFloat64, "-1e309") == "'-1e309' is out of float64 range");
  CHECK(ErrorOf(ColumnType::kFloat64, "1e-400") == "'1e-400' is out of float64 range");
  CHECK(ErrorOf(ColumnType::kFloat64, "inf") == "'inf' is not a float64 (a decimal such as -1.5e3)");
  for (std::string_view bad : {"", "nan", "NaN", "-inf", "infinity", "0x1p3", "0x10", ".", "-.", "e5", "1e", "1e+",
                               "1.5.", " 1", "1 ", "1,5", "--1", "+-1"}) {
    CHECK(ErrorOf(ColumnType::kFloat64, bad).find("is not a float64") != std::string::npos);
  }
}

TEST_CASE("bool is true or false in lower case") {
  CHECK(Parsed(ColumnType::kBool, "true") == CellValue(true));
  CHECK(Parsed(ColumnType::kBool, "false") == CellValue(false));
  CHECK(ErrorOf(ColumnType::kBool, "TRUE") == "'TRUE' is not a bool (true or false)");
  CHECK(ErrorOf(ColumnType::kBool, "1") == "'1' is not a bool (true or false)");
  CHECK(ErrorOf(ColumnType::kBool, "") == "'' is not a bool (true or false)");
}

TEST_CASE("timestamps read ISO-8601 with a zone") {
  CHECK(Micros("1970-01-01T00:00:00Z") == 0);
  CHECK(Micros("2026-11-30T07:35:56.000123Z") == 1796024156000123);
  CHECK(Micros("2026-11-30T08:35:56.000123+01:00") == 1796024156000123);
  CHECK(Micros("2026-11-30T02:05:56.000123-05:30") == 1796024156000123);
  CHECK(Micros("2026-11-30t07:35:56.000123z") == 1796024156000123);
  CHECK(Micros("1970-01-01T00:00:00.5Z") == 500000);
  CHECK(Micros("1970-01-01T00:00:00.000001Z") == 1);
  CHECK(Micros("1969-12-31T23:59:59.999999Z") == -1);
  CHECK(Micros("2000-01-01T00:00:00+00:00") == 946684800000000);
  CHECK(Micros("2000-01-01T00:00:00-00:00") == 946684800000000);
  CHECK(Micros("2024-02-29T00:00:00Z") == 1709164800000000);
  CHECK(Micros("0000-01-01T00:00:00Z") == -62167219200000000);
  CHECK(Micros("9999-12-31T23:59:59.999999Z") == 253402300799999999);
  CHECK(Micros("9999-12-31T23:59:59.999999-23:59") == 253402300799999999 + (23 * 3600 + 59 * 60) * int64_t{1000000});
}

TEST_CASE("timestamps read integer microseconds since the epoch") {
  CHECK(Micros("0") == 0);
  CHECK(Micros("-1") == -1);
  CHECK(Micros("1796024156000123") == 1796024156000123);
  CHECK(Micros("9223372036854775807") == std::numeric_limits<int64_t>::max());
  CHECK(ErrorOf(ColumnType::kTimestamp, "9223372036854775808") == "'9223372036854775808' is out of int64 range");
}

TEST_CASE("timestamps refuse anything else") {
  CHECK(ErrorOf(ColumnType::kTimestamp, "2026-11-30T07:35:56") == std::string("'2026-11-30T07:35:56'") + kTimestampHelp);
  for (std::string_view bad : {
           "", "2026-11-30", "2026-11-30T07:35Z", "2026-11-30 07:35:56Z", "2026-11-30T07:35:56.Z",
           "2026-11-30T07:35:56.0000001Z", "2023-02-29T00:00:00Z", "2026-13-01T00:00:00Z", "2026-00-01T00:00:00Z",
           "2026-11-31T00:00:00Z", "2026-11-00T00:00:00Z", "2026-11-30T24:00:00Z", "2026-11-30T23:60:00Z",
           "2026-11-30T23:59:60Z", "2026-11-30T07:35:56+0100", "2026-11-30T07:35:56+01", "2026-11-30T07:35:56+24:00",
           "2026-11-30T07:35:56+01:60", "2026-11-30T07:35:56Z ", " 2026-11-30T07:35:56Z", "26-11-30T07:35:56Z",
           "+2026-11-30T07:35:56Z", "2026-11-30T07:35:56ZZ", "2026-1-30T07:35:56Z", "2026-11-30T7:35:56Z",
           "1.5", "1e6", "now"}) {
    CHECK(ErrorOf(ColumnType::kTimestamp, bad).find(kTimestampHelp) != std::string::npos);
  }
}

TEST_CASE("FormatTimestampMicros prints UTC with six fractional digits") {
  CHECK(FormatTimestampMicros(0) == "1970-01-01T00:00:00.000000Z");
  CHECK(FormatTimestampMicros(1796024156000123) == "2026-11-30T07:35:56.000123Z");
  CHECK(FormatTimestampMicros(-1) == "1969-12-31T23:59:59.999999Z");
  CHECK(FormatTimestampMicros(-62167219200000000) == "0000-01-01T00:00:00.000000Z");
  CHECK(FormatTimestampMicros(-62135596800000000) == "0001-01-01T00:00:00.000000Z");
  CHECK(FormatTimestampMicros(253402300799999999) == "9999-12-31T23:59:59.999999Z");
  CHECK(FormatTimestampMicros(std::numeric_limits<int64_t>::max()) == "294247-01-10T04:00:54.775807Z");
  CHECK(FormatTimestampMicros(std::numeric_limits<int64_t>::min()) == "-290308-12-21T19:59:05.224192Z");
}

TEST_CASE("formatted timestamps of years 0000..9999 parse back to the same micros") {
  for (int64_t micros : {int64_t{0}, int64_t{1}, int64_t{-1}, int64_t{1796024156000123}, int64_t{-62167219200000000},
                         int64_t{253402300799999999}, int64_t{951782400123456}, int64_t{-123456789012345}}) {
    CHECK(Micros(FormatTimestampMicros(micros)) == micros);
  }
}

TEST_CASE("binary is strict padded base64") {
  CHECK(Parsed(ColumnType::kBinary, "") == CellValue(Binary{""}));
  CHECK(Parsed(ColumnType::kBinary, "YQ==") == CellValue(Binary{"a"}));
  CHECK(Parsed(ColumnType::kBinary, "YWI=") == CellValue(Binary{"ab"}));
  CHECK(Parsed(ColumnType::kBinary, "YWJj") == CellValue(Binary{"abc"}));
  CHECK(Parsed(ColumnType::kBinary, "+/8=") == CellValue(Binary{"\xfb\xff"}));
  CHECK(Parsed(ColumnType::kBinary, "AA==") == CellValue(Binary{std::string(1, '\0')}));
  CHECK(ErrorOf(ColumnType::kBinary, "YQ") == "'YQ' is not base64 (RFC 4648, padded, no whitespace)");
  for (std::string_view bad : {"YR==", "YWJ=", "Y Q==", "YQ==\n", "YWJj=", "====", "-_8=", "YQ=", "Y===", "YQ==YQ==",
                               "=YQ=", "YQ*="}) {
    CHECK(ErrorOf(ColumnType::kBinary, bad).find("is not base64") != std::string::npos);
  }
}

TEST_CASE("EncodeBase64 and DecodeBase64 are inverse on every byte") {
  std::string bytes;
  for (int i = 0; i < 256; ++i) bytes.push_back(static_cast<char>(i));
  for (size_t length = 0; length <= 7; ++length) {
    std::string part = bytes.substr(250 - length * 3, length);
    absl::StatusOr<std::string> decoded = DecodeBase64(EncodeBase64(part));
    LAKE_REQUIRE_OK(decoded);
    CHECK(*decoded == part);
  }
  CHECK(EncodeBase64(bytes).size() == 344);
  absl::StatusOr<std::string> all = DecodeBase64(EncodeBase64(bytes));
  LAKE_REQUIRE_OK(all);
  CHECK(*all == bytes);
  CHECK(EncodeBase64("abc") == "YWJj");
  CHECK(EncodeBase64("ab") == "YWI=");
}

TEST_CASE("utf8 is the text itself, when it is UTF-8") {
  CHECK(Parsed(ColumnType::kUtf8, "") == CellValue(std::string("")));
  CHECK(Parsed(ColumnType::kUtf8, " h\xc3\xa9llo ") == CellValue(std::string(" h\xc3\xa9llo ")));
  CHECK(Parsed(ColumnType::kUtf8, std::string("a\0b", 3)) == CellValue(std::string("a\0b", 3)));
  CHECK(ErrorOf(ColumnType::kUtf8, "\xff") == "utf8 text is not valid UTF-8");
  CHECK(ErrorOf(ColumnType::kUtf8, "\xed\xa0\x80") == "utf8 text is not valid UTF-8");
}

TEST_CASE("a file column takes no --param text but NULL") {
  CHECK(ErrorOf(ColumnType::kFile, "file:///srv/x") == "a file column takes --file or --location");
  CHECK(ErrorOf(ColumnType::kFile, "") == "a file column takes --file or --location");
}

TEST_CASE("errors quote at most 64 bytes of the text, escaped") {
  std::string long_text(100, 'x');
  CHECK(ErrorOf(ColumnType::kInt64, long_text) == "'" + std::string(64, 'x') + "...' is not an int64 (a decimal integer)");
  CHECK(ErrorOf(ColumnType::kBool, "a\nb") == "'a\\nb' is not a bool (true or false)");
}

}  // namespace
}  // namespace lake::table
