// lake's Arrow stream read by a real consumer: DuckDB's C library, loaded
// with dlopen (no DuckDB header or link dependency), scans a stream of
// several batches holding every column type and nulls, and SQL checks the
// rows.
//
// The library comes from the npm package @duckdb/node-bindings-linux-x64
// (scripts/fetch-duckdb); its path is in $LAKE_DUCKDB_LIB. Without it the
// test is skipped with a message — unless $LAKE_REQUIRE_DUCKDB=1 (set by
// scripts/test), when a missing library fails the test.
#include <dlfcn.h>
#include <doctest/doctest.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "engine/arrow/arrow_export.h"
#include "tests/support/sample_batch.h"

namespace lake::arrow {
namespace {

using table::ColumnBatch;
using testing::SampleBatch;
using testing::SampleRow;
using testing::SampleSchema;

// ---- the part of DuckDB's C API the test calls (duckdb.h, 1.x) ----

using idx_t = uint64_t;
using duckdb_state = int;  // DuckDBSuccess = 0, DuckDBError = 1
using duckdb_database = void*;
using duckdb_connection = void*;
using duckdb_arrow_stream = void*;  // an ArrowArrayStream*
// Filled by duckdb_query; read only through the functions below.
struct duckdb_result {
  idx_t deprecated_column_count;
  idx_t deprecated_row_count;
  idx_t deprecated_rows_changed;
  void* deprecated_columns;
  char* deprecated_error_message;
  void* internal_data;
};

struct DuckDbApi {
  duckdb_state (*open)(const char* path, duckdb_database* out);
  void (*close)(duckdb_database* database);
  duckdb_state (*connect)(duckdb_database database, duckdb_connection* out);
  void (*disconnect)(duckdb_connection* connection);
  duckdb_state (*query)(duckdb_connection connection, const char* sql, duckdb_result* out);
  void (*destroy_result)(duckdb_result* result);
  const char* (*result_error)(duckdb_result* result);
  idx_t (*row_count)(duckdb_result* result);
  idx_t (*column_count)(duckdb_result* result);
  bool (*value_is_null)(duckdb_result* result, idx_t column, idx_t row);
  char* (*value_varchar)(duckdb_result* result, idx_t column, idx_t row);
  void (*free)(void* pointer);
  duckdb_state (*arrow_scan)(duckdb_connection connection, const char* table_name,
                             duckdb_arrow_stream stream);
};

template <typename F>
void Bind(void* library, const char* name, F*& out, std::string& missing) {
  out = reinterpret_cast<F*>(dlsym(library, name));
  if (out == nullptr) missing += absl::StrCat(missing.empty() ? "" : ", ", name);
}

// DuckDB loaded once for the process, or why it could not be. It is never
// unloaded: dlclose would turn DuckDB's process-lifetime allocations into
// leaks under LeakSanitizer.
struct LoadedDuckDb {
  std::optional<DuckDbApi> api;
  std::string error;
};

LoadedDuckDb Load() {
  const char* path = std::getenv("LAKE_DUCKDB_LIB");
  if (path == nullptr || *path == '\0') {
    return {std::nullopt, "LAKE_DUCKDB_LIB is not set (scripts/fetch-duckdb prints the path)"};
  }
  void* library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    return {std::nullopt, absl::StrCat("cannot load ", path, ": ", dlerror())};
  }
  DuckDbApi api{};
  std::string missing;
  Bind(library, "duckdb_open", api.open, missing);
  Bind(library, "duckdb_close", api.close, missing);
  Bind(library, "duckdb_connect", api.connect, missing);
  Bind(library, "duckdb_disconnect", api.disconnect, missing);
  Bind(library, "duckdb_query", api.query, missing);
  Bind(library, "duckdb_destroy_result", api.destroy_result, missing);
  Bind(library, "duckdb_result_error", api.result_error, missing);
  Bind(library, "duckdb_row_count", api.row_count, missing);
  Bind(library, "duckdb_column_count", api.column_count, missing);
  Bind(library, "duckdb_value_is_null", api.value_is_null, missing);
  Bind(library, "duckdb_value_varchar", api.value_varchar, missing);
  Bind(library, "duckdb_free", api.free, missing);
  Bind(library, "duckdb_arrow_scan", api.arrow_scan, missing);
  if (!missing.empty()) return {std::nullopt, absl::StrCat(path, " lacks ", missing)};
  return {api, ""};
}

// The API, or nullptr after skipping the test (a MESSAGE) — or failing it
// when LAKE_REQUIRE_DUCKDB=1.
const DuckDbApi* LoadDuckDb() {
  static const LoadedDuckDb loaded = Load();
  if (loaded.api) return &*loaded.api;
  const char* required = std::getenv("LAKE_REQUIRE_DUCKDB");
  if (required != nullptr && std::string(required) == "1") {
    std::string failure = "LAKE_REQUIRE_DUCKDB=1 and DuckDB is unavailable: " + loaded.error;
    FAIL_CHECK(failure);
  } else {
    std::string skipped = "skipped: " + loaded.error;
    MESSAGE(skipped);
  }
  return nullptr;
}

// Forwards to a lake stream, except that it keeps every schema it hands
// out and releases them itself, when the stream is released. DuckDB's C
// API (duckdb_arrow_scan, and its scan's schema factory at every bind)
// takes schemas from get_schema and never releases them — it clears their
// release callback instead (see duckdb/duckdb#16050) — which LeakSanitizer
// reports as lake's leak. Arrays are not wrapped: DuckDB releases those.
struct SchemaKeepingStream {
  ArrowArrayStream lake{};
  std::vector<std::unique_ptr<ArrowSchema>> kept;

