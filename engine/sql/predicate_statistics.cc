#include "engine/sql/predicate_statistics.h"

#include <algorithm>
#include <string_view>
#include <variant>
#include <vector>

namespace lake::sql {
namespace {

using table::CellValue;
using table::ColumnStatistics;
using table::ColumnType;

struct Possible {
  bool may_be_true = true;
  bool may_be_false = true;
};

// -1, 0, 1: how `value` compares with the bound `bound` of `s` (min when
// `min`), for a column of `type` with bounds.
template <typename T>
int Order(const T& a, const T& b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

int CompareWithBound(ColumnType type, const ColumnStatistics& s, bool min, const CellValue& value) {
  switch (type) {
    case ColumnType::kInt64: return Order(std::get<int64_t>(value), min ? s.min_integer : s.max_integer);
    case ColumnType::kTimestamp:
      return Order(std::get<table::TimestampMicros>(value).micros, min ? s.min_integer : s.max_integer);
    case ColumnType::kBool: return Order<int64_t>(std::get<bool>(value) ? 1 : 0, min ? s.min_integer : s.max_integer);
    case ColumnType::kFloat64: return Order(std::get<double>(value), min ? s.min_real : s.max_real);
    case ColumnType::kUtf8:
      return Order(std::string_view(std::get<std::string>(value)),
                   std::string_view(min ? s.min_text : s.max_text));
    case ColumnType::kBinary:
    case ColumnType::kFile: return 0;
  }
  return 0;
}

bool IsNaN(const CellValue& value) {
  const double* d = std::get_if<double>(&value);
  return d != nullptr && *d != *d;
}

// A comparison `column op value` over values in [min, max].
Possible JudgeCompare(CompareOp op, ColumnType type, const ColumnStatistics& s, const CellValue& value) {
  const int vs_min = CompareWithBound(type, s, true, value);  // value vs min
  const int vs_max = CompareWithBound(type, s, false, value);
  const bool inside = vs_min >= 0 && vs_max <= 0;
  const bool only = vs_min == 0 && vs_max == 0;  // min == value == max
  switch (op) {
    case CompareOp::kEqual: return {inside, !only};
    case CompareOp::kNotEqual: return {!only, inside};
    case CompareOp::kLess: return {vs_min > 0, vs_max <= 0};             // some x < v; some x >= v
    case CompareOp::kLessOrEqual: return {vs_min >= 0, vs_max < 0};      // some x <= v; some x > v
    case CompareOp::kGreater: return {vs_max < 0, vs_min >= 0};          // some x > v; some x <= v
    case CompareOp::kGreaterOrEqual: return {vs_max <= 0, vs_min > 0};   // some x >= v; some x < v
  }
  return {};
}

Possible Judge(const CompiledPredicate& compiled, const BoundPredicate& p,
               const table::FragmentStatistics& statistics, uint64_t rows) {
  switch (p.kind) {
    case PredicateKind::kIsNull: {
      const ColumnStatistics& s = statistics.columns[p.column];
      return {s.null_count > 0, s.null_count < rows};
    }
    case PredicateKind::kCompare:
    case PredicateKind::kIn: {
      const ColumnStatistics& s = statistics.columns[p.column];
      if (s.null_count >= rows) return {false, false};  // unknown for every row
      absl::Span<const CellValue> values = compiled.Values(p);
      if (!s.has_bounds) {
        bool all_null = true;
        for (const CellValue& v : values) all_null = all_null && std::holds_alternative<std::monostate>(v);
        return all_null ? Possible{false, false} : Possible{};
      }
      if (p.kind == PredicateKind::kCompare) {
        if (std::holds_alternative<std::monostate>(values[0])) return {false, false};
        if (IsNaN(values[0])) return {p.op == CompareOp::kNotEqual, p.op != CompareOp::kNotEqual};
        return JudgeCompare(p.op, p.type, s, values[0]);
      }
      // Some value (neither null nor NaN) in [min, max]: the first one not
      // below min, found by halving the ascending list, is not above max.
      const std::vector<CellValue>& ordered = compiled.InList(p).ordered;
      auto first = std::partition_point(ordered.begin(), ordered.end(), [&](const CellValue& v) {
        return CompareWithBound(p.type, s, true, v) < 0;
      });
      return {first != ordered.end() && CompareWithBound(p.type, s, false, *first) <= 0, true};
    }
    case PredicateKind::kNot: {
      Possible child = Judge(compiled, p.children[0], statistics, rows);
      return {child.may_be_false, child.may_be_true};
    }
    case PredicateKind::kAnd:
    case PredicateKind::kOr: {
      const bool is_and = p.kind == PredicateKind::kAnd;
      Possible out{is_and, !is_and};
      for (const BoundPredicate& child : p.children) {
        Possible c = Judge(compiled, child, statistics, rows);
        if (is_and) {
          out.may_be_true = out.may_be_true && c.may_be_true;
          out.may_be_false = out.may_be_false || c.may_be_false;
        } else {
          out.may_be_true = out.may_be_true || c.may_be_true;
          out.may_be_false = out.may_be_false && c.may_be_false;
        }
      }
      return out;
    }
  }
  return {};
}

}  // namespace

bool PredicateMayMatch(const CompiledPredicate& compiled, const table::FragmentStatistics& statistics,
                       uint64_t rows) {
  return Judge(compiled, compiled.predicate(), statistics, rows).may_be_true;
}

bool PredicateMayMatch(const BoundPredicate& predicate, const table::FragmentStatistics& statistics,
                       uint64_t rows, absl::Span<const CellValue> parameters) {
  return PredicateMayMatch(CompiledPredicate(predicate, std::vector<CellValue>(parameters.begin(), parameters.end())),
                           statistics, rows);
}

}  // namespace lake::sql
