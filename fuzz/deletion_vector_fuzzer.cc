// Fuzzes lake::table::DecodeDeletionVector, the reader of the deletion
// vector files a scan opens beside a fragment
// (engine/table/deletion_vector_format.h).
//
// Built with FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION, so a digest that
// does not match is not refused and the parser behind it is reached.
//
// Properties checked (a violation traps):
//   1. Any input: no crash, leak, ASan or UBSan finding; every refusal is
//      DataLoss.
//   2. An accepted vector is valid (ValidateDeletionVector): rows strictly
//      ascending, each below the fragment's row count, at least one.
//   3. Accepted input is canonical: encoding the decoded vector gives back
//      the input's bytes before the digest exactly, and those bytes decode
//      to the same vector.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "engine/table/byte_codec.h"
#include "engine/table/deletion_vector_format.h"
#include "fuzz/property_check.h"

namespace {

using lake::fuzz::Check;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<lake::table::DeletionVector> decoded = lake::table::DecodeDeletionVector(bytes);
  if (!decoded.ok()) {
    Check(absl::IsDataLoss(decoded.status()));
    return 0;
  }
  Check(lake::table::ValidateDeletionVector(*decoded).ok());
  Check(!decoded->deleted_rows.empty());
  for (size_t i = 0; i < decoded->deleted_rows.size(); ++i) {
    Check(decoded->deleted_rows[i] < decoded->fragment_rows);
    if (i > 0) Check(decoded->deleted_rows[i] > decoded->deleted_rows[i - 1]);
  }

  absl::StatusOr<std::string> encoded = lake::table::EncodeDeletionVector(*decoded);
  Check(encoded.ok());
  Check(encoded->size() == size);
  size_t body = size - lake::table::kChecksum128Bytes;
  Check(encoded->substr(0, body) == bytes.substr(0, body));
  absl::StatusOr<lake::table::DeletionVector> again = lake::table::DecodeDeletionVector(*encoded);
  Check(again.ok() && *again == *decoded);
  return 0;
}
