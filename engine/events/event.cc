#include "engine/events/event.h"

#include <array>
#include <utility>

#include "absl/strings/str_cat.h"
#include "engine/events/item_id.h"
#include "engine/sha256.h"
#include "engine/table/byte_codec.h"

namespace lake::events {
namespace {

template <typename E, size_t N>
using NameTable = std::array<std::pair<E, std::string_view>, N>;

constexpr NameTable<EventType, 7> kEventTypeNames = {{
    {EventType::kItemCreated, "ITEM_CREATED"},
    {EventType::kStepStarted, "STEP_STARTED"},
    {EventType::kStepCompleted, "STEP_COMPLETED"},
    {EventType::kFieldSet, "FIELD_SET"},
    {EventType::kFieldAppend, "FIELD_APPEND"},
    {EventType::kFailed, "FAILED"},
    {EventType::kTerminal, "TERMINAL"},
}};
constexpr NameTable<StepKind, 9> kStepKindNames = {{
    {StepKind::kRoot, "Root"},
    {StepKind::kLeaf, "Leaf"},
    {StepKind::kSequence, "Sequence"},
    {StepKind::kLoop, "Loop"},
    {StepKind::kMapReduce, "MapReduce"},
    {StepKind::kBranch, "Branch"},
    {StepKind::kSubPipeline, "SubPipeline"},
    {StepKind::kConditional, "Conditional"},
    {StepKind::kRouter, "Router"},
}};
constexpr NameTable<ValueKind, 6> kValueKindNames = {{
    {ValueKind::kInt, "int"},
    {ValueKind::kFloat, "float"},
    {ValueKind::kBool, "bool"},
    {ValueKind::kStr, "str"},
    {ValueKind::kJson, "json"},
    {ValueKind::kBlob, "blob"},
}};
constexpr NameTable<ItemStatus, 4> kItemStatusNames = {{
    {ItemStatus::kRunning, "running"},
    {ItemStatus::kCompleted, "completed"},
    {ItemStatus::kFiltered, "filtered"},
    {ItemStatus::kFailed, "failed"},
}};

template <typename E, size_t N>
std::string_view NameOf(const NameTable<E, N>& table, E value) {
  for (const auto& [v, name] : table) {
    if (v == value) return name;
  }
  return "?";
}

template <typename E, size_t N>
std::optional<E> ValueOf(const NameTable<E, N>& table, std::string_view name) {
  for (const auto& [v, n] : table) {
    if (n == name) return v;
  }
  return std::nullopt;
}

constexpr std::string_view kEventIdDomain = std::string_view("lake.event.v2\0", 14);

absl::Status Bad(const Event& e, std::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("event (item_id \"", e.item_id.substr(0, 80), "\", item_seq ",
                   e.item_seq, ", ", std::string(EventTypeName(e.event_type)),
                   "): ", std::string(why)));
}

bool IsFieldEvent(EventType t) {
  return t == EventType::kFieldSet || t == EventType::kFieldAppend;
}

bool HasValue(const Event& e) {
  return e.value_kind.has_value() || e.value_i64 != 0 || e.value_f64 != 0 ||
         e.value_bool || !e.value_str.empty() || !e.value_json.empty() ||
         !e.blob_inline.empty() || e.blob_location.has_value() ||
         e.payload_size != 0 || !e.payload_checksum.empty() ||
         !e.field_type.empty() || e.codec_version != 0;
}

bool HasError(const Event& e) {
  return !e.error_type.empty() || !e.error_dump.empty() || !e.traceback.empty();
}

absl::Status ValidateValue(const Event& e) {
  if (e.field_name.empty()) return Bad(e, "field_name is empty");
  if (!e.value_kind) return Bad(e, "value_kind is missing");
  bool blob = *e.value_kind == ValueKind::kBlob;
  if (!blob && (!e.blob_inline.empty() || e.blob_location)) {
    return Bad(e, "a blob column is set on a non-blob value");
  }
  if (*e.value_kind != ValueKind::kInt && e.value_i64 != 0) {
    return Bad(e, "value_i64 is set on a non-int value");
  }
  if (*e.value_kind != ValueKind::kFloat && e.value_f64 != 0) {
    return Bad(e, "value_f64 is set on a non-float value");
  }
  if (*e.value_kind != ValueKind::kBool && e.value_bool) {
    return Bad(e, "value_bool is set on a non-bool value");
  }
  if (*e.value_kind != ValueKind::kStr && !e.value_str.empty()) {
    return Bad(e, "value_str is set on a non-str value");
  }
  if (*e.value_kind == ValueKind::kJson ? e.value_json.empty() : !e.value_json.empty()) {
    return Bad(e, "value_json must be set exactly for a json value");
  }
  if (!blob) return absl::OkStatus();
  if (!e.blob_inline.empty() && e.blob_location) {
    return Bad(e, "a blob is both inline and at a location");
  }
  if (e.blob_location && e.payload_size != e.blob_location->size_bytes) {
    return Bad(e, "payload_size differs from the blob location's size");
  }
  if (!e.blob_location && e.payload_size != e.blob_inline.size()) {
    return Bad(e, "payload_size differs from the inline blob's size");
  }
  if (!table::Sha256FromHex(e.payload_checksum)) {
    return Bad(e, "payload_checksum is not 64 lowercase hex characters");
  }
  if (e.blob_location && e.payload_checksum != e.blob_location->sha256) {
    return Bad(e, "payload_checksum differs from the blob location's sha256");
  }
  return absl::OkStatus();
}

absl::Status ValidateByType(const Event& e) {
  bool field = IsFieldEvent(e.event_type);
  if (!field && (!e.field_name.empty() || HasValue(e))) {
    return Bad(e, "field or value columns are set on a non-field event");
  }
  if (e.event_type != EventType::kFailed && HasError(e)) {
    return Bad(e, "error columns are set on a non-FAILED event");
  }
  switch (e.event_type) {
    case EventType::kItemCreated:
      if (e.status) return Bad(e, "status is set");
      return absl::OkStatus();
    case EventType::kStepStarted:
      if (e.step_name.empty()) return Bad(e, "step_name is empty");
      if (!e.step_kind || !IsDriverStep(*e.step_kind)) {
        return Bad(e, "STEP_STARTED needs a driver step_kind (not Leaf)");
      }
      return absl::OkStatus();
    case EventType::kStepCompleted:
      if (e.step_name.empty()) return Bad(e, "step_name is empty");
      if (!e.step_kind) return Bad(e, "step_kind is missing");
      return absl::OkStatus();
    case EventType::kFieldSet:
    case EventType::kFieldAppend:
      return ValidateValue(e);
    case EventType::kFailed:
      if (e.error_type.empty()) return Bad(e, "error_type is empty");
      if (e.status && *e.status != ItemStatus::kFailed) {
        return Bad(e, "status of a FAILED event is not failed");
      }
      return absl::OkStatus();
    case EventType::kTerminal:
      if (e.status != ItemStatus::kCompleted && e.status != ItemStatus::kFiltered) {
        return Bad(e, "TERMINAL needs status completed or filtered");
      }
      return absl::OkStatus();
  }
  return Bad(e, "unknown event_type");
}

}  // namespace

