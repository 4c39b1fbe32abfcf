// lake's SQL subset: the statement forms a user may write, parsed into a
// small AST before anything else happens (ARCHITECTURE.md, durability rule
// 2: validate before the first side effect).
//
// Grammar (keywords ignore case; names are compared exactly, as schemas do):
//
//   statement := (insert | replace | select | delete | drop | alter) [';']
//   insert    := INSERT INTO table '(' column {',' column} ')'
//                VALUES row {',' row}
//   replace   := INSERT INTO table REPLACE WHERE predicate
//                '(' column {',' column} ')' VALUES row {',' row}
//   row       := '(' '?' {',' '?'} ')'        one '?' per listed column
//   select    := SELECT ('*' | column {',' column} | COUNT '(' '*' ')')
//                FROM table
//                [AS OF VERSION integer]
//                [WHERE predicate]                (predicate.h)
//                [ORDER BY column [ASC | DESC] {',' column [ASC | DESC]}]
//                [LIMIT integer]
//   delete    := DELETE FROM table [WHERE predicate]   (no WHERE: every row)
//   drop      := DROP TABLE table
//   alter     := ALTER TABLE table
//                ( CREATE TAG tag AS OF VERSION integer
//                | DROP TAG tag
//                | EXPIRE VERSIONS [KEEP LAST integer]
//                                  [OLDER THAN integer unit] )   at least one
//   unit      := SECONDS | MINUTES | HOURS | DAYS   (or SECOND, MINUTE, …)
//   tag       := identifier
//   table     := namespace '.' table-name     each an identifier
//   identifier:= word | "word"                (sql_lexer.h)
//
// Every value is a '?' placeholder, bound later by position (CLI.md,
// "Values"); there are no literals besides the integers of AS OF VERSION,
// LIMIT, KEEP LAST and OLDER THAN. So SQL text can carry neither a storage URI nor a credential: a
// FILE value arrives only as a bound parameter, whose containment in the
// stage the caller checks.
//
// Keywords and identifiers. Keywords are not reserved: a word is read as a
// keyword only where the grammar lets that keyword stand, and as a name
// everywhere else, so a column named `version`, `limit` or `order` is
// written as is. Two places let a keyword and a name both stand; there the
// keyword wins, and a double-quoted name ("not") is always a name:
//   - NOT at the start of a condition is the operator (WHERE "not" = ?);
//   - COUNT followed by '(' right after SELECT is count(*) (a column named
//     count is selected as `SELECT count FROM …` or `SELECT "count" …`).
// After a column, IS, IN and NOT are keywords; between conditions AND and
// OR; after an ORDER BY column ASC and DESC; after INSERT INTO's table
// REPLACE (where only '(' could stand otherwise). A statement that reads one way
// today keeps that reading when keywords are added: a new keyword only
// ever stands where no name could.
//
// The statements that change a table's registration (DROP TABLE, ALTER
// TABLE) start with a keyword no other statement starts with, and their
// other keywords stand where no name could, so no name is taken from users.
//
// Errors are InvalidArgument starting "SQL: " and name the offending token
// and its byte offset, e.g. "SQL: expected VALUES, found 'VALUE' at offset
// 31", "SQL: UPDATE is not supported (INSERT, SELECT, DELETE, DROP TABLE or
// ALTER TABLE)", "SQL: only ?
// placeholders may appear in VALUES, found '42' at offset 40".
// Everything is checked here or in binding, before any I/O.
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
#include "engine/sql/predicate.h"
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

// One ORDER BY key: a column, ascending unless `descending`.
struct OrderKey {
  std::string column;
  bool descending = false;

  bool operator==(const OrderKey&) const = default;
};

// Invariants: all_columns, count_rows and a non-empty `columns` exclude
// each other, and one holds; every name is an identifier; `where` (when
// present) holds the statement's placeholders [0, placeholder_count) and
// meets predicate.h's invariants; count_rows has no order_by.
struct SelectStatement {
  table::TableName table;
  bool all_columns = false;
  bool count_rows = false;  // SELECT count(*)
  std::vector<std::string> columns;
  std::optional<uint64_t> as_of_version;
  std::optional<Predicate> where;
  std::vector<OrderKey> order_by;
  std::optional<uint64_t> limit;
  size_t placeholder_count = 0;

  bool operator==(const SelectStatement&) const = default;
};

// Invariants: `where` (when present) holds the statement's placeholders
// [0, placeholder_count) and meets predicate.h's invariants; no WHERE
// deletes every row, as SQL does.
struct DeleteStatement {
  table::TableName table;
  std::optional<Predicate> where;
  size_t placeholder_count = 0;

  bool operator==(const DeleteStatement&) const = default;
};

// A replace-where: the rows `removed` deletes and the rows `added` appends,
// in one commit. Invariants: table == removed.table == added.table;
// removed.where is present and holds placeholders [0,
// removed.placeholder_count); added's placeholders follow them, so
// placeholder_count == removed.placeholder_count + added.placeholder_count
// and added's placeholder k is the statement's removed.placeholder_count + k.
struct ReplaceStatement {
  table::TableName table;
  DeleteStatement removed;
  InsertStatement added;
  size_t placeholder_count = 0;

  bool operator==(const ReplaceStatement&) const = default;
};

// DROP TABLE: the table leaves the registry (TableStore::DropTable).
struct DropTableStatement {
  table::TableName table;

  bool operator==(const DropTableStatement&) const = default;
};

// ALTER TABLE … CREATE TAG: `tag` (an identifier) pins `version`.
struct CreateTagStatement {
  table::TableName table;
  std::string tag;
  uint64_t version = 0;

  bool operator==(const CreateTagStatement&) const = default;
};

// ALTER TABLE … DROP TAG: the tag goes.
struct DropTagStatement {
  table::TableName table;
  std::string tag;

  bool operator==(const DropTagStatement&) const = default;
};

// ALTER TABLE … EXPIRE VERSIONS (TableStore::Expire). Invariant: keep_last
// or older_than_seconds is set; older_than_seconds fits an absl::Duration
// (at most kMaxExpireSeconds).
struct ExpireStatement {
  table::TableName table;
  std::optional<uint64_t> keep_last;
  std::optional<uint64_t> older_than_seconds;

  bool operator==(const ExpireStatement&) const = default;
};
// OLDER THAN's bound: 100 years, far past any retention, far within
// absl::Duration.
inline constexpr uint64_t kMaxExpireSeconds = uint64_t{100} * 366 * 24 * 3600;

using Statement =
    std::variant<InsertStatement, SelectStatement, DeleteStatement, ReplaceStatement,
                 DropTableStatement, CreateTagStatement, DropTagStatement, ExpireStatement>;

// Parses one statement of the subset. Pure: no I/O, no schema lookup (see
// sql_binding.h for the checks against a table's schema).
absl::StatusOr<Statement> ParseStatement(std::string_view sql);

}  // namespace lake::sql

#endif  // LAKE_ENGINE_SQL_SQL_STATEMENT_H_
