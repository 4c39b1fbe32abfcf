// Fuzzes lake::sql::ParseStatement, the reader of user SQL text, and the
// binding of what it accepts against a fixed schema. A DELETE's rows and a
// replace-where's deleted rows bind as a SELECT * with their WHERE, a
// replace-where's VALUES as an INSERT; DROP TABLE and ALTER TABLE have no
// binding (their invariants and canonical text are checked).
//
// Properties checked (a violation traps):
//   1. Any input: no crash, leak, ASan or UBSan finding, no exception.
//   2. Refused input: InvalidArgument whose message starts "SQL: ".
//   3. Accepted input: the AST invariants of sql_statement.h and
//      predicate.h hold (counts, identifiers, placeholder numbering, node
//      arity, depth), and the statement rendered back to canonical SQL text
//      (names double-quoted, every predicate node parenthesised) parses to
//      an equal statement (when it is within the 1 MiB bound).
//   4. Accepted input that binds (BindInsert/BindSelect against kSchema):
//      one bound parameter per placeholder, of its column's type; then
//      InsertRows (with null and typed parameters) yields a valid batch of
//      row_count rows, and MatchingRows/ProjectRows over a fixed batch give
//      ascending in-range rows and a valid batch of the output schema, and
//      a predicate is never true for the all-null row unless it tests IS
//      NULL or NOT; the batch's statistics never rule out a predicate that
//      a row of it satisfies (predicate_statistics.h). A binding failure is InvalidArgument starting "SQL: ".
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "engine/data_location.h"
#include "engine/sql/predicate_statistics.h"
#include "engine/sql/sql_binding.h"
#include "engine/sql/sql_lexer.h"
#include "engine/sql/sql_statement.h"
#include "engine/table/column_batch.h"
#include "engine/table/fragment_statistics.h"
#include "fuzz/property_check.h"
#include "schema/table_schema.h"

