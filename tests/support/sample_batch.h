// A deterministic ColumnBatch with one column of every type and nulls in a
// different pattern in each column: what the Arrow export tests and the
// DuckDB consumer test read back.
#ifndef LAKE_TESTS_SUPPORT_SAMPLE_BATCH_H_
#define LAKE_TESTS_SUPPORT_SAMPLE_BATCH_H_

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "engine/table/column_batch.h"
#include "tests/support/status_checks.h"

namespace lake::testing {

// Columns, in order: name utf8, count int64, score float64, flag bool,
// blob binary, taken_at timestamp, video file.
inline table::Schema SampleSchema() {
  using table::ColumnType;
  return table::Schema{{{"name", ColumnType::kUtf8},
                        {"count", ColumnType::kInt64},
                        {"score", ColumnType::kFloat64},
                        {"flag", ColumnType::kBool},
                        {"blob", ColumnType::kBinary},
                        {"taken_at", ColumnType::kTimestamp},
                        {"video", ColumnType::kFile}}};
}

inline constexpr int64_t kSampleEpochMicros = 1700000000000000;  // 2023-11-14T22:13:20Z

inline std::string SampleSha256(int64_t row) { return absl::StrFormat("%064x", row + 1); }
inline std::string SampleUri(int64_t row) {
  return absl::StrFormat("file:///stage/objects/v/%d.mp4", row);
}

// Row `row` (global across batches). Nulls: name when row % 7 == 3, count
// when row % 5 == 1, score when row % 6 == 2, flag when row % 4 == 3, blob
// when row % 9 == 4, taken_at when row % 8 == 5, video when row % 3 == 2.
inline std::vector<table::CellValue> SampleRow(int64_t row) {
  std::vector<table::CellValue> cells(7);
  if (row % 7 != 3) cells[0] = absl::StrFormat("row-%d", row);
  if (row % 5 != 1) cells[1] = row * 10;
  if (row % 6 != 2) cells[2] = static_cast<double>(row) * 0.5;
  if (row % 4 != 3) cells[3] = row % 3 == 0;
  if (row % 9 != 4) {
    std::string bytes = {static_cast<char>(row & 0x7f), '\0', static_cast<char>(0xff)};
    cells[4] = table::Binary{bytes.substr(0, static_cast<size_t>(row % 4))};
  }
  if (row % 8 != 5) cells[5] = table::TimestampMicros{kSampleEpochMicros + row * 1000001};
  if (row % 3 != 2) {
    absl::StatusOr<DataLocation> location =
        MakeDataLocation(SampleUri(row), "video/mp4", static_cast<uint64_t>(1000 + row),
                         SampleSha256(row));
    REQUIRE_MESSAGE(location.ok(), location.status().ToString());
    cells[6] = *location;
  }
  return cells;
}

// Rows [first, first + count) of the sample.
inline table::ColumnBatch SampleBatch(int64_t first, int64_t count) {
  table::ColumnBatch batch = table::ColumnBatch::Empty(SampleSchema());
  for (int64_t row = first; row < first + count; ++row) {
    LAKE_REQUIRE_OK(batch.AppendRow(SampleRow(row)));
  }
  return batch;
}

}  // namespace lake::testing

#endif  // LAKE_TESTS_SUPPORT_SAMPLE_BATCH_H_
