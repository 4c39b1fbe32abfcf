#include "engine/sql/sql_binding.h"

#include <algorithm>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

#include "absl/strings/str_cat.h"
#include "engine/sql/predicate_evaluator.h"

namespace lake::sql {
namespace {

using table::CellValue;
using table::ColumnBatch;
using table::ColumnData;
using table::ColumnType;
using table::Schema;

absl::StatusOr<size_t> ColumnIndex(const Schema& schema, const table::TableName& name,
                                   const std::string& column) {
  std::optional<size_t> index = schema.IndexOf(column);
  if (!index) {
    return absl::InvalidArgumentError(
        absl::StrCat("SQL: table ", name.ToString(), " has no column '", column, "'"));
  }
  return *index;
}

std::string TypeName(ColumnType type) { return std::string(table::ColumnTypeName(type)); }

absl::Status CheckSameSchema(const ColumnBatch& batch, const Schema& schema) {
  if (batch.schema != schema || batch.columns.size() != schema.columns.size()) {
    return absl::InvalidArgumentError("SQL: the batch's schema is not the schema the statement was bound to");
  }
  return absl::OkStatus();
}

// Appends cell `row` of `in` to `out` (same type), placeholders included.
void CopyCell(const ColumnData& in, size_t row, ColumnData& out) {
  out.valid.push_back(in.valid[row]);
  switch (in.type) {
    case ColumnType::kUtf8:
    case ColumnType::kBinary:
      out.strings.Append(in.strings.At(row));
      break;
    case ColumnType::kInt64:
    case ColumnType::kTimestamp:
      out.int64s.push_back(in.int64s[row]);
      break;
    case ColumnType::kFloat64:
      out.float64s.push_back(in.float64s[row]);
      break;
    case ColumnType::kBool:
      out.bools.push_back(in.bools[row]);
      break;
    case ColumnType::kFile:
      out.strings.Append(in.strings.At(row));
      out.content_types.Append(in.content_types.At(row));
      out.int64s.push_back(in.int64s[row]);
      out.sha256s.Append(in.sha256s.At(row));
      break;
  }
}

}  // namespace

absl::StatusOr<BoundInsert> BindInsert(const InsertStatement& statement, const Schema& schema) {
  BoundInsert bound;
  bound.table = statement.table;
  bound.schema = schema;
  bound.row_count = statement.row_count;
  std::set<size_t> seen;
  for (const std::string& name : statement.columns) {
    absl::StatusOr<size_t> index = ColumnIndex(schema, statement.table, name);
    if (!index.ok()) return index.status();
    if (!seen.insert(*index).second) {
      return absl::InvalidArgumentError(absl::StrCat("SQL: column '", name, "' is listed twice"));
    }
    bound.columns.push_back(*index);
  }
  bound.parameters.reserve(statement.row_count * bound.columns.size());
  for (size_t row = 0; row < statement.row_count; ++row) {
    for (size_t index : bound.columns) bound.parameters.push_back({index, schema.columns[index].type});
  }
  return bound;
}

absl::StatusOr<BoundSelect> BindSelect(const SelectStatement& statement, const Schema& schema) {
  BoundSelect bound;
  bound.table = statement.table;
  bound.schema = schema;
  bound.as_of_version = statement.as_of_version;
  bound.limit = statement.limit;
  bound.count_rows = statement.count_rows;
  if (statement.count_rows) {
    bound.output_schema.columns.push_back({std::string(kCountColumn), ColumnType::kInt64});
  } else if (statement.all_columns) {
    for (size_t i = 0; i < schema.columns.size(); ++i) bound.projection.push_back(i);
  } else {
    std::set<size_t> seen;
    for (const std::string& name : statement.columns) {
      absl::StatusOr<size_t> index = ColumnIndex(schema, statement.table, name);
      if (!index.ok()) return index.status();
      if (!seen.insert(*index).second) {
        return absl::InvalidArgumentError(absl::StrCat("SQL: column '", name, "' is selected twice"));
      }
      bound.projection.push_back(*index);
    }
  }
  for (size_t index : bound.projection) bound.output_schema.columns.push_back(schema.columns[index]);
  if (statement.where) {
    absl::StatusOr<BoundPredicate> predicate = BindPredicate(*statement.where, schema, statement.table);
    if (!predicate.ok()) return predicate.status();
    bound.where = PredicateParameters(*predicate);
    bound.predicate = *std::move(predicate);
  }
  for (const OrderKey& key : statement.order_by) {
    absl::StatusOr<size_t> index = ColumnIndex(schema, statement.table, key.column);
    if (!index.ok()) return index.status();
    ColumnType type = schema.columns[*index].type;
    if (type == ColumnType::kFile) {
      return absl::InvalidArgumentError(absl::StrCat(
          "SQL: column '", key.column, "' is a file, which has no order: ORDER BY does not apply to it"));
    }
    bound.order_by.push_back({*index, type, key.descending});
  }
  return bound;
}

absl::Status CheckParameterCount(size_t expected, size_t given) {
  if (expected == given) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat("SQL: ", expected,
                                                 expected == 1 ? " placeholder, " : " placeholders, ", given,
                                                 given == 1 ? " parameter bound" : " parameters bound"));
}

