// ORDER BY: takes a SELECT's matching rows batch by batch and gives them
// back projected and sorted (sort_key.h), batch by batch, at most LIMIT of
// them. Rows whose keys are equal keep the order the scan read them in
// (each row's key ends with its arrival number, so no two are equal).
//
// Two ways, chosen when the sorter is made:
//   - top-k, for a LIMIT of at most max_top_k_rows: the best rows so far
//     stay in memory; when twice LIMIT are held, the best LIMIT are kept
//     and the worst key kept becomes a bound that later rows must beat to
//     be copied at all. Memory: at most 2 × LIMIT rows.
//   - spilled, without a LIMIT or with a larger one: every row becomes one
//     record of a spill::SpillSorter (bounded memory, sorted runs and a
//     bounded k-way merge, spill_sorter.h), read back in order. The runs
//     live in a spill directory under `sort_dir` (<root>/sort/<uuidv7>),
//     made at the first row, removed when the sorted rows are read to
//     their end, on any failure and when the sorter is destroyed; a
//     process that dies leaves it for the next sort's sweep.
//
// A spill record (scratch: never synced, read only by this process):
//   key || arrival (u64 big-endian) || row || u32 key_bytes (little-endian)
// where key is AppendSortKey's and row is the projected cells in output
// order, each a u8 (1 value, 0 null) then, for a value: int64, timestamp
// and float64 8 bytes, bool 1 byte, utf8 and binary u32 length + bytes,
// file uri, content type and sha256 as u32 length + bytes then u64 size.
// key || arrival is unique, so the sorter never collapses two rows, and
// everything after it never decides an order. A record is at most
// MaxRecordBytes(block_bytes): a longer row is refused (InvalidArgument).
//
// Thread safety: none; one thread uses a sorter.
#ifndef LAKE_ENGINE_SQL_ROW_SORTER_H_
#define LAKE_ENGINE_SQL_ROW_SORTER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/sql/sql_binding.h"
#include "engine/table/column_batch.h"
#include "io/file_system.h"
#include "spill/spill_budget.h"
#include "spill/spill_sorter.h"

namespace lake::sql {

// <root>/sort: where ORDER BY spills.
inline constexpr std::string_view kSortDir = "sort";

struct RowSorterOptions {
  // The spill's memory (its run buffer and merge, spill_budget.h).
  uint64_t memory_bytes = uint64_t{64} << 20;
  // A spill run's block: a sorted row is at most about this long.
  size_t block_bytes = size_t{1} << 20;
  // The largest LIMIT sorted as top-k in memory.
  uint64_t max_top_k_rows = 10000;
  // Rows per batch given back.
  size_t batch_rows = 4096;
};

class RowSorter {
 public:
  // Sorts by select.order_by (non-empty), gives select.output_schema rows,
  // at most select.limit. InvalidArgument for options the spill refuses.
  static absl::StatusOr<std::unique_ptr<RowSorter>> Create(io::FileSystem& fs, std::string sort_dir,
                                                           const BoundSelect& select,
                                                           RowSorterOptions options = {});
  ~RowSorter();

  // Adds rows `rows` (ascending indexes) of `batch`, a batch of
  // select.schema. After an error the sorter is spent.
  absl::Status Add(const table::ColumnBatch& batch, const std::vector<size_t>& rows);
  // Ends the input; then Next gives the rows in order.
  absl::Status Finish();
  // The next batch of sorted rows (at most batch_rows); nullopt after the
  // last (the spill directory is gone by then).
  absl::StatusOr<std::optional<table::ColumnBatch>> Next();

  bool top_k() const { return top_k_; }
  // The spill's figures (zero while nothing spilled).
  spill::SpillStats spill_stats() const;

 private:
  RowSorter(io::FileSystem& fs, std::string sort_dir, const BoundSelect& select, RowSorterOptions options);
  absl::Status AddTopK(const table::ColumnBatch& batch, const std::vector<size_t>& rows,
                       const table::ColumnBatch& projected);
  absl::Status AddSpilled(const table::ColumnBatch& batch, const std::vector<size_t>& rows,
                          const table::ColumnBatch& projected);
  // Keeps the best `limit` candidates, in order, and sets the bound.
  void KeepBest();
  absl::StatusOr<std::optional<table::ColumnBatch>> NextTopK();
  absl::StatusOr<std::optional<table::ColumnBatch>> NextSpilled();

  io::FileSystem& fs_;
  const std::string sort_dir_;
  const BoundSelect select_;
  const RowSorterOptions options_;
  const bool top_k_;
  const uint64_t limit_;  // select.limit, or the most rows there can be
  uint64_t arrivals_ = 0;
  uint64_t given_ = 0;
  bool finished_ = false;
  // Top-k: the candidates (keys[i] is candidates' row i), and the largest
  // key kept at the last KeepBest.
  std::vector<std::string> keys_;
  table::ColumnBatch candidates_;
  std::optional<std::string> bound_;
  // Spilled. The budget outlives the sorter and the stream.
  std::unique_ptr<spill::SpillBudget> budget_;
  std::unique_ptr<spill::SpillSorter> sorter_;
  std::unique_ptr<spill::SortedRecords> sorted_;
  spill::SpillStats stats_;
};

}  // namespace lake::sql

#endif  // LAKE_ENGINE_SQL_ROW_SORTER_H_
