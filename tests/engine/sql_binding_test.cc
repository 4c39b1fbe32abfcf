// Binding parsed statements to a schema, checking parameters, and the rows
// an INSERT appends or a SELECT's WHERE keeps and projects.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <variant>
#include <vector>

#include "engine/data_location.h"
#include "engine/sql/compiled_predicate.h"
#include "engine/sql/predicate_statistics.h"
#include "engine/sql/sql_binding.h"
#include "engine/table/fragment_statistics.h"
#include "engine/sql/sql_statement.h"
#include "tests/support/status_checks.h"

namespace lake::sql {
namespace {

using table::Binary;
using table::CellValue;
using table::ColumnBatch;
using table::ColumnType;
using table::Schema;
using table::TimestampMicros;

// InsertRows over values listed in place.
absl::StatusOr<ColumnBatch> InsertValues(const BoundInsert& insert,
                                         const std::vector<CellValue>& values) {
  std::vector<const CellValue*> pointers;
  for (const CellValue& value : values) pointers.push_back(&value);
  return InsertRows(insert, pointers);
}

Schema TestSchema() {
  return Schema{{{"id", ColumnType::kInt64},
                 {"name", ColumnType::kUtf8},
                 {"score", ColumnType::kFloat64},
                 {"ok", ColumnType::kBool},
                 {"blob", ColumnType::kBinary},
                 {"at", ColumnType::kTimestamp},
                 {"video", ColumnType::kFile}}};
}

DataLocation Location(std::string_view uri, std::string_view content_type, uint64_t size, char digit) {
  absl::StatusOr<DataLocation> location = MakeDataLocation(uri, content_type, size, std::string(64, digit));
  REQUIRE_MESSAGE(location.ok(), location.status().ToString());
  return *location;
}

template <typename T>
T Parse(std::string_view sql) {
  absl::StatusOr<Statement> statement = ParseStatement(sql);
  REQUIRE_MESSAGE(statement.ok(), statement.status().ToString());
  REQUIRE(std::holds_alternative<T>(*statement));
  return std::get<T>(*statement);
}

BoundInsert Insert(std::string_view sql) {
  absl::StatusOr<BoundInsert> bound = BindInsert(Parse<InsertStatement>(sql), TestSchema());
  REQUIRE_MESSAGE(bound.ok(), bound.status().ToString());
  return *bound;
}

BoundSelect Select(std::string_view sql) {
  absl::StatusOr<BoundSelect> bound = BindSelect(Parse<SelectStatement>(sql), TestSchema());
  REQUIRE_MESSAGE(bound.ok(), bound.status().ToString());
  return *bound;
}

template <typename T>
std::string ErrorOf(const absl::StatusOr<T>& result) {
  REQUIRE(!result.ok());
  CHECK(result.status().code() == absl::StatusCode::kInvalidArgument);
  return std::string(result.status().message());
}
std::string ErrorOf(const absl::Status& status) {
  REQUIRE(!status.ok());
  CHECK(status.code() == absl::StatusCode::kInvalidArgument);
  return std::string(status.message());
}

// Six rows covering every type, with nulls in rows 3 and 5.
ColumnBatch TestBatch() {
  ColumnBatch batch = ColumnBatch::Empty(TestSchema());
  DataLocation a = Location("file:///srv/lake/a", "video/mp4", 10, 'a');
  DataLocation b = Location("file:///srv/lake/b", "video/mp4", 20, 'b');
  std::vector<std::vector<CellValue>> rows = {
      {int64_t{1}, std::string("ann"), 1.5, true, Binary{"\x01"}, TimestampMicros{100}, a},
      {int64_t{2}, std::string("bob"), 2.5, false, Binary{"\x02"}, TimestampMicros{200}, b},
      {int64_t{1}, std::string("bob"), 1.5, true, Binary{"\x01"}, TimestampMicros{100}, a},
      {std::monostate{}, std::monostate{}, std::monostate{}, std::monostate{}, std::monostate{},
       std::monostate{}, std::monostate{}},
      {int64_t{3}, std::string(""), -0.0, false, Binary{""}, TimestampMicros{-5}, b},
      {int64_t{1}, std::monostate{}, 0.0, std::monostate{}, Binary{"\x01"}, TimestampMicros{100},
       std::monostate{}},
  };
  for (const std::vector<CellValue>& row : rows) REQUIRE(batch.AppendRow(row).ok());
  return batch;
}

std::vector<size_t> Matching(std::string_view sql, const std::vector<CellValue>& parameters,
                             size_t max_rows = SIZE_MAX) {
  absl::StatusOr<std::vector<size_t>> rows = MatchingRows(TestBatch(), Select(sql), parameters, max_rows);
  REQUIRE_MESSAGE(rows.ok(), rows.status().ToString());
  return *rows;
}

TEST_CASE("BindInsert maps each placeholder to its column and type") {
  BoundInsert bound = Insert("INSERT INTO ns.t (name, id) VALUES (?, ?), (?, ?)");
  CHECK(bound.table == table::TableName{"ns", "t"});
  CHECK(bound.schema == TestSchema());
  CHECK(bound.columns == std::vector<size_t>{1, 0});
  CHECK(bound.row_count == 2);
  CHECK(bound.parameters == std::vector<BoundParameter>{{1, ColumnType::kUtf8},
                                                        {0, ColumnType::kInt64},
                                                        {1, ColumnType::kUtf8},
                                                        {0, ColumnType::kInt64}});
}

TEST_CASE("BindInsert refuses unknown and repeated columns") {
  Schema schema = TestSchema();
  CHECK(ErrorOf(BindInsert(Parse<InsertStatement>("INSERT INTO ns.t (id, nope) VALUES (?, ?)"), schema)) ==
        "SQL: table ns.t has no column 'nope'");
  CHECK(ErrorOf(BindInsert(Parse<InsertStatement>("INSERT INTO ns.t (ID) VALUES (?)"), schema)) ==
        "SQL: table ns.t has no column 'ID'");
  CHECK(ErrorOf(BindInsert(Parse<InsertStatement>("INSERT INTO ns.t (id, name, id) VALUES (?, ?, ?)"),
                           schema)) == "SQL: column 'id' is listed twice");
}

TEST_CASE("CheckParameterCount names both counts") {
  LAKE_CHECK_OK(CheckParameterCount(2, 2));
  CHECK(ErrorOf(CheckParameterCount(3, 2)) == "SQL: 3 placeholders, 2 parameters bound");
  CHECK(ErrorOf(CheckParameterCount(1, 0)) == "SQL: 1 placeholder, 0 parameters bound");
  CHECK(ErrorOf(CheckParameterCount(0, 1)) == "SQL: 0 placeholders, 1 parameter bound");
}

TEST_CASE("CheckParameters accepts null or the column's type and names a mismatch") {
  BoundInsert bound = Insert("INSERT INTO ns.t (id, name) VALUES (?, ?)");
  LAKE_CHECK_OK(CheckParameters(bound.schema, bound.parameters, {int64_t{1}, std::string("x")}));
  LAKE_CHECK_OK(CheckParameters(bound.schema, bound.parameters, {std::monostate{}, std::monostate{}}));
  CHECK(ErrorOf(CheckParameters(bound.schema, bound.parameters, {int64_t{1}, int64_t{2}})) ==
        "SQL: parameter 2 (column 'name') is utf8, not int64");
  CHECK(ErrorOf(CheckParameters(bound.schema, bound.parameters, {TimestampMicros{1}, std::string("x")})) ==
        "SQL: parameter 1 (column 'id') is int64, not timestamp");
  CHECK(ErrorOf(CheckParameters(bound.schema, bound.parameters, {int64_t{1}})) ==
        "SQL: 2 placeholders, 1 parameter bound");
}

TEST_CASE("InsertRows fills the listed columns and leaves the others null") {
  BoundInsert bound = Insert("INSERT INTO ns.t (name, id, video) VALUES (?, ?, ?), (?, ?, ?)");
  DataLocation a = Location("file:///srv/lake/a", "video/mp4", 10, 'a');
  absl::StatusOr<ColumnBatch> batch = InsertValues(
      bound, {std::string("ann"), int64_t{7}, a, std::monostate{}, int64_t{8}, std::monostate{}});
  LAKE_REQUIRE_OK(batch);
  LAKE_CHECK_OK(batch->Validate());
  ColumnBatch expected = ColumnBatch::Empty(TestSchema());
  REQUIRE(expected
              .AppendRow({int64_t{7}, std::string("ann"), std::monostate{}, std::monostate{},
                          std::monostate{}, std::monostate{}, a})
              .ok());
  REQUIRE(expected
              .AppendRow({int64_t{8}, std::monostate{}, std::monostate{}, std::monostate{},
                          std::monostate{}, std::monostate{}, std::monostate{}})
              .ok());
  CHECK(*batch == expected);
}

TEST_CASE("InsertRows refuses wrong parameters and text that is not UTF-8") {
  BoundInsert bound = Insert("INSERT INTO ns.t (id, name) VALUES (?, ?), (?, ?)");
  CHECK(ErrorOf(InsertValues(bound, {int64_t{1}, std::string("a")})) == "SQL: 4 placeholders, 2 parameters bound");
  CHECK(ErrorOf(InsertValues(bound, {int64_t{1}, std::string("a"), 1.0, std::string("b")})) ==
        "SQL: parameter 3 (column 'id') is int64, not float64");
  CHECK(ErrorOf(InsertValues(bound, {int64_t{1}, std::string("a"), int64_t{2}, std::string("\xff")})) ==
        "SQL: row 2: column 'name': text is not UTF-8");
}

TEST_CASE("BindSelect of * projects every column in schema order") {
  BoundSelect bound = Select("SELECT * FROM ns.t AS OF VERSION 4 LIMIT 9");
  CHECK(bound.projection == std::vector<size_t>{0, 1, 2, 3, 4, 5, 6});
  CHECK(bound.output_schema == TestSchema());
  CHECK(bound.as_of_version == 4u);
  CHECK(bound.limit == 9u);
  CHECK(bound.where.empty());
}

TEST_CASE("BindSelect projects named columns in statement order and types the WHERE placeholders") {
  BoundSelect bound = Select("SELECT video, id FROM ns.t WHERE name = ? AND at = ? AND name = ?");
  CHECK(bound.projection == std::vector<size_t>{6, 0});
  CHECK(bound.output_schema ==
        Schema{{{"video", ColumnType::kFile}, {"id", ColumnType::kInt64}}});
  CHECK(bound.where == std::vector<BoundParameter>{{1, ColumnType::kUtf8},
                                                   {5, ColumnType::kTimestamp},
                                                   {1, ColumnType::kUtf8}});
  CHECK(!bound.as_of_version.has_value());
  CHECK(!bound.limit.has_value());
}

TEST_CASE("BindSelect refuses unknown columns and a column selected twice") {
  Schema schema = TestSchema();
  CHECK(ErrorOf(BindSelect(Parse<SelectStatement>("SELECT id, nope FROM ns.t"), schema)) ==
        "SQL: table ns.t has no column 'nope'");
  CHECK(ErrorOf(BindSelect(Parse<SelectStatement>("SELECT * FROM ns.t WHERE Name = ?"), schema)) ==
        "SQL: table ns.t has no column 'Name'");
  CHECK(ErrorOf(BindSelect(Parse<SelectStatement>("SELECT id, name, id FROM ns.t"), schema)) ==
        "SQL: column 'id' is selected twice");
}

TEST_CASE("without WHERE every row matches, up to max_rows") {
  CHECK(Matching("SELECT * FROM ns.t", {}) == std::vector<size_t>{0, 1, 2, 3, 4, 5});
  CHECK(Matching("SELECT * FROM ns.t", {}, 2) == std::vector<size_t>{0, 1});
  CHECK(Matching("SELECT * FROM ns.t", {}, 0).empty());
}

TEST_CASE("WHERE compares int64 and utf8 exactly") {
  CHECK(Matching("SELECT * FROM ns.t WHERE id = ?", {int64_t{1}}) == std::vector<size_t>{0, 2, 5});
  CHECK(Matching("SELECT * FROM ns.t WHERE id = ?", {int64_t{4}}).empty());
  CHECK(Matching("SELECT * FROM ns.t WHERE name = ?", {std::string("bob")}) == std::vector<size_t>{1, 2});
  CHECK(Matching("SELECT * FROM ns.t WHERE name = ?", {std::string("Bob")}).empty());
  CHECK(Matching("SELECT * FROM ns.t WHERE name = ?", {std::string("")}) == std::vector<size_t>{4});
}

TEST_CASE("WHERE compares float64, bool, binary and timestamp") {
  CHECK(Matching("SELECT * FROM ns.t WHERE score = ?", {1.5}) == std::vector<size_t>{0, 2});
  // IEEE equality: -0.0 == 0.0.
  CHECK(Matching("SELECT * FROM ns.t WHERE score = ?", {0.0}) == std::vector<size_t>{4, 5});
  CHECK(Matching("SELECT * FROM ns.t WHERE ok = ?", {false}) == std::vector<size_t>{1, 4});
  CHECK(Matching("SELECT * FROM ns.t WHERE ok = ?", {true}) == std::vector<size_t>{0, 2});
  CHECK(Matching("SELECT * FROM ns.t WHERE blob = ?", {Binary{"\x01"}}) == std::vector<size_t>{0, 2, 5});
  CHECK(Matching("SELECT * FROM ns.t WHERE blob = ?", {Binary{""}}) == std::vector<size_t>{4});
  CHECK(Matching("SELECT * FROM ns.t WHERE at = ?", {TimestampMicros{-5}}) == std::vector<size_t>{4});
}

TEST_CASE("WHERE on a file column compares the whole DataLocation") {
  DataLocation a = Location("file:///srv/lake/a", "video/mp4", 10, 'a');
  CHECK(Matching("SELECT * FROM ns.t WHERE video = ?", {a}) == std::vector<size_t>{0, 2});
  CHECK(Matching("SELECT * FROM ns.t WHERE video = ?", {Location("file:///srv/lake/a", "video/mp4", 10, 'c')})
            .empty());
  CHECK(Matching("SELECT * FROM ns.t WHERE video = ?", {Location("file:///srv/lake/a", "video/mp4", 11, 'a')})
            .empty());
  CHECK(Matching("SELECT * FROM ns.t WHERE video = ?", {Location("file:///srv/lake/a", "video/webm", 10, 'a')})
            .empty());
  CHECK(Matching("SELECT * FROM ns.t WHERE video = ?", {Location("file:///srv/lake/b", "video/mp4", 10, 'a')})
            .empty());
}

TEST_CASE("conditions are AND-ed") {
  CHECK(Matching("SELECT * FROM ns.t WHERE id = ? AND name = ?", {int64_t{1}, std::string("bob")}) ==
        std::vector<size_t>{2});
  CHECK(Matching("SELECT * FROM ns.t WHERE id = ? AND id = ?", {int64_t{1}, int64_t{2}}).empty());
  CHECK(Matching("SELECT * FROM ns.t WHERE id = ? AND blob = ? AND at = ?",
                 {int64_t{1}, Binary{"\x01"}, TimestampMicros{100}}, 2) == std::vector<size_t>{0, 2});
}

TEST_CASE("a null parameter or a null cell matches nothing") {
  CHECK(Matching("SELECT * FROM ns.t WHERE id = ?", {std::monostate{}}).empty());
  CHECK(Matching("SELECT * FROM ns.t WHERE id = ? AND name = ?", {int64_t{1}, std::monostate{}}).empty());
  // Row 3 is all null and row 5's name is null: neither equals anything.
  CHECK(Matching("SELECT * FROM ns.t WHERE ok = ?", {true}) == std::vector<size_t>{0, 2});
  CHECK(Matching("SELECT * FROM ns.t WHERE at = ?", {TimestampMicros{0}}).empty());
}

TEST_CASE("WHERE orders int64, timestamp, float64, utf8, binary and bool values") {
  CHECK(Matching("SELECT * FROM ns.t WHERE id < ?", {int64_t{2}}) == std::vector<size_t>{0, 2, 5});
  CHECK(Matching("SELECT * FROM ns.t WHERE id <= ?", {int64_t{2}}) == std::vector<size_t>{0, 1, 2, 5});
  CHECK(Matching("SELECT * FROM ns.t WHERE id > ?", {int64_t{1}}) == std::vector<size_t>{1, 4});
  CHECK(Matching("SELECT * FROM ns.t WHERE id >= ?", {int64_t{3}}) == std::vector<size_t>{4});
  CHECK(Matching("SELECT * FROM ns.t WHERE at < ?", {TimestampMicros{0}}) == std::vector<size_t>{4});
  CHECK(Matching("SELECT * FROM ns.t WHERE score > ?", {-1.0}) == std::vector<size_t>{0, 1, 2, 4, 5});
  CHECK(Matching("SELECT * FROM ns.t WHERE score < ?", {0.0}).empty());  // -0.0 is not below 0.0
  CHECK(Matching("SELECT * FROM ns.t WHERE name >= ?", {std::string("b")}) == std::vector<size_t>{1, 2});
  CHECK(Matching("SELECT * FROM ns.t WHERE name < ?", {std::string("ann")}) == std::vector<size_t>{4});
  CHECK(Matching("SELECT * FROM ns.t WHERE blob > ?", {Binary{"\x01"}}) == std::vector<size_t>{1});
  CHECK(Matching("SELECT * FROM ns.t WHERE ok < ?", {true}) == std::vector<size_t>{1, 4});
}

TEST_CASE("WHERE != holds for every non-null cell that differs") {
  CHECK(Matching("SELECT * FROM ns.t WHERE id != ?", {int64_t{1}}) == std::vector<size_t>{1, 4});
  CHECK(Matching("SELECT * FROM ns.t WHERE name <> ?", {std::string("bob")}) == std::vector<size_t>{0, 4});
  DataLocation a = Location("file:///srv/lake/a", "video/mp4", 10, 'a');
  CHECK(Matching("SELECT * FROM ns.t WHERE video != ?", {a}) == std::vector<size_t>{1, 4});
}

TEST_CASE("WHERE IN matches any listed value; a null in the list matches nothing more") {
  CHECK(Matching("SELECT * FROM ns.t WHERE id IN (?, ?)", {int64_t{2}, int64_t{3}}) == std::vector<size_t>{1, 4});
  CHECK(Matching("SELECT * FROM ns.t WHERE name IN (?)", {std::string("ann")}) == std::vector<size_t>{0});
  CHECK(Matching("SELECT * FROM ns.t WHERE id IN (?, ?)", {int64_t{2}, std::monostate{}}) ==
        std::vector<size_t>{1});
  // NOT IN with a null in the list is never true (unknown for every other value).
  CHECK(Matching("SELECT * FROM ns.t WHERE id NOT IN (?, ?)", {int64_t{2}, std::monostate{}}).empty());
  CHECK(Matching("SELECT * FROM ns.t WHERE id NOT IN (?)", {int64_t{1}}) == std::vector<size_t>{1, 4});
  DataLocation b = Location("file:///srv/lake/b", "video/mp4", 20, 'b');
  CHECK(Matching("SELECT * FROM ns.t WHERE video IN (?)", {b}) == std::vector<size_t>{1, 4});
}

TEST_CASE("a long WHERE IN list matches as a short one does, nulls included") {
  // 20 values (looked up in a hash set): 2 and 3 among them.
  std::string sql = "SELECT * FROM ns.t WHERE id IN (?";
  std::vector<CellValue> values = {int64_t{2}};
  for (int64_t v = 100; v < 119; ++v) {
    sql += ", ?";
    values.push_back(v == 110 ? CellValue{int64_t{3}} : CellValue{v});
  }
  CHECK(Matching(sql + ")", values) == std::vector<size_t>{1, 4});
  values.back() = std::monostate{};
  CHECK(Matching(sql + ")", values) == std::vector<size_t>{1, 4});
  std::string not_in = sql;
  not_in.replace(not_in.find(" IN "), 4, " NOT IN ");
  CHECK(Matching(not_in + ")", values).empty());
}

TEST_CASE("WHERE IS NULL and IS NOT NULL test the cell, never unknown") {
  CHECK(Matching("SELECT * FROM ns.t WHERE name IS NULL", {}) == std::vector<size_t>{3, 5});
  CHECK(Matching("SELECT * FROM ns.t WHERE name IS NOT NULL", {}) == std::vector<size_t>{0, 1, 2, 4});
  CHECK(Matching("SELECT * FROM ns.t WHERE video IS NULL", {}) == std::vector<size_t>{3, 5});
  CHECK(Matching("SELECT * FROM ns.t WHERE NOT ok IS NULL", {}) == std::vector<size_t>{0, 1, 2, 4});
}

TEST_CASE("WHERE OR, AND and NOT follow SQL's three-valued logic") {
  CHECK(Matching("SELECT * FROM ns.t WHERE id = ? OR name = ?", {int64_t{3}, std::string("ann")}) ==
        std::vector<size_t>{0, 4});
  // NOT of unknown is unknown: rows with a null id are in neither result.
  CHECK(Matching("SELECT * FROM ns.t WHERE NOT id = ?", {int64_t{1}}) == std::vector<size_t>{1, 4});
  // true OR unknown is true; false AND unknown is false, so NOT of it is true.
  CHECK(Matching("SELECT * FROM ns.t WHERE name = ? OR id = ?", {std::monostate{}, int64_t{2}}) ==
        std::vector<size_t>{1});
  CHECK(Matching("SELECT * FROM ns.t WHERE NOT (id = ? AND name = ?)", {int64_t{9}, std::monostate{}}) ==
        std::vector<size_t>{0, 1, 2, 4, 5});
  CHECK(Matching("SELECT * FROM ns.t WHERE (id = ? OR id IS NULL) AND NOT ok = ?", {int64_t{1}, false}) ==
        std::vector<size_t>{0, 2});
  CHECK(Matching("SELECT * FROM ns.t WHERE id = ? OR id = ? OR id = ?", {int64_t{1}, int64_t{2}, int64_t{3}}) ==
        std::vector<size_t>{0, 1, 2, 4, 5});
}

TEST_CASE("BindSelect types every WHERE placeholder in statement order, IN lists included") {
  BoundSelect bound = Select("SELECT id FROM ns.t WHERE name IN (?, ?) OR (at > ? AND id IS NOT NULL)");
  CHECK(bound.where == std::vector<BoundParameter>{{1, ColumnType::kUtf8},
                                                   {1, ColumnType::kUtf8},
                                                   {5, ColumnType::kTimestamp}});
  CHECK(WhereColumns(bound) == std::vector<size_t>{0, 1, 5});
}

TEST_CASE("a file has no order: BindSelect refuses <, <=, >, >= and ORDER BY on it") {
  Schema schema = TestSchema();
  CHECK(ErrorOf(BindSelect(Parse<SelectStatement>("SELECT id FROM ns.t WHERE video < ?"), schema)) ==
        "SQL: column 'video' is a file, which has no order: < does not apply to it (=, !=, IN and IS NULL do)");
  CHECK(ErrorOf(BindSelect(Parse<SelectStatement>("SELECT id FROM ns.t WHERE id = ? OR NOT video >= ?"),
                           schema)) ==
        "SQL: column 'video' is a file, which has no order: >= does not apply to it (=, !=, IN and IS NULL do)");
  CHECK(ErrorOf(BindSelect(Parse<SelectStatement>("SELECT id FROM ns.t ORDER BY id, video"), schema)) ==
        "SQL: column 'video' is a file, which has no order: ORDER BY does not apply to it");
  CHECK(ErrorOf(BindSelect(Parse<SelectStatement>("SELECT id FROM ns.t ORDER BY nope"), schema)) ==
        "SQL: table ns.t has no column 'nope'");
  CHECK(ErrorOf(BindSelect(Parse<SelectStatement>("SELECT id FROM ns.t WHERE nope IS NULL"), schema)) ==
        "SQL: table ns.t has no column 'nope'");
}

TEST_CASE("BindSelect binds ORDER BY keys to their columns and directions") {
  BoundSelect bound = Select("SELECT id FROM ns.t ORDER BY name DESC, at");
  CHECK(bound.order_by == std::vector<BoundOrderKey>{{1, ColumnType::kUtf8, true},
                                                     {5, ColumnType::kTimestamp, false}});
}

TEST_CASE("BindSelect of count(*) gives one int64 column named count") {
  BoundSelect bound = Select("SELECT count(*) FROM ns.t WHERE id = ?");
  CHECK(bound.count_rows);
  CHECK(bound.projection.empty());
  CHECK(bound.output_schema == Schema{{{"count", ColumnType::kInt64}}});
  CHECK(bound.where == std::vector<BoundParameter>{{0, ColumnType::kInt64}});
}

// Whether the statistics of `batch` let `sql`'s WHERE match, with `parameters`.
bool StatisticsMayMatch(const ColumnBatch& batch, std::string_view sql, const std::vector<CellValue>& parameters) {
  BoundSelect bound = Select(sql);
  return PredicateMayMatch(*bound.predicate, table::ComputeFragmentStatistics(batch), batch.num_rows, parameters);
}

TEST_CASE("statistics rule a fragment out only when no row can match, and then they do") {
  // Soundness: over every row subset of the test batch (as its own
  // fragment) and many predicates, a fragment with a matching row is never
  // ruled out.
  const ColumnBatch whole = TestBatch();
  const std::vector<std::pair<std::string, std::vector<CellValue>>> cases = {
      {"id = ?", {int64_t{1}}},       {"id != ?", {int64_t{1}}},         {"id < ?", {int64_t{2}}},
      {"id >= ?", {int64_t{3}}},      {"id IN (?, ?)", {int64_t{3}, std::monostate{}}},
      {"NOT id IN (?)", {int64_t{1}}}, {"name > ?", {std::string("b")}}, {"name <= ?", {std::string("ann")}},
      {"score > ?", {0.0}},           {"score = ?", {-0.0}},             {"ok = ?", {false}},
      {"at < ?", {TimestampMicros{0}}}, {"name IS NULL", {}},           {"NOT name IS NULL", {}},
      {"id = ? OR name = ?", {int64_t{3}, std::string("bob")}},
      {"NOT (id = ? AND ok = ?)", {int64_t{1}, true}},                   {"blob = ?", {Binary{"\x02"}}},
  };
  for (unsigned mask = 1; mask < (1u << whole.num_rows); ++mask) {
    ColumnBatch part = ColumnBatch::Empty(whole.schema);
    for (size_t row = 0; row < whole.num_rows; ++row) {
      if (mask & (1u << row)) part.AppendRows(whole, row, row + 1);
    }
    for (const auto& [where, parameters] : cases) {
      std::string sql = "SELECT * FROM ns.t WHERE " + where;
      absl::StatusOr<std::vector<size_t>> rows = MatchingRows(part, Select(sql), parameters);
      REQUIRE(rows.ok());
      if (!rows->empty()) {
        CAPTURE(mask);
        CAPTURE(where);
        CHECK(StatisticsMayMatch(part, sql, parameters));
      }
    }
  }
  // And they do rule out: ids are 1..3 and names "", "ann", "bob".
  CHECK_FALSE(StatisticsMayMatch(whole, "SELECT * FROM ns.t WHERE id = ?", {int64_t{4}}));
  CHECK_FALSE(StatisticsMayMatch(whole, "SELECT * FROM ns.t WHERE id > ? OR name > ?", {int64_t{3}, std::string("c")}));
  CHECK_FALSE(StatisticsMayMatch(whole, "SELECT * FROM ns.t WHERE id IN (?, ?)", {int64_t{0}, int64_t{7}}));
  CHECK_FALSE(StatisticsMayMatch(whole, "SELECT * FROM ns.t WHERE id = ?", {std::monostate{}}));
  CHECK_FALSE(StatisticsMayMatch(whole, "SELECT * FROM ns.t WHERE at >= ? AND id = ?",
                                 {TimestampMicros{0}, int64_t{9}}));
  ColumnBatch ones = ColumnBatch::Empty(whole.schema);
  ones.AppendRows(whole, 0, 1);
  ones.AppendRows(whole, 2, 3);  // id 1 twice
  CHECK_FALSE(StatisticsMayMatch(ones, "SELECT * FROM ns.t WHERE id != ?", {int64_t{1}}));
  CHECK_FALSE(StatisticsMayMatch(ones, "SELECT * FROM ns.t WHERE name IS NULL", {}));
  CHECK(StatisticsMayMatch(ones, "SELECT * FROM ns.t WHERE NOT name IS NULL", {}));
}

// `sql`'s WHERE compiled once with `parameters`.
CompiledPredicate Compiled(std::string_view sql, std::vector<CellValue> parameters) {
  BoundSelect bound = Select(sql);
  REQUIRE(bound.predicate.has_value());
  REQUIRE(CheckParameters(bound.schema, bound.where, parameters).ok());
  return CompiledPredicate(*bound.predicate, std::move(parameters));
}

// "id IN (?, …)" with `count` placeholders.
std::string IdInList(size_t count) {
  std::string sql = "id IN (?";
  for (size_t i = 1; i < count; ++i) sql += ", ?";
  return sql + ")";
}

constexpr std::string_view kSelectWhere = "SELECT * FROM ns.t WHERE ";

TEST_CASE("a WHERE compiled once picks, in every fragment, the rows a per-fragment test picks") {
  const ColumnBatch whole = TestBatch();
  std::vector<CellValue> long_list = {std::monostate{}};
  for (int64_t v = 2; v < 22; ++v) long_list.push_back(v);
  const std::vector<std::pair<std::string, std::vector<CellValue>>> cases = {
      {std::string(kSelectWhere) + IdInList(long_list.size()), long_list},
      {std::string(kSelectWhere) + "NOT (" + IdInList(long_list.size()) + ") OR name = ?",
       [&] {
         std::vector<CellValue> v = long_list;
         v.push_back(std::string("bob"));
         return v;
       }()},
      {"SELECT * FROM ns.t WHERE name IN (?, ?) AND NOT ok = ?", {std::string("bob"), std::monostate{}, false}},
      {"SELECT * FROM ns.t WHERE at IN (?, ?) OR score < ?", {TimestampMicros{-5}, TimestampMicros{7}, 1.0}},
  };
  for (const auto& [sql, parameters] : cases) {
    CAPTURE(sql);
    const BoundSelect select = Select(sql);
    const CompiledPredicate compiled = Compiled(sql, parameters);
    for (size_t first = 0; first < whole.num_rows; ++first) {
      ColumnBatch part = ColumnBatch::Empty(whole.schema);
      part.AppendRows(whole, first, whole.num_rows);
      absl::StatusOr<std::vector<size_t>> once = MatchingRows(part, select, compiled);
      absl::StatusOr<std::vector<size_t>> each = MatchingRows(part, select, parameters);
      REQUIRE(once.ok());
      REQUIRE(each.ok());
      CHECK(*once == *each);
    }
  }
}

TEST_CASE("a compiled IN list keeps its non-null, non-NaN values ascending and notes a null") {
  const std::string sql = "SELECT * FROM ns.t WHERE score IN (?, ?, ?, ?)";
  const CompiledPredicate compiled = Compiled(sql, {2.5, std::monostate{}, std::nan(""), -1.0});
  const CompiledInList& list = compiled.InList(compiled.predicate());
  CHECK(list.has_null);
  CHECK_FALSE(list.hashed);
  CHECK(list.ordered == std::vector<CellValue>{-1.0, 2.5});
}

TEST_CASE("a compiled IN list longer than kHashedInValues on an int64 column is hashed") {
  std::vector<CellValue> values;
  for (int64_t v = 0; v <= static_cast<int64_t>(kHashedInValues); ++v) values.push_back(v * 100);
  const CompiledPredicate compiled = Compiled(std::string(kSelectWhere) + IdInList(values.size()), values);
  const CompiledInList& list = compiled.InList(compiled.predicate());
  CHECK(list.hashed);
  CHECK_FALSE(list.has_null);
  CHECK(list.keys.size() == values.size());
  CHECK(list.keys.contains(1600));
}

TEST_CASE("statistics rule a fragment out of a compiled long IN list only when no value lies within its bounds") {
  const ColumnBatch whole = TestBatch();  // ids 1..3, one null
  const table::FragmentStatistics statistics = table::ComputeFragmentStatistics(whole);
  std::vector<CellValue> outside = {std::monostate{}};
  for (int64_t v = 4; v < 40; ++v) outside.push_back(v);
  outside.push_back(int64_t{-7});
  const std::string in = std::string(kSelectWhere) + IdInList(outside.size());
  CHECK_FALSE(PredicateMayMatch(Compiled(in, outside), statistics, whole.num_rows));
  std::vector<CellValue> inside = outside;
  inside[10] = int64_t{2};
  CHECK(PredicateMayMatch(Compiled(in, inside), statistics, whole.num_rows));
  // NOT IN (a list without null) may be true where IN is ruled out.
  std::vector<CellValue> no_null = outside;
  no_null[0] = int64_t{5};
  const std::string not_in = std::string(kSelectWhere) + "NOT " + IdInList(no_null.size());
  CHECK(PredicateMayMatch(Compiled(not_in, no_null), statistics, whole.num_rows));
}

TEST_CASE("MatchingRows refuses wrong parameters and a batch of another schema") {
  BoundSelect bound = Select("SELECT * FROM ns.t WHERE id = ?");
  CHECK(ErrorOf(MatchingRows(TestBatch(), bound, {})) == "SQL: 1 placeholder, 0 parameters bound");
  CHECK(ErrorOf(MatchingRows(TestBatch(), bound, {std::string("1")})) ==
        "SQL: parameter 1 (column 'id') is int64, not utf8");
  ColumnBatch other = ColumnBatch::Empty(Schema{{{"id", ColumnType::kInt64}}});
  CHECK(ErrorOf(MatchingRows(other, bound, {int64_t{1}})) ==
        "SQL: the batch's schema is not the schema the statement was bound to");
  CHECK(ErrorOf(ProjectRows(other, bound, {})) ==
        "SQL: the batch's schema is not the schema the statement was bound to");
}

TEST_CASE("a WHERE's own columns tell whether a fragment may hold a matching row") {
  BoundSelect bound = Select("SELECT blob FROM ns.t WHERE name = ? AND id = ? AND name = ?");
  CHECK(WhereColumns(bound) == std::vector<size_t>{0, 1});
  CHECK(WhereColumns(Select("SELECT * FROM ns.t")).empty());
  // Only the WHERE columns decoded, as a prefiltered scan shows them.
  ColumnBatch whole = TestBatch();
  ColumnBatch partial = ColumnBatch::Empty(whole.schema);
  partial.num_rows = whole.num_rows;
  partial.columns[0] = whole.columns[0];
  partial.columns[1] = whole.columns[1];
  for (const std::vector<CellValue>& parameters :
       {std::vector<CellValue>{std::string("bob"), int64_t{2}, std::string("bob")},
        std::vector<CellValue>{std::string("bob"), int64_t{3}, std::string("bob")},
        std::vector<CellValue>{std::string("bob"), int64_t{2}, std::string("al")},
        std::vector<CellValue>{std::monostate{}, int64_t{2}, std::string("bob")}}) {
    absl::StatusOr<std::vector<size_t>> rows = MatchingRows(whole, bound, parameters);
    LAKE_REQUIRE_OK(rows);
    CHECK(MayHaveMatchingRows(partial, bound, parameters) == !rows->empty());
  }
  CHECK(MayHaveMatchingRows(partial, bound, {std::string("bob"), int64_t{2}, std::string("bob")}));
  CHECK_FALSE(MayHaveMatchingRows(partial, bound, {std::string("bob"), int64_t{3}, std::string("bob")}));
  // What it cannot judge it leaves to MatchingRows, which reports it.
  CHECK(MayHaveMatchingRows(partial, bound, {std::string("bob")}));
  CHECK(MayHaveMatchingRows(partial, bound, {int64_t{3}, int64_t{3}, std::string("bob")}));
  ColumnBatch undecoded = ColumnBatch::Empty(whole.schema);
  undecoded.num_rows = whole.num_rows;
  CHECK(MayHaveMatchingRows(undecoded, bound, {std::string("x"), int64_t{3}, std::string("x")}));
}

TEST_CASE("ProjectRows keeps the projected columns of the given rows, nulls included") {
  BoundSelect bound = Select("SELECT video, name, score FROM ns.t");
  absl::StatusOr<ColumnBatch> projected = ProjectRows(TestBatch(), bound, {1, 3, 5});
  LAKE_REQUIRE_OK(projected);
  LAKE_CHECK_OK(projected->Validate());
  ColumnBatch expected = ColumnBatch::Empty(bound.output_schema);
  DataLocation b = Location("file:///srv/lake/b", "video/mp4", 20, 'b');
  REQUIRE(expected.AppendRow({b, std::string("bob"), 2.5}).ok());
  REQUIRE(expected.AppendRow({std::monostate{}, std::monostate{}, std::monostate{}}).ok());
  REQUIRE(expected.AppendRow({std::monostate{}, std::monostate{}, 0.0}).ok());
  CHECK(*projected == expected);
}

TEST_CASE("ProjectRows of * over every row reproduces the batch") {
  ColumnBatch batch = TestBatch();
  absl::StatusOr<ColumnBatch> projected = ProjectRows(batch, Select("SELECT * FROM ns.t"), {0, 1, 2, 3, 4, 5});
  LAKE_REQUIRE_OK(projected);
  CHECK(*projected == batch);
  absl::StatusOr<ColumnBatch> none = ProjectRows(batch, Select("SELECT id FROM ns.t"), {});
  LAKE_REQUIRE_OK(none);
  CHECK(none->num_rows == 0);
  CHECK(*none == ColumnBatch::Empty(Schema{{{"id", ColumnType::kInt64}}}));
}

TEST_CASE("a SELECT runs end to end: parse, bind, filter, project") {
  BoundSelect bound = Select("select at, blob from ns.t where name = ? and ok = ? limit 5");
  std::vector<CellValue> parameters = {std::string("bob"), true};
  absl::StatusOr<std::vector<size_t>> rows = MatchingRows(TestBatch(), bound, parameters, *bound.limit);
  LAKE_REQUIRE_OK(rows);
  CHECK(*rows == std::vector<size_t>{2});
  absl::StatusOr<ColumnBatch> out = ProjectRows(TestBatch(), bound, *rows);
  LAKE_REQUIRE_OK(out);
  REQUIRE(out->num_rows == 1);
  CHECK(out->Cell(0, 0) == CellValue(TimestampMicros{100}));
  CHECK(out->Cell(0, 1) == CellValue(Binary{"\x01"}));
}

}  // namespace
}  // namespace lake::sql