namespace {

using lake::sql::BoundParameter;
using lake::table::CellValue;
using lake::table::ColumnBatch;
using lake::table::ColumnType;

using lake::fuzz::Check;

bool StartsWithSql(const absl::Status& status) {
  return status.code() == absl::StatusCode::kInvalidArgument && status.message().substr(0, 5) == "SQL: ";
}

bool IsIdentifier(const std::string& name) { return lake::table::ValidateIdentifier(name, "x").ok(); }

// Short names the fuzzer finds quickly (see sql_fuzzer.dict), one per type,
// plus names that are also keywords.
const lake::table::Schema& TestSchema() {
  static const lake::table::Schema* schema = new lake::table::Schema{{
      {"a", ColumnType::kInt64},
      {"b", ColumnType::kUtf8},
      {"c", ColumnType::kFloat64},
      {"d", ColumnType::kBool},
      {"e", ColumnType::kBinary},
      {"f", ColumnType::kTimestamp},
      {"g", ColumnType::kFile},
      {"version", ColumnType::kInt64},
      {"limit", ColumnType::kUtf8},
  }};
  return *schema;
}

lake::DataLocation TestLocation() {
  return *lake::MakeDataLocation("file:///srv/lake/x", "video/mp4", 3, std::string(64, 'a'));
}

// A non-null value of `type` that the test batch's row 0 holds.
CellValue ValueOf(ColumnType type) {
  switch (type) {
    case ColumnType::kUtf8: return std::string("x");
    case ColumnType::kInt64: return int64_t{1};
    case ColumnType::kFloat64: return 1.5;
    case ColumnType::kBool: return true;
    case ColumnType::kBinary: return lake::table::Binary{"\x01"};
    case ColumnType::kTimestamp: return lake::table::TimestampMicros{7};
    case ColumnType::kFile: return TestLocation();
  }
  return std::monostate{};
}

// Three rows: typed values, all nulls, typed values again.
const ColumnBatch& TestBatch() {
  static const ColumnBatch* batch = [] {
    auto* b = new ColumnBatch(ColumnBatch::Empty(TestSchema()));
    std::vector<CellValue> values, nulls(TestSchema().columns.size());
    for (const auto& column : TestSchema().columns) values.push_back(ValueOf(column.type));
    Check(b->AppendRow(values).ok() && b->AppendRow(nulls).ok() && b->AppendRow(values).ok());
    return b;
  }();
  return *batch;
}

// Parameters for `bound`: typed values, or null where `seed` has a 1 bit.
std::vector<CellValue> Parameters(const std::vector<BoundParameter>& bound, uint64_t seed) {
  std::vector<CellValue> parameters;
  for (size_t i = 0; i < bound.size(); ++i) {
    bool null = (seed >> (i % 64)) & 1;
    parameters.push_back(null ? CellValue(std::monostate{}) : ValueOf(bound[i].type));
  }
  return parameters;
}

std::string Quoted(const std::string& name) { return "\"" + name + "\""; }

std::string TableText(const lake::table::TableName& name) { return Quoted(name.ns) + "." + Quoted(name.table); }

// Every node in parentheses, so the text's grouping is the tree's.
std::string RenderPredicate(const lake::sql::Predicate& p) {
  using lake::sql::PredicateKind;
  std::vector<std::string> marks(p.placeholder_count, "?");
  switch (p.kind) {
    case PredicateKind::kCompare:
      return absl::StrCat("(", Quoted(p.column), " ", std::string(lake::sql::CompareOpText(p.op)), " ?)");
    case PredicateKind::kIn:
      return absl::StrCat("(", Quoted(p.column), " IN (", absl::StrJoin(marks, ", "), "))");
    case PredicateKind::kIsNull: return absl::StrCat("(", Quoted(p.column), " IS NULL)");
    case PredicateKind::kNot: return absl::StrCat("(NOT ", RenderPredicate(p.children[0]), ")");
    case PredicateKind::kAnd:
    case PredicateKind::kOr: {
      std::vector<std::string> parts;
      for (const auto& child : p.children) parts.push_back(RenderPredicate(child));
      return absl::StrCat("(", absl::StrJoin(parts, p.kind == PredicateKind::kAnd ? " AND " : " OR "), ")");
    }
  }
  return "";
}

// Parentheses around every node double the nesting a NOT or '(' counts;
// the canonical text is compared only when it stays within the bound.
size_t NestingOf(const lake::sql::Predicate& p) {
  size_t deepest = 0;
  for (const auto& child : p.children) deepest = std::max(deepest, NestingOf(child));
  return deepest + (p.kind == lake::sql::PredicateKind::kNot ? 2 : 1);
}

// "(c, …) VALUES (?, …), …": an INSERT's columns and rows.
std::string RenderRows(const lake::sql::InsertStatement& insert) {
  std::vector<std::string> marks(insert.columns.size(), "?");
  std::string row = absl::StrCat("(", absl::StrJoin(marks, ", "), ")");
  std::vector<std::string> rows(insert.row_count, row);
  std::vector<std::string> columns;
  for (const std::string& column : insert.columns) columns.push_back(Quoted(column));
  return absl::StrCat("(", absl::StrJoin(columns, ", "), ") VALUES ", absl::StrJoin(rows, ", "));
}

// The canonical SQL text of a statement (upper-case keywords, ", " lists).
std::string Render(const lake::sql::Statement& statement) {
  if (const auto* insert = std::get_if<lake::sql::InsertStatement>(&statement)) {
    return absl::StrCat("INSERT INTO ", TableText(insert->table), " ", RenderRows(*insert));
  }
  if (const auto* deletion = std::get_if<lake::sql::DeleteStatement>(&statement)) {
    std::string text = absl::StrCat("DELETE FROM ", TableText(deletion->table));
    if (deletion->where) absl::StrAppend(&text, " WHERE ", RenderPredicate(*deletion->where));
    return text;
  }
  if (const auto* replace = std::get_if<lake::sql::ReplaceStatement>(&statement)) {
    return absl::StrCat("INSERT INTO ", TableText(replace->table), " REPLACE WHERE ",
                        RenderPredicate(*replace->removed.where), " ", RenderRows(replace->added));
  }
  if (const auto* drop = std::get_if<lake::sql::DropTableStatement>(&statement)) {
    return absl::StrCat("DROP TABLE ", TableText(drop->table));
  }
  if (const auto* tag = std::get_if<lake::sql::CreateTagStatement>(&statement)) {
    return absl::StrCat("ALTER TABLE ", TableText(tag->table), " CREATE TAG ", Quoted(tag->tag),
                        " AS OF VERSION ", tag->version);
  }
  if (const auto* untag = std::get_if<lake::sql::DropTagStatement>(&statement)) {
    return absl::StrCat("ALTER TABLE ", TableText(untag->table), " DROP TAG ", Quoted(untag->tag));
  }
  if (const auto* expire = std::get_if<lake::sql::ExpireStatement>(&statement)) {
    std::string text = absl::StrCat("ALTER TABLE ", TableText(expire->table), " EXPIRE VERSIONS");
    if (expire->keep_last) absl::StrAppend(&text, " KEEP LAST ", *expire->keep_last);
    if (expire->older_than_seconds) {
      absl::StrAppend(&text, " OLDER THAN ", *expire->older_than_seconds, " SECONDS");
    }
    return text;
  }
  const auto& select = std::get<lake::sql::SelectStatement>(statement);
  std::vector<std::string> columns;
  for (const std::string& column : select.columns) columns.push_back(Quoted(column));
  std::string list = select.count_rows ? "count(*)" : select.all_columns ? "*" : absl::StrJoin(columns, ", ");
  std::string text = absl::StrCat("SELECT ", list, " FROM ", TableText(select.table));
  if (select.as_of_version) absl::StrAppend(&text, " AS OF VERSION ", *select.as_of_version);
  if (select.where) absl::StrAppend(&text, " WHERE ", RenderPredicate(*select.where));
  for (size_t i = 0; i < select.order_by.size(); ++i) {
    absl::StrAppend(&text, i == 0 ? " ORDER BY " : ", ", Quoted(select.order_by[i].column),
                    select.order_by[i].descending ? " DESC" : "");
  }
  if (select.limit) absl::StrAppend(&text, " LIMIT ", *select.limit);
  return text;
}

void CheckInsertInvariants(const lake::sql::InsertStatement& insert) {
  Check(!insert.columns.empty());
  Check(insert.row_count >= 1);
  Check(insert.placeholder_count == insert.row_count * insert.columns.size());
  Check(insert.placeholder_count <= lake::sql::kMaxPlaceholders);
  for (const std::string& column : insert.columns) Check(IsIdentifier(column));
}

// Checks a predicate node and returns its depth; `next` is the placeholder
// its first leaf must take (placeholders number leaves in order).
size_t CheckPredicate(const lake::sql::Predicate& p, size_t* next) {
  using lake::sql::PredicateKind;
  size_t depth = 0;
  switch (p.kind) {
    case PredicateKind::kCompare:
    case PredicateKind::kIn:
    case PredicateKind::kIsNull:
      Check(IsIdentifier(p.column));
      Check(p.children.empty());
      Check(p.first_placeholder == *next);
      if (p.kind == PredicateKind::kCompare) Check(p.placeholder_count == 1);
      if (p.kind == PredicateKind::kIn) Check(p.placeholder_count >= 1);
      if (p.kind == PredicateKind::kIsNull) Check(p.placeholder_count == 0);
      *next += p.placeholder_count;
      return 1;
    case PredicateKind::kNot:
      Check(p.children.size() == 1);
      break;
    case PredicateKind::kAnd:
    case PredicateKind::kOr:
      Check(p.children.size() >= 2);
      break;
  }
  for (const auto& child : p.children) {
    depth = std::max(depth, CheckPredicate(child, next));
  }
  return depth + 1;
}

void CheckSelectInvariants(const lake::sql::SelectStatement& select) {
  Check(int{select.all_columns} + int{select.count_rows} + int{!select.columns.empty()} == 1);
  for (const std::string& column : select.columns) Check(IsIdentifier(column));
  size_t placeholders = 0;
  if (select.where) {
    // Each NOT or '(' adds at most one AND and one OR level below it.
    Check(CheckPredicate(*select.where, &placeholders) <= 3 * (lake::sql::kMaxPredicateDepth + 1) + 1);
  }
  Check(select.placeholder_count == placeholders);
  Check(!select.count_rows || select.order_by.empty());
  for (const auto& key : select.order_by) Check(IsIdentifier(key.column));
}

void CheckBoundParameters(const std::vector<BoundParameter>& bound) {
  for (const BoundParameter& parameter : bound) {
    Check(parameter.column < TestSchema().columns.size());
    Check(TestSchema().columns[parameter.column].type == parameter.type);
  }
}

void FuzzInsert(const lake::sql::InsertStatement& insert, uint64_t seed) {
  absl::StatusOr<lake::sql::BoundInsert> bound = lake::sql::BindInsert(insert, TestSchema());
  if (!bound.ok()) {
    Check(StartsWithSql(bound.status()));
    return;
  }
  Check(bound->parameters.size() == insert.placeholder_count);
  CheckBoundParameters(bound->parameters);
  std::vector<CellValue> parameters = Parameters(bound->parameters, seed);
  std::vector<const CellValue*> parameter_views;
  for (const CellValue& value : parameters) parameter_views.push_back(&value);
  absl::StatusOr<ColumnBatch> rows = lake::sql::InsertRows(*bound, parameter_views);
  Check(rows.ok());
  Check(rows->num_rows == insert.row_count);
  Check(rows->Validate().ok());
  Check(StartsWithSql(lake::sql::InsertRows(*bound, {}).status()));
}

bool CanHoldForNulls(const lake::sql::Predicate& p) {
  if (p.kind == lake::sql::PredicateKind::kIsNull || p.kind == lake::sql::PredicateKind::kNot) return true;
  for (const auto& child : p.children) {
    if (CanHoldForNulls(child)) return true;
  }
  return false;
}

void FuzzSelect(const lake::sql::SelectStatement& select, uint64_t seed) {
  absl::StatusOr<lake::sql::BoundSelect> bound = lake::sql::BindSelect(select, TestSchema());
  if (!bound.ok()) {
    Check(StartsWithSql(bound.status()));
    return;
  }
  Check(bound->where.size() == select.placeholder_count);
  CheckBoundParameters(bound->where);
  Check(bound->output_schema.columns.size() == (select.count_rows ? 1 : bound->projection.size()));
  Check(bound->order_by.size() == select.order_by.size());
  for (const auto& key : bound->order_by) Check(key.type != ColumnType::kFile);
  Check(lake::table::ValidateSchema(bound->output_schema).ok());
  size_t max_rows = select.limit ? static_cast<size_t>(*select.limit) : SIZE_MAX;
  std::vector<CellValue> parameters = Parameters(bound->where, seed);
  absl::StatusOr<std::vector<size_t>> rows = lake::sql::MatchingRows(TestBatch(), *bound, parameters, max_rows);
  Check(rows.ok());
  Check(rows->size() <= max_rows);
  for (size_t i = 0; i < rows->size(); ++i) {
    Check((*rows)[i] < TestBatch().num_rows);
    Check(i == 0 || (*rows)[i - 1] < (*rows)[i]);
    // Row 1 is all null: only IS NULL or a NOT can make a predicate true for it.
    Check((*rows)[i] != 1 || !select.where || CanHoldForNulls(*select.where));
  }
  // Statistics never rule out a fragment holding a matching row.
  if (bound->predicate && !rows->empty()) {
    Check(lake::sql::PredicateMayMatch(*bound->predicate, lake::table::ComputeFragmentStatistics(TestBatch()),
                                       TestBatch().num_rows, parameters));
  }
  if (select.count_rows) return;  // one count, nothing projected
  absl::StatusOr<ColumnBatch> projected = lake::sql::ProjectRows(TestBatch(), *bound, *rows);
  Check(projected.ok());
  Check(projected->num_rows == rows->size());
  Check(projected->schema == bound->output_schema);
  Check(projected->Validate().ok());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<lake::sql::Statement> statement = lake::sql::ParseStatement(text);
  if (!statement.ok()) {
    Check(StartsWithSql(statement.status()));
    return 0;
  }
  // A DELETE's rows, and a replace-where's deleted rows, are those of a
  // SELECT * with its WHERE (as PreparedStatement binds them).
  auto rows_of = [](const lake::sql::DeleteStatement& deletion) {
    lake::sql::SelectStatement rows;
    rows.table = deletion.table;
    rows.all_columns = true;
    rows.where = deletion.where;
    rows.placeholder_count = deletion.placeholder_count;
    return rows;
  };
  std::optional<lake::sql::SelectStatement> deleted_rows;
  const lake::sql::InsertStatement* inserted = nullptr;
  const lake::sql::Predicate* where = nullptr;
  if (const auto* insert = std::get_if<lake::sql::InsertStatement>(&*statement)) {
    inserted = insert;
  } else if (const auto* deletion = std::get_if<lake::sql::DeleteStatement>(&*statement)) {
    deleted_rows = rows_of(*deletion);
  } else if (const auto* replace = std::get_if<lake::sql::ReplaceStatement>(&*statement)) {
    Check(replace->removed.where.has_value());
    Check(replace->removed.table == replace->table && replace->added.table == replace->table);
    Check(replace->placeholder_count ==
          replace->removed.placeholder_count + replace->added.placeholder_count);
    deleted_rows = rows_of(replace->removed);
    inserted = &replace->added;
  } else if (const auto* select = std::get_if<lake::sql::SelectStatement>(&*statement)) {
    deleted_rows = *select;
  } else if (const auto* tag = std::get_if<lake::sql::CreateTagStatement>(&*statement)) {
    Check(IsIdentifier(tag->tag));
  } else if (const auto* untag = std::get_if<lake::sql::DropTagStatement>(&*statement)) {
    Check(IsIdentifier(untag->tag));
  } else if (const auto* expire = std::get_if<lake::sql::ExpireStatement>(&*statement)) {
    Check(expire->keep_last.has_value() || expire->older_than_seconds.has_value());
    Check(!expire->keep_last || *expire->keep_last >= 1);
    Check(!expire->older_than_seconds ||
          *expire->older_than_seconds <= lake::sql::kMaxExpireSeconds);
  } else {
    Check(std::holds_alternative<lake::sql::DropTableStatement>(*statement));
  }
  if (inserted != nullptr) CheckInsertInvariants(*inserted);
  if (deleted_rows) {
    CheckSelectInvariants(*deleted_rows);
    if (deleted_rows->where) where = &*deleted_rows->where;
  }

  // The canonical text may be longer than the input (it adds spaces); when
  // it is within the statement bound it must mean the same statement.
  std::string canonical = Render(*statement);
  bool shallow = where == nullptr || NestingOf(*where) <= lake::sql::kMaxPredicateDepth;
  if (canonical.size() <= lake::sql::kMaxStatementBytes && shallow) {
    absl::StatusOr<lake::sql::Statement> reparsed = lake::sql::ParseStatement(canonical);
    Check(reparsed.ok());
    Check(*reparsed == *statement);
  }

  uint64_t seed = 0;
  for (size_t i = 0; i < size; ++i) seed = seed * 131 + data[i];
  if (inserted != nullptr) FuzzInsert(*inserted, seed);
  if (deleted_rows) FuzzSelect(*deleted_rows, seed);
  return 0;
}
