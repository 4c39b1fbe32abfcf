// Item ids of the data-generation event log (EVENT-LOG.md, "Identity"): a
// materialized path naming a root item or a fan-out descendant of one.
//
//   item_id  = root *( "/" step ":" index )
//   root     = 1..256 bytes, each 0x21..0x7E except "/"
//   step     = 1..128 bytes, each 0x21..0x7E except "/" and ":"
//   index    = decimal u32 without leading zeros ("0", "7", "4294967295")
//
// at most 64 step segments and 4096 bytes in all. The grammar has exactly
// one spelling per ItemId, so FormatItemId(ParseItemId(t)) == t for every
// accepted t, and two ids are equal iff their texts are.
//
// Invariant: an ItemId produced by ParseItemId or ChildItemId satisfies the
// grammar; FormatItemId of any other value is only meaningful after
// ValidateItemId.
#ifndef LAKE_ENGINE_EVENTS_ITEM_ID_H_
#define LAKE_ENGINE_EVENTS_ITEM_ID_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace lake::events {

// Bounds keep an id usable as a key and a log line readable; a pipeline
// deeper than 64 fan-outs is a bug, not a workload.
inline constexpr size_t kMaxRootItemBytes = 256;
inline constexpr size_t kMaxStepNameBytes = 128;
inline constexpr size_t kMaxItemDepth = 64;
inline constexpr size_t kMaxItemIdBytes = 4096;

// One fan-out step on the path: the child `index` of step `step`.
struct ItemPathSegment {
  std::string step;
  uint32_t index = 0;

  bool operator==(const ItemPathSegment&) const = default;
};

struct ItemId {
  std::string root;
  std::vector<ItemPathSegment> path;  // empty for a root item

  bool is_root() const { return path.empty(); }
  bool operator==(const ItemId&) const = default;
};

// The id spelled by `text`. InvalidArgument naming the text and the first
// violation of the grammar above.
absl::StatusOr<ItemId> ParseItemId(std::string_view text);

// OK when `text` spells an id: ParseItemId without building the ItemId
// (the same verdicts and errors).
absl::Status ValidateItemIdText(std::string_view text);

// Of the text of a valid id (one ValidateItemIdText accepted): its root's
// text and its parent's text ("" for a root item), as views into it. One
// spelling per id makes these its prefixes before the first and the last
// '/'.
std::string_view RootTextOf(std::string_view valid_item_id);
std::string_view ParentTextOf(std::string_view valid_item_id);

// OK when `id` satisfies the grammar; InvalidArgument naming the part that
// does not.
absl::Status ValidateItemId(const ItemId& id);

// The canonical text of a valid id.
std::string FormatItemId(const ItemId& id);

// The root item the id descends from (itself for a root).
ItemId RootItemId(const ItemId& id);

// The item that created `id` by fan-out; nullopt for a root item.
std::optional<ItemId> ParentItemId(const ItemId& id);

// The child `index` of `parent` created by step `step`. InvalidArgument when
// the step name or the resulting depth or length break the grammar.
absl::StatusOr<ItemId> ChildItemId(const ItemId& parent, std::string_view step,
                                   uint32_t index);

// Text-level forms of the derivations, as the event columns hold them: the
// root's text, and the parent's text or "" for a root item. InvalidArgument
// when `item_id` does not parse.
absl::StatusOr<std::string> RootItemIdText(std::string_view item_id);
absl::StatusOr<std::string> ParentItemIdText(std::string_view item_id);

}  // namespace lake::events

#endif  // LAKE_ENGINE_EVENTS_ITEM_ID_H_
