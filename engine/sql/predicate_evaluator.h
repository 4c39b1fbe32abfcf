// Evaluates a bound predicate (predicate.h) over the rows of a batch, a
// column at a time: each node of the tree gives one truth value per row
// (true, false or unknown, SQL's three values), leaves by one pass over
// their column, AND/OR/NOT by combining their children's values.
#ifndef LAKE_ENGINE_SQL_PREDICATE_EVALUATOR_H_
#define LAKE_ENGINE_SQL_PREDICATE_EVALUATOR_H_

#include <cstddef>
#include <limits>
#include <vector>

#include "absl/types/span.h"
#include "engine/sql/compiled_predicate.h"
#include "engine/sql/predicate.h"
#include "engine/table/column_batch.h"

namespace lake::sql {

// The indexes, ascending, of the rows of `batch` for which `predicate` is
// true, at most `max_rows` of them (the first ones).
// Preconditions: every column the predicate reads (PredicateColumns) holds
// batch.num_rows cells of its schema type; `parameters` holds every
// placeholder the predicate takes (its index into `parameters` is the
// placeholder's), each null or of its column's type (CheckParameters).
std::vector<size_t> RowsWhere(const BoundPredicate& predicate, const table::ColumnBatch& batch,
                              absl::Span<const table::CellValue> parameters,
                              size_t max_rows = std::numeric_limits<size_t>::max());

// The same for a predicate compiled once (compiled_predicate.h) with its
// parameters: what a statement uses for each fragment it tests.
std::vector<size_t> RowsWhere(const CompiledPredicate& compiled, const table::ColumnBatch& batch,
                              size_t max_rows = std::numeric_limits<size_t>::max());

}  // namespace lake::sql

#endif  // LAKE_ENGINE_SQL_PREDICATE_EVALUATOR_H_