std::string_view EventTypeName(EventType type) { return NameOf(kEventTypeNames, type); }
std::optional<EventType> ParseEventType(std::string_view name) {
  return ValueOf(kEventTypeNames, name);
}
std::string_view StepKindName(StepKind kind) { return NameOf(kStepKindNames, kind); }
std::optional<StepKind> ParseStepKind(std::string_view name) {
  return ValueOf(kStepKindNames, name);
}
std::string_view ValueKindName(ValueKind kind) { return NameOf(kValueKindNames, kind); }
std::optional<ValueKind> ParseValueKind(std::string_view name) {
  return ValueOf(kValueKindNames, name);
}
std::string_view ItemStatusName(ItemStatus status) {
  return NameOf(kItemStatusNames, status);
}
std::optional<ItemStatus> ParseItemStatus(std::string_view name) {
  return ValueOf(kItemStatusNames, name);
}

bool IsDriverStep(StepKind kind) { return kind != StepKind::kLeaf; }

namespace {

// The SHA-256 input of an event id (see event.h), in a buffer of the
// calling thread's that keeps its capacity, so deriving allocates nothing.
std::string_view EventIdInput(std::string_view item_id, uint32_t attempt, uint64_t item_seq,
                              EventType type, std::string_view field_name) {
  thread_local std::string bytes;
  bytes.clear();
  table::ByteWriter w(&bytes);
  w.Bytes(kEventIdDomain);
  w.U32(static_cast<uint32_t>(item_id.size()));
  w.Bytes(item_id);
  w.U32(attempt);
  w.U64(item_seq);
  w.U8(static_cast<uint8_t>(type));
  w.U32(static_cast<uint32_t>(field_name.size()));
  w.Bytes(field_name);
  return bytes;
}

bool IsDerivedEventId(const Event& e) {
  char derived[64];
  Sha256HexTo(EventIdInput(e.item_id, e.attempt, e.item_seq, e.event_type, e.field_name), derived);
  return e.event_id == std::string_view(derived, sizeof derived);
}

}  // namespace