  static SchemaKeepingStream& Of(ArrowArrayStream* s) {
    return *static_cast<SchemaKeepingStream*>(s->private_data);
  }
  static int GetSchema(ArrowArrayStream* s, ArrowSchema* out) {
    SchemaKeepingStream& self = Of(s);
    auto schema = std::make_unique<ArrowSchema>();
    int code = self.lake.get_schema(&self.lake, schema.get());
    if (code != 0) return code;
    *out = *schema;
    out->release = [](ArrowSchema* released) { released->release = nullptr; };
    self.kept.push_back(std::move(schema));
    return 0;
  }
  static int GetNext(ArrowArrayStream* s, ArrowArray* out) {
    return Of(s).lake.get_next(&Of(s).lake, out);
  }
  static const char* GetLastError(ArrowArrayStream* s) {
    return Of(s).lake.get_last_error(&Of(s).lake);
  }
  static void Release(ArrowArrayStream* s) {
    SchemaKeepingStream* self = &Of(s);
    for (auto& schema : self->kept) schema->release(schema.get());
    self->lake.release(&self->lake);
    delete self;
    s->release = nullptr;
  }
  static ArrowArrayStream Wrap(ArrowArrayStream lake) {
    auto* self = new SchemaKeepingStream;
    self->lake = lake;
    return ArrowArrayStream{GetSchema, GetNext, GetLastError, Release, self};
  }
};

// A lake stream over `batches`, wrapped as above.
ArrowArrayStream StreamOf(std::vector<ColumnBatch> batches, absl::Status fail_after = {}) {
  auto remaining = std::make_shared<std::vector<ColumnBatch>>(std::move(batches));
  size_t next = 0;
  BatchSource source = [remaining, next,
                        fail_after]() mutable -> absl::StatusOr<std::optional<ColumnBatch>> {
    if (next == remaining->size()) {
      if (!fail_after.ok()) return fail_after;
      return std::nullopt;
    }
    return std::move((*remaining)[next++]);
  };
  return SchemaKeepingStream::Wrap(MakeArrowStream(SampleSchema(), std::move(source)));
}

// One database and connection, closed at scope exit.
class DuckDb {
 public:
  explicit DuckDb(const DuckDbApi& api) : api_(api) {
    REQUIRE(api_.open(nullptr, &database_) == 0);
    REQUIRE(api_.connect(database_, &connection_) == 0);
  }
  ~DuckDb() {
    api_.disconnect(&connection_);
    api_.close(&database_);
    for (const auto& stream : streams_) {
      if (stream->release != nullptr) stream->release(stream.get());
    }
  }

