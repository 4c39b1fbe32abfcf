// Fuzzes lake::gc::DecodeApplyProgress, the reader of the durable progress
// of an apply (engine/gc/apply_progress_format.h), which says where a
// resumed apply continues deleting.
//
// Built with FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION, so a digest that
// does not match is not refused and the parser behind it is reached.
//
// Properties checked (a violation traps):
//   1. Any input: no crash, leak, ASan or UBSan finding; every refusal is
//      DataLoss.
//   2. An accepted record is valid (ValidateApplyProgress): an apply in
//      progress names its next page, a finished or voided one none.
//   3. It encodes again to a record that decodes to the same value.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "engine/gc/apply_progress_format.h"
#include "fuzz/property_check.h"

namespace {

using lake::fuzz::Check;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<lake::gc::ApplyProgress> progress = lake::gc::DecodeApplyProgress(text);
  if (!progress.ok()) {
    Check(absl::IsDataLoss(progress.status()));
    return 0;
  }
  Check(lake::gc::ValidateApplyProgress(*progress).ok());
  Check((progress->state == lake::gc::ApplyProgress::State::kApplying) ==
        !progress->next_page_sha256.empty());
  absl::StatusOr<std::string> encoded = lake::gc::EncodeApplyProgress(*progress);
  Check(encoded.ok());
  absl::StatusOr<lake::gc::ApplyProgress> again = lake::gc::DecodeApplyProgress(*encoded);
  Check(again.ok() && *again == *progress);
  return 0;
}
