#include "engine/table/cell_text.h"

#include <charconv>
#include <optional>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/civil_time.h"
#include "absl/time/time.h"
#include "base/utf8.h"

namespace lake::table {
namespace {

constexpr size_t kMaxQuotedBytes = 64;
constexpr int64_t kMicrosPerSecond = 1000000;

// The text as an error message quotes it: its start, C-escaped.
std::string Quoted(std::string_view text) {
  std::string out = absl::StrCat("'", absl::CHexEscape(std::string(text.substr(0, kMaxQuotedBytes))));
  if (text.size() > kMaxQuotedBytes) out += "...";
  out += "'";
  return out;
}

absl::Status NotA(std::string_view text, std::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(Quoted(text), " is not ", std::string(what)));
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Advances `pos` past a run of digits; the run's length.
size_t SkipDigits(std::string_view text, size_t& pos) {
  size_t begin = pos;
  while (pos < text.size() && IsDigit(text[pos])) ++pos;
  return pos - begin;
}

// [+-]?[0-9]+
bool IsDecimalInteger(std::string_view text) {
  size_t pos = (!text.empty() && (text[0] == '+' || text[0] == '-')) ? 1 : 0;
  return SkipDigits(text, pos) > 0 && pos == text.size();
}

// [+-]?(D+[.D*]|.D+)([eE][+-]?D+)?
bool IsDecimalReal(std::string_view text) {
  size_t pos = (!text.empty() && (text[0] == '+' || text[0] == '-')) ? 1 : 0;
  size_t digits = SkipDigits(text, pos);
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    digits += SkipDigits(text, pos);
  }
  if (digits == 0) return false;
  if (pos < text.size() && (text[pos] == 'e' || text[pos] == 'E')) {
    ++pos;
    if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) ++pos;
    if (SkipDigits(text, pos) == 0) return false;
  }
  return pos == text.size();
}

// std::from_chars takes no leading '+'.
std::string_view WithoutPlus(std::string_view text) {
  return (!text.empty() && text[0] == '+') ? text.substr(1) : text;
}

absl::StatusOr<int64_t> ParseInt64(std::string_view text, std::string_view what) {
  if (!IsDecimalInteger(text)) return NotA(text, what);
  std::string_view digits = WithoutPlus(text);
  int64_t value = 0;
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec == std::errc::result_out_of_range) {
    return absl::InvalidArgumentError(absl::StrCat(Quoted(text), " is out of int64 range"));
  }
  if (ec != std::errc() || ptr != digits.data() + digits.size()) return NotA(text, what);
  return value;
}

absl::StatusOr<double> ParseFloat64(std::string_view text) {
  constexpr std::string_view kWhat = "a float64 (a decimal such as -1.5e3)";
  if (!IsDecimalReal(text)) return NotA(text, kWhat);
  std::string_view digits = WithoutPlus(text);
  double value = 0;
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec == std::errc::result_out_of_range) {
    return absl::InvalidArgumentError(absl::StrCat(Quoted(text), " is out of float64 range"));
  }
  if (ec != std::errc() || ptr != digits.data() + digits.size()) return NotA(text, kWhat);
  return value;
}

// Exactly `count` digits at `pos` as a number; advances `pos`.
std::optional<int> FixedDigits(std::string_view text, size_t& pos, size_t count) {
  if (pos + count > text.size()) return std::nullopt;
  int value = 0;
  for (size_t i = 0; i < count; ++i) {
    char c = text[pos + i];
    if (!IsDigit(c)) return std::nullopt;
    value = value * 10 + (c - '0');
  }
  pos += count;
  return value;
}

bool Take(std::string_view text, size_t& pos, char expected) {
  if (pos >= text.size() || text[pos] != expected) return false;
  ++pos;
  return true;
}
bool TakeEither(std::string_view text, size_t& pos, char upper, char lower) {
  return Take(text, pos, upper) || Take(text, pos, lower);
}

