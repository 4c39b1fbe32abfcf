// One event of the data-generation event log (EVENT-LOG.md, schema version
// 2): every column the design lists, the deterministic event_id, and the
// per-type rules an event must satisfy before it is written or after it is
// read.
//
// Invariant of a valid Event (ValidateEvent): item_id parses, root_item_id
// and parent_item_id are the values derived from it, event_id is
// DeriveEventId of the event, 1 <= item_seq <= kMaxItemSeq, schema_version == 2,
// and the columns used by the event's type are set while the others are empty.
#ifndef LAKE_ENGINE_EVENTS_EVENT_H_
#define LAKE_ENGINE_EVENTS_EVENT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "engine/data_location.h"

namespace lake::events {

// The only schema this code reads or writes; anything else is refused.
inline constexpr uint32_t kEventSchemaVersion = 2;
// The largest item_seq: the next one (item_seq + 1, what a resumed writer
// stamps and a fold reports as next_item_seq) must not wrap to 0.
inline constexpr uint64_t kMaxItemSeq = UINT64_MAX - 1;

enum class EventType : uint8_t {
  kItemCreated = 1,
  kStepStarted = 2,
  kStepCompleted = 3,
  kFieldSet = 4,
  kFieldAppend = 5,
  kFailed = 6,
  kTerminal = 7,
};

enum class StepKind : uint8_t {
  kRoot = 1,
  kLeaf = 2,
  kSequence = 3,
  kLoop = 4,
  kMapReduce = 5,
  kBranch = 6,
  kSubPipeline = 7,
  kConditional = 8,
  kRouter = 9,
};

enum class ValueKind : uint8_t {
  kInt = 1,
  kFloat = 2,
  kBool = 3,
  kStr = 4,
  kJson = 5,
  kBlob = 6,
};

enum class ItemStatus : uint8_t {
  kRunning = 1,
  kCompleted = 2,
  kFiltered = 3,
  kFailed = 4,
};

// Wire names ("ITEM_CREATED", "MapReduce", "blob", "filtered") and back.
// The parsers return nullopt for any other spelling.
std::string_view EventTypeName(EventType type);
std::optional<EventType> ParseEventType(std::string_view name);
std::string_view StepKindName(StepKind kind);
std::optional<StepKind> ParseStepKind(std::string_view name);
std::string_view ValueKindName(ValueKind kind);
std::optional<ValueKind> ParseValueKind(std::string_view name);
std::string_view ItemStatusName(ItemStatus status);
std::optional<ItemStatus> ParseItemStatus(std::string_view name);

// Every kind but Leaf drives other steps; only drivers emit STEP_STARTED.
bool IsDriverStep(StepKind kind);

struct Event {
  std::string event_id;
  std::string item_id;
  std::string root_item_id;
  std::string parent_item_id;  // "" for a root item
  uint64_t item_seq = 0;       // 1..kMaxItemSeq, strictly increasing per item
  uint32_t attempt = 0;
  std::string checkpoint_id;
  EventType event_type = EventType::kItemCreated;
  // Step provenance ("" / nullopt when the event is not about a step).
  std::string step_name;
  std::optional<uint32_t> step_index;
  std::optional<StepKind> step_kind;
  std::string enclosing_step;
  std::string selector_step;
  std::string run_id;
  std::string writer_epoch;
  // The field and its value (FIELD_SET / FIELD_APPEND only).
  std::string field_name;
  std::string field_type;
  uint32_t codec_version = 0;
  std::optional<ValueKind> value_kind;
  int64_t value_i64 = 0;
  double value_f64 = 0;
  bool value_bool = false;
  std::string value_str;
  std::string value_json;
  // A blob value: inline bytes, or the DataLocation of a managed object.
  std::string blob_inline;
  std::optional<DataLocation> blob_location;
  uint64_t payload_size = 0;
  std::string payload_checksum;  // lowercase hex sha256 of the payload, or ""
  std::string query_tags_json;
  std::optional<ItemStatus> status;
  std::string error_type;
  std::string error_dump;
  std::string traceback;
  int64_t event_ts = 0;  // UTC microseconds since the Unix epoch
  uint32_t schema_version = kEventSchemaVersion;

  bool operator==(const Event&) const = default;
};

// The deterministic event_id: lowercase hex SHA-256 of
//   "lake.event.v2" 0x00, then u32-length-prefixed item_id, u32 attempt,
//   u64 item_seq, u8 event_type, u32-length-prefixed field_name
// (integers little-endian). A retried batch derives the same ids.
std::string DeriveEventId(std::string_view item_id, uint32_t attempt,
                          uint64_t item_seq, EventType type,
                          std::string_view field_name);
std::string DeriveEventId(const Event& event);

// Fills root_item_id, parent_item_id and event_id from the other columns.
// InvalidArgument when item_id does not parse.
absl::Status FillDerivedIds(Event& event);

// OK when `event` satisfies the invariant above and its type's rules:
//   ITEM_CREATED   no field, value, status or error columns
//   STEP_STARTED   step_name and a driver step_kind
//   STEP_COMPLETED step_name and a step_kind
//   FIELD_SET /    field_name and value_kind; the value column of that kind
//   FIELD_APPEND   (a blob is inline bytes or a location, not both); for a
//                  blob, payload_size and payload_checksum describe it
//   FAILED         error_type; status unset or failed
//   TERMINAL       status completed or filtered
// Events other than FIELD_* carry no field_name or value. InvalidArgument
// naming the event (item_id, item_seq) and the column otherwise; a schema
// version other than 2 is refused, not guessed.
absl::Status ValidateEvent(const Event& event);
// The same, where `same_item` (when not null) is an event that passed
// ValidateEvent: if it has the same item_id, root_item_id and
// parent_item_id, those are not parsed again (a run of one item's events).
absl::Status ValidateEvent(const Event& event, const Event* same_item);

}  // namespace lake::events

#endif  // LAKE_ENGINE_EVENTS_EVENT_H_
