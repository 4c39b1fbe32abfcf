// Fuzzes lake::table::DecodeReferenceSnapshot, the reader of the reference
// snapshots an expiry writes (engine/table/reference_snapshot_format.h).
//
// Built with FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION, so checksums and
// digests that do not match are not refused and the parsers behind them are
// reached.
//
// Properties checked (a violation traps):
//   1. Any input: no crash, leak, ASan or UBSan finding; every refusal is
//      DataLoss.
//   2. An accepted snapshot is canonical (sorted, no duplicates, version
//      >= 1) and re-encodes to the input's length; the new bytes decode to
//      the same snapshot, with the encoder's digest.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "engine/table/reference_snapshot_format.h"
#include "fuzz/property_check.h"

namespace {

using lake::fuzz::Check;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  std::string digest;
  absl::StatusOr<lake::table::ReferenceSnapshot> decoded =
      lake::table::DecodeReferenceSnapshot(bytes, &digest);
  if (!decoded.ok()) {
    Check(absl::IsDataLoss(decoded.status()));
    return 0;
  }
  Check(decoded->version >= 1);
  Check(std::adjacent_find(decoded->references.begin(), decoded->references.end(),
                           [](const lake::DataLocation& a, const lake::DataLocation& b) {
                             return !lake::table::ReferenceLess(a, b);
                           }) == decoded->references.end());
  absl::StatusOr<lake::table::EncodedReferenceSnapshot> encoded =
      lake::table::EncodeReferenceSnapshot(*decoded);
  Check(encoded.ok());
  Check(encoded->bytes.size() == size);
  std::string again_digest;
  absl::StatusOr<lake::table::ReferenceSnapshot> again =
      lake::table::DecodeReferenceSnapshot(encoded->bytes, &again_digest);
  Check(again.ok() && *again == *decoded);
  Check(again_digest == encoded->digest);
  return 0;
}
