// lake's SQL subset: the statement forms a user may write, parsed into a
// small AST before anything else happens (ARCHITECTURE.md, durability rule
// 2: validate before the first side effect).
//
// Grammar (keywords ignore case; names are compared exactly, as schemas do):
//
//   statement := (insert | select) [';']
//   insert    := INSERT INTO table '(' column {',' column} ')'
//                VALUES row {',' row}
//   row       := '(' '?' {',' '?'} ')'        one '?' per listed column
//   select    := SELECT ('*' | column {',' column}) FROM table
//                [AS OF VERSION integer]
//                [WHERE column '=' '?' {AND column '=' '?'}]
//                [LIMIT integer]
//   table     := namespace '.' table-name     each an identifier
//
// Every value is a '?' placeholder, bound later by position (CLI.md,
// "Values"); there are no literals besides the integers of AS OF VERSION and
// LIMIT. So SQL text can carry neither a storage URI nor a credential: a
// FILE value arrives only as a bound parameter, whose containment in the
// stage the caller checks. Keywords are not reserved (sql_lexer.h), so a
// column named `version` or `limit` is written as is.
//
// Errors are InvalidArgument starting "SQL: " and name the offending token
// and its byte offset, e.g. "SQL: expected VALUES, found 'VALUE' at offset
// 31", "SQL: UPDATE is not supported (INSERT or SELECT)", "SQL: only ?
// placeholders may appear in VALUES, found '42' at offset 40".
#ifndef LAKE_ENGINE_SQL_SQL_STATEMENT_H_
#define LAKE_ENGINE_SQL_SQL_STATEMENT_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "schema/table_schema.h"

namespace lake::sql {

// Invariants: columns is non-empty, each an identifier (ValidateIdentifier),
// possibly repeated (BindInsert refuses repeats); row_count >= 1;
// placeholder_count == row_count * columns.size() <= kMaxPlaceholders.
// Placeholder k fills row k / columns.size(), column columns[k % size].
struct InsertStatement {
  table::TableName table;
  std::vector<std::string> columns;
  size_t row_count = 0;
  size_t placeholder_count = 0;

  bool operator==(const InsertStatement&) const = default;
};

// Invariants: all_columns == columns.empty(); every name is an identifier;
// where_columns holds one "column = ?" condition each, AND-ed, in statement
// order (a column may repeat); placeholder_count == where_columns.size().
struct SelectStatement {
  table::TableName table;
  bool all_columns = false;
  std::vector<std::string> columns;
  std::optional<uint64_t> as_of_version;
  std::vector<std::string> where_columns;
  std::optional<uint64_t> limit;
  size_t placeholder_count = 0;

  bool operator==(const SelectStatement&) const = default;
};

using Statement = std::variant<InsertStatement, SelectStatement>;

// Parses one statement of the subset. Pure: no I/O, no schema lookup (see
// sql_binding.h for the checks against a table's schema).
absl::StatusOr<Statement> ParseStatement(std::string_view sql);

}  // namespace lake::sql

#endif  // LAKE_ENGINE_SQL_SQL_STATEMENT_H_