  // Registers `stream` as a view; the stream is released when this goes.
  void Register(const char* name, ArrowArrayStream stream) {
    streams_.push_back(std::make_unique<ArrowArrayStream>(stream));
    REQUIRE(api_.arrow_scan(connection_, name, streams_.back().get()) == 0);
  }

  // Runs `sql`; the error text when it fails, nullopt when it succeeds.
  std::optional<std::string> Run(const std::string& sql) {
    duckdb_result result{};
    bool ok = api_.query(connection_, sql.c_str(), &result) == 0;
    std::optional<std::string> error;
    if (!ok) error = std::string(api_.result_error(&result));
    api_.destroy_result(&result);
    return error;
  }

  // The single cell of a one-row, one-column query, as text; "NULL" for null.
  std::string One(const std::string& sql) {
    duckdb_result result{};
    bool ok = api_.query(connection_, sql.c_str(), &result) == 0;
    std::string text;
    if (!ok) {
      text = absl::StrCat("error: ", api_.result_error(&result));
    } else if (api_.row_count(&result) != 1 || api_.column_count(&result) != 1) {
      text = absl::StrCat("error: ", api_.row_count(&result), " rows");
    } else if (api_.value_is_null(&result, 0, 0)) {
      text = "NULL";
    } else {
      char* value = api_.value_varchar(&result, 0, 0);
      text = value;
      api_.free(value);
    }
    api_.destroy_result(&result);
    INFO(sql);
    REQUIRE_MESSAGE(text.rfind("error: ", 0) != 0, text);
    return text;
  }

  // Columns `columns` of every row of `sql`, as text; nullopt for null.
  std::vector<std::vector<std::optional<std::string>>> Rows(const std::string& sql,
                                                            const std::vector<idx_t>& columns) {
    duckdb_result result{};
    bool ok = api_.query(connection_, sql.c_str(), &result) == 0;
    std::vector<std::vector<std::optional<std::string>>> rows;
    std::string error = ok ? "" : api_.result_error(&result);
    for (idx_t row = 0; ok && row < api_.row_count(&result); ++row) {
      std::vector<std::optional<std::string>>& cells = rows.emplace_back();
      for (idx_t column : columns) {
        if (api_.value_is_null(&result, column, row)) {
          cells.emplace_back();
          continue;
        }
        char* value = api_.value_varchar(&result, column, row);
        cells.emplace_back(value);
        api_.free(value);
      }
    }
    api_.destroy_result(&result);
    REQUIRE_MESSAGE(ok, sql, ": ", error);
    return rows;
  }

