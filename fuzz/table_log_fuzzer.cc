// Fuzzes the table log's decoders (engine/table/table_log_format.h): the
// scan a writer runs over a segment to find its end, the record decoder a
// reader runs at an address a manifest names, and the address parser.
//
// The input is a segment from offset 0 (a valid one opens with the header
// of segment 1). Built with FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION, so
// checksums that do not match are not refused and the parsing behind them
// is reached.
//
// Properties checked (a violation traps):
//   1. Any input: no crash, ASan or UBSan finding; a refusal is DataLoss.
//   2. An accepted scan's records lie inside the input, back to back from
//      the header, and end at valid_end; dirty_tail is exactly "bytes that
//      are not all zero follow valid_end" (within a record header's worth).
//   3. Each record found decodes at its address, and re-encodes (kind,
//      version, payload) to the bytes it was read from, but the checksum,
//      which the fuzzing build does not compare.
//   4. Its address formats to a table path that parses back to it, and
//      its kind is one this lake knows (IsKnownTableLogRecordKind).
//   5. The input read as an address parses or is refused with DataLoss; a
//      parsed address formats back to the input.
//   6. The input past the segment header read as one record: the check
//      made piece by piece (TableLogRecordCheck, pieces of a size the input
//      picks) accepts exactly what the whole decode accepts, and refuses
//      with DataLoss; so does each record the scan found.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "engine/table/table_log_format.h"
#include "fuzz/property_check.h"

namespace {

using lake::fuzz::Check;
using lake::table::TableLogAddress;

constexpr size_t kChecksumOffset = 24;

// Property 6: the piecewise check of `record` at `address` agrees with the
// whole decode.
void CheckPiecewiseAgrees(std::string_view record, const TableLogAddress& address, size_t piece) {
  bool whole = lake::table::DecodeTableLogRecord(record, address).ok();
  absl::StatusOr<lake::table::TableLogRecordCheck> check =
      lake::table::TableLogRecordCheck::Start(record, address);
  if (!check.ok()) {
    Check(absl::IsDataLoss(check.status()) && !whole);
    return;
  }
  std::string_view payload =
      record.substr(std::min(record.size(), lake::table::kTableLogRecordHeaderBytes));
  for (size_t at = 0; at < payload.size(); at += piece) check->Add(payload.substr(at, piece));
  absl::Status finished = check->Finish();
  Check(finished.ok() == whole);
  Check(finished.ok() || absl::IsDataLoss(finished));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);

  absl::StatusOr<TableLogAddress> parsed = lake::table::ParseTableLogAddress(input);
  if (parsed.ok()) {
    Check(lake::table::FormatTableLogAddress(*parsed) == input);
  } else {
    Check(absl::IsDataLoss(parsed.status()));
  }

  const size_t piece = 1 + size % 61;
  if (size >= lake::table::kTableLogSegmentHeaderBytes) {
    std::string_view record = input.substr(lake::table::kTableLogSegmentHeaderBytes);
    uint64_t payload_bytes = record.size() > lake::table::kTableLogRecordHeaderBytes
                                 ? record.size() - lake::table::kTableLogRecordHeaderBytes
                                 : 1;
    CheckPiecewiseAgrees(record, TableLogAddress{1, lake::table::kTableLogSegmentHeaderBytes,
                                                 payload_bytes},
                         piece);
  }

  absl::StatusOr<lake::table::TableLogScan> scan =
      lake::table::ScanTableLogRecords(input, 1, lake::table::kTableLogSegmentHeaderBytes);
  if (!scan.ok()) {
    Check(absl::IsDataLoss(scan.status()) || absl::IsInvalidArgument(scan.status()));
    return 0;
  }
  uint64_t expected = lake::table::kTableLogSegmentHeaderBytes;
  for (const TableLogAddress& address : scan->records) {
    Check(address.segment == 1 && address.offset == expected);
    uint64_t length = lake::table::TableLogRecordBytes(address.payload_bytes);
    Check(address.offset + length <= input.size());
    std::string_view original = input.substr(address.offset, length);
    absl::StatusOr<lake::table::TableLogRecord> record =
        lake::table::DecodeTableLogRecord(original, address);
    Check(record.ok());
    CheckPiecewiseAgrees(original, address, piece);
    // Only the kinds this lake knows pass (table_log_format.h).
    Check(lake::table::IsKnownTableLogRecordKind(static_cast<uint8_t>(record->kind)));
    std::string again;
    lake::table::AppendTableLogRecord(1, *record, &again);
    Check(again.size() == original.size());
    Check(again.substr(0, kChecksumOffset) == original.substr(0, kChecksumOffset));
    Check(again.substr(kChecksumOffset + 8) == original.substr(kChecksumOffset + 8));
    std::string path = lake::table::FormatTableLogAddress(address);
    absl::StatusOr<TableLogAddress> back = lake::table::ParseTableLogAddress(path);
    Check(back.ok() && *back == address);
    expected += length;
  }
  Check(scan->valid_end == expected);
  std::string_view after = input.substr(scan->valid_end, lake::table::kTableLogRecordHeaderBytes);
  bool zero = true;
  for (char c : after) zero = zero && c == 0;
  Check(scan->dirty_tail == !zero);
  return 0;
}
