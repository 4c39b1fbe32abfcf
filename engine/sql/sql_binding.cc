#include "engine/sql/sql_binding.h"

#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

#include "absl/strings/str_cat.h"

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

// One WHERE condition, its parameter unpacked once so the row loop reads the
// column's vectors directly (no CellValue per row).
struct Condition {
  const ColumnData* column = nullptr;
  std::string_view text;                  // utf8, binary; file: uri
  int64_t integer = 0;                    // int64, timestamp; file: size
  double real = 0;                        // float64
  bool boolean = false;                   // bool
  const DataLocation* location = nullptr; // file
};

// Precondition: `value` is non-null and of `column`'s type.
Condition MakeCondition(const ColumnData& column, const CellValue& value) {
  Condition c;
  c.column = &column;
  if (const auto* s = std::get_if<std::string>(&value)) c.text = *s;
  if (const auto* b = std::get_if<table::Binary>(&value)) c.text = b->bytes;
  if (const auto* i = std::get_if<int64_t>(&value)) c.integer = *i;
  if (const auto* t = std::get_if<table::TimestampMicros>(&value)) c.integer = t->micros;
  if (const auto* d = std::get_if<double>(&value)) c.real = *d;
  if (const auto* b = std::get_if<bool>(&value)) c.boolean = *b;
  if (const auto* l = std::get_if<DataLocation>(&value)) {
    c.location = l;
    c.text = l->uri;
    c.integer = static_cast<int64_t>(l->size_bytes);
  }
  return c;
}

bool Matches(const Condition& c, size_t row) {
  const ColumnData& column = *c.column;
  if (column.valid[row] == 0) return false;
  switch (column.type) {
    case ColumnType::kUtf8:
    case ColumnType::kBinary:
      return column.strings.At(row) == c.text;
    case ColumnType::kInt64:
    case ColumnType::kTimestamp:
      return column.int64s[row] == c.integer;
    case ColumnType::kFloat64:
      return column.float64s[row] == c.real;
    case ColumnType::kBool:
      return (column.bools[row] != 0) == c.boolean;
    case ColumnType::kFile:
      return column.int64s[row] == c.integer && column.strings.At(row) == c.text &&
             column.sha256s.At(row) == c.location->sha256 &&
             column.content_types.At(row) == c.location->content_type;
  }
  return false;
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
  if (statement.all_columns) {
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
  for (const std::string& name : statement.where_columns) {
    absl::StatusOr<size_t> index = ColumnIndex(schema, statement.table, name);
    if (!index.ok()) return index.status();
    bound.where.push_back({*index, schema.columns[*index].type});
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

// The WHERE conditions over `batch`'s columns, or nullopt when a null
// parameter makes every row fail. Preconditions: the batch's schema is the
// select's and the parameters passed CheckParameters.
std::optional<std::vector<Condition>> ConditionsOf(const ColumnBatch& batch, const BoundSelect& select,
                                                   const std::vector<CellValue>& parameters) {
  std::vector<Condition> conditions;
  for (size_t i = 0; i < parameters.size(); ++i) {
    if (std::holds_alternative<std::monostate>(parameters[i])) return std::nullopt;
    conditions.push_back(MakeCondition(batch.columns[select.where[i].column], parameters[i]));
  }
  return conditions;
}

// The first `max_rows` rows (ascending) that satisfy every condition.
std::vector<size_t> RowsSatisfying(const std::vector<Condition>& conditions, uint64_t num_rows,
                                   size_t max_rows) {
  std::vector<size_t> rows;
  for (size_t row = 0; row < num_rows && rows.size() < max_rows; ++row) {
    bool all = true;
    for (const Condition& condition : conditions) {
      if (!Matches(condition, row)) {
        all = false;
        break;
      }
    }
    if (all) rows.push_back(row);
  }
  return rows;
}

}  // namespace

absl::StatusOr<std::vector<size_t>> MatchingRows(const ColumnBatch& batch, const BoundSelect& select,
                                                 const std::vector<CellValue>& parameters, size_t max_rows) {
  if (absl::Status s = CheckSameSchema(batch, select.schema); !s.ok()) return s;
  if (absl::Status s = CheckParameters(select.schema, select.where, parameters); !s.ok()) return s;
  std::optional<std::vector<Condition>> conditions = ConditionsOf(batch, select, parameters);
  if (!conditions) return std::vector<size_t>();
  return RowsSatisfying(*conditions, batch.num_rows, max_rows);
}

std::vector<size_t> WhereColumns(const BoundSelect& select) {
  std::set<size_t> columns;
  for (const BoundParameter& p : select.where) columns.insert(p.column);
  return std::vector<size_t>(columns.begin(), columns.end());
}

bool MayHaveMatchingRows(const ColumnBatch& partial, const BoundSelect& select,
                         const std::vector<CellValue>& parameters) {
  if (!CheckSameSchema(partial, select.schema).ok() ||
      !CheckParameters(select.schema, select.where, parameters).ok()) {
    return true;  // MatchingRows reports it
  }
  for (size_t column : WhereColumns(select)) {
    if (partial.columns[column].size() != partial.num_rows) return true;  // not decoded
  }
  std::optional<std::vector<Condition>> conditions = ConditionsOf(partial, select, parameters);
  return conditions && !RowsSatisfying(*conditions, partial.num_rows, 1).empty();
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
