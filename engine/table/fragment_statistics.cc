#include "engine/table/fragment_statistics.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <optional>
#include <string_view>

#include "absl/strings/str_cat.h"

namespace lake::table {
namespace {

constexpr uint8_t kHasNulls = 1;
constexpr uint8_t kHasBounds = 2;

// An upper bound of `value` of at most kMaxStatisticTextBytes: the value
// itself when short enough, else its cut prefix with the last byte below
// 0xFF raised by one; nullopt when every byte of the prefix is 0xFF.
std::optional<std::string> UpperBound(std::string_view value) {
  if (value.size() <= kMaxStatisticTextBytes) return std::string(value);
  std::string bound(value.substr(0, kMaxStatisticTextBytes));
  while (!bound.empty() && static_cast<unsigned char>(bound.back()) == 0xff) bound.pop_back();
  if (bound.empty()) return std::nullopt;
  bound.back() = static_cast<char>(static_cast<unsigned char>(bound.back()) + 1);
  return bound;
}

ColumnStatistics ColumnOf(const ColumnData& column, size_t rows) {
  ColumnStatistics s;
  bool any = false;
  bool nan = false;
  std::string_view min_text, max_text;
  for (size_t row = 0; row < rows; ++row) {
    if (column.valid[row] == 0) {
      ++s.null_count;
      continue;
    }
    const bool first = !any;
    any = true;
    switch (column.type) {
      case ColumnType::kInt64:
      case ColumnType::kTimestamp:
      case ColumnType::kBool: {
        int64_t v = column.type == ColumnType::kBool ? column.bools[row] : column.int64s[row];
        s.min_integer = first ? v : std::min(s.min_integer, v);
        s.max_integer = first ? v : std::max(s.max_integer, v);
        break;
      }
      case ColumnType::kFloat64: {
        double v = column.float64s[row];
        if (std::isnan(v)) nan = true;
        if (first) s.min_real = s.max_real = v;
        if (v < s.min_real) s.min_real = v;
        if (v > s.max_real) s.max_real = v;
        break;
      }
      case ColumnType::kUtf8: {
        std::string_view v = column.strings.At(row);
        if (first || v < min_text) min_text = v;
        if (first || v > max_text) max_text = v;
        break;
      }
      case ColumnType::kBinary:
      case ColumnType::kFile: break;
    }
  }
  s.has_bounds = any && !nan && HasStatisticBounds(column.type);
  if (s.has_bounds && column.type == ColumnType::kUtf8) {
    std::optional<std::string> upper = UpperBound(max_text);
    if (!upper) {
      s.has_bounds = false;
    } else {
      s.min_text = std::string(min_text.substr(0, kMaxStatisticTextBytes));
      s.max_text = *std::move(upper);
    }
  }
  if (!s.has_bounds) {
    ColumnStatistics nulls_only;
    nulls_only.null_count = s.null_count;
    return nulls_only;
  }
  if (s.min_real == 0) s.min_real = 0.0;  // one spelling of zero: -0.0 == 0.0
  if (s.max_real == 0) s.max_real = 0.0;
  return s;
}

absl::Status Invalid(const Schema& schema, size_t column, std::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("statistics of column '", schema.columns[column].name, "' ", std::string(why)));
}

absl::Status Damaged(std::string_view why) {
  return absl::DataLossError(absl::StrCat("fragment statistics are damaged: ", std::string(why)));
}

bool ReadText(ByteReader& r, std::string* text) {
  uint16_t size = 0;
  std::string_view bytes;
  if (!r.U16(&size) || size > kMaxStatisticTextBytes || !r.Bytes(size, &bytes)) return false;
  *text = std::string(bytes);
  return true;
}

}  // namespace

bool HasStatisticBounds(ColumnType type) {
  return type == ColumnType::kInt64 || type == ColumnType::kTimestamp || type == ColumnType::kBool ||
         type == ColumnType::kFloat64 || type == ColumnType::kUtf8;
}

FragmentStatistics ComputeFragmentStatistics(const ColumnBatch& batch) {
  FragmentStatistics statistics;
  statistics.columns.reserve(batch.columns.size());
  for (const ColumnData& column : batch.columns) statistics.columns.push_back(ColumnOf(column, batch.num_rows));
  return statistics;
}