namespace {

// CheckParameters over any list of n parameters, the i-th given by value(i).
template <typename ValueAt>
absl::Status CheckParameterTypes(const Schema& schema, const std::vector<BoundParameter>& bound,
                                 size_t n, ValueAt value_at) {
  if (absl::Status s = CheckParameterCount(bound.size(), n); !s.ok()) return s;
  for (size_t i = 0; i < n; ++i) {
    const CellValue& value = value_at(i);
    if (std::holds_alternative<std::monostate>(value)) continue;
    ColumnType given = table::CellValueType(value);
    if (given != bound[i].type) {
      return absl::InvalidArgumentError(absl::StrCat("SQL: parameter ", i + 1, " (column '",
                                                     schema.columns[bound[i].column].name, "') is ",
                                                     TypeName(bound[i].type), ", not ", TypeName(given)));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckParameters(const Schema& schema, const std::vector<BoundParameter>& bound,
                             const std::vector<CellValue>& parameters) {
  return CheckParameterTypes(schema, bound, parameters.size(),
                             [&](size_t i) -> const CellValue& { return parameters[i]; });
}

absl::StatusOr<ColumnBatch> InsertRows(const BoundInsert& insert,
                                       absl::Span<const CellValue* const> parameters) {
  if (absl::Status s =
          CheckParameterTypes(insert.schema, insert.parameters, parameters.size(),
                              [&](size_t i) -> const CellValue& { return *parameters[i]; });
      !s.ok()) {
    return s;
  }
  ColumnBatch batch = ColumnBatch::Empty(insert.schema);
  static const CellValue kNull;  // columns the INSERT does not list
  std::vector<const CellValue*> row(insert.schema.columns.size(), &kNull);
  size_t next = 0;
  for (size_t r = 0; r < insert.row_count; ++r) {
    for (size_t index : insert.columns) row[index] = parameters[next++];
    if (absl::Status s = batch.AppendRow(row); !s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("SQL: row ", r + 1, ": ", std::string(s.message())));
    }
  }
  return batch;
}

namespace {

}  // namespace

absl::StatusOr<std::vector<size_t>> MatchingRows(const ColumnBatch& batch, const BoundSelect& select,
                                                 const std::vector<CellValue>& parameters, size_t max_rows) {
  if (absl::Status s = CheckSameSchema(batch, select.schema); !s.ok()) return s;
  if (absl::Status s = CheckParameters(select.schema, select.where, parameters); !s.ok()) return s;
  if (!select.predicate) {
    std::vector<size_t> rows(std::min<uint64_t>(batch.num_rows, max_rows));
    for (size_t i = 0; i < rows.size(); ++i) rows[i] = i;
    return rows;
  }
  return RowsWhere(*select.predicate, batch, parameters, max_rows);
}

absl::StatusOr<std::vector<size_t>> MatchingRows(const ColumnBatch& batch, const BoundSelect& select,
                                                 const CompiledPredicate& where, size_t max_rows) {
  if (absl::Status s = CheckSameSchema(batch, select.schema); !s.ok()) return s;
  return RowsWhere(where, batch, max_rows);
}

std::vector<size_t> WhereColumns(const BoundSelect& select) {
  if (!select.predicate) return {};
  return PredicateColumns(*select.predicate);
}

bool MayHaveMatchingRows(const ColumnBatch& partial, const BoundSelect& select,
                         const std::vector<CellValue>& parameters) {
  if (!CheckSameSchema(partial, select.schema).ok() ||
      !CheckParameters(select.schema, select.where, parameters).ok()) {
    return true;  // MatchingRows reports it
  }
  if (!select.predicate) return partial.num_rows > 0;
  for (size_t column : WhereColumns(select)) {
    if (partial.columns[column].size() != partial.num_rows) return true;  // not decoded
  }
  return !RowsWhere(*select.predicate, partial, parameters, 1).empty();
}

bool MayHaveMatchingRows(const ColumnBatch& partial, const BoundSelect& select, const CompiledPredicate& where) {
  if (!CheckSameSchema(partial, select.schema).ok()) return true;  // MatchingRows reports it
  for (size_t column : WhereColumns(select)) {
    if (partial.columns[column].size() != partial.num_rows) return true;  // not decoded
  }
  return !RowsWhere(where, partial, 1).empty();
}

absl::StatusOr<ColumnBatch> ProjectRows(const ColumnBatch& batch, const BoundSelect& select,
                                        const std::vector<size_t>& rows) {
  if (absl::Status s = CheckSameSchema(batch, select.schema); !s.ok()) return s;
  ColumnBatch out = ColumnBatch::Empty(select.output_schema);
  for (size_t i = 0; i < select.projection.size(); ++i) {
    const ColumnData& in = batch.columns[select.projection[i]];
    ColumnData& column = out.columns[i];
    column.valid.reserve(rows.size());
    for (size_t row : rows) CopyCell(in, row, column);
  }
  out.num_rows = rows.size();
  return out;
}

}  // namespace lake::sql
