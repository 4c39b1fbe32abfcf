// Fuzzes lake::DecodeUploadCheckpoint, the reader of a resumable S3
// upload's checkpoint (engine/s3/upload_checkpoint_format.h), which decides
// what a resumed upload trusts.
//
// Built with FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION, so a digest that
// does not match is not refused and the parser behind it is reached.
//
// Properties checked (a violation traps):
//   1. Any input: no crash, leak, ASan or UBSan finding; every refusal is
//      DataLoss.
//   2. An accepted checkpoint is valid (ValidateUploadCheckpoint): a
//      resumable part size, a window in range, parts inside the source.
//   3. It encodes again to bytes that decode to the same value.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "engine/s3/upload_checkpoint_format.h"
#include "fuzz/property_check.h"

namespace {

using lake::fuzz::Check;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<lake::UploadCheckpoint> checkpoint = lake::DecodeUploadCheckpoint(bytes);
  if (!checkpoint.ok()) {
    Check(absl::IsDataLoss(checkpoint.status()));
    return 0;
  }
  Check(lake::ValidateUploadCheckpoint(*checkpoint).ok());
  Check(lake::IsResumablePartBytes(checkpoint->part_bytes));
  absl::StatusOr<std::string> encoded = lake::EncodeUploadCheckpoint(*checkpoint);
  Check(encoded.ok());
  absl::StatusOr<lake::UploadCheckpoint> again = lake::DecodeUploadCheckpoint(*encoded);
  Check(again.ok() && *again == *checkpoint);
  return 0;
}
