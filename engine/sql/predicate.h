// A WHERE: the predicate tree a statement's parser builds, and the same
// tree bound to a table's schema. It is its own concept, apart from the
// statement that holds it, so that every statement filtering rows (SELECT
// today, DELETE and replace-where next) parses, binds and evaluates it the
// same way (predicate_evaluator.h evaluates it over rows).
//
// Grammar (sql_statement.h parses it; keywords ignore case):
//
//   predicate  := disjunct {OR disjunct}
//   disjunct   := negation {AND negation}
//   negation   := NOT negation | '(' predicate ')' | condition
//   condition  := column compare '?'
//               | column [NOT] IN '(' '?' {',' '?'} ')'
//               | column IS [NOT] NULL
//   compare    := '=' | '!=' | '<>' | '<' | '<=' | '>' | '>='
//
// AND binds tighter than OR, NOT tighter than AND. A value is always a '?'
// placeholder on the right of its column. A chain of one operator (a AND b
// AND c) is one node with every operand as a child, so the tree's depth
// grows only with parentheses and NOT, which kMaxPredicateDepth bounds
// (the parser, the binder and the evaluator recurse over it).
//
// Meaning: SQL's three-valued logic. A comparison or IN with a null cell or
// a null parameter is unknown; NOT unknown is unknown; AND is false if any
// operand is false, OR true if any is true, else unknown wins over the
// other value. IS [NOT] NULL is never unknown. A row matches when the
// whole predicate is true. Values compare as their type does: int64 and
// timestamp as integers, float64 by IEEE-754 (-0.0 = 0.0; NaN equals and
// orders with nothing, so only != holds for it), bool false < true, utf8
// and binary bytewise (no collation: UTF-8's byte order is code point
// order). A FILE value is equal to another when the whole DataLocation is
// (uri, content type, size and digest); it has no order, so only =, !=, IN
// and IS NULL apply to a FILE column (BindPredicate refuses the others).
#ifndef LAKE_ENGINE_SQL_PREDICATE_H_
#define LAKE_ENGINE_SQL_PREDICATE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "schema/table_schema.h"

namespace lake::sql {

// Parentheses and NOTs nested deeper than this are refused: it bounds the
// recursion of every walk over the tree (64 is far beyond what anyone
// writes by hand, and a few KiB of stack).
inline constexpr size_t kMaxPredicateDepth = 64;

enum class PredicateKind : uint8_t {
  kCompare,  // column op ?
  kIn,       // column IN (?, ...)
  kIsNull,   // column IS NULL (IS NOT NULL is kNot over it)
  kAnd,      // every child
  kOr,       // any child
  kNot,      // its one child (NOT IN and IS NOT NULL are written this way)
};

enum class CompareOp : uint8_t { kEqual, kNotEqual, kLess, kLessOrEqual, kGreater, kGreaterOrEqual };

// "=", "!=", "<", "<=", ">", ">=".
std::string_view CompareOpText(CompareOp op);

// A predicate as parsed: names, not yet checked against a schema.
// Invariants: a leaf (kCompare, kIn, kIsNull) names an identifier column
// and has no children; it takes the statement's placeholders
// [first_placeholder, first_placeholder + placeholder_count): one for
// kCompare, at least one for kIn, none for kIsNull. kAnd and kOr have at
// least two children, kNot exactly one. Leaves number their placeholders
// in statement order. The depth is at most kMaxPredicateDepth.
struct Predicate {
  PredicateKind kind = PredicateKind::kIsNull;
  CompareOp op = CompareOp::kEqual;  // kCompare only
  std::string column;                // leaves only
  size_t first_placeholder = 0;
  size_t placeholder_count = 0;
  std::vector<Predicate> children;

  bool operator==(const Predicate&) const = default;
};

// The columns a predicate's leaves name, in statement order (repeats kept).
std::vector<std::string> PredicateColumnNames(const Predicate& predicate);

// A predicate bound to a schema: the same tree, each leaf's column an index
// into the schema, with its type. Placeholders keep their statement order.
struct BoundPredicate {
  PredicateKind kind = PredicateKind::kIsNull;
  CompareOp op = CompareOp::kEqual;
  size_t column = 0;
  table::ColumnType type = table::ColumnType::kUtf8;
  size_t first_placeholder = 0;
  size_t placeholder_count = 0;
  std::vector<BoundPredicate> children;

  bool operator==(const BoundPredicate&) const = default;
};

// Every leaf's column exists in `schema` (exact name: "SQL: table ns.t has
// no column 'x'") and, for an ordering comparison (<, <=, >, >=), is not a
// FILE column. InvalidArgument starting "SQL: " otherwise.
absl::StatusOr<BoundPredicate> BindPredicate(const Predicate& predicate, const table::Schema& schema,
                                             const table::TableName& table);

// Where one placeholder's value goes: a column of the bound schema.
struct BoundParameter {
  size_t column = 0;  // index into the bound schema's columns
  table::ColumnType type = table::ColumnType::kUtf8;

  bool operator==(const BoundParameter&) const = default;
};

// One entry per placeholder of the predicate, in placeholder order: the
// column its value is compared with.
std::vector<BoundParameter> PredicateParameters(const BoundPredicate& predicate);

// The distinct columns the predicate reads, ascending.
std::vector<size_t> PredicateColumns(const BoundPredicate& predicate);

}  // namespace lake::sql

#endif  // LAKE_ENGINE_SQL_PREDICATE_H_
