// Fuzzes lake::table::DecodeDerivedReferenceDelta, the reader of the
// reference delta of format 4 (or 3) that names an append's fragment record
// (engine/table/derived_reference_delta_format.h).
//
// Properties checked (a violation traps):
//   1. Any input: no crash, leak, ASan or UBSan finding; every refusal is
//      DataLoss.
//   2. An accepted record re-encodes to exactly the input.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "engine/table/derived_reference_delta_format.h"
#include "fuzz/property_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<lake::table::DerivedReferenceDelta> decoded =
      lake::table::DecodeDerivedReferenceDelta(bytes);
  if (!decoded.ok()) {
    lake::fuzz::Check(absl::IsDataLoss(decoded.status()));
    return 0;
  }
  absl::StatusOr<std::string> encoded = lake::table::EncodeDerivedReferenceDelta(*decoded);
  lake::fuzz::Check(encoded.ok() && *encoded == bytes);
  return 0;
}
