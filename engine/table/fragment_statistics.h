// Per-fragment column statistics, recorded in the manifest (format 2,
// manifest_format.h) when a fragment is written, so that a scan can pass
// over a fragment a WHERE cannot match without opening it.
//
// For every column: the number of nulls; for int64, timestamp, bool,
// float64 and utf8 columns also inclusive bounds, min <= every non-null
// value <= max. The bounds are the exact extremes, except that a utf8
// bound longer than kMaxStatisticTextBytes is cut: min to its prefix,
// max to its prefix with the last byte that is not 0xFF raised by one (no
// max bound when every byte is 0xFF). A column has no bounds when all its
// cells are null, when a float64 cell is NaN (NaN orders with nothing),
// or for binary and file columns.
//
// Encoding (inside a manifest; one entry per schema column, in order):
//   u8 flags       bit 0: has nulls, bit 1: has bounds (others 0)
//   [u64 null_count]            when has nulls (then > 0)
//   [min, max]                  when has bounds, by type:
//     int64, timestamp  i64 each;  bool  u8 each (0 or 1);
//     float64  f64 each (IEEE bits, never NaN);
//     utf8     u16 length + bytes each (<= kMaxStatisticTextBytes; bytes,
//              not necessarily UTF-8 once cut)
// Readers fail closed (DataLoss): unknown flag bits, a zero null count
// written, bounds for a type without them, min > max, a length past the
// input or the bound.
#ifndef LAKE_ENGINE_TABLE_FRAGMENT_STATISTICS_H_
#define LAKE_ENGINE_TABLE_FRAGMENT_STATISTICS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/table/byte_codec.h"
#include "engine/table/column_batch.h"
#include "schema/table_schema.h"

namespace lake::table {

// A bound of 64 bytes orders most keys (ids, paths, names) as well as the
// whole value would, and keeps a manifest's entry small.
inline constexpr size_t kMaxStatisticTextBytes = 64;

struct ColumnStatistics {
  uint64_t null_count = 0;
  bool has_bounds = false;
  int64_t min_integer = 0;  // int64, timestamp, bool (0/1)
  int64_t max_integer = 0;
  double min_real = 0;  // float64
  double max_real = 0;
  std::string min_text;  // utf8
  std::string max_text;

  bool operator==(const ColumnStatistics&) const = default;
};

struct FragmentStatistics {
  std::vector<ColumnStatistics> columns;  // one per schema column

  bool operator==(const FragmentStatistics&) const = default;
};

// Whether columns of `type` carry bounds.
bool HasStatisticBounds(ColumnType type);

// The statistics of `batch` (whose shape is valid).
FragmentStatistics ComputeFragmentStatistics(const ColumnBatch& batch);

// The invariants above for a fragment of `rows` rows of `schema`;
// InvalidArgument naming the column otherwise.
absl::Status ValidateFragmentStatistics(const FragmentStatistics& statistics, const Schema& schema,
                                        uint64_t rows);

// Precondition of Write: ValidateFragmentStatistics passed.
void WriteFragmentStatistics(ByteWriter& w, const FragmentStatistics& statistics, const Schema& schema);
// DataLoss when the bytes are short or break an encoding rule.
absl::StatusOr<FragmentStatistics> ReadFragmentStatistics(ByteReader& r, const Schema& schema);

}  // namespace lake::table

#endif  // LAKE_ENGINE_TABLE_FRAGMENT_STATISTICS_H_
