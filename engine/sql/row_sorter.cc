#include "engine/sql/row_sorter.h"

#include <algorithm>
#include <bit>
#include <limits>
#include <numeric>
#include <utility>
#include <variant>

#include "absl/strings/str_cat.h"
#include "engine/managed_key.h"
#include "engine/sql/sort_key.h"
#include "engine/table/byte_codec.h"
#include "spill/run_format.h"
#include "spill/spill_directory.h"

namespace lake::sql {
namespace {

using table::ColumnBatch;
using table::ColumnData;
using table::ColumnType;

void AppendArrival(uint64_t arrival, std::string* out) {
  for (int shift = 56; shift >= 0; shift -= 8) out->push_back(static_cast<char>((arrival >> shift) & 0xff));
}

void WriteString(table::ByteWriter& w, std::string_view s) {
  w.U32(static_cast<uint32_t>(s.size()));
  w.Bytes(s);
}

// Cell `row` of `column` as the record's row part (row_sorter.h).
void WriteCell(table::ByteWriter& w, const ColumnData& column, size_t row) {
  if (column.valid[row] == 0) {
    w.U8(0);
    return;
  }
  w.U8(1);
  switch (column.type) {
    case ColumnType::kInt64:
    case ColumnType::kTimestamp: w.U64(static_cast<uint64_t>(column.int64s[row])); return;
    case ColumnType::kFloat64: w.U64(std::bit_cast<uint64_t>(column.float64s[row])); return;
    case ColumnType::kBool: w.U8(column.bools[row]); return;
    case ColumnType::kUtf8:
    case ColumnType::kBinary: WriteString(w, column.strings.At(row)); return;
    case ColumnType::kFile:
      WriteString(w, column.strings.At(row));
      WriteString(w, column.content_types.At(row));
      WriteString(w, column.sha256s.At(row));
      w.U64(static_cast<uint64_t>(column.int64s[row]));
      return;
  }
}

bool ReadString(table::ByteReader& r, std::string_view* s) {
  uint32_t size = 0;
  return r.U32(&size) && r.Bytes(size, s);
}

// Appends one cell read from `r` to `column` (a null keeps a placeholder,
// as ColumnBatch's invariant asks). False when the bytes run short.
bool ReadCell(table::ByteReader& r, ColumnData& column) {
  uint8_t valid = 0;
  if (!r.U8(&valid)) return false;
  column.valid.push_back(valid != 0 ? 1 : 0);
  uint64_t u = 0;
  uint8_t b = 0;
  std::string_view s, content_type, sha256;
  switch (column.type) {
    case ColumnType::kInt64:
    case ColumnType::kTimestamp:
      if (valid && !r.U64(&u)) return false;
      column.int64s.push_back(static_cast<int64_t>(u));
      return true;
    case ColumnType::kFloat64:
      if (valid && !r.U64(&u)) return false;
      column.float64s.push_back(std::bit_cast<double>(u));
      return true;
    case ColumnType::kBool:
      if (valid && !r.U8(&b)) return false;
      column.bools.push_back(b);
      return true;
    case ColumnType::kUtf8:
    case ColumnType::kBinary:
      if (valid && !ReadString(r, &s)) return false;
      column.strings.Append(s);
      return true;
    case ColumnType::kFile:
      if (valid && !(ReadString(r, &s) && ReadString(r, &content_type) && ReadString(r, &sha256) && r.U64(&u))) {
        return false;
      }
      column.strings.Append(s);
      column.content_types.Append(content_type);
      column.sha256s.Append(sha256);
      column.int64s.push_back(static_cast<int64_t>(u));
      return true;
  }
  return false;
}

}  // namespace

absl::StatusOr<std::unique_ptr<RowSorter>> RowSorter::Create(io::FileSystem& fs, std::string sort_dir,
                                                             const BoundSelect& select, RowSorterOptions options) {
  if (select.order_by.empty()) return absl::InvalidArgumentError("a row sorter needs an ORDER BY key");
  if (options.batch_rows == 0) return absl::InvalidArgumentError("a row sorter gives at least one row a batch");
  if (options.block_bytes < spill::kMinBlockBytes || options.block_bytes > spill::kMaxBlockBytes) {
    return absl::InvalidArgumentError(absl::StrCat("a sort block is ", spill::kMinBlockBytes, "..",
                                                   spill::kMaxBlockBytes, " bytes"));
  }
  spill::SpillOptions spill_options;
  spill_options.block_bytes = options.block_bytes;
  if (options.memory_bytes < spill::SpillSorter::MinimumBudget(spill_options)) {
    return absl::InvalidArgumentError(absl::StrCat("a sort needs at least ",
                                                   spill::SpillSorter::MinimumBudget(spill_options),
                                                   " bytes of memory"));
  }
  return std::unique_ptr<RowSorter>(new RowSorter(fs, std::move(sort_dir), select, options));
}

RowSorter::RowSorter(io::FileSystem& fs, std::string sort_dir, const BoundSelect& select, RowSorterOptions options)
    : fs_(fs),
      sort_dir_(std::move(sort_dir)),
      select_(select),
      options_(options),
      top_k_(select.limit.has_value() && *select.limit <= options.max_top_k_rows),
      limit_(select.limit.value_or(std::numeric_limits<uint64_t>::max())),
      candidates_(ColumnBatch::Empty(select.output_schema)) {}

RowSorter::~RowSorter() = default;

spill::SpillStats RowSorter::spill_stats() const { return sorter_ ? sorter_->stats() : stats_; }

absl::Status RowSorter::Add(const ColumnBatch& batch, const std::vector<size_t>& rows) {
  if (finished_) return absl::FailedPreconditionError("rows added to a finished sort");
  if (rows.empty() || limit_ == 0) return absl::OkStatus();
  absl::StatusOr<ColumnBatch> projected = ProjectRows(batch, select_, rows);
  if (!projected.ok()) return projected.status();
  return top_k_ ? AddTopK(batch, rows, *projected) : AddSpilled(batch, rows, *projected);
}

absl::Status RowSorter::AddTopK(const ColumnBatch& batch, const std::vector<size_t>& rows,
                                const ColumnBatch& projected) {
  std::string key;
  for (size_t i = 0; i < rows.size(); ++i) {
    key.clear();
    AppendSortKey(batch, rows[i], select_.order_by, &key);
    AppendArrival(arrivals_++, &key);
    if (bound_ && key > *bound_) continue;  // cannot be among the best
    keys_.push_back(key);
    candidates_.AppendRows(projected, i, i + 1);
    if (keys_.size() >= 2 * limit_) KeepBest();
  }
  return absl::OkStatus();
}

void RowSorter::KeepBest() {
  std::vector<size_t> order(keys_.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return keys_[a] < keys_[b]; });
  if (order.size() > limit_) order.resize(limit_);
  std::vector<std::string> keys;
  keys.reserve(order.size());
  ColumnBatch kept = ColumnBatch::Empty(select_.output_schema);
  for (size_t i : order) {
    keys.push_back(std::move(keys_[i]));
    kept.AppendRows(candidates_, i, i + 1);
  }
  keys_ = std::move(keys);
  candidates_ = std::move(kept);
  if (keys_.size() == limit_ && !keys_.empty()) bound_ = keys_.back();
}

