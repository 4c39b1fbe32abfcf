// Fuzzes the collector's small sealed records that bind a deletion plan
// to its root: lake::gc::DecodePlanManifest (engine/gc/plan_manifest_format.h)
// and, for inputs whose first byte is '#', lake::gc::DecodeRootIdentityRecord
// on the rest (engine/gc/root_identity_record.h: the owner marker read from
// a stage that other writers share).
//
// Built with FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION, so a digest that
// does not match is not refused and the parser behind it is reached.
//
// Properties checked (a violation traps):
//   1. Any input: no crash, leak, ASan or UBSan finding; every refusal is
//      DataLoss.
//   2. An accepted manifest is valid (ValidatePlanManifest) and encodes
//      again to a manifest that decodes to the same value.
//   3. An accepted root identity record encodes again to a record naming
//      the same root id.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "engine/gc/plan_manifest_format.h"
#include "engine/gc/root_identity_record.h"
#include "fuzz/property_check.h"

namespace {

using lake::fuzz::Check;

void FuzzRootIdentity(std::string_view text) {
  absl::StatusOr<std::string> id = lake::gc::DecodeRootIdentityRecord(text, "the marker");
  if (!id.ok()) {
    Check(absl::IsDataLoss(id.status()));
    return;
  }
  absl::StatusOr<std::string> again =
      lake::gc::DecodeRootIdentityRecord(lake::gc::EncodeRootIdentityRecord(*id), "the marker");
  Check(again.ok() && *again == *id);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  if (!text.empty() && text[0] == '#') {
    FuzzRootIdentity(text.substr(1));
    return 0;
  }
  absl::StatusOr<lake::gc::PlanManifest> manifest = lake::gc::DecodePlanManifest(text);
  if (!manifest.ok()) {
    Check(absl::IsDataLoss(manifest.status()));
    return 0;
  }
  Check(lake::gc::ValidatePlanManifest(*manifest).ok());
  absl::StatusOr<std::string> encoded = lake::gc::EncodePlanManifest(*manifest);
  Check(encoded.ok());
  absl::StatusOr<lake::gc::PlanManifest> again = lake::gc::DecodePlanManifest(*encoded);
  Check(again.ok() && *again == *manifest);
  return 0;
}
