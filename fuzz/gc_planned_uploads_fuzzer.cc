// Fuzzes lake::gc::DecodePlannedUploads, the reader of the multipart
// uploads a deletion plan aborts (engine/gc/planned_uploads_format.h).
//
// Built with FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION, so a digest that
// does not match is not refused and the parser behind it is reached.
//
// Properties checked (a violation traps):
//   1. Any input: no crash, leak, ASan or UBSan finding; every refusal is
//      DataLoss.
//   2. An accepted record is valid (ValidatePlannedUploads): at most
//      kMaxPlannedUploads uploads, strictly ascending by (uri, upload id).
//   3. It encodes again to a record that decodes to the same value.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "engine/gc/planned_uploads_format.h"
#include "fuzz/property_check.h"

namespace {

using lake::fuzz::Check;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<lake::gc::PlannedUploads> planned = lake::gc::DecodePlannedUploads(text);
  if (!planned.ok()) {
    Check(absl::IsDataLoss(planned.status()));
    return 0;
  }
  Check(lake::gc::ValidatePlannedUploads(*planned).ok());
  Check(planned->uploads.size() <= lake::gc::kMaxPlannedUploads);
  absl::StatusOr<std::string> encoded = lake::gc::EncodePlannedUploads(*planned);
  Check(encoded.ok());
  absl::StatusOr<lake::gc::PlannedUploads> again = lake::gc::DecodePlannedUploads(*encoded);
  Check(again.ok() && *again == *planned);
  return 0;
}
