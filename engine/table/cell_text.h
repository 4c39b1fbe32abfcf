// The text forms of cell values (CLI.md, "Values"): how a `--param` string
// becomes a CellValue of its target column's type, and the text the JSON
// output uses for timestamps and binary.
//
// Accepted text, by column type (no surrounding whitespace anywhere):
//   any type   `NULL` (exactly, upper case) is null (std::monostate); so
//              the utf8 text "NULL" cannot be given as a --param
//   int64      [+-]?[0-9]+ within int64
//   float64    a decimal: [+-]?(D+[.D*]|.D+)([eE][+-]?D+)? (D a digit),
//              rounded to nearest. No hex, inf or nan. A value that rounds
//              to infinity, or a non-zero value that rounds to zero, is out
//              of range (subnormals are accepted)
//   bool       `true` or `false` (lower case)
//   timestamp  ISO-8601 with a zone, YYYY-MM-DDTHH:MM:SS[.F{1,6}](Z|±HH:MM)
//              ('T' and 'Z' in either case; years 0000..9999; no leap
//              second 60), or [+-]?[0-9]+ microseconds since the Unix epoch
//   binary     base64, RFC 4648 §4, strict: padded, no whitespace, and the
//              unused bits of the last character zero (DecodeBase64)
//   utf8       the text itself, which must be valid UTF-8
//   file       only `NULL`: a file value comes from --file or --location
// Errors are InvalidArgument naming the text (at most 64 bytes shown) and
// the type.
#ifndef LAKE_ENGINE_TABLE_CELL_TEXT_H_
#define LAKE_ENGINE_TABLE_CELL_TEXT_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "engine/table/column_batch.h"
#include "schema/table_schema.h"

namespace lake::table {

// The text that ParseCellText reads as null.
inline constexpr std::string_view kNullText = "NULL";

absl::StatusOr<CellValue> ParseCellText(ColumnType type, std::string_view text);

// A timestamp's text (either form above) as microseconds since the epoch.
absl::StatusOr<int64_t> ParseTimestampText(std::string_view text);

// "2026-11-30T07:35:56.000123Z": UTC, always six fractional digits. Years
// 0000..9999 give ISO-8601 that ParseTimestampText reads back; the extreme
// int64 values fall outside them and print with a sign or more digits.
std::string FormatTimestampMicros(int64_t micros);

// Base64 (RFC 4648 §4) with padding: the JSON form of binary.
std::string EncodeBase64(std::string_view bytes);
// The inverse of EncodeBase64, strict: exactly the texts EncodeBase64 can
// produce (Abseil's decoder alone also accepts missing padding, whitespace
// and non-zero trailing bits).
absl::StatusOr<std::string> DecodeBase64(std::string_view text);

}  // namespace lake::table

#endif  // LAKE_ENGINE_TABLE_CELL_TEXT_H_