absl::Status ValidateFragmentStatistics(const FragmentStatistics& statistics, const Schema& schema,
                                        uint64_t rows) {
  if (statistics.columns.size() != schema.columns.size()) {
    return absl::InvalidArgumentError(absl::StrCat("statistics for ", statistics.columns.size(),
                                                   " columns of ", schema.columns.size()));
  }
  for (size_t c = 0; c < schema.columns.size(); ++c) {
    const ColumnStatistics& s = statistics.columns[c];
    const ColumnType type = schema.columns[c].type;
    if (s.null_count > rows) return Invalid(schema, c, "count more nulls than rows");
    ColumnStatistics bounds_only = s;
    bounds_only.null_count = 0;
    if (!s.has_bounds) {
      if (!(bounds_only == ColumnStatistics{})) return Invalid(schema, c, "hold bounds without the flag");
      continue;
    }
    if (!HasStatisticBounds(type)) return Invalid(schema, c, "have bounds for a type without them");
    if (s.null_count == rows) return Invalid(schema, c, "have bounds for a column of nulls");
    bool integer = type != ColumnType::kFloat64 && type != ColumnType::kUtf8;
    if (!integer && (s.min_integer != 0 || s.max_integer != 0)) return Invalid(schema, c, "hold integer bounds");
    if (type != ColumnType::kFloat64 && (s.min_real != 0 || s.max_real != 0 ||
                                         std::signbit(s.min_real) || std::signbit(s.max_real))) {
      return Invalid(schema, c, "hold float64 bounds");
    }
    if (type != ColumnType::kUtf8 && (!s.min_text.empty() || !s.max_text.empty())) {
      return Invalid(schema, c, "hold utf8 bounds");
    }
    bool ordered = true;
    if (integer) ordered = s.min_integer <= s.max_integer;
    if (type == ColumnType::kBool) ordered = ordered && s.min_integer >= 0 && s.max_integer <= 1;
    if (type == ColumnType::kFloat64) {
      ordered = !std::isnan(s.min_real) && !std::isnan(s.max_real) && s.min_real <= s.max_real &&
                !(s.min_real == 0 && std::signbit(s.min_real)) && !(s.max_real == 0 && std::signbit(s.max_real));
    }
    if (type == ColumnType::kUtf8) {
      ordered = s.min_text <= s.max_text && s.min_text.size() <= kMaxStatisticTextBytes &&
                s.max_text.size() <= kMaxStatisticTextBytes;
    }
    if (!ordered) return Invalid(schema, c, "have min above max or a bound out of range");
  }
  return absl::OkStatus();
}

void WriteFragmentStatistics(ByteWriter& w, const FragmentStatistics& statistics, const Schema& schema) {
  for (size_t c = 0; c < schema.columns.size(); ++c) {
    const ColumnStatistics& s = statistics.columns[c];
    w.U8((s.null_count > 0 ? kHasNulls : 0) | (s.has_bounds ? kHasBounds : 0));
    if (s.null_count > 0) w.U64(s.null_count);
    if (!s.has_bounds) continue;
    switch (schema.columns[c].type) {
      case ColumnType::kInt64:
      case ColumnType::kTimestamp:
        w.U64(static_cast<uint64_t>(s.min_integer));
        w.U64(static_cast<uint64_t>(s.max_integer));
        break;
      case ColumnType::kBool:
        w.U8(static_cast<uint8_t>(s.min_integer));
        w.U8(static_cast<uint8_t>(s.max_integer));
        break;
      case ColumnType::kFloat64:
        w.U64(std::bit_cast<uint64_t>(s.min_real));
        w.U64(std::bit_cast<uint64_t>(s.max_real));
        break;
      case ColumnType::kUtf8:
        w.U16(static_cast<uint16_t>(s.min_text.size()));
        w.Bytes(s.min_text);
        w.U16(static_cast<uint16_t>(s.max_text.size()));
        w.Bytes(s.max_text);
        break;
      case ColumnType::kBinary:
      case ColumnType::kFile: break;
    }
  }
}

absl::StatusOr<FragmentStatistics> ReadFragmentStatistics(ByteReader& r, const Schema& schema) {
  FragmentStatistics statistics;
  statistics.columns.resize(schema.columns.size());
  for (size_t c = 0; c < schema.columns.size(); ++c) {
    ColumnStatistics& s = statistics.columns[c];
    uint8_t flags = 0;
    if (!r.U8(&flags)) return Damaged("they end early");
    if ((flags & ~(kHasNulls | kHasBounds)) != 0) return Damaged(absl::StrCat("unknown flags ", flags));
    if ((flags & kHasNulls) != 0) {
      if (!r.U64(&s.null_count)) return Damaged("they end early");
      if (s.null_count == 0) return Damaged("a null count of 0 is written");
    }
    s.has_bounds = (flags & kHasBounds) != 0;
    if (!s.has_bounds) continue;
    uint64_t min = 0, max = 0;
    uint8_t min8 = 0, max8 = 0;
    bool read = false;
    switch (schema.columns[c].type) {
      case ColumnType::kInt64:
      case ColumnType::kTimestamp:
        read = r.U64(&min) && r.U64(&max);
        s.min_integer = static_cast<int64_t>(min);
        s.max_integer = static_cast<int64_t>(max);
        break;
      case ColumnType::kBool:
        read = r.U8(&min8) && r.U8(&max8);
        s.min_integer = min8;
        s.max_integer = max8;
        break;
      case ColumnType::kFloat64:
        read = r.U64(&min) && r.U64(&max);
        s.min_real = std::bit_cast<double>(min);
        s.max_real = std::bit_cast<double>(max);
        break;
      case ColumnType::kUtf8: read = ReadText(r, &s.min_text) && ReadText(r, &s.max_text); break;
      case ColumnType::kBinary:
      case ColumnType::kFile: return Damaged("bounds for a type without them");
    }
    if (!read) return Damaged("they end early");
  }
  return statistics;
}

}  // namespace lake::table
