// One event as one JSON object: the JSONL form `lake events … append
// FILE.jsonl` reads and `lake events events ROOT` prints (CLI.md).
//
//   {"event_id":"5c1e…","item_id":"r/map:1","root_item_id":"r",
//    "parent_item_id":"r","item_seq":2,"attempt":0,"event_type":"FIELD_SET",
//    "field_name":"score","value_kind":"int","value_i64":7,
//    "event_ts":1700000000000000,"schema_version":2}
//
// Keys are the columns of EVENT-LOG.md and enums their wire names (event.h).
// A blob is "blob_inline_base64" (the inline bytes, RFC 4648 base64 with
// padding) or "blob_location" (a DataLocation object, data_location_json.h).
// value_json and query_tags_json are JSON strings holding the JSON text, so
// the text is kept byte for byte.
//
// Output (EventToJson): one line, no whitespace, keys in the order above
// (EVENT-LOG.md's column order). A column is written when it differs from
// its default ("", 0, false, unset), and the value column of the event's
// value_kind always is; event_id, item_id, root_item_id, item_seq, attempt,
// event_type, event_ts and schema_version are always written.
//
// Input (ParseEventJson): any key order and JSON whitespace. An omitted key,
// or null, leaves the column at its default, except that item_id, item_seq
// and event_type are required. event_id, root_item_id and parent_item_id
// are derived (FillDerivedIds); when given, each must equal its derived
// value. schema_version defaults to 2 and refuses any other value. Refused
// with InvalidArgument: text that is not one JSON object, an unknown or
// duplicate key, a value of the wrong JSON type, an integer outside its
// column's range (1.0 and 1e3 are not integers), an unknown wire name,
// base64 that is not in canonical form, and an event that fails
// ValidateEventRecord (event_record_format.h), so every accepted event can
// be appended to a log as it is.
#ifndef LAKE_ENGINE_EVENTS_EVENT_JSON_H_
#define LAKE_ENGINE_EVENTS_EVENT_JSON_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/events/event.h"

namespace lake::events {

// The longest JSON object one event may take (one JSONL line); longer input
// is refused unread. It matches kMaxEventValueBytes, the record's bound on
// one value.
inline constexpr size_t kMaxEventJsonBytes = size_t{16} << 20;

// True when `text` opens more than `max_depth` JSON arrays or objects at
// once (brackets inside strings do not count): a guard run before parsing
// text whose nesting the parser would otherwise follow.
bool JsonNestsDeeperThan(std::string_view text, size_t max_depth);

// The event `one_object` spells, filled and validated as the note above
// says. InvalidArgument naming the key and what is wrong otherwise.
absl::StatusOr<Event> ParseEventJson(std::string_view one_object);

// The events of a JSONL text: one object per line, lines split at "\n" (a
// "\r" before it is dropped), blank lines skipped. The first error is
// returned as InvalidArgument "line N: ..." with N counted from 1.
absl::StatusOr<std::vector<Event>> ParseEventJsonLines(std::string_view text);

// The one-line JSON object of `event`. Precondition: ValidateEventRecord
// (event) is OK; then ParseEventJson gives back an equal event.
std::string EventToJson(const Event& event);

}  // namespace lake::events

#endif  // LAKE_ENGINE_EVENTS_EVENT_JSON_H_
