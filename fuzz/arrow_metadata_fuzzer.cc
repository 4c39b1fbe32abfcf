// Fuzzes the decoder of Arrow's binary key/value metadata
// (engine/arrow/arrow_metadata.h), which reads what another library put in
// an ArrowSchema.
//
// Properties checked (a violation traps):
//   - DecodeArrowMetadata never reads past the input (ASan) and refuses or
//     accepts without crashing;
//   - when it accepts, the encoding is exact: EncodeArrowMetadata of the
//     pairs reproduces the input byte for byte (no slack, no padding);
//   - when it accepts, ArrowMetadataExtent, walking the same length fields
//     from the raw pointer, measures exactly the input's size.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "engine/arrow/arrow_metadata.h"
#include "fuzz/property_check.h"

namespace {

using lake::fuzz::Check;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // A copy of exactly `size` bytes, so ASan sees any read past the end.
  std::string bytes(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<lake::arrow::ArrowMetadata> pairs =
      lake::arrow::DecodeArrowMetadata(std::string_view(bytes));
  if (!pairs.ok()) return 0;
  Check(lake::arrow::EncodeArrowMetadata(*pairs) == bytes);
  absl::StatusOr<size_t> extent = lake::arrow::ArrowMetadataExtent(bytes.data());
  Check(extent.ok() && *extent == size);
  return 0;
}