absl::Status RowSorter::AddSpilled(const ColumnBatch& batch, const std::vector<size_t>& rows,
                                   const ColumnBatch& projected) {
  if (!sorter_) {
    budget_ = std::make_unique<spill::SpillBudget>(options_.memory_bytes);
    spill::SpillOptions spill_options;
    spill_options.block_bytes = options_.block_bytes;
    absl::StatusOr<std::unique_ptr<spill::SpillSorter>> sorter =
        spill::SpillSorter::Create(fs_, spill::SpillDirectoryPath(sort_dir_, NewUuidV7()), *budget_,
                                   spill_options);
    if (!sorter.ok()) return sorter.status();
    sorter_ = std::move(*sorter);
  }
  std::string record;
  for (size_t i = 0; i < rows.size(); ++i) {
    record.clear();
    AppendSortKey(batch, rows[i], select_.order_by, &record);
    const uint32_t key_bytes = static_cast<uint32_t>(record.size());
    AppendArrival(arrivals_++, &record);
    table::ByteWriter w(&record);
    for (const ColumnData& column : projected.columns) WriteCell(w, column, i);
    w.U32(key_bytes);
    if (record.size() > spill::MaxRecordBytes(options_.block_bytes)) {
      return absl::InvalidArgumentError(absl::StrCat("SQL: ORDER BY sorts rows of at most ",
                                                     spill::MaxRecordBytes(options_.block_bytes),
                                                     " bytes; a row is ", record.size()));
    }
    if (absl::Status s = sorter_->Add(record); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status RowSorter::Finish() {
  if (finished_) return absl::OkStatus();
  finished_ = true;
  if (top_k_) {
    KeepBest();
    return absl::OkStatus();
  }
  if (!sorter_) return absl::OkStatus();  // no row
  stats_ = sorter_->stats();
  absl::StatusOr<std::unique_ptr<spill::SortedRecords>> sorted = sorter_->Finish();
  sorter_.reset();
  if (!sorted.ok()) return sorted.status();
  sorted_ = std::move(*sorted);
  return absl::OkStatus();
}

absl::StatusOr<std::optional<ColumnBatch>> RowSorter::Next() {
  if (!finished_) return absl::FailedPreconditionError("sorted rows read before the sort finished");
  if (given_ >= limit_) {
    sorted_.reset();  // removes the spill directory
    return std::optional<ColumnBatch>();
  }
  return top_k_ ? NextTopK() : NextSpilled();
}

absl::StatusOr<std::optional<ColumnBatch>> RowSorter::NextTopK() {
  const uint64_t end = std::min<uint64_t>(candidates_.num_rows, given_ + options_.batch_rows);
  if (given_ >= end) return std::optional<ColumnBatch>();
  ColumnBatch out = ColumnBatch::Empty(select_.output_schema);
  out.AppendRows(candidates_, given_, end);
  given_ = end;
  return std::optional<ColumnBatch>(std::move(out));
}

absl::StatusOr<std::optional<ColumnBatch>> RowSorter::NextSpilled() {
  if (!sorted_) return std::optional<ColumnBatch>();
  ColumnBatch out = ColumnBatch::Empty(select_.output_schema);
  while (out.num_rows < options_.batch_rows && given_ < limit_) {
    absl::StatusOr<bool> more = sorted_->Next();
    if (!more.ok()) {
      sorted_.reset();
      return more.status();
    }
    if (!*more) {
      sorted_.reset();
      break;
    }
    std::string_view record = sorted_->record();
    uint32_t key_bytes = 0;
    table::ByteReader tail(record.substr(record.size() < 4 ? 0 : record.size() - 4));
    bool ok = record.size() >= 4 && tail.U32(&key_bytes) && key_bytes + 8 + 4 <= record.size();
    if (ok) {
      table::ByteReader r(record.substr(key_bytes + 8, record.size() - key_bytes - 8 - 4));
      for (ColumnData& column : out.columns) ok = ok && ReadCell(r, column);
      ok = ok && r.remaining() == 0;
    }
    if (!ok) {
      sorted_.reset();
      return absl::DataLossError("a sorted row read back from the spill is damaged");
    }
    ++out.num_rows;
    ++given_;
  }
  if (out.num_rows == 0) return std::optional<ColumnBatch>();
  return std::optional<ColumnBatch>(std::move(out));
}

}  // namespace lake::sql
