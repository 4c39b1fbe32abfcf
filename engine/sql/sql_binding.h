// Checks a parsed statement against its table's schema and evaluates the
// parts of it that need no I/O: the rows an INSERT appends, the rows a
// SELECT's WHERE keeps and the columns it projects. Every check here runs
// before the first side effect (no file opened, nothing uploaded).
//
// Parameters are std::vector<table::CellValue>, one per placeholder in
// statement order. A parameter is std::monostate (null) or a value of its
// target column's type (table::CellValueType); anything else is refused.
//
// Errors are InvalidArgument starting "SQL: " and name the column or the
// parameter (1-based) at fault.
#ifndef LAKE_ENGINE_SQL_SQL_BINDING_H_
#define LAKE_ENGINE_SQL_SQL_BINDING_H_

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "engine/sql/compiled_predicate.h"
#include "engine/sql/predicate.h"
#include "engine/sql/sql_statement.h"
#include "engine/table/column_batch.h"
#include "schema/table_schema.h"

namespace lake::sql {

// Invariants: schema is the schema bound against; columns are distinct
// indexes into it, in statement order; parameters.size() == row_count *
// columns.size(), and parameter k targets columns[k % columns.size()].
struct BoundInsert {
  table::TableName table;
  table::Schema schema;
  std::vector<size_t> columns;
  size_t row_count = 0;
  std::vector<BoundParameter> parameters;
};

// One ORDER BY key, bound: a column of the schema (never a FILE column).
struct BoundOrderKey {
  size_t column = 0;
  table::ColumnType type = table::ColumnType::kUtf8;
  bool descending = false;

  bool operator==(const BoundOrderKey&) const = default;
};

// The name of count(*)'s one output column (an int64).
inline constexpr std::string_view kCountColumn = "count";

// Invariants: schema is the schema bound against; projection holds distinct
// indexes into it (every column, in schema order, for SELECT *; none for
// count(*)), and output_schema is those columns in that order (count(*):
// one int64 column, kCountColumn); predicate is the WHERE, if any; where
// holds one entry per placeholder, in statement order (the predicate's
// placeholders, PredicateParameters); order_by keys are not FILE columns.
struct BoundSelect {
  table::TableName table;
  table::Schema schema;
  bool count_rows = false;
  std::vector<size_t> projection;
  table::Schema output_schema;
  std::optional<uint64_t> as_of_version;
  std::optional<BoundPredicate> predicate;
  std::vector<BoundParameter> where;
  std::vector<BoundOrderKey> order_by;
  std::optional<uint64_t> limit;
};

// Every listed column exists (exact name) and appears once. Columns the
// statement does not list are null in every inserted row (every column is
// nullable, schema.h).
absl::StatusOr<BoundInsert> BindInsert(const InsertStatement& statement, const table::Schema& schema);

// Every projected, WHERE and ORDER BY column exists; a projected column
// appears once (the output is a schema, whose names are unique). A WHERE
// column may repeat. The WHERE binds as BindPredicate does; an ORDER BY
// key is not a FILE column (a file has no order).
absl::StatusOr<BoundSelect> BindSelect(const SelectStatement& statement, const table::Schema& schema);

// "SQL: 3 placeholders, 2 parameters bound" unless expected == given.
absl::Status CheckParameterCount(size_t expected, size_t given);

// The count (CheckParameterCount), then every parameter is null or of its
// column's type: "SQL: parameter 2 (column 'size') is int64, not utf8".
absl::Status CheckParameters(const table::Schema& schema, const std::vector<BoundParameter>& bound,
                             const std::vector<table::CellValue>& parameters);

// The rows an INSERT appends: a batch of the bound schema with row_count
// rows, listed columns from the parameters, the others null. Checks the
// parameters first (as CheckParameters) and a utf8 value's encoding. Each
// parameter is read where it is (copied once, into the batch's columns).
absl::StatusOr<table::ColumnBatch> InsertRows(
    const BoundInsert& insert, absl::Span<const table::CellValue* const> parameters);

// The indexes, ascending, of the rows of `batch` for which the WHERE is
// true (predicate.h has its meaning), at most `max_rows` of them (the
// first ones). No WHERE: every row. InvalidArgument when batch.schema is
// not select.schema or the parameters do not fit (CheckParameters).
absl::StatusOr<std::vector<size_t>> MatchingRows(const table::ColumnBatch& batch, const BoundSelect& select,
                                                 const std::vector<table::CellValue>& parameters,
                                                 size_t max_rows = std::numeric_limits<size_t>::max());

// The same for a statement that checked its parameters once
// (CheckParameters) and compiled its WHERE with them (compiled_predicate.h),
// so that testing each fragment repeats neither: InvalidArgument only when
// batch.schema is not select.schema. Precondition: select has a WHERE and
// `where` was compiled from it.
absl::StatusOr<std::vector<size_t>> MatchingRows(const table::ColumnBatch& batch, const BoundSelect& select,
                                                 const CompiledPredicate& where,
                                                 size_t max_rows = std::numeric_limits<size_t>::max());

// The columns the WHERE reads: distinct schema indexes, ascending.
std::vector<size_t> WhereColumns(const BoundSelect& select);

// Whether MatchingRows could find a row in a batch of which only the
// WhereColumns are known to be decoded (a fragment decoded in part, see
// table::ScanPrefilter): false only when the WHERE is true for none of its
// rows. True, so that MatchingRows reports it, when the batch or the
// parameters do not fit the select.
bool MayHaveMatchingRows(const table::ColumnBatch& partial, const BoundSelect& select,
                         const std::vector<table::CellValue>& parameters);
// The same with parameters checked and compiled once, as MatchingRows's.
bool MayHaveMatchingRows(const table::ColumnBatch& partial, const BoundSelect& select,
                         const CompiledPredicate& where);

// A batch of select.output_schema holding the projected columns of `rows`
// of `batch`, in the order given. Precondition: every row index is below
// batch.num_rows and no index repeats (so the result's string columns fit,
// as the input's did). InvalidArgument when batch.schema is not
// select.schema.
absl::StatusOr<table::ColumnBatch> ProjectRows(const table::ColumnBatch& batch, const BoundSelect& select,
                                               const std::vector<size_t>& rows);

}  // namespace lake::sql

#endif  // LAKE_ENGINE_SQL_SQL_BINDING_H_
