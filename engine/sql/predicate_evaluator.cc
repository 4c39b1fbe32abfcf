#include "engine/sql/predicate_evaluator.h"

#include <cstdint>
#include <string_view>
#include <variant>


namespace lake::sql {
namespace {

using table::CellValue;
using table::ColumnData;
using table::ColumnType;

// SQL's three truth values, one byte per row.
enum Truth : uint8_t { kFalse = 0, kTrue = 1, kUnknown = 2 };
using Truths = std::vector<uint8_t>;

uint8_t And(uint8_t a, uint8_t b) {
  if (a == kFalse || b == kFalse) return kFalse;
  return (a == kUnknown || b == kUnknown) ? kUnknown : kTrue;
}
uint8_t Or(uint8_t a, uint8_t b) {
  if (a == kTrue || b == kTrue) return kTrue;
  return (a == kUnknown || b == kUnknown) ? kUnknown : kFalse;
}
uint8_t Not(uint8_t a) { return a == kUnknown ? kUnknown : (a == kTrue ? kFalse : kTrue); }

// out[row] = unknown for a null cell, else test(row).
template <typename Test>
void Fill(const ColumnData& column, size_t rows, Truths& out, Test test) {
  for (size_t row = 0; row < rows; ++row) {
    out[row] = column.valid[row] == 0 ? kUnknown : (test(row) ? kTrue : kFalse);
  }
}

// A comparison of each cell (at(row)) with `value`, the operator chosen
// once outside the row loop.
template <typename At, typename T>
void Compare(const ColumnData& column, size_t rows, CompareOp op, const T& value, At at, Truths& out) {
  switch (op) {
    case CompareOp::kEqual: return Fill(column, rows, out, [&](size_t r) { return at(r) == value; });
    case CompareOp::kNotEqual: return Fill(column, rows, out, [&](size_t r) { return at(r) != value; });
    case CompareOp::kLess: return Fill(column, rows, out, [&](size_t r) { return at(r) < value; });
    case CompareOp::kLessOrEqual: return Fill(column, rows, out, [&](size_t r) { return at(r) <= value; });
    case CompareOp::kGreater: return Fill(column, rows, out, [&](size_t r) { return at(r) > value; });
    case CompareOp::kGreaterOrEqual:
      return Fill(column, rows, out, [&](size_t r) { return at(r) >= value; });
  }
}

bool SameLocation(const ColumnData& column, size_t row, const DataLocation& location) {
  return column.int64s[row] == static_cast<int64_t>(location.size_bytes) &&
         column.strings.At(row) == location.uri && column.sha256s.At(row) == location.sha256 &&
         column.content_types.At(row) == location.content_type;
}

// Cell `row` equals the non-null `value` (of the column's type).
bool CellEquals(const ColumnData& column, size_t row, const CellValue& value) {
  switch (column.type) {
    case ColumnType::kUtf8: return column.strings.At(row) == std::get<std::string>(value);
    case ColumnType::kBinary: return column.strings.At(row) == std::get<table::Binary>(value).bytes;
    case ColumnType::kInt64: return column.int64s[row] == std::get<int64_t>(value);
    case ColumnType::kTimestamp: return column.int64s[row] == std::get<table::TimestampMicros>(value).micros;
    case ColumnType::kFloat64: return column.float64s[row] == std::get<double>(value);
    case ColumnType::kBool: return (column.bools[row] != 0) == std::get<bool>(value);
    case ColumnType::kFile: return SameLocation(column, row, std::get<DataLocation>(value));
  }
  return false;
}

void EvaluateCompare(const BoundPredicate& p, const ColumnData& column, size_t rows,
                     const CellValue& value, Truths& out) {
  if (std::holds_alternative<std::monostate>(value)) {
    out.assign(rows, kUnknown);
    return;
  }
  switch (column.type) {
    case ColumnType::kUtf8:
    case ColumnType::kBinary: {
      std::string_view v = column.type == ColumnType::kUtf8 ? std::string_view(std::get<std::string>(value))
                                                            : std::string_view(std::get<table::Binary>(value).bytes);
      return Compare(column, rows, p.op, v, [&](size_t r) { return column.strings.At(r); }, out);
    }
    case ColumnType::kInt64:
      return Compare(column, rows, p.op, std::get<int64_t>(value), [&](size_t r) { return column.int64s[r]; },
                     out);
    case ColumnType::kTimestamp:
      return Compare(column, rows, p.op, std::get<table::TimestampMicros>(value).micros,
                     [&](size_t r) { return column.int64s[r]; }, out);
    case ColumnType::kFloat64:
      return Compare(column, rows, p.op, std::get<double>(value), [&](size_t r) { return column.float64s[r]; },
                     out);
    case ColumnType::kBool:
      return Compare(column, rows, p.op, std::get<bool>(value), [&](size_t r) { return column.bools[r] != 0; },
                     out);
    case ColumnType::kFile: {
      // Only = and != (BindPredicate refuses the orderings).
      const DataLocation& location = std::get<DataLocation>(value);
      bool equal = p.op == CompareOp::kEqual;
      return Fill(column, rows, out, [&](size_t r) { return SameLocation(column, r, location) == equal; });
    }
  }
}

// True when a value equals the cell; unknown when none does but the cell or
// a value is null; false otherwise.
void EvaluateIn(const ColumnData& column, size_t rows, absl::Span<const CellValue> values,
                const CompiledInList& list, Truths& out) {
  const Truth absent = list.has_null ? kUnknown : kFalse;
  if (list.hashed) {
    for (size_t row = 0; row < rows; ++row) {
      if (column.valid[row] == 0) {
        out[row] = kUnknown;
        continue;
      }
      out[row] = list.keys.contains(column.int64s[row]) ? kTrue : absent;
    }
    return;
  }
  for (size_t row = 0; row < rows; ++row) {
    if (column.valid[row] == 0) {
      out[row] = kUnknown;
      continue;
    }
    uint8_t truth = absent;
    for (const CellValue& value : values) {
      if (!std::holds_alternative<std::monostate>(value) && CellEquals(column, row, value)) {
        truth = kTrue;
        break;
      }
    }
    out[row] = truth;
  }
}

void Evaluate(const CompiledPredicate& compiled, const BoundPredicate& p, const table::ColumnBatch& batch,
              Truths& out) {
  const size_t rows = batch.num_rows;
  out.resize(rows);
  switch (p.kind) {
    case PredicateKind::kCompare:
      return EvaluateCompare(p, batch.columns[p.column], rows, compiled.Values(p)[0], out);
    case PredicateKind::kIn:
      return EvaluateIn(batch.columns[p.column], rows, compiled.Values(p), compiled.InList(p), out);
    case PredicateKind::kIsNull: {
      const ColumnData& column = batch.columns[p.column];
      for (size_t row = 0; row < rows; ++row) out[row] = column.valid[row] == 0 ? kTrue : kFalse;
      return;
    }
    case PredicateKind::kNot:
      Evaluate(compiled, p.children[0], batch, out);
      for (uint8_t& t : out) t = Not(t);
      return;
    case PredicateKind::kAnd:
    case PredicateKind::kOr: {
      const bool is_and = p.kind == PredicateKind::kAnd;
      Evaluate(compiled, p.children[0], batch, out);
      Truths child;
      for (size_t i = 1; i < p.children.size(); ++i) {
        Evaluate(compiled, p.children[i], batch, child);
        for (size_t row = 0; row < rows; ++row) {
          out[row] = is_and ? And(out[row], child[row]) : Or(out[row], child[row]);
        }
      }
      return;
    }
  }
}

}  // namespace

std::vector<size_t> RowsWhere(const CompiledPredicate& compiled, const table::ColumnBatch& batch,
                              size_t max_rows) {
  Truths truths;
  Evaluate(compiled, compiled.predicate(), batch, truths);
  std::vector<size_t> rows;
  for (size_t row = 0; row < truths.size() && rows.size() < max_rows; ++row) {
    if (truths[row] == kTrue) rows.push_back(row);
  }
  return rows;
}

std::vector<size_t> RowsWhere(const BoundPredicate& predicate, const table::ColumnBatch& batch,
                              absl::Span<const CellValue> parameters, size_t max_rows) {
  return RowsWhere(CompiledPredicate(predicate, std::vector<CellValue>(parameters.begin(), parameters.end())),
                   batch, max_rows);
}

}  // namespace lake::sql
