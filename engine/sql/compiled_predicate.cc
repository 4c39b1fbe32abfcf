#include "engine/sql/compiled_predicate.h"

#include <algorithm>
#include <string_view>
#include <utility>
#include <variant>

namespace lake::sql {
namespace {

using table::CellValue;
using table::ColumnType;

bool IsNullOrNaN(const CellValue& value) {
  if (std::holds_alternative<std::monostate>(value)) return true;
  const double* d = std::get_if<double>(&value);
  return d != nullptr && *d != *d;
}

}  // namespace

bool ValueBefore(ColumnType type, const CellValue& a, const CellValue& b) {
  switch (type) {
    case ColumnType::kInt64: return std::get<int64_t>(a) < std::get<int64_t>(b);
    case ColumnType::kTimestamp:
      return std::get<table::TimestampMicros>(a).micros < std::get<table::TimestampMicros>(b).micros;
    case ColumnType::kBool: return !std::get<bool>(a) && std::get<bool>(b);
    case ColumnType::kFloat64: return std::get<double>(a) < std::get<double>(b);
    case ColumnType::kUtf8:
      return std::string_view(std::get<std::string>(a)) < std::string_view(std::get<std::string>(b));
    case ColumnType::kBinary:
    case ColumnType::kFile: return false;
  }
  return false;
}

CompiledPredicate::CompiledPredicate(BoundPredicate predicate, std::vector<CellValue> parameters)
    : predicate_(std::move(predicate)), parameters_(std::move(parameters)) {
  CompileNode(predicate_);
}

void CompiledPredicate::CompileNode(const BoundPredicate& node) {
  for (const BoundPredicate& child : node.children) CompileNode(child);
  if (node.kind != PredicateKind::kIn) return;
  CompiledInList& list = in_lists_[node.first_placeholder];
  absl::Span<const CellValue> values = Values(node);
  list.hashed = values.size() > kHashedInValues &&
                (node.type == ColumnType::kInt64 || node.type == ColumnType::kTimestamp);
  if (list.hashed) list.keys.reserve(values.size());
  list.ordered.reserve(values.size());
  for (const CellValue& value : values) {
    list.has_null = list.has_null || std::holds_alternative<std::monostate>(value);
    if (list.hashed) {
      if (const auto* v = std::get_if<int64_t>(&value)) list.keys.insert(*v);
      if (const auto* t = std::get_if<table::TimestampMicros>(&value)) list.keys.insert(t->micros);
    }
    if (!IsNullOrNaN(value)) list.ordered.push_back(value);
  }
  std::sort(list.ordered.begin(), list.ordered.end(),
            [type = node.type](const CellValue& a, const CellValue& b) { return ValueBefore(type, a, b); });
}

}  // namespace lake::sql
