// Fuzzes lake::gc::DecodePlanPage, the reader of a deletion plan's pages
// (engine/gc/plan_page_format.h): apply reads them before it deletes.
//
// Built with FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION, so a digest that
// does not match is not refused and the parser behind it is reached.
//
// Properties checked (a violation traps):
//   1. Any input: no crash, leak, ASan or UBSan finding; every refusal is
//      DataLoss.
//   2. An accepted page has 1..kMaxPlanPageEntries entries with valid uris
//      in strictly ascending order, and a canonical plan id.
//   3. Accepted input is canonical: encoding the decoded page gives back
//      the input's bytes before the digest exactly.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "engine/gc/plan_page_format.h"
#include "fuzz/property_check.h"

namespace {

using lake::fuzz::Check;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  std::string digest;
  absl::StatusOr<lake::gc::PlanPage> page = lake::gc::DecodePlanPage(bytes, &digest);
  if (!page.ok()) {
    Check(absl::IsDataLoss(page.status()));
    return 0;
  }
  Check(!page->entries.empty() && page->entries.size() <= lake::gc::kMaxPlanPageEntries);
  for (size_t i = 0; i < page->entries.size(); ++i) {
    Check(lake::gc::ValidateCandidateUri(page->entries[i].uri).ok());
    if (i > 0) Check(page->entries[i - 1].uri < page->entries[i].uri);
  }
  absl::StatusOr<lake::gc::EncodedPlanPage> encoded = lake::gc::EncodePlanPage(*page);
  Check(encoded.ok());
  Check(encoded->bytes.size() == size);
  Check(encoded->bytes.substr(0, size - 32) == bytes.substr(0, size - 32));
  Check(encoded->sha256 == digest);
  return 0;
}
