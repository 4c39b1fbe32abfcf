// Whether a bound predicate (predicate.h) can be true for any row of a
// fragment, judged from the fragment's statistics alone
// (fragment_statistics.h): a scan never opens a fragment for which it is
// not.
//
// Each node is judged by two over-approximations, "may be true for some
// row" and "may be false for some row" (unknown counts as neither); NOT
// swaps them, AND needs every child to may-be-true, OR any. A leaf judges
// its column's null count and bounds against its parameters: a null
// parameter makes a comparison unknown everywhere; a column of nulls makes
// every comparison unknown; without bounds (binary, file, a NaN, no
// statistics) both answers are yes.
#ifndef LAKE_ENGINE_SQL_PREDICATE_STATISTICS_H_
#define LAKE_ENGINE_SQL_PREDICATE_STATISTICS_H_

#include <cstdint>

#include "absl/types/span.h"
#include "engine/sql/compiled_predicate.h"
#include "engine/sql/predicate.h"
#include "engine/table/column_batch.h"
#include "engine/table/fragment_statistics.h"

namespace lake::sql {

// False only when no row of a fragment of `rows` rows with `statistics`
// can make `predicate` true. Preconditions as RowsWhere's for
// `parameters`; `statistics` has one entry per schema column.
bool PredicateMayMatch(const BoundPredicate& predicate, const table::FragmentStatistics& statistics,
                       uint64_t rows, absl::Span<const table::CellValue> parameters);

// The same for a predicate compiled once (compiled_predicate.h) with its
// parameters: what a statement uses for each fragment it judges.
bool PredicateMayMatch(const CompiledPredicate& compiled, const table::FragmentStatistics& statistics,
                       uint64_t rows);

}  // namespace lake::sql

#endif  // LAKE_ENGINE_SQL_PREDICATE_STATISTICS_H_
