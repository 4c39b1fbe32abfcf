// Table names and schemas: named, typed, nullable columns. A layer of plain
// values below both the registry (which stores them in its records) and the
// engine (which builds tables on them); it includes nothing of lake's.
//
// Column types (the schema DSL spells them as here):
//   utf8       valid UTF-8 text
//   int64      signed 64-bit integer
//   float64    IEEE-754 double
//   bool       true / false
//   binary     arbitrary bytes
//   timestamp  UTC microseconds since the Unix epoch (int64)
//   file       a DataLocation of the table's managed stage
//
// Invariants of a valid schema (ValidateSchema): 1..kMaxColumns columns;
// every name is an identifier (ValidateIdentifier) and unique, compared
// exactly. Every column may hold nulls.
#ifndef LAKE_SCHEMA_TABLE_SCHEMA_H_
#define LAKE_SCHEMA_TABLE_SCHEMA_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace lake::table {

enum class ColumnType : uint8_t {
  kUtf8 = 1,
  kInt64 = 2,
  kFloat64 = 3,
  kBool = 4,
  kBinary = 5,
  kTimestamp = 6,
  kFile = 7,
};

inline constexpr size_t kMaxColumns = 1024;
inline constexpr size_t kMaxIdentifierBytes = 128;

// "utf8", "int64", …, "file".
std::string_view ColumnTypeName(ColumnType type);
// The inverse of ColumnTypeName; nullopt for anything else (exact, lowercase).
std::optional<ColumnType> ColumnTypeFromName(std::string_view name);
// True for the values 1..7 of ColumnType.
bool IsKnownColumnType(uint8_t code);

struct ColumnSpec {
  std::string name;
  ColumnType type = ColumnType::kUtf8;

  bool operator==(const ColumnSpec&) const = default;
};

struct Schema {
  std::vector<ColumnSpec> columns;

  // The position of the column named exactly `name`.
  std::optional<size_t> IndexOf(std::string_view name) const;
  bool operator==(const Schema&) const = default;
};

// An identifier (namespace, table or column name): 1..128 bytes of
// [A-Za-z_][A-Za-z0-9_]*. InvalidArgument naming `what` and the text.
absl::Status ValidateIdentifier(std::string_view text, std::string_view what);

absl::Status ValidateSchema(const Schema& schema);

// The schema DSL: one "name:type" column (`--column video:file`).
absl::StatusOr<ColumnSpec> ParseColumnSpec(std::string_view text);

// "ns.table" split at its one dot, both parts identifiers.
struct TableName {
  std::string ns;
  std::string table;

  std::string ToString() const { return ns + "." + table; }
  bool operator==(const TableName&) const = default;
  auto operator<=>(const TableName&) const = default;
};
absl::StatusOr<TableName> ParseTableName(std::string_view text);

}  // namespace lake::table

#endif  // LAKE_SCHEMA_TABLE_SCHEMA_H_
