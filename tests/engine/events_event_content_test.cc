// Event content (engine/events/event_content.h): two events are the same
// when every column but event_ts matches.
#include "engine/events/event_content.h"

#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <vector>

namespace lake::events {
namespace {

Event Sample() {
  Event e;
  e.item_id = "r/gen:0";
  e.item_seq = 3;
  e.event_type = EventType::kFieldSet;
  e.field_name = "score";
  e.value_kind = ValueKind::kFloat;
  e.value_f64 = 0.5;
  e.event_ts = 1000;
  REQUIRE(FillDerivedIds(e).ok());
  return e;
}

TEST_CASE("events event content: events differing only in event_ts are the same") {
  Event a = Sample();
  Event b = Sample();
  b.event_ts = 2000;
  CHECK(SameEventContent(a, b));
}

TEST_CASE("events event content: a difference in any other column makes events different") {
  std::vector<std::function<void(Event&)>> changes = {
      [](Event& e) { e.event_id[0] = e.event_id[0] == 'a' ? 'b' : 'a'; },
      [](Event& e) { e.item_id = "r/gen:1"; },
      [](Event& e) { e.root_item_id = "s"; },
      [](Event& e) { e.parent_item_id = "s"; },
      [](Event& e) { e.item_seq = 4; },
      [](Event& e) { e.attempt = 1; },
      [](Event& e) { e.checkpoint_id = "c"; },
      [](Event& e) { e.event_type = EventType::kFieldAppend; },
      [](Event& e) { e.step_name = "judge"; },
      [](Event& e) { e.step_index = 0; },
      [](Event& e) { e.step_kind = StepKind::kLeaf; },
      [](Event& e) { e.enclosing_step = "main"; },
      [](Event& e) { e.selector_step = "route"; },
      [](Event& e) { e.run_id = "run"; },
      [](Event& e) { e.writer_epoch = "w"; },
      [](Event& e) { e.field_name = "other"; },
      [](Event& e) { e.field_type = "float64"; },
      [](Event& e) { e.codec_version = 1; },
      [](Event& e) { e.value_kind = ValueKind::kInt; },
      [](Event& e) { e.value_i64 = 1; },
      [](Event& e) { e.value_f64 = 0.25; },
      [](Event& e) { e.value_bool = true; },
      [](Event& e) { e.value_str = "s"; },
      [](Event& e) { e.value_json = "{}"; },
      [](Event& e) { e.blob_inline = "b"; },
      [](Event& e) { e.blob_location = DataLocation{"file:///x", "a/b", 1, "00"}; },
      [](Event& e) { e.payload_size = 1; },
      [](Event& e) { e.payload_checksum = "00"; },
      [](Event& e) { e.query_tags_json = "{}"; },
      [](Event& e) { e.status = ItemStatus::kRunning; },
      [](Event& e) { e.error_type = "E"; },
      [](Event& e) { e.error_dump = "d"; },
      [](Event& e) { e.traceback = "t"; },
      [](Event& e) { e.schema_version = 3; },
  };
  for (size_t i = 0; i < changes.size(); ++i) {
    Event changed = Sample();
    changes[i](changed);
    CAPTURE(i);
    CHECK_FALSE(SameEventContent(Sample(), changed));
  }
}

TEST_CASE("events event content: a float value is compared by its bits") {
  Event a = Sample();
  a.value_f64 = std::numeric_limits<double>::quiet_NaN();
  Event b = a;
  CHECK(SameEventContent(a, b));  // a retried NaN is the same event
  a.value_f64 = 0.0;
  b.value_f64 = -0.0;
  CHECK_FALSE(SameEventContent(a, b));
}

}  // namespace
}  // namespace lake::events