// YYYY-MM-DDTHH:MM:SS[.F{1,6}](Z|±HH:MM); nullopt for anything else.
std::optional<int64_t> ParseIso8601(std::string_view text) {
  size_t pos = 0;
  std::optional<int> year = FixedDigits(text, pos, 4);
  if (!year || !Take(text, pos, '-')) return std::nullopt;
  std::optional<int> month = FixedDigits(text, pos, 2);
  if (!month || !Take(text, pos, '-')) return std::nullopt;
  std::optional<int> day = FixedDigits(text, pos, 2);
  if (!day || !TakeEither(text, pos, 'T', 't')) return std::nullopt;
  std::optional<int> hour = FixedDigits(text, pos, 2);
  if (!hour || !Take(text, pos, ':')) return std::nullopt;
  std::optional<int> minute = FixedDigits(text, pos, 2);
  if (!minute || !Take(text, pos, ':')) return std::nullopt;
  std::optional<int> second = FixedDigits(text, pos, 2);
  if (!second) return std::nullopt;
  int64_t fraction = 0;
  if (Take(text, pos, '.')) {
    size_t begin = pos;
    size_t digits = SkipDigits(text, pos);
    if (digits == 0 || digits > 6) return std::nullopt;
    for (size_t i = 0; i < 6; ++i) fraction = fraction * 10 + (i < digits ? text[begin + i] - '0' : 0);
  }
  int64_t offset_seconds = 0;
  if (!TakeEither(text, pos, 'Z', 'z')) {
    if (pos >= text.size() || (text[pos] != '+' && text[pos] != '-')) return std::nullopt;
    int sign = text[pos++] == '-' ? -1 : 1;
    std::optional<int> offset_hours = FixedDigits(text, pos, 2);
    if (!offset_hours || !Take(text, pos, ':')) return std::nullopt;
    std::optional<int> offset_minutes = FixedDigits(text, pos, 2);
    if (!offset_minutes || *offset_hours > 23 || *offset_minutes > 59) return std::nullopt;
    offset_seconds = sign * (*offset_hours * 3600 + *offset_minutes * 60);
  }
  if (pos != text.size()) return std::nullopt;
  // CivilSecond normalises out-of-range fields (Feb 30 -> Mar 2): a field
  // that changed was not a real date or time.
  absl::CivilSecond civil(*year, *month, *day, *hour, *minute, *second);
  if (civil.year() != *year || civil.month() != *month || civil.day() != *day || civil.hour() != *hour ||
      civil.minute() != *minute || civil.second() != *second) {
    return std::nullopt;
  }
  int64_t seconds = absl::ToUnixSeconds(absl::FromCivil(civil, absl::UTCTimeZone())) - offset_seconds;
  return seconds * kMicrosPerSecond + fraction;
}

}  // namespace

absl::StatusOr<int64_t> ParseTimestampText(std::string_view text) {
  if (IsDecimalInteger(text)) return ParseInt64(text, "a timestamp");
  std::optional<int64_t> micros = ParseIso8601(text);
  if (!micros) {
    return NotA(text,
                "a timestamp (ISO-8601 with a zone, e.g. 2026-11-30T07:35:56.000123Z, or integer "
                "microseconds since the Unix epoch)");
  }
  return *micros;
}

absl::StatusOr<CellValue> ParseCellText(ColumnType type, std::string_view text) {
  if (text == kNullText) return CellValue(std::monostate{});
  switch (type) {
    case ColumnType::kUtf8:
      if (!IsValidUtf8(text)) return absl::InvalidArgumentError("utf8 text is not valid UTF-8");
      return CellValue(std::string(text));
    case ColumnType::kInt64: {
      absl::StatusOr<int64_t> value = ParseInt64(text, "an int64 (a decimal integer)");
      if (!value.ok()) return value.status();
      return CellValue(*value);
    }
    case ColumnType::kFloat64: {
      absl::StatusOr<double> value = ParseFloat64(text);
      if (!value.ok()) return value.status();
      return CellValue(*value);
    }
    case ColumnType::kBool:
      if (text == "true") return CellValue(true);
      if (text == "false") return CellValue(false);
      return NotA(text, "a bool (true or false)");
    case ColumnType::kBinary: {
      absl::StatusOr<std::string> bytes = DecodeBase64(text);
      if (!bytes.ok()) return bytes.status();
      return CellValue(Binary{*std::move(bytes)});
    }
    case ColumnType::kTimestamp: {
      absl::StatusOr<int64_t> micros = ParseTimestampText(text);
      if (!micros.ok()) return micros.status();
      return CellValue(TimestampMicros{*micros});
    }
    case ColumnType::kFile:
      return absl::InvalidArgumentError("a file column takes --file or --location");
  }
  return absl::InvalidArgumentError("unknown column type");
}

std::string FormatTimestampMicros(int64_t micros) {
  // Floor division: the fraction of a time before the epoch counts up from
  // the previous whole second (-1 us is 23:59:59.999999).
  int64_t seconds = micros / kMicrosPerSecond;
  int64_t fraction = micros % kMicrosPerSecond;
  if (fraction < 0) {
    fraction += kMicrosPerSecond;
    --seconds;
  }
  absl::CivilSecond civil = absl::ToCivilSecond(absl::FromUnixSeconds(seconds), absl::UTCTimeZone());
  return absl::StrFormat("%04d-%02d-%02dT%02d:%02d:%02d.%06dZ", civil.year(), civil.month(), civil.day(),
                         civil.hour(), civil.minute(), civil.second(), fraction);
}

std::string EncodeBase64(std::string_view bytes) { return absl::Base64Escape(std::string(bytes)); }

absl::StatusOr<std::string> DecodeBase64(std::string_view text) {
  std::string bytes;
  // Abseil's decoder is lenient; only a text that re-encodes to itself is
  // the one canonical spelling of its bytes.
  if (!absl::Base64Unescape(std::string(text), &bytes) || absl::Base64Escape(bytes) != text) {
    return NotA(text, "base64 (RFC 4648, padded, no whitespace)");
  }
  return bytes;
}

}  // namespace lake::table
