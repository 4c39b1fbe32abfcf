// ORDER BY: the sort keys' byte order, and the row sorter's two ways —
// top-k in memory for a small LIMIT, spilled runs merged otherwise — with
// the spill's files gone after every outcome.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <variant>
#include <vector>

#include "engine/sql/row_sorter.h"
#include "engine/sql/sort_key.h"
#include "engine/sql/sql_binding.h"
#include "engine/sql/sql_statement.h"
#include "io/file_system.h"
#include "tests/support/status_checks.h"
#include "tests/support/test_files.h"

namespace lake::sql {
namespace {

using table::CellValue;
using table::ColumnBatch;
using table::ColumnType;
using table::Schema;

Schema TestSchema() {
  return Schema{{{"i", ColumnType::kInt64},
                 {"f", ColumnType::kFloat64},
                 {"s", ColumnType::kUtf8},
                 {"b", ColumnType::kBool},
                 {"t", ColumnType::kTimestamp}}};
}

BoundSelect Select(std::string_view sql) {
  absl::StatusOr<Statement> statement = ParseStatement(sql);
  REQUIRE_MESSAGE(statement.ok(), statement.status().ToString());
  absl::StatusOr<BoundSelect> bound = BindSelect(std::get<SelectStatement>(*statement), TestSchema());
  REQUIRE_MESSAGE(bound.ok(), bound.status().ToString());
  return *bound;
}

// One column `column` of values; the other cells null.
ColumnBatch Column(size_t column, const std::vector<CellValue>& values) {
  ColumnBatch batch = ColumnBatch::Empty(TestSchema());
  for (const CellValue& value : values) {
    std::vector<CellValue> row(TestSchema().columns.size());
    row[column] = value;
    REQUIRE(batch.AppendRow(row).ok());
  }
  return batch;
}

// The sort key of each row under `sql`'s ORDER BY.
std::vector<std::string> Keys(std::string_view sql, const ColumnBatch& batch) {
  BoundSelect select = Select(sql);
  std::vector<std::string> keys(batch.num_rows);
  for (size_t row = 0; row < batch.num_rows; ++row) AppendSortKey(batch, row, select.order_by, &keys[row]);
  return keys;
}

// Every key is strictly below the next one.
bool Ascending(const std::vector<std::string>& keys) {
  for (size_t i = 1; i < keys.size(); ++i) {
    if (!(keys[i - 1] < keys[i])) return false;
  }
  return true;
}

TEST_CASE("sort keys order int64 and timestamp values as integers, nulls last") {
  ColumnBatch ints = Column(0, {INT64_MIN, int64_t{-2}, int64_t{-1}, int64_t{0}, int64_t{1}, INT64_MAX,
                                std::monostate{}});
  CHECK(Ascending(Keys("SELECT i FROM ns.t ORDER BY i", ints)));
  ColumnBatch times = Column(4, {table::TimestampMicros{-5}, table::TimestampMicros{0}, table::TimestampMicros{7}});
  CHECK(Ascending(Keys("SELECT i FROM ns.t ORDER BY t", times)));
}

TEST_CASE("sort keys order float64 values with -0.0 as 0.0 and NaN above infinity") {
  const double inf = std::numeric_limits<double>::infinity();
  ColumnBatch floats = Column(1, {-inf, -1e300, -1.5, -1e-300, 0.0, 1e-300, 2.5, inf,
                                  std::numeric_limits<double>::quiet_NaN(), std::monostate{}});
  CHECK(Ascending(Keys("SELECT i FROM ns.t ORDER BY f", floats)));
  std::vector<std::string> zeros = Keys("SELECT i FROM ns.t ORDER BY f", Column(1, {-0.0, 0.0}));
  CHECK(zeros[0] == zeros[1]);
  std::vector<std::string> nans = Keys("SELECT i FROM ns.t ORDER BY f",
                                       Column(1, {std::numeric_limits<double>::quiet_NaN(),
                                                  -std::numeric_limits<double>::quiet_NaN()}));
  CHECK(nans[0] == nans[1]);
}

TEST_CASE("sort keys order utf8 bytewise, a prefix first, zero bytes included") {
  ColumnBatch strings = Column(2, {std::string(""), std::string("\0", 1), std::string("\0\0", 2),
                                   std::string("\x01", 1), std::string("a"), std::string("a\0", 2),
                                   std::string("ab"), std::string("b"), std::string("\xc3\xa4"),
                                   std::monostate{}});
  CHECK(Ascending(Keys("SELECT i FROM ns.t ORDER BY s", strings)));
  ColumnBatch bools = Column(3, {false, true, std::monostate{}});
  CHECK(Ascending(Keys("SELECT i FROM ns.t ORDER BY b", bools)));
}

TEST_CASE("DESC reverses a key, nulls first, and later keys break ties") {
  ColumnBatch strings = Column(2, {std::monostate{}, std::string("b"), std::string("ab"), std::string("a"),
                                   std::string("")});
  CHECK(Ascending(Keys("SELECT i FROM ns.t ORDER BY s DESC", strings)));
  ColumnBatch batch = ColumnBatch::Empty(TestSchema());
  for (auto [i, s] : std::vector<std::pair<int64_t, std::string>>{{2, "a"}, {2, "c"}, {1, "b"}, {1, "z"}}) {
    REQUIRE(batch.AppendRow({i, std::monostate{}, s, std::monostate{}, std::monostate{}}).ok());
  }
  CHECK(Ascending(Keys("SELECT i FROM ns.t ORDER BY i DESC, s", batch)));
}

// Rows i = values[k], s = "r<k>" (the arrival order).
ColumnBatch Numbered(const std::vector<int64_t>& values) {
  ColumnBatch batch = ColumnBatch::Empty(TestSchema());
  for (size_t k = 0; k < values.size(); ++k) {
    REQUIRE(batch.AppendRow({values[k], std::monostate{}, "r" + std::to_string(k), std::monostate{},
                             std::monostate{}}).ok());
  }
  return batch;
}

std::vector<size_t> AllRows(const ColumnBatch& batch) {
  std::vector<size_t> rows(batch.num_rows);
  for (size_t i = 0; i < rows.size(); ++i) rows[i] = i;
  return rows;
}

// Every row the sorter gives, as (i, s).
std::vector<std::pair<int64_t, std::string>> Drain(RowSorter& sorter) {
  std::vector<std::pair<int64_t, std::string>> out;
  for (;;) {
    absl::StatusOr<std::optional<ColumnBatch>> batch = sorter.Next();
    REQUIRE_MESSAGE(batch.ok(), batch.status().ToString());
    if (!batch->has_value()) return out;
    REQUIRE((*batch)->num_rows > 0);
    for (size_t r = 0; r < (*batch)->num_rows; ++r) {
      out.emplace_back(std::get<int64_t>((*batch)->Cell(r, 0)), std::get<std::string>((*batch)->Cell(r, 1)));
    }
  }
}

std::vector<std::string> Entries(const std::string& dir) {
  std::vector<std::string> names;
  if (!std::filesystem::exists(dir)) return names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) names.push_back(entry.path().string());
  return names;
}

// A spill so small that a few hundred rows take several runs.
RowSorterOptions TinySpill() {
  RowSorterOptions options;
  options.block_bytes = 4096;
  spill::SpillOptions spill_options;
  spill_options.block_bytes = options.block_bytes;
  options.memory_bytes = spill::SpillSorter::MinimumBudget(spill_options) + 8192;
  options.batch_rows = 7;
  return options;
}

io::FileSystem& Fs() {
  absl::StatusOr<io::FileSystem*> fs = io::DefaultFileSystem();
  REQUIRE(fs.ok());
  return **fs;
}

TEST_CASE("a small LIMIT sorts as top-k: the best rows in key order, ties in arrival order") {
  testing::TempDir dir;
  BoundSelect select = Select("SELECT i, s FROM ns.t ORDER BY i DESC LIMIT 5");
  RowSorterOptions options;
  options.batch_rows = 2;
  absl::StatusOr<std::unique_ptr<RowSorter>> sorter = RowSorter::Create(Fs(), dir.Join("sort"), select, options);
  LAKE_REQUIRE_OK(sorter);
  CHECK((*sorter)->top_k());
  // Several batches, more than 2 × LIMIT rows: the candidates are cut.
  ColumnBatch first = Numbered({3, 9, 1, 9, 4, 7, 2, 8});
  ColumnBatch second = Numbered({9, 0, 5, 8, 6, 1, 2, 3});
  LAKE_REQUIRE_OK((*sorter)->Add(first, AllRows(first)));
  LAKE_REQUIRE_OK((*sorter)->Add(second, {0, 1, 3, 4}));  // 9, 0, 8, 6
  LAKE_REQUIRE_OK((*sorter)->Finish());
  using Row = std::pair<int64_t, std::string>;
  CHECK(Drain(**sorter) == std::vector<Row>{{9, "r1"}, {9, "r3"}, {9, "r0"}, {8, "r7"}, {8, "r3"}});
  CHECK(Entries(dir.Join("sort")).empty());  // nothing touched the disk
}

TEST_CASE("without LIMIT rows spill in sorted runs and merge back in order; the spill is removed") {
  testing::TempDir dir;
  BoundSelect select = Select("SELECT i, s FROM ns.t ORDER BY i");
  absl::StatusOr<std::unique_ptr<RowSorter>> sorter =
      RowSorter::Create(Fs(), dir.Join("sort"), select, TinySpill());
  LAKE_REQUIRE_OK(sorter);
  CHECK(!(*sorter)->top_k());
  std::vector<int64_t> values;
  for (int64_t k = 0; k < 20000; ++k) values.push_back((k * 7919) % 1000);  // each value 20 times
  ColumnBatch batch = Numbered(values);
  LAKE_REQUIRE_OK((*sorter)->Add(batch, AllRows(batch)));
  LAKE_REQUIRE_OK((*sorter)->Finish());
  CHECK((*sorter)->spill_stats().runs_written >= 2);
  CHECK(Entries(dir.Join("sort")).size() == 2);  // the spill directory and its lock
  auto rows = Drain(**sorter);
  REQUIRE(rows.size() == 20000);
  for (size_t k = 1; k < rows.size(); ++k) {
    CHECK(rows[k - 1].first <= rows[k].first);
    if (rows[k - 1].first == rows[k].first) {  // ties in arrival order
      CHECK(std::stoi(rows[k - 1].second.substr(1)) < std::stoi(rows[k].second.substr(1)));
    }
  }
  CHECK(Entries(dir.Join("sort")).empty());
}

TEST_CASE("a LIMIT above the top-k bound is spilled and cut; destroying the sorter removes the spill") {
  testing::TempDir dir;
  BoundSelect select = Select("SELECT i, s FROM ns.t ORDER BY i LIMIT 20");
  RowSorterOptions options = TinySpill();
  options.max_top_k_rows = 10;
  absl::StatusOr<std::unique_ptr<RowSorter>> sorter = RowSorter::Create(Fs(), dir.Join("sort"), select, options);
  LAKE_REQUIRE_OK(sorter);
  CHECK(!(*sorter)->top_k());
  std::vector<int64_t> values;
  for (int64_t k = 2000; k > 0; --k) values.push_back(k);
  ColumnBatch batch = Numbered(values);
  LAKE_REQUIRE_OK((*sorter)->Add(batch, AllRows(batch)));
  LAKE_REQUIRE_OK((*sorter)->Finish());
  absl::StatusOr<std::optional<ColumnBatch>> first = (*sorter)->Next();
  LAKE_REQUIRE_OK(first);
  CHECK(std::get<int64_t>((*first)->Cell(0, 0)) == 1);
  CHECK(!Entries(dir.Join("sort")).empty());
  sorter->reset();  // abandoned before its end
  CHECK(Entries(dir.Join("sort")).empty());
}

TEST_CASE("a row longer than a spill record may be is refused, and the spill is removed") {
  testing::TempDir dir;
  BoundSelect select = Select("SELECT s FROM ns.t ORDER BY i");
  absl::StatusOr<std::unique_ptr<RowSorter>> sorter =
      RowSorter::Create(Fs(), dir.Join("sort"), select, TinySpill());
  LAKE_REQUIRE_OK(sorter);
  ColumnBatch batch = Column(2, {std::string(5000, 'x')});
  absl::Status added = (*sorter)->Add(batch, {0});
  CHECK(absl::IsInvalidArgument(added));
  CHECK(added.message().find("ORDER BY sorts rows of at most") != std::string_view::npos);
  sorter->reset();
  CHECK(Entries(dir.Join("sort")).empty());
}

}  // namespace
}  // namespace lake::sql
