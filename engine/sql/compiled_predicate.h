// A bound predicate (predicate.h) together with its parameters and what
// testing it on a fragment would otherwise rebuild for every fragment: for
// each IN list, whether it holds a null, its values as a hash set (a long
// list on an int64 or timestamp column) and its non-null, non-NaN values in
// ascending order (for the statistics check, predicate_statistics.h).
// Built once when a statement is executed, read-only after, so one instance
// serves every fragment's test (and may be shared between threads).
//
// Invariant: `parameters()` holds every placeholder the predicate takes,
// each null or of its column's type (the caller ran CheckParameters).
#ifndef LAKE_ENGINE_SQL_COMPILED_PREDICATE_H_
#define LAKE_ENGINE_SQL_COMPILED_PREDICATE_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/types/span.h"
#include "engine/sql/predicate.h"
#include "engine/table/column_batch.h"

namespace lake::sql {

// An IN list longer than this on an int64 or timestamp column is looked up
// in a hash set (a DELETE of every 100th of a million rows lists 10,000);
// shorter ones are compared value by value.
inline constexpr size_t kHashedInValues = 16;

// What is known once about one IN node's list of values.
struct CompiledInList {
  bool has_null = false;
  // When `hashed`, `keys` holds every non-null value (int64, or a
  // timestamp's micros).
  bool hashed = false;
  absl::flat_hash_set<int64_t> keys;
  // Every value that is neither null nor NaN, ascending in the column's
  // order (unordered for binary and file columns, which have no bounds).
  std::vector<table::CellValue> ordered;
};

class CompiledPredicate {
 public:
  // Preconditions: as the class invariant.
  CompiledPredicate(BoundPredicate predicate, std::vector<table::CellValue> parameters);

  const BoundPredicate& predicate() const { return predicate_; }
  absl::Span<const table::CellValue> parameters() const { return parameters_; }
  // The values of leaf `leaf` (a node of predicate()): its placeholders' parameters.
  absl::Span<const table::CellValue> Values(const BoundPredicate& leaf) const {
    return absl::MakeConstSpan(parameters_).subspan(leaf.first_placeholder, leaf.placeholder_count);
  }
  // The list of IN node `in` (a node of predicate() of kind kIn).
  const CompiledInList& InList(const BoundPredicate& in) const { return in_lists_.at(in.first_placeholder); }

 private:
  void CompileNode(const BoundPredicate& node);

  BoundPredicate predicate_;
  std::vector<table::CellValue> parameters_;
  // Keyed by the IN node's first placeholder (each node has its own).
  absl::flat_hash_map<size_t, CompiledInList> in_lists_;
};

// Whether `a` sorts before `b`, both non-null, non-NaN values of a column
// of `type`, in the order the statistics' bounds use; false for binary and
// file columns (no order).
bool ValueBefore(table::ColumnType type, const table::CellValue& a, const table::CellValue& b);

}  // namespace lake::sql

#endif  // LAKE_ENGINE_SQL_COMPILED_PREDICATE_H_
