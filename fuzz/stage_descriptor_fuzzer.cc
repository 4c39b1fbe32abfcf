// Fuzzes the stage descriptor parser and the decoders of the root's two
// records (engine/stage_descriptor.h, engine/root_stage_record.h,
// engine/root_format_record.h). Properties (a violation traps):
//   - none crashes, whatever the input;
//   - an accepted descriptor serialises to canonical text that parses back
//     equal and serialises to the same bytes (a fixed point);
//   - an accepted stage record re-encodes to a record that decodes equal;
//   - an accepted format record names a positive version and re-encodes to
//     a record that decodes to the same version.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "engine/root_format_record.h"
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

  absl::StatusOr<int64_t> format = lake::DecodeRootFormatRecord(text);
  if (format.ok()) {
    if (*format < 1) __builtin_trap();
    absl::StatusOr<int64_t> back = lake::DecodeRootFormatRecord(lake::EncodeRootFormatRecord(*format));
    if (!back.ok() || *back != *format) __builtin_trap();
  }
  return 0;
}
