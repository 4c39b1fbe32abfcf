// Events of the data-generation log (engine/events/event.h): the derived
// event_id and the per-type validation rules of EVENT-LOG.md.
#include "engine/events/event.h"

#include <doctest/doctest.h>

#include <string>

#include "engine/sha256.h"
#include "tests/support/status_checks.h"

namespace lake::events {
namespace {

Event Make(EventType type, std::string item_id = "r/map:1", uint64_t seq = 2) {
  Event e;
  e.item_id = std::move(item_id);
  e.item_seq = seq;
  e.attempt = 1;
  e.event_type = type;
  return e;
}

Event Finish(Event e) {
  absl::Status status = FillDerivedIds(e);
  REQUIRE(status.ok());
  return e;
}

TEST_CASE("events event: derived ids follow the item path") {
  Event e = Finish(Make(EventType::kItemCreated, "r/map:1/judge:0"));
  CHECK(e.root_item_id == "r");
  CHECK(e.parent_item_id == "r/map:1");
  CHECK(e.event_id.size() == 64);
  LAKE_CHECK_OK(ValidateEvent(e));
}

TEST_CASE("events event: event_id is deterministic and covers each input") {
  std::string id = DeriveEventId("r", 0, 1, EventType::kFieldSet, "x");
  CHECK(id == DeriveEventId("r", 0, 1, EventType::kFieldSet, "x"));
  CHECK(id != DeriveEventId("s", 0, 1, EventType::kFieldSet, "x"));
  CHECK(id != DeriveEventId("r", 1, 1, EventType::kFieldSet, "x"));
  CHECK(id != DeriveEventId("r", 0, 2, EventType::kFieldSet, "x"));
  CHECK(id != DeriveEventId("r", 0, 1, EventType::kFieldAppend, "x"));
  CHECK(id != DeriveEventId("r", 0, 1, EventType::kFieldSet, "y"));
  // The format of event.h, pinned: ids stored in logs must not change.
  CHECK(DeriveEventId("r/map:1", 0, 2, EventType::kFieldSet, "score") ==
        "1f751e1873965ea7125128fdcf9f1daa60a66eb0d3ab25b871ee562d49f9d3f9");
  // Length prefixes keep ("ab","") and ("a","b")-style splits apart.
  CHECK(DeriveEventId("r", 0, 1, EventType::kFieldSet, "") !=
        DeriveEventId("r", 0, 1, EventType::kFieldSet, std::string(1, '\0')));
}

TEST_CASE("events event: wire names round-trip and unknown names are refused") {
  CHECK(ParseEventType("STEP_STARTED") == EventType::kStepStarted);
  CHECK(EventTypeName(EventType::kTerminal) == "TERMINAL");
  CHECK_FALSE(ParseEventType("step_started").has_value());
  CHECK(ParseStepKind("MapReduce") == StepKind::kMapReduce);
  CHECK(ParseValueKind("blob") == ValueKind::kBlob);
  CHECK(ParseItemStatus("filtered") == ItemStatus::kFiltered);
  CHECK_FALSE(ParseItemStatus("done").has_value());
  CHECK(IsDriverStep(StepKind::kRouter));
  CHECK_FALSE(IsDriverStep(StepKind::kLeaf));
}

TEST_CASE("events event: a mismatched derived id is refused") {
  Event e = Finish(Make(EventType::kItemCreated));
  e.root_item_id = "other";
  CHECK(absl::IsInvalidArgument(ValidateEvent(e)));
  e = Finish(Make(EventType::kItemCreated));
  e.parent_item_id = "";  // the derived parent is "r"
  CHECK(absl::IsInvalidArgument(ValidateEvent(e)));
  e = Finish(Make(EventType::kItemCreated));
  e.event_id[0] = e.event_id[0] == 'a' ? 'b' : 'a';
  CHECK(absl::IsInvalidArgument(ValidateEvent(e)));
}

TEST_CASE("events event: an event of the item just checked is checked all the same but its path") {
  const Event checked = Finish(Make(EventType::kItemCreated, "r/map:1", 1));
  LAKE_REQUIRE_OK(ValidateEvent(checked));
  Event next = Finish(Make(EventType::kItemCreated, "r/map:1", 2));
  LAKE_CHECK_OK(ValidateEvent(next, &checked));
  // Derived ids that differ from the checked event's are derived again.
  Event wrong = next;
  wrong.root_item_id = "other";
  CHECK(absl::IsInvalidArgument(ValidateEvent(wrong, &checked)));
  wrong = next;
  wrong.parent_item_id = "";
  CHECK(absl::IsInvalidArgument(ValidateEvent(wrong, &checked)));
  // Another item is parsed; and everything but the path is still checked.
  Event bad_path = next;
  bad_path.item_id = "r/map";  // no index
  CHECK(absl::IsInvalidArgument(ValidateEvent(bad_path, &checked)));
  wrong = next;
  wrong.event_id[0] = wrong.event_id[0] == 'a' ? 'b' : 'a';
  CHECK(absl::IsInvalidArgument(ValidateEvent(wrong, &checked)));
  wrong = next;
  wrong.item_seq = 0;
  CHECK(absl::IsInvalidArgument(ValidateEvent(wrong, &checked)));
}

TEST_CASE("events event: schema version other than 2 is refused") {
  Event e = Finish(Make(EventType::kItemCreated));
  e.schema_version = 3;
  absl::Status status = ValidateEvent(e);
  CHECK(absl::IsInvalidArgument(status));
  CHECK(std::string(status.message()).find("schema_version 3") != std::string::npos);
}

TEST_CASE("events event: item_seq 0 is refused") {
  Event e = Finish(Make(EventType::kItemCreated, "r", 0));
  CHECK(absl::IsInvalidArgument(ValidateEvent(e)));
}

TEST_CASE("events event: the largest u64 item_seq is refused: no item_seq could follow it") {
  Event last = Finish(Make(EventType::kItemCreated, "r", kMaxItemSeq));
  LAKE_CHECK_OK(ValidateEvent(last));
  Event past = Finish(Make(EventType::kItemCreated, "r", kMaxItemSeq + 1));
  absl::Status status = ValidateEvent(past);
  CHECK(absl::IsInvalidArgument(status));
  CHECK(std::string(status.message()).find("item_seq") != std::string::npos);
}

TEST_CASE("events event: STEP_STARTED needs a driver step") {
  Event e = Make(EventType::kStepStarted);
  e.step_name = "expand";
  e.step_kind = StepKind::kMapReduce;
  LAKE_CHECK_OK(ValidateEvent(Finish(e)));
  e.step_kind = StepKind::kLeaf;
  CHECK(absl::IsInvalidArgument(ValidateEvent(Finish(e))));
  e.step_kind.reset();
  CHECK(absl::IsInvalidArgument(ValidateEvent(Finish(e))));
}

TEST_CASE("events event: STEP_COMPLETED accepts a leaf and needs a step name") {
  Event e = Make(EventType::kStepCompleted);
  e.step_kind = StepKind::kLeaf;
  CHECK(absl::IsInvalidArgument(ValidateEvent(Finish(e))));
  e.step_name = "judge";
  LAKE_CHECK_OK(ValidateEvent(Finish(e)));
}

TEST_CASE("events event: a field value must match its value_kind") {
  Event e = Make(EventType::kFieldSet);
  e.field_name = "score";
  e.value_kind = ValueKind::kInt;
  e.value_i64 = 7;
  LAKE_CHECK_OK(ValidateEvent(Finish(e)));
  e.value_str = "7";
  CHECK(absl::IsInvalidArgument(ValidateEvent(Finish(e))));
  e.value_str.clear();
  e.field_name.clear();
  CHECK(absl::IsInvalidArgument(ValidateEvent(Finish(e))));
  e.field_name = "score";
  e.value_kind = ValueKind::kJson;
  e.value_i64 = 0;
  CHECK(absl::IsInvalidArgument(ValidateEvent(Finish(e))));  // json empty
  e.value_json = "[1]";
  LAKE_CHECK_OK(ValidateEvent(Finish(e)));
}

TEST_CASE("events event: an inline blob is described by size and sha256") {
  Event e = Make(EventType::kFieldAppend);
  e.field_name = "image";
  e.value_kind = ValueKind::kBlob;
  e.blob_inline = "abc";
  e.payload_size = 3;
  e.payload_checksum = Sha256Hex("abc");
  LAKE_CHECK_OK(ValidateEvent(Finish(e)));
  e.payload_size = 4;
  CHECK(absl::IsInvalidArgument(ValidateEvent(Finish(e))));
  e.payload_size = 3;
  e.payload_checksum = "nothex";
  CHECK(absl::IsInvalidArgument(ValidateEvent(Finish(e))));
}

TEST_CASE("events event: non-field events carry no field or value") {
  Event e = Make(EventType::kItemCreated);
  e.field_name = "x";
  CHECK(absl::IsInvalidArgument(ValidateEvent(Finish(e))));
  e = Make(EventType::kItemCreated);
  e.error_type = "Boom";
  CHECK(absl::IsInvalidArgument(ValidateEvent(Finish(e))));
}

TEST_CASE("events event: FAILED needs error_type and TERMINAL a final status") {
  Event f = Make(EventType::kFailed);
  CHECK(absl::IsInvalidArgument(ValidateEvent(Finish(f))));
  f.error_type = "Timeout";
  LAKE_CHECK_OK(ValidateEvent(Finish(f)));
  f.status = ItemStatus::kCompleted;
  CHECK(absl::IsInvalidArgument(ValidateEvent(Finish(f))));

  Event t = Make(EventType::kTerminal);
  CHECK(absl::IsInvalidArgument(ValidateEvent(Finish(t))));
  t.status = ItemStatus::kFiltered;
  LAKE_CHECK_OK(ValidateEvent(Finish(t)));
  t.status = ItemStatus::kRunning;
  CHECK(absl::IsInvalidArgument(ValidateEvent(Finish(t))));
}

}  // namespace
}  // namespace lake::events
