// Fuzzes lake::gc::DecodePinRecord, the reader of the pin records garbage
// collection reads (engine/gc/pin_record_format.h).
//
// Built with FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION, so a digest that
// does not match is not refused and the fields behind it are reached.
//
// Properties checked (a violation traps):
//   1. Any input: no crash, leak, ASan or UBSan finding; every refusal is
//      DataLoss.
//   2. An accepted record re-encodes to the input but for its digest, and
//      the re-encoding decodes to the same record.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "engine/gc/pin_record_format.h"
#include "fuzz/property_check.h"

namespace {

using lake::fuzz::Check;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<lake::gc::PinRecord> decoded = lake::gc::DecodePinRecord(bytes);
  if (!decoded.ok()) {
    Check(absl::IsDataLoss(decoded.status()));
    return 0;
  }
  std::string encoded = lake::gc::EncodePinRecord(*decoded);
  Check(encoded.size() == size);
  Check(std::string_view(encoded).substr(0, size - 8) == bytes.substr(0, size - 8));
  absl::StatusOr<lake::gc::PinRecord> again = lake::gc::DecodePinRecord(encoded);
  Check(again.ok() && again->uri == decoded->uri &&
        again->pinned_unix_micros == decoded->pinned_unix_micros);
  return 0;
}
