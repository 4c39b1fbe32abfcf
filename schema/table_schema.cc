#include "schema/table_schema.h"

#include <array>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"

namespace lake::table {
namespace {

constexpr std::array<std::pair<ColumnType, std::string_view>, 7> kTypeNames = {{
    {ColumnType::kUtf8, "utf8"},
    {ColumnType::kInt64, "int64"},
    {ColumnType::kFloat64, "float64"},
    {ColumnType::kBool, "bool"},
    {ColumnType::kBinary, "binary"},
    {ColumnType::kTimestamp, "timestamp"},
    {ColumnType::kFile, "file"},
}};

bool IsIdentifierStart(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}
bool IsIdentifierPart(char c) { return IsIdentifierStart(c) || (c >= '0' && c <= '9'); }

// Printable for an error message: at most 64 bytes, controls as '?'.
std::string Printable(std::string_view text) {
  std::string out;
  for (char c : text.substr(0, 64)) out.push_back(c >= 0x20 && c < 0x7F ? c : '?');
  if (text.size() > 64) out += "...";
  return out;
}

}  // namespace

std::string_view ColumnTypeName(ColumnType type) {
  for (const auto& [t, name] : kTypeNames) {
    if (t == type) return name;
  }
  return "unknown";
}

std::optional<ColumnType> ColumnTypeFromName(std::string_view name) {
  for (const auto& [t, n] : kTypeNames) {
    if (n == name) return t;
  }
  return std::nullopt;
}

bool IsKnownColumnType(uint8_t code) { return code >= 1 && code <= 7; }

std::optional<size_t> Schema::IndexOf(std::string_view name) const {
  for (size_t i = 0; i < columns.size(); ++i) {
    if (columns[i].name == name) return i;
  }
  return std::nullopt;
}

absl::Status ValidateIdentifier(std::string_view text, std::string_view what) {
  if (text.empty()) return absl::InvalidArgumentError(absl::StrCat(std::string(what), " name is empty"));
  if (text.size() > kMaxIdentifierBytes) {
    return absl::InvalidArgumentError(absl::StrCat(std::string(what), " name '", Printable(text),
                                                   "' is longer than ", kMaxIdentifierBytes,
                                                   " bytes"));
  }
  bool ok = IsIdentifierStart(text[0]);
  for (char c : text) ok = ok && IsIdentifierPart(c);
  if (!ok) {
    return absl::InvalidArgumentError(absl::StrCat(
        std::string(what), " name '", Printable(text), "' is not an identifier ([A-Za-z_][A-Za-z0-9_]*)"));
  }
  return absl::OkStatus();
}

absl::Status ValidateSchema(const Schema& schema) {
  if (schema.columns.empty()) return absl::InvalidArgumentError("a table needs a column");
  if (schema.columns.size() > kMaxColumns) {
    return absl::InvalidArgumentError(
        absl::StrCat("a table has at most ", kMaxColumns, " columns"));
  }
  std::set<std::string_view> seen;
  for (const ColumnSpec& column : schema.columns) {
    if (absl::Status s = ValidateIdentifier(column.name, "column"); !s.ok()) return s;
    if (!IsKnownColumnType(static_cast<uint8_t>(column.type))) {
      return absl::InvalidArgumentError(
          absl::StrCat("column '", column.name, "' has an unknown type"));
    }
    if (!seen.insert(column.name).second) {
      return absl::InvalidArgumentError(absl::StrCat("column '", column.name, "' appears twice"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<ColumnSpec> ParseColumnSpec(std::string_view text) {
  size_t colon = text.find(':');
  if (colon == std::string_view::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("column '", Printable(text), "' must be NAME:TYPE"));
  }
  std::string_view name = text.substr(0, colon);
  std::string_view type_name = text.substr(colon + 1);
  if (absl::Status s = ValidateIdentifier(name, "column"); !s.ok()) return s;
  std::optional<ColumnType> type = ColumnTypeFromName(type_name);
  if (!type) {
    return absl::InvalidArgumentError(absl::StrCat(
        "column '", std::string(name), "' has unknown type '", Printable(type_name),
        "' (utf8, int64, float64, bool, binary, timestamp or file)"));
  }
  return ColumnSpec{std::string(name), *type};
}

absl::StatusOr<TableName> ParseTableName(std::string_view text) {
  size_t dot = text.find('.');
  if (dot == std::string_view::npos || text.find('.', dot + 1) != std::string_view::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("table name '", Printable(text), "' must be NAMESPACE.TABLE"));
  }
  TableName name{std::string(text.substr(0, dot)), std::string(text.substr(dot + 1))};
  if (absl::Status s = ValidateIdentifier(name.ns, "namespace"); !s.ok()) return s;
  if (absl::Status s = ValidateIdentifier(name.table, "table"); !s.ok()) return s;
  return name;
}

}  // namespace lake::table