 private:
  const DuckDbApi& api_;
  duckdb_database database_ = nullptr;
  duckdb_connection connection_ = nullptr;
  // DuckDB's views keep the streams' addresses: each stream has its own.
  std::vector<std::unique_ptr<ArrowArrayStream>> streams_;
};

// The sample's rows [0, n), as a consumer should see them.
struct Expected {
  int64_t rows = 0;
  int64_t count_sum = 0, count_nulls = 0;
  double score_sum = 0;
  int64_t name_nulls = 0, score_nulls = 0, flag_true = 0, flag_nulls = 0, blob_nulls = 0,
          blob_bytes = 0, at_nulls = 0, video_nulls = 0, video_size_sum = 0;
};

Expected ExpectedOf(int64_t n) {
  Expected e;
  e.rows = n;
  for (int64_t row = 0; row < n; ++row) {
    std::vector<table::CellValue> cells = SampleRow(row);
    auto null = [&](int c) { return std::holds_alternative<std::monostate>(cells[c]); };
    e.name_nulls += null(0);
    if (null(1)) ++e.count_nulls; else e.count_sum += std::get<int64_t>(cells[1]);
    if (null(2)) ++e.score_nulls; else e.score_sum += std::get<double>(cells[2]);
    if (null(3)) ++e.flag_nulls; else e.flag_true += std::get<bool>(cells[3]);
    if (null(4)) ++e.blob_nulls; else e.blob_bytes += std::get<table::Binary>(cells[4]).bytes.size();
    e.at_nulls += null(5);
    if (null(6)) ++e.video_nulls; else e.video_size_sum += std::get<DataLocation>(cells[6]).size_bytes;
  }
  return e;
}

// duckdb_arrow_scan registers DuckDB's `arrow_scan`, which expects its
// producer to apply the query's column projection, yet the C API passes the
// producer no projection (duckdb/duckdb#17012): a query that reads a subset
// of a view's columns gets the wrong children. So every scan here reads the
// whole row in order (`SELECT *`): once into a table that SQL then checks,
// once streamed straight to the client.

// Batches of 10, 0, 2500 (more than DuckDB's 2048-row vectors) and 5 rows.
constexpr int64_t kRows = 2515;
std::vector<ColumnBatch> SampleBatches() {
  std::vector<ColumnBatch> batches;
  batches.push_back(SampleBatch(0, 10));
  batches.push_back(SampleBatch(10, 0));
  batches.push_back(SampleBatch(10, 2500));
  batches.push_back(SampleBatch(2510, 5));
  return batches;
}

TEST_CASE("DuckDB scans a lake stream and SQL sees every type, value and null") {
  const DuckDbApi* api = LoadDuckDb();
  if (api == nullptr) return;
  DuckDb db(*api);
  db.Register("lake_scan", StreamOf(SampleBatches()));
  REQUIRE(db.Run("CREATE TABLE t AS SELECT * FROM lake_scan") == std::nullopt);
  Expected e = ExpectedOf(kRows);

  CHECK(db.One("SELECT count(*) FROM t") == std::to_string(kRows));
  CHECK(db.One("SELECT sum(count) FROM t") == std::to_string(e.count_sum));
  CHECK(db.One("SELECT sum(score) FROM t") == absl::StrFormat("%.1f", e.score_sum));
  CHECK(db.One("SELECT count(*) FILTER (WHERE flag) FROM t") == std::to_string(e.flag_true));
  CHECK(db.One("SELECT sum(octet_length(blob)) FROM t") == std::to_string(e.blob_bytes));
  CHECK(db.One("SELECT sum(video.size_bytes) FROM t") == std::to_string(e.video_size_sum));

  // Nulls are SQL NULLs, column by column (and a null file's fields too).
  CHECK(db.One("SELECT concat_ws(',', count(*) - count(name), count(*) - count(count), "
               "count(*) - count(score), count(*) - count(flag), count(*) - count(blob), "
               "count(*) - count(taken_at), count(*) - count(video), "
               "count(*) - count(video.uri), count(*) - count(video.sha256)) FROM t") ==
        absl::StrCat(e.name_nulls, ",", e.count_nulls, ",", e.score_nulls, ",", e.flag_nulls,
                     ",", e.blob_nulls, ",", e.at_nulls, ",", e.video_nulls, ",",
                     e.video_nulls, ",", e.video_nulls));
  CHECK(db.One("SELECT count FROM t WHERE name = 'row-1236'") == "NULL");  // 1236 % 5 == 1

  // A WHERE on utf8 finds one row; its cells are exact.
  CHECK(db.One("SELECT count FROM t WHERE name = 'row-1234'") == "12340");
  CHECK(db.One("SELECT flag FROM t WHERE name = 'row-2511'") == "NULL");  // 2511 % 4 == 3
  CHECK(db.One("SELECT flag FROM t WHERE name = 'row-2512'") == "false");
  CHECK(db.One("SELECT score FROM t WHERE name = 'row-2001'") == "1000.5");
  CHECK(db.One("SELECT name FROM t WHERE count = 100") == "NULL");  // row 10: 10 % 7 == 3
  CHECK(db.One("SELECT hex(blob) FROM t WHERE count = 100") == "0A00");

  // The file struct's fields.
  CHECK(db.One("SELECT typeof(video) FROM t LIMIT 1") ==
        "STRUCT(uri VARCHAR, content_type VARCHAR, size_bytes BIGINT, sha256 VARCHAR)");
  CHECK(db.One("SELECT video.uri || ' ' || video.size_bytes || ' ' || video.content_type "
               "FROM t WHERE name = 'row-2001'") ==
        testing::SampleUri(2001) + " 3001 video/mp4");
  CHECK(db.One("SELECT video.sha256 FROM t WHERE name = 'row-2001'") ==
        testing::SampleSha256(2001));
  CHECK(db.One("SELECT name FROM t WHERE video.uri = '" + testing::SampleUri(1503) + "'") ==
        "row-1503");
  CHECK(db.One("SELECT video IS NULL FROM t WHERE count = 20") == "true");  // row 2
  CHECK(db.One("SELECT video.uri IS NULL FROM t WHERE count = 20") == "true");

  // Timestamps are UTC microseconds since the epoch.
  CHECK(db.One("SELECT typeof(taken_at) FROM t LIMIT 1") == "TIMESTAMP WITH TIME ZONE");
  CHECK(db.One("SELECT epoch_us(taken_at) FROM t WHERE count = 100") ==
        std::to_string(testing::kSampleEpochMicros + 10 * 1000001));
  // Rows 0..99 lie before 1700000099.5001 s; those with row % 8 == 5 are null.
  int64_t early = 0;
  for (int64_t row = 0; row < 100; ++row) early += row % 8 != 5;
  CHECK(db.One("SELECT count(*) FROM t WHERE taken_at < to_timestamp(1700000099.5001)") ==
        std::to_string(early));
}

TEST_CASE("DuckDB streams a lake scan row by row without materialising it") {
  const DuckDbApi* api = LoadDuckDb();
  if (api == nullptr) return;
  DuckDb db(*api);
  db.Register("lake_direct", StreamOf(SampleBatches()));
  std::vector<std::vector<std::optional<std::string>>> rows =
      db.Rows("SELECT * FROM lake_direct", {0, 1});
  REQUIRE(rows.size() == static_cast<size_t>(kRows));
  for (int64_t row = 0; row < kRows; ++row) {
    CAPTURE(row);
    std::vector<table::CellValue> cells = SampleRow(row);
    std::optional<std::string> name, count;
    if (const auto* s = std::get_if<std::string>(&cells[0])) name = *s;
    if (const auto* n = std::get_if<int64_t>(&cells[1])) count = std::to_string(*n);
    CHECK(rows[row][0] == name);
    CHECK(rows[row][1] == count);
  }
}

TEST_CASE("a failing lake stream fails the DuckDB query with lake's message") {
  const DuckDbApi* api = LoadDuckDb();
  if (api == nullptr) return;
  DuckDb db(*api);
  std::vector<ColumnBatch> batches;
  batches.push_back(SampleBatch(0, 10));
  db.Register("lake_failing",
              StreamOf(std::move(batches), absl::DataLossError("fragment 7 is damaged")));
  std::optional<std::string> error = db.Run("SELECT count(*) FROM lake_failing");
  REQUIRE(error.has_value());
  CHECK(error->find("fragment 7 is damaged") != std::string::npos);
}

}  // namespace
}  // namespace lake::arrow
