#include "engine/table/column_batch.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "base/utf8.h"

namespace lake::table {
namespace {

template <class... Fs>
struct Overloaded : Fs... {
  using Fs::operator()...;
};
template <class... Fs>
Overloaded(Fs...) -> Overloaded<Fs...>;

// Variable-length bytes one cell adds to its column's StringColumn(s).
uint64_t StringBytesOf(const CellValue& value) {
  if (const auto* s = std::get_if<std::string>(&value)) return s->size();
  if (const auto* b = std::get_if<Binary>(&value)) return b->bytes.size();
  if (const auto* l = std::get_if<DataLocation>(&value)) return l->uri.size();
  return 0;
}

void AppendNull(ColumnData& column) {
  column.valid.push_back(0);
  switch (column.type) {
    case ColumnType::kUtf8:
    case ColumnType::kBinary:
      column.strings.Append("");
      break;
    case ColumnType::kInt64:
    case ColumnType::kTimestamp:
      column.int64s.push_back(0);
      break;
    case ColumnType::kFloat64:
      column.float64s.push_back(0);
      break;
    case ColumnType::kBool:
      column.bools.push_back(0);
      break;
    case ColumnType::kFile:
      column.strings.Append("");
      column.content_types.Append("");
      column.int64s.push_back(0);
      column.sha256s.Append("");
      break;
  }
}

// Precondition: CellValueType(value) == column.type.
void AppendValue(ColumnData& column, const CellValue& value) {
  column.valid.push_back(1);
  std::visit(Overloaded{
                 [](const std::monostate&) {},
                 [&](const std::string& v) { column.strings.Append(v); },
                 [&](int64_t v) { column.int64s.push_back(v); },
                 [&](double v) { column.float64s.push_back(v); },
                 [&](bool v) { column.bools.push_back(v ? 1 : 0); },
                 [&](const Binary& v) { column.strings.Append(v.bytes); },
                 [&](const TimestampMicros& v) { column.int64s.push_back(v.micros); },
                 [&](const DataLocation& v) {
                   column.strings.Append(v.uri);
                   column.content_types.Append(v.content_type);
                   column.int64s.push_back(static_cast<int64_t>(v.size_bytes));
                   column.sha256s.Append(v.sha256);
                 },
             },
             value);
}

absl::Status CheckStrings(const StringColumn& s, size_t rows, std::string_view what) {
  if (s.offsets.size() != rows + 1 || s.offsets.front() != 0 || s.offsets.back() != s.bytes.size() ||
      s.bytes.size() > kMaxStringColumnBytes) {
    return absl::InvalidArgumentError(absl::StrCat(std::string(what), ": string offsets do not match"));
  }
  for (size_t i = 0; i + 1 < s.offsets.size(); ++i) {
    if (s.offsets[i] > s.offsets[i + 1]) {
      return absl::InvalidArgumentError(absl::StrCat(std::string(what), ": string offsets decrease"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

ColumnType CellValueType(const CellValue& value) {
  return std::visit(Overloaded{
                        [](const std::monostate&) { return ColumnType::kUtf8; },
                        [](const std::string&) { return ColumnType::kUtf8; },
                        [](int64_t) { return ColumnType::kInt64; },
                        [](double) { return ColumnType::kFloat64; },
                        [](bool) { return ColumnType::kBool; },
                        [](const Binary&) { return ColumnType::kBinary; },
                        [](const TimestampMicros&) { return ColumnType::kTimestamp; },
                        [](const DataLocation&) { return ColumnType::kFile; },
                    },
                    value);
}

ColumnBatch ColumnBatch::Empty(const Schema& schema) {
  ColumnBatch batch;
  batch.schema = schema;
  for (const ColumnSpec& spec : schema.columns) {
    ColumnData column;
    column.type = spec.type;
    batch.columns.push_back(std::move(column));
  }
  return batch;
}

absl::Status ColumnBatch::AppendRow(const std::vector<CellValue>& row) {
  std::vector<const CellValue*> values;
  values.reserve(row.size());
  for (const CellValue& value : row) values.push_back(&value);
  return AppendRow(values);
}

absl::Status ColumnBatch::AppendRow(absl::Span<const CellValue* const> row) {
  if (row.size() != columns.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("a row has ", row.size(), " values for ", columns.size(), " columns"));
  }
  for (size_t i = 0; i < row.size(); ++i) {
    const CellValue& value = *row[i];
    const std::string& name = schema.columns[i].name;
    if (std::holds_alternative<std::monostate>(value)) continue;
    if (CellValueType(value) != columns[i].type) {
      return absl::InvalidArgumentError(absl::StrCat(
          "column '", name, "' is ", std::string(ColumnTypeName(columns[i].type)), ", not ",
          std::string(ColumnTypeName(CellValueType(value)))));
    }
    if (const auto* s = std::get_if<std::string>(&value); s && !IsValidUtf8(*s)) {
      return absl::InvalidArgumentError(absl::StrCat("column '", name, "': text is not UTF-8"));
    }
    if (columns[i].strings.bytes.size() + StringBytesOf(value) > kMaxStringColumnBytes) {
      return absl::InvalidArgumentError(
          absl::StrCat("column '", name, "': more than 2 GiB of bytes in one batch"));
    }
  }
  for (size_t i = 0; i < row.size(); ++i) {
    if (std::holds_alternative<std::monostate>(*row[i])) {
      AppendNull(columns[i]);
    } else {
      AppendValue(columns[i], *row[i]);
    }
  }
  ++num_rows;
  return absl::OkStatus();
}

CellValue ColumnBatch::Cell(size_t row, size_t column) const {
  const ColumnData& c = columns[column];
  if (c.IsNull(row)) return std::monostate{};
  switch (c.type) {
    case ColumnType::kUtf8:
      return std::string(c.strings.At(row));
    case ColumnType::kInt64:
      return c.int64s[row];
    case ColumnType::kFloat64:
      return c.float64s[row];
    case ColumnType::kBool:
      return c.bools[row] != 0;
    case ColumnType::kBinary:
      return Binary{std::string(c.strings.At(row))};
    case ColumnType::kTimestamp:
      return TimestampMicros{c.int64s[row]};
    case ColumnType::kFile:
      return DataLocation{std::string(c.strings.At(row)), std::string(c.content_types.At(row)),
                          static_cast<uint64_t>(c.int64s[row]), std::string(c.sha256s.At(row))};
  }
  return std::monostate{};
}

void StringColumn::AppendRange(const StringColumn& other, size_t begin, size_t end) {
  if (begin >= end) return;
  const uint32_t from = other.offsets[begin];
  const uint32_t base = static_cast<uint32_t>(bytes.size());
  bytes.append(other.bytes, from, other.offsets[end] - from);
  offsets.reserve(offsets.size() + (end - begin));
  for (size_t i = begin + 1; i <= end; ++i) offsets.push_back(base + (other.offsets[i] - from));
}

void StringColumn::RemoveCells(absl::Span<const uint32_t> removed) {
  if (removed.empty()) return;
  // Cells before the first removed one stay where they are; each run of
  // kept cells after it moves down over the removed cells' bytes.
  const size_t cells = size();
  size_t write_cell = removed[0];
  size_t write_byte = offsets[removed[0]];
  for (size_t k = 0; k < removed.size(); ++k) {
    const size_t run_begin = removed[k] + 1;
    const size_t run_end = k + 1 < removed.size() ? removed[k + 1] : cells;
    const uint32_t from = offsets[run_begin];
    const uint32_t length = offsets[run_end] - from;
    if (length > 0) std::memmove(bytes.data() + write_byte, bytes.data() + from, length);
    for (size_t i = run_begin; i < run_end; ++i) {
      offsets[++write_cell] = static_cast<uint32_t>(write_byte + (offsets[i + 1] - from));
    }
    write_byte += length;
  }
  offsets.resize(write_cell + 1);
  bytes.resize(write_byte);
}

namespace {

template <typename T>
void AppendRange(std::vector<T>& to, const std::vector<T>& from, size_t begin, size_t end) {
  to.insert(to.end(), from.begin() + static_cast<ptrdiff_t>(begin),
            from.begin() + static_cast<ptrdiff_t>(end));
}

// Keeps the values but those at `removed` (ascending), moved down in place.
template <typename T>
void RemoveValues(std::vector<T>& values, absl::Span<const uint32_t> removed) {
  if (removed.empty()) return;
  size_t write = removed[0];
  for (size_t k = 0; k < removed.size(); ++k) {
    const size_t run_begin = removed[k] + 1;
    const size_t run_end = k + 1 < removed.size() ? removed[k + 1] : values.size();
    if (run_end > run_begin) {
      std::memmove(values.data() + write, values.data() + run_begin,
                   (run_end - run_begin) * sizeof(T));
    }
    write += run_end - run_begin;
  }
  values.resize(write);
}

}  // namespace

void ColumnBatch::AppendRows(const ColumnBatch& other, size_t begin, size_t end) {
  if (begin >= end) return;
  for (size_t i = 0; i < columns.size(); ++i) {
    ColumnData& to = columns[i];
    const ColumnData& from = other.columns[i];
    AppendRange(to.valid, from.valid, begin, end);
    switch (to.type) {
      case ColumnType::kUtf8:
      case ColumnType::kBinary:
        to.strings.AppendRange(from.strings, begin, end);
        break;
      case ColumnType::kInt64:
      case ColumnType::kTimestamp:
        AppendRange(to.int64s, from.int64s, begin, end);
        break;
      case ColumnType::kFloat64:
        AppendRange(to.float64s, from.float64s, begin, end);
        break;
      case ColumnType::kBool:
        AppendRange(to.bools, from.bools, begin, end);
        break;
      case ColumnType::kFile:
        to.strings.AppendRange(from.strings, begin, end);
        to.content_types.AppendRange(from.content_types, begin, end);
        AppendRange(to.int64s, from.int64s, begin, end);
        to.sha256s.AppendRange(from.sha256s, begin, end);
        break;
    }
  }
  num_rows += end - begin;
}

void ColumnBatch::RemoveRows(absl::Span<const uint32_t> removed) {
  if (removed.empty()) return;
  for (ColumnData& column : columns) {
    RemoveValues(column.valid, removed);
    switch (column.type) {
      case ColumnType::kUtf8:
      case ColumnType::kBinary:
        column.strings.RemoveCells(removed);
        break;
      case ColumnType::kInt64:
      case ColumnType::kTimestamp:
        RemoveValues(column.int64s, removed);
        break;
      case ColumnType::kFloat64:
        RemoveValues(column.float64s, removed);
        break;
      case ColumnType::kBool:
        RemoveValues(column.bools, removed);
        break;
      case ColumnType::kFile:
        column.strings.RemoveCells(removed);
        column.content_types.RemoveCells(removed);
        RemoveValues(column.int64s, removed);
        column.sha256s.RemoveCells(removed);
        break;
    }
  }
  num_rows -= removed.size();
}

absl::Status ColumnBatch::CheckShape() const {
  if (absl::Status s = ValidateSchema(schema); !s.ok()) return s;
  if (columns.size() != schema.columns.size()) {
    return absl::InvalidArgumentError("a batch's columns do not match its schema");
  }
  for (size_t i = 0; i < columns.size(); ++i) {
    const ColumnData& c = columns[i];
    const std::string& name = schema.columns[i].name;
    auto bad = [&](std::string_view why) {
      return absl::InvalidArgumentError(absl::StrCat("column '", name, "': ", std::string(why)));
    };
    if (c.type != schema.columns[i].type) return bad("type differs from the schema");
    if (c.valid.size() != num_rows) return bad("row count differs");
    for (uint8_t v : c.valid) {
      if (v > 1) return bad("validity is not 0 or 1");
    }
    bool uses_strings = c.type == ColumnType::kUtf8 || c.type == ColumnType::kBinary ||
                        c.type == ColumnType::kFile;
    bool uses_int64s = c.type == ColumnType::kInt64 || c.type == ColumnType::kTimestamp ||
                       c.type == ColumnType::kFile;
    bool is_file = c.type == ColumnType::kFile;
    if (absl::Status s = CheckStrings(c.strings, uses_strings ? num_rows : 0, name); !s.ok()) {
      return s;
    }
    if (absl::Status s = CheckStrings(c.content_types, is_file ? num_rows : 0, name); !s.ok()) {
      return s;
    }
    if (absl::Status s = CheckStrings(c.sha256s, is_file ? num_rows : 0, name); !s.ok()) return s;
    if (c.int64s.size() != (uses_int64s ? num_rows : 0)) return bad("int64 count differs");
    if (c.float64s.size() != (c.type == ColumnType::kFloat64 ? num_rows : 0)) {
      return bad("float64 count differs");
    }
    if (c.bools.size() != (c.type == ColumnType::kBool ? num_rows : 0)) {
      return bad("bool count differs");
    }
    if (c.type == ColumnType::kBool) {
      for (size_t row = 0; row < num_rows; ++row) {
        if (!c.IsNull(row) && c.bools[row] > 1) return bad("a bool is not 0 or 1");
      }
    }
  }
  return absl::OkStatus();
}

absl::Status ColumnBatch::Validate() const {
  if (absl::Status s = CheckShape(); !s.ok()) return s;
  for (size_t i = 0; i < columns.size(); ++i) {
    const ColumnData& c = columns[i];
    if (c.type != ColumnType::kUtf8 && c.type != ColumnType::kFile) continue;
    const std::string& name = schema.columns[i].name;
    auto bad = [&](std::string_view why) {
      return absl::InvalidArgumentError(absl::StrCat("column '", name, "': ", std::string(why)));
    };
    for (size_t row = 0; row < num_rows; ++row) {
      if (c.IsNull(row)) continue;
      if (c.type == ColumnType::kUtf8) {
        if (!IsValidUtf8(c.strings.At(row))) return bad("text is not UTF-8");
        continue;
      }
      if (c.int64s[row] < 0) return bad("a negative size");
      if (absl::Status s = CheckCanonicalLocation(c.strings.At(row), c.content_types.At(row),
                                                  static_cast<uint64_t>(c.int64s[row]),
                                                  c.sha256s.At(row));
          !s.ok()) {
        return bad(std::string(s.message()));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace lake::table
