// Fuzzes lake::spill::DecodeRun, which drives the RunDecoder that reads
// spill runs back during a sort's merge (spill/run_decoder.h).
//
// Built with FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION, so checksums that do
// not match are not refused and the block and record parsing behind them
// is reached.
//
// Properties checked (a violation traps):
//   1. Any input: no crash, leak, ASan or UBSan finding; every refusal is
//      DataLoss.
//   2. An accepted run's records are strictly ascending and each fits its
//      run's blocks (MaxRecordBytes of the header's block size).
//   3. The records re-encode with the run's block size; the new bytes
//      decode to the same records, and encoding is deterministic.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz/property_check.h"
#include "spill/run_decoder.h"
#include "spill/run_encoder.h"
#include "spill/run_format.h"

namespace {

// Bounds what one input may make the decoder allocate (two blocks).
constexpr size_t kMaxFuzzBlockBytes = 64 << 10;

using lake::fuzz::Check;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<std::vector<std::string>> records =
      lake::spill::DecodeRun(bytes, kMaxFuzzBlockBytes);
  if (!records.ok()) {
    Check(absl::IsDataLoss(records.status()));
    return 0;
  }
  absl::StatusOr<lake::spill::RunHeader> header =
      lake::spill::DecodeRunHeader(bytes, kMaxFuzzBlockBytes);
  Check(header.ok());
  for (size_t i = 0; i < records->size(); ++i) {
    Check((*records)[i].size() <= lake::spill::MaxRecordBytes(header->block_bytes));
    if (i > 0) Check((*records)[i - 1] < (*records)[i]);
  }
  absl::StatusOr<std::string> encoded = lake::spill::EncodeRun(*records, header->block_bytes);
  Check(encoded.ok());
  absl::StatusOr<std::vector<std::string>> again =
      lake::spill::DecodeRun(*encoded, kMaxFuzzBlockBytes);
  Check(again.ok() && *again == *records);
  absl::StatusOr<std::string> encoded_again =
      lake::spill::EncodeRun(*records, header->block_bytes);
  Check(encoded_again.ok() && *encoded_again == *encoded);
  return 0;
}
