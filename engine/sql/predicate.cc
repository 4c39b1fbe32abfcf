#include "engine/sql/predicate.h"

#include <set>
#include <utility>

#include "absl/strings/str_cat.h"

namespace lake::sql {
namespace {

bool IsLeaf(PredicateKind kind) {
  return kind == PredicateKind::kCompare || kind == PredicateKind::kIn || kind == PredicateKind::kIsNull;
}

bool IsOrdering(CompareOp op) { return op != CompareOp::kEqual && op != CompareOp::kNotEqual; }

void CollectNames(const Predicate& p, std::vector<std::string>* names) {
  if (IsLeaf(p.kind)) names->push_back(p.column);
  for (const Predicate& child : p.children) CollectNames(child, names);
}

void CollectParameters(const BoundPredicate& p, std::vector<BoundParameter>* out) {
  if (IsLeaf(p.kind)) {
    for (size_t i = 0; i < p.placeholder_count; ++i) out->push_back({p.column, p.type});
  }
  for (const BoundPredicate& child : p.children) CollectParameters(child, out);
}

void CollectColumns(const BoundPredicate& p, std::set<size_t>* columns) {
  if (IsLeaf(p.kind)) columns->insert(p.column);
  for (const BoundPredicate& child : p.children) CollectColumns(child, columns);
}

}  // namespace

std::string_view CompareOpText(CompareOp op) {
  switch (op) {
    case CompareOp::kEqual: return "=";
    case CompareOp::kNotEqual: return "!=";
    case CompareOp::kLess: return "<";
    case CompareOp::kLessOrEqual: return "<=";
    case CompareOp::kGreater: return ">";
    case CompareOp::kGreaterOrEqual: return ">=";
  }
  return "=";
}

std::vector<std::string> PredicateColumnNames(const Predicate& predicate) {
  std::vector<std::string> names;
  CollectNames(predicate, &names);
  return names;
}

absl::StatusOr<BoundPredicate> BindPredicate(const Predicate& predicate, const table::Schema& schema,
                                             const table::TableName& table) {
  BoundPredicate bound;
  bound.kind = predicate.kind;
  bound.op = predicate.op;
  bound.first_placeholder = predicate.first_placeholder;
  bound.placeholder_count = predicate.placeholder_count;
  if (IsLeaf(predicate.kind)) {
    std::optional<size_t> index = schema.IndexOf(predicate.column);
    if (!index) {
      return absl::InvalidArgumentError(
          absl::StrCat("SQL: table ", table.ToString(), " has no column '", predicate.column, "'"));
    }
    bound.column = *index;
    bound.type = schema.columns[*index].type;
    if (predicate.kind == PredicateKind::kCompare && IsOrdering(predicate.op) &&
        bound.type == table::ColumnType::kFile) {
      return absl::InvalidArgumentError(absl::StrCat(
          "SQL: column '", predicate.column, "' is a file, which has no order: ",
          std::string(CompareOpText(predicate.op)), " does not apply to it (=, !=, IN and IS NULL do)"));
    }
  }
  bound.children.reserve(predicate.children.size());
  for (const Predicate& child : predicate.children) {
    absl::StatusOr<BoundPredicate> b = BindPredicate(child, schema, table);
    if (!b.ok()) return b.status();
    bound.children.push_back(*std::move(b));
  }
  return bound;
}

std::vector<BoundParameter> PredicateParameters(const BoundPredicate& predicate) {
  std::vector<BoundParameter> parameters;
  CollectParameters(predicate, &parameters);
  return parameters;
}

std::vector<size_t> PredicateColumns(const BoundPredicate& predicate) {
  std::set<size_t> columns;
  CollectColumns(predicate, &columns);
  return std::vector<size_t>(columns.begin(), columns.end());
}

}  // namespace lake::sql
