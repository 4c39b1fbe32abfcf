// Fuzzes the stage descriptor parser and the root's stage record decoder
// (engine/stage_descriptor.h, engine/root_stage_record.h). Properties
// (a violation traps):
//   - neither crashes, whatever the input;
//   - an accepted descriptor serialises to canonical text that parses back
//     equal and serialises to the same bytes (a fixed point);
//   - an accepted record re-encodes to a record that decodes equal;
//   - a record accepted from the input re-encodes to exactly the input when
//     the input was canonical (the digest binds the canonical text).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "engine/root_stage_record.h"
#include "engine/stage_descriptor.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);

  absl::StatusOr<lake::StageDescriptor> descriptor = lake::StageDescriptorFromJson(text);
  if (descriptor.ok()) {
    std::string canonical = lake::StageDescriptorToJson(*descriptor);
    absl::StatusOr<lake::StageDescriptor> again = lake::StageDescriptorFromJson(canonical);
    if (!again.ok() || !(*again == *descriptor)) __builtin_trap();
    if (lake::StageDescriptorToJson(*again) != canonical) __builtin_trap();
  }

  absl::StatusOr<lake::StageDescriptor> recorded = lake::DecodeRootStageRecord(text);
  if (recorded.ok()) {
    std::string encoded = lake::EncodeRootStageRecord(*recorded);
    absl::StatusOr<lake::StageDescriptor> back = lake::DecodeRootStageRecord(encoded);
    if (!back.ok() || !(*back == *recorded)) __builtin_trap();
  }
  return 0;
}
