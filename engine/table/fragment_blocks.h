// A fragment decoded in several calls with its digest checked once
// (fragment_format.h has the format; the code is in fragment_format.cc,
// beside the decoder it shares).
#ifndef LAKE_ENGINE_TABLE_FRAGMENT_BLOCKS_H_
#define LAKE_ENGINE_TABLE_FRAGMENT_BLOCKS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "engine/table/column_batch.h"
#include "schema/table_schema.h"

namespace lake::table {

// A fragment whose digest and header were checked once, so that its
// columns can be decoded in several calls without hashing the file again
// (a DELETE decodes its WHERE columns first, and its FILE columns only when
// it deletes rows). Borrows the bytes and the schema given to Open, which
// must outlive it. Each call checks the layout of every block as
// DecodeFragmentColumns does.
class FragmentBlocks {
 public:
  // DataLoss when the digest or header is damaged, or the schema is not
  // `expected_schema`.
  static absl::StatusOr<FragmentBlocks> Open(std::string_view bytes, const Schema& expected_schema);
  // Temporaries would dangle: refused at compile time.
  static absl::StatusOr<FragmentBlocks> Open(std::string&& bytes, const Schema&) = delete;
  static absl::StatusOr<FragmentBlocks> Open(std::string_view, Schema&& expected_schema) = delete;

  uint64_t rows() const { return rows_; }
  // As DecodeFragmentColumns.
  absl::Status DecodeColumns(const std::vector<bool>& wanted, ColumnBatch* batch) const;
  // FILE column `column` into `cells`, whose buffers are reused as they
  // are (a caller decoding many fragments keeps one per thread: no
  // allocation or zero fill per fragment), checked as kFast checks it only
  // in its validity flags and the cells of `checked_rows` (the only ones
  // the caller reads whole; of the others it reads at most the uri, whose
  // offsets decoding bounded). InvalidArgument when `column` is not a FILE
  // column or a row is out of range.
  absl::Status DecodeFileCells(size_t column, absl::Span<const uint32_t> checked_rows,
                               ColumnData* cells) const;

 private:
  template <typename Read>
  absl::Status Walk(const std::vector<bool>& wanted, Read read) const;

  const Schema* schema_ = nullptr;
  std::string_view columns_;  // the column blocks: the body past the header
  uint64_t rows_ = 0;
  uint32_t version_ = 0;  // the fragment's format version
};

}  // namespace lake::table

#endif  // LAKE_ENGINE_TABLE_FRAGMENT_BLOCKS_H_