std::string DeriveEventId(std::string_view item_id, uint32_t attempt,
                          uint64_t item_seq, EventType type,
                          std::string_view field_name) {
  return Sha256Hex(EventIdInput(item_id, attempt, item_seq, type, field_name));
}

std::string DeriveEventId(const Event& event) {
  return DeriveEventId(event.item_id, event.attempt, event.item_seq,
                       event.event_type, event.field_name);
}

absl::Status FillDerivedIds(Event& event) {
  if (absl::Status s = ValidateItemIdText(event.item_id); !s.ok()) return s;
  event.root_item_id = RootTextOf(event.item_id);
  event.parent_item_id = ParentTextOf(event.item_id);
  event.event_id = DeriveEventId(event);
  return absl::OkStatus();
}

absl::Status ValidateEvent(const Event& e) { return ValidateEvent(e, nullptr); }

absl::Status ValidateEvent(const Event& e, const Event* same_item) {
  if (e.schema_version != kEventSchemaVersion) {
    return Bad(e, absl::StrCat("schema_version ", e.schema_version,
                               " is not the supported version ", kEventSchemaVersion));
  }
  if (ValueOf(kEventTypeNames, EventTypeName(e.event_type)) != e.event_type) {
    return Bad(e, "unknown event_type");
  }
  const bool item_checked = same_item != nullptr && same_item->item_id == e.item_id &&
                            same_item->root_item_id == e.root_item_id &&
                            same_item->parent_item_id == e.parent_item_id;
  if (!item_checked) {
    if (absl::Status s = ValidateItemIdText(e.item_id); !s.ok()) return s;
    if (e.root_item_id != RootTextOf(e.item_id)) {
      return Bad(e, "root_item_id is not derived from item_id");
    }
    if (e.parent_item_id != ParentTextOf(e.item_id)) {
      return Bad(e, "parent_item_id is not derived from item_id");
    }
  }
  if (e.item_seq == 0) return Bad(e, "item_seq is 0 (sequences start at 1)");
  // A resumed writer stamps the item's last item_seq + 1: that must exist.
  if (e.item_seq > kMaxItemSeq) {
    return Bad(e, absl::StrCat("item_seq is past ", kMaxItemSeq, " (no item_seq could follow it)"));
  }
  if (!IsDerivedEventId(e)) return Bad(e, "event_id is not the derived id");
  return ValidateByType(e);
}

}  // namespace lake::events
