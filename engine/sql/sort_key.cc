#include "engine/sql/sort_key.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string_view>

namespace lake::sql {
namespace {

constexpr char kValue = 0x01;
constexpr char kNull = 0x02;
constexpr uint64_t kSignBit = uint64_t{1} << 63;

void AppendBigEndian(uint64_t v, std::string* out) {
  for (int shift = 56; shift >= 0; shift -= 8) out->push_back(static_cast<char>((v >> shift) & 0xff));
}

void AppendDouble(double d, std::string* out) {
  if (d == 0) d = 0.0;  // -0.0 sorts as 0.0
  if (std::isnan(d)) d = std::numeric_limits<double>::quiet_NaN();
  uint64_t bits = std::bit_cast<uint64_t>(d);
  AppendBigEndian((bits & kSignBit) != 0 ? ~bits : bits ^ kSignBit, out);
}

void AppendBytes(std::string_view bytes, std::string* out) {
  for (char c : bytes) {
    out->push_back(c);
    if (c == '\0') out->push_back('\xff');
  }
  out->append(2, '\0');
}

void AppendValue(const table::ColumnData& column, size_t row, std::string* out) {
  switch (column.type) {
    case table::ColumnType::kInt64:
    case table::ColumnType::kTimestamp:
      return AppendBigEndian(static_cast<uint64_t>(column.int64s[row]) ^ kSignBit, out);
    case table::ColumnType::kFloat64: return AppendDouble(column.float64s[row], out);
    case table::ColumnType::kBool: out->push_back(column.bools[row] != 0 ? '\x01' : '\x00'); return;
    case table::ColumnType::kUtf8:
    case table::ColumnType::kBinary: return AppendBytes(column.strings.At(row), out);
    case table::ColumnType::kFile: return;  // never a key
  }
}

}  // namespace

void AppendSortKey(const table::ColumnBatch& batch, size_t row, absl::Span<const BoundOrderKey> keys,
                   std::string* out) {
  for (const BoundOrderKey& key : keys) {
    const size_t begin = out->size();
    const table::ColumnData& column = batch.columns[key.column];
    if (column.valid[row] == 0) {
      out->push_back(kNull);
    } else {
      out->push_back(kValue);
      AppendValue(column, row, out);
    }
    if (key.descending) {
      for (size_t i = begin; i < out->size(); ++i) (*out)[i] = static_cast<char>(~(*out)[i]);
    }
  }
}

}  // namespace lake::sql
