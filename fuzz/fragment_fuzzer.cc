// Fuzzes lake::table::DecodeFragment and SummarizeFragment, the readers of
// the data fragment files a scan opens (engine/table/fragment_format.h).
//
// Built with FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION, so the decoder does
// not refuse a digest or block checksum that does not match (the fuzzer
// cannot forge them) and every structural check behind them is reached.
//
// Properties checked (a violation traps):
//   1. Any input, decoded against the schema it embeds and against a fixed
//      schema of every column type, with both FragmentCheck levels: no
//      crash, leak, ASan or UBSan finding; every refusal is DataLoss.
//   2. A full-check decode that succeeds means the fast decode succeeds
//      with the same batch (the full check only adds checks), the rows are
//      the header's, and the batch is valid.
//   3. An accepted batch re-encodes; the new bytes decode to the same batch
//      and encode again to the same bytes (the encoder is deterministic).
//   4. Decoded in two parts (DecodeFragmentColumns: the even columns, then
//      the odd ones), the input is accepted exactly when the fast decode
//      accepts it, with the same batch; every refusal is DataLoss.
//   5. The file columns decoded as a DELETE decodes them
//      (FragmentBlocks::DecodeFileCells, into buffers reused from column to
//      column, every row checked when there are few): of an input the fast
//      decode accepts, each is accepted and equals the batch's column;
//      every refusal is DataLoss.
// "The same batch" is bit for bit (Identical): a float64 cell may hold a
// NaN, which operator== on the batches would call unequal to itself.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "engine/table/fragment_blocks.h"
#include "engine/table/fragment_format.h"
#include "fuzz/property_check.h"

namespace {

using lake::table::ColumnBatch;
using lake::table::ColumnType;
using lake::table::FragmentCheck;
using lake::table::Schema;

using lake::fuzz::Check;

bool Identical(const lake::table::ColumnBatch& a, const lake::table::ColumnBatch& b) {
  if (a.schema != b.schema || a.num_rows != b.num_rows || a.columns.size() != b.columns.size()) {
    return false;
  }
  for (size_t i = 0; i < a.columns.size(); ++i) {
    const lake::table::ColumnData& x = a.columns[i];
    const lake::table::ColumnData& y = b.columns[i];
    if (x.type != y.type || x.valid != y.valid || x.strings != y.strings ||
        x.content_types != y.content_types || x.sha256s != y.sha256s || x.int64s != y.int64s ||
        x.bools != y.bools || x.float64s.size() != y.float64s.size() ||
        (!x.float64s.empty() && std::memcmp(x.float64s.data(), y.float64s.data(),
                                            x.float64s.size() * sizeof(double)) != 0)) {
      return false;
    }
  }
  return true;
}

Schema EveryType() {
  return Schema{{{"s", ColumnType::kUtf8},
                 {"i", ColumnType::kInt64},
                 {"f", ColumnType::kFloat64},
                 {"b", ColumnType::kBool},
                 {"x", ColumnType::kBinary},
                 {"t", ColumnType::kTimestamp},
                 {"v", ColumnType::kFile}}};
}

// The most rows property 5 checks whole: a forged header may claim 2^24.
constexpr uint64_t kMostRowsChecked = 4096;

void CheckFileCells(std::string_view bytes, const Schema& schema,
                    const absl::StatusOr<ColumnBatch>& fast) {
  absl::StatusOr<lake::table::FragmentBlocks> blocks =
      lake::table::FragmentBlocks::Open(bytes, schema);
  if (!blocks.ok()) {
    Check(absl::IsDataLoss(blocks.status()) && !fast.ok());
    return;
  }
  std::vector<uint32_t> rows;
  if (blocks->rows() <= kMostRowsChecked) {
    for (uint32_t row = 0; row < blocks->rows(); ++row) rows.push_back(row);
  }
  lake::table::ColumnData cells;
  for (size_t c = 0; c < schema.columns.size(); ++c) {
    if (schema.columns[c].type != ColumnType::kFile) continue;
    absl::Status s = blocks->DecodeFileCells(c, rows, &cells);
    if (fast.ok()) {
      Check(s.ok() && cells == fast->columns[c]);
    } else if (!s.ok()) {
      Check(absl::IsDataLoss(s));
    }
  }
}

void CheckDecode(std::string_view bytes, const Schema& schema) {
  absl::StatusOr<ColumnBatch> fast =
      lake::table::DecodeFragment(bytes, schema, FragmentCheck::kFast);
  absl::StatusOr<ColumnBatch> full =
      lake::table::DecodeFragment(bytes, schema, FragmentCheck::kFull);
  if (!fast.ok()) Check(absl::IsDataLoss(fast.status()));
  std::vector<bool> even(schema.columns.size());
  for (size_t i = 0; i < even.size(); i += 2) even[i] = true;
  std::vector<bool> odd = even;
  odd.flip();
  ColumnBatch parts;
  absl::Status first = lake::table::DecodeFragmentColumns(bytes, schema, even, &parts);
  absl::Status second =
      first.ok() ? lake::table::DecodeFragmentColumns(bytes, schema, odd, &parts) : first;
  if (!second.ok()) Check(absl::IsDataLoss(second));
  Check(second.ok() == fast.ok());
  if (fast.ok()) Check(Identical(parts, *fast));
  CheckFileCells(bytes, schema, fast);
  if (!full.ok()) {
    Check(absl::IsDataLoss(full.status()));
    return;
  }
  Check(fast.ok() && Identical(*fast, *full));
  Check(full->schema == schema);
  Check(full->Validate().ok());

  absl::StatusOr<std::string> encoded = lake::table::EncodeFragment(*full);
  Check(encoded.ok());
  absl::StatusOr<ColumnBatch> again =
      lake::table::DecodeFragment(*encoded, schema, FragmentCheck::kFull);
  Check(again.ok() && Identical(*again, *full));
  absl::StatusOr<std::string> encoded_again = lake::table::EncodeFragment(*again);
  Check(encoded_again.ok() && *encoded_again == *encoded);
  absl::StatusOr<lake::table::FragmentSummary> summary = lake::table::SummarizeFragment(*encoded);
  Check(summary.ok() && summary->rows == full->num_rows && summary->size_bytes == encoded->size() &&
        summary->schema == schema);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<lake::table::FragmentSummary> summary = lake::table::SummarizeFragment(bytes);
  if (summary.ok()) {
    Check(summary->size_bytes == size);
    CheckDecode(bytes, summary->schema);
  } else {
    Check(absl::IsDataLoss(summary.status()));
  }
  CheckDecode(bytes, EveryType());
  return 0;
}
