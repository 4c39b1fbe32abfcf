// Rows of one schema held column by column: what an append writes into a
// fragment, what a scan yields, and what the Arrow export reads.
//
// Invariants (ColumnBatch::Validate checks them; every producer keeps them).
// The shape (CheckShape checks it, without reading a cell's content):
//   - columns.size() == schema.columns.size(), and columns[i].type equals
//     schema.columns[i].type;
//   - every column has exactly num_rows entries in `valid` and in the
//     vectors its type uses (below); a null row still holds a placeholder
//     (0, false, "" — never read);
//   - validity bytes, and the bools of non-null rows, are 0 or 1;
//   - a StringColumn's offsets start at 0, never decrease, end at
//     bytes.size(), and bytes.size() <= kMaxStringColumnBytes (so Arrow's
//     32-bit offsets hold them).
// The content:
//   - utf8 cells are valid UTF-8; file cells are valid DataLocations
//     (MakeDataLocation, in canonical form) of non-null rows.
//
// Vectors by type:
//   utf8, binary      strings
//   int64, timestamp  int64s
//   float64           float64s
//   bool              bools (0 or 1)
//   file              strings (uri), content_types, int64s (size_bytes),
//                     sha256s (64 lowercase hex)
#ifndef LAKE_ENGINE_TABLE_COLUMN_BATCH_H_
#define LAKE_ENGINE_TABLE_COLUMN_BATCH_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "engine/data_location.h"
#include "schema/table_schema.h"

namespace lake::table {

inline constexpr uint64_t kMaxStringColumnBytes = (uint64_t{1} << 31) - 1;

struct StringColumn {
  std::vector<uint32_t> offsets{0};
  std::string bytes;

  size_t size() const { return offsets.size() - 1; }
  std::string_view At(size_t row) const {
    return std::string_view(bytes).substr(offsets[row], offsets[row + 1] - offsets[row]);
  }
  // Precondition: bytes.size() + value.size() <= kMaxStringColumnBytes.
  void Append(std::string_view value) {
    bytes.append(value);
    offsets.push_back(static_cast<uint32_t>(bytes.size()));
  }
  // Appends cells [begin, end) of `other`: one copy of their bytes.
  // Precondition: bytes.size() plus theirs <= kMaxStringColumnBytes.
  void AppendRange(const StringColumn& other, size_t begin, size_t end);
  // Keeps only the cells `keep` does not skip: every cell but those listed
  // in `removed` (ascending, each < size()), moved down in place.
  void RemoveCells(absl::Span<const uint32_t> removed);
  bool operator==(const StringColumn&) const = default;
};

struct ColumnData {
  ColumnType type = ColumnType::kUtf8;
  std::vector<uint8_t> valid;  // 1: a value, 0: null
  StringColumn strings;
  StringColumn content_types;
  StringColumn sha256s;
  std::vector<int64_t> int64s;
  std::vector<double> float64s;
  std::vector<uint8_t> bools;

  size_t size() const { return valid.size(); }
  bool IsNull(size_t row) const { return valid[row] == 0; }
  bool operator==(const ColumnData&) const = default;
};

// One cell, as bound from a parameter or read back. std::monostate is null.
struct Binary {
  std::string bytes;
  bool operator==(const Binary&) const = default;
};
struct TimestampMicros {
  int64_t micros = 0;
  bool operator==(const TimestampMicros&) const = default;
};
using CellValue = std::variant<std::monostate, std::string, int64_t, double, bool, Binary,
                               TimestampMicros, DataLocation>;

// The ColumnType a non-null CellValue belongs to (utf8 for std::string).
ColumnType CellValueType(const CellValue& value);

struct ColumnBatch {
  Schema schema;
  std::vector<ColumnData> columns;
  size_t num_rows = 0;

  // An empty batch of `schema`.
  static ColumnBatch Empty(const Schema& schema);

  // Appends one row. InvalidArgument (naming the column) when a value's
  // type is not its column's, a utf8 value is not UTF-8, or a column's
  // strings would pass kMaxStringColumnBytes; the batch is unchanged then.
  absl::Status AppendRow(const std::vector<CellValue>& row);
  // The same, reading each value where it is (no copy of the row).
  absl::Status AppendRow(absl::Span<const CellValue* const> row);
  // The cell at (row, column).
  CellValue Cell(size_t row, size_t column) const;
  // Appends rows [begin, end) of `other` (same schema), column by column:
  // each vector's range copied at once, no cell built. Precondition: the
  // strings stay within kMaxStringColumnBytes.
  void AppendRows(const ColumnBatch& other, size_t begin, size_t end);
  // Removes the rows `removed` lists (strictly ascending, each <
  // num_rows) in place: the rows after each move down, nothing is copied
  // into a new batch. What a scan does with a fragment's deleted rows.
  void RemoveRows(absl::Span<const uint32_t> removed);
  // Checks every invariant above: the shape, then every utf8 and file cell.
  absl::Status Validate() const;
  // Checks the shape only: cheap, for batches whose content their producer
  // already checked (a decoded fragment, a batch validated once on entry).
  absl::Status CheckShape() const;

  bool operator==(const ColumnBatch&) const = default;
};

}  // namespace lake::table

#endif  // LAKE_ENGINE_TABLE_COLUMN_BATCH_H_
