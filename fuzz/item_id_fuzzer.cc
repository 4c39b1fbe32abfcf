// Fuzzes lake::events::ParseItemId, the reader of the materialized item
// path of the event log (EVENT-LOG.md, "Identity").
//
// Properties checked (a violation traps):
//   1. Any input: no crash, ASan or UBSan finding.
//   2. Rejected input: the error is InvalidArgument.
//   3. Accepted input: the text is canonical — FormatItemId(parsed) gives
//      back the input byte for byte — and it validates.
//   4. Accepted input: the parent (if any) is a prefix of the text ending
//      before the last '/', parses, and has the same root.
//   5. ValidateItemIdText gives ParseItemId's verdict and error, and for an
//      accepted text RootTextOf / ParentTextOf spell the root and parent.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "engine/events/item_id.h"
#include "fuzz/property_check.h"

namespace {

using lake::fuzz::Check;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<lake::events::ItemId> parsed = lake::events::ParseItemId(text);
  Check(lake::events::ValidateItemIdText(text) == parsed.status());
  if (!parsed.ok()) {
    Check(absl::IsInvalidArgument(parsed.status()));
    return 0;
  }
  Check(lake::events::FormatItemId(*parsed) == text);
  Check(lake::events::RootTextOf(text) == parsed->root);
  Check(lake::events::ValidateItemId(*parsed).ok());
  std::optional<lake::events::ItemId> parent = lake::events::ParentItemId(*parsed);
  if (!parent) {
    Check(text.find('/') == std::string_view::npos);
    Check(lake::events::ParentTextOf(text).empty());
    return 0;
  }
  std::string parent_text = lake::events::FormatItemId(*parent);
  Check(lake::events::ParentTextOf(text) == parent_text);
  Check(parent_text == text.substr(0, text.rfind('/')));
  absl::StatusOr<lake::events::ItemId> reparsed =
      lake::events::ParseItemId(parent_text);
  Check(reparsed.ok() && *reparsed == *parent);
  Check(parent->root == parsed->root);
  return 0;
}
