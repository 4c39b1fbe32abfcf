// The JSON form of the event log's derived reads (fold.h): what the C ABI
// returns and `lake events … fold / tree / roots / failures / events` print
// (CLI.md). Every function returns compact JSON (no whitespace) with keys in
// the fixed order below, so scripts can rely on it. Absent values — an
// unset optional, an empty "unset" string — are `null`.
//
// Folded item:
//   {"item_id","root_item_id","parent_item_id" (null for a root),
//    "status" ("running" | "completed" | "filtered" | "failed"),
//    "last_attempt","next_item_seq","writer_epoch",
//    "query_tags" (the parsed JSON, the text when it does not parse, null
//                  when empty),
//    "created_by" (null, or {"step_name","step_index","step_kind",
//                  "enclosing_step","selector_step"}),
//    "fields" ({NAME: VALUE} for a FIELD_SET field,
//              {NAME: [VALUE, …]} for a FIELD_APPEND field, by name),
//    "completed_steps" ([{"step_name","step_index","step_kind","attempt",
//                        "item_seq"}, …] in item_seq order),
//    "open_frames" (same keys, outermost first),
//    "failure" (null, or a failure object as below)}
//
// A field VALUE is the plain value, as `lake query --json` prints values:
//   int, float -> number; bool; str -> string;
//   json -> the parsed JSON (its text as a string when it does not parse
//           or nests deeper than kMaxRenderedJsonDepth);
//   blob -> {"blob":{"inline_bytes":N,"sha256":HEX}} for inline bytes
//           (the bytes themselves are not shown), or
//           {"blob":{"location":DATALOCATION}} for an offloaded blob.
// field_type is not shown: it is an opaque caller annotation (stream_writer.h)
// that `lake events events ROOT` prints with the raw events.
//
// Tree:     {"root": NODE | null, "orphans": [NODE, …]}
//           NODE = {"item": FOLDED ITEM, "created_by_step", "selector_step",
//                   "children": [NODE, …]}
// Roots:    {"roots": [{"item_id","status"}, …] by item_id,
//            "counts": {"running","completed","filtered","failed"}}
// Failures: [{"item_id","item_seq","attempt","step_name","step_index",
//             "error_type","error_dump","traceback","event_ts"}, …]
// Events:   EventToJson (event_json.h) of each event, one per line, each
//           line ending in "\n".
//
// Text that is not valid UTF-8 (possible only in an item built in memory;
// the record format refuses it) is written with U+FFFD in its place. No
// function throws.
#ifndef LAKE_ENGINE_EVENTS_FOLD_JSON_H_
#define LAKE_ENGINE_EVENTS_FOLD_JSON_H_

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "engine/events/event.h"
#include "engine/events/fold.h"

namespace lake::events {

// Embedded JSON text (value_json, query_tags_json) nesting deeper than this
// is shown as its text: rendering recurses once per level, and a 16 MiB
// value could otherwise nest millions deep. No real tag set or value comes
// near it.
inline constexpr size_t kMaxRenderedJsonDepth = 256;

std::string FoldedItemToJson(const FoldedItem& item);
// "null" when `item` is empty (a fold of an unknown item).
std::string FoldedItemOrNullToJson(const std::optional<FoldedItem>& item);
std::string ItemTreeToJson(const ItemTree& tree);
std::string RootStatusesToJson(const RootStatuses& roots);
std::string FailuresToJson(const std::vector<FailureRecord>& failures);
// "" for no events.
std::string EventsToJsonLines(const std::vector<Event>& events);

}  // namespace lake::events

#endif  // LAKE_ENGINE_EVENTS_FOLD_JSON_H_
