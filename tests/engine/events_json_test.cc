// One event as one JSON object and events as JSONL
// (engine/events/event_json.h): the output form, round trips, derived ids
// and every refusal naming its line.
#include "engine/events/event_json.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "engine/events/event_record_format.h"
#include "engine/sha256.h"
#include "tests/support/event_samples.h"
#include "tests/support/status_checks.h"

namespace lake::events {
namespace {

using lake::testing::FinishEvent;
using lake::testing::SampleEvent;
using lake::testing::SampleEvents;
using lake::testing::SampleField;

// The smallest input for a FIELD_SET on item "r/map:1": every derived or
// defaulted column left out.
constexpr std::string_view kMinimal =
    R"({"item_id":"r/map:1","item_seq":2,"event_type":"FIELD_SET",)"
    R"("field_name":"score","value_kind":"int","value_i64":7})";

// `kMinimal` with `extra` (`"key":value`) added as its last key.
std::string MinimalWith(std::string_view extra) {
  std::string text(kMinimal);
  text.pop_back();
  return absl::StrCat(text, ",", std::string(extra), "}");
}

void CheckRefused(std::string_view text, std::string_view expected_text) {
  absl::StatusOr<Event> event = ParseEventJson(text);
  REQUIRE_FALSE(event.ok());
  CHECK_MESSAGE(absl::IsInvalidArgument(event.status()), event.status().ToString());
  CHECK_MESSAGE(std::string(event.status().message()).find(expected_text) != std::string::npos,
                event.status().ToString());
}

TEST_CASE("events json: output is one line with the columns in order") {
  Event e = FinishEvent(SampleEvent(EventType::kItemCreated, "r", 1));
  CHECK(EventToJson(e) ==
        absl::StrCat(R"({"event_id":")", e.event_id,
                     R"(","item_id":"r","root_item_id":"r","item_seq":1,"attempt":1,)",
                     R"("checkpoint_id":"ckpt-7","event_type":"ITEM_CREATED",)",
                     R"("run_id":"run-2024-05","writer_epoch":"host-a:4711",)",
                     R"("event_ts":1700000000123456,"schema_version":2})"));
}

TEST_CASE("events json: every sample event round-trips") {
  for (const Event& e : SampleEvents()) {
    std::string json = EventToJson(e);
    CAPTURE(json);
    CHECK(json.find('\n') == std::string::npos);
    absl::StatusOr<Event> parsed = ParseEventJson(json);
    LAKE_REQUIRE_OK(parsed);
    CHECK(*parsed == e);
    CHECK(EventToJson(*parsed) == json);
  }
}

TEST_CASE("events json: a blob is base64 inline or a location object") {
  Event inline_blob = SampleField(ValueKind::kBlob);
  CHECK(EventToJson(inline_blob).find(R"("blob_inline_base64":"AP8BcG5n")") != std::string::npos);
  Event located = lake::testing::SampleLocatedBlob();
  CHECK(EventToJson(located).find(absl::StrCat(
            R"("blob_location":{"uri":"s3://bucket/blobs/a%20b.bin","content_type":"image/png",)",
            R"("size_bytes":3145728,"sha256":")", located.payload_checksum, R"("})")) !=
        std::string::npos);
}

TEST_CASE("events json: base64 that is not canonical is refused") {
  std::string blob =
      R"("field_name":"f","value_kind":"blob","payload_size":2,"payload_checksum":")" +
      Sha256Hex("hi") + "\"";
  std::string base = R"({"item_id":"r","item_seq":2,"event_type":"FIELD_SET",)" + blob;
  LAKE_CHECK_OK(ParseEventJson(base + R"(,"blob_inline_base64":"aGk="})"));
  CheckRefused(base + R"(,"blob_inline_base64":"aGk"})", "not canonical base64");
  CheckRefused(base + R"(,"blob_inline_base64":"aGl="})", "not canonical base64");
  CheckRefused(base + R"(,"blob_inline_base64":"a Gk="})", "not canonical base64");
}

TEST_CASE("events json: an invalid blob location is refused") {
  std::string located = EventToJson(lake::testing::SampleLocatedBlob());
  std::string bad = located;
  bad.replace(bad.find("s3://bucket"), 11, "http://host");
  CheckRefused(bad, "blob_location");
  bad = located;
  bad.replace(bad.find("\"size_bytes\""), 12, "\"size\"");
  CheckRefused(bad, "blob_location");
}

TEST_CASE("events json: omitted derived ids and schema_version are filled") {
  absl::StatusOr<Event> e = ParseEventJson(kMinimal);
  LAKE_REQUIRE_OK(e);
  CHECK(e->root_item_id == "r");
  CHECK(e->parent_item_id == "r");
  CHECK(e->event_id == DeriveEventId("r/map:1", 0, 2, EventType::kFieldSet, "score"));
  CHECK(e->schema_version == kEventSchemaVersion);
  CHECK(e->value_i64 == 7);
  LAKE_CHECK_OK(ValidateEvent(*e));
}

TEST_CASE("events json: given derived ids must equal the derived values") {
  std::string id = DeriveEventId("r/map:1", 0, 2, EventType::kFieldSet, "score");
  LAKE_CHECK_OK(ParseEventJson(MinimalWith(absl::StrCat(R"("event_id":")", id, "\""))));
  LAKE_CHECK_OK(ParseEventJson(MinimalWith(R"("root_item_id":"r","parent_item_id":"r")")));
  CheckRefused(MinimalWith(absl::StrCat(R"("event_id":")", Sha256Hex("x"), "\"")),
               "key \"event_id\"");
  CheckRefused(MinimalWith(R"("event_id":"")"), "key \"event_id\"");
  CheckRefused(MinimalWith(R"("root_item_id":"s")"), "key \"root_item_id\"");
  CheckRefused(MinimalWith(R"("parent_item_id":"")"), "key \"parent_item_id\"");
}

TEST_CASE("events json: schema_version other than 2 is refused") {
  LAKE_CHECK_OK(ParseEventJson(MinimalWith(R"("schema_version":2)")));
  CheckRefused(MinimalWith(R"("schema_version":3)"), "schema_version");
  CheckRefused(MinimalWith(R"("schema_version":1)"), "schema_version");
}

TEST_CASE("events json: unknown and duplicate keys are refused") {
  CheckRefused(MinimalWith(R"("colour":"red")"), "unknown key \"colour\"");
  CheckRefused(MinimalWith(R"("blob_inline":"x")"), "unknown key \"blob_inline\"");
  CheckRefused(MinimalWith(R"("item_seq":3)"), "duplicate key \"item_seq\"");
}

TEST_CASE("events json: missing required keys are refused") {
  CheckRefused(R"({"item_id":"r","item_seq":1})", "key \"event_type\" is missing");
  CheckRefused(R"({"item_id":"r","event_type":"ITEM_CREATED"})", "key \"item_seq\" is missing");
  CheckRefused(R"({"item_seq":1,"event_type":"ITEM_CREATED"})", "key \"item_id\" is missing");
  CheckRefused(R"({"item_id":"r","item_seq":1,"event_type":null})", "is missing");
}

TEST_CASE("events json: null is the same as an omitted key") {
  absl::StatusOr<Event> e =
      ParseEventJson(MinimalWith(R"("step_index":null,"status":null,"error_type":null)"));
  LAKE_REQUIRE_OK(e);
  CHECK_FALSE(e->step_index.has_value());
  CHECK_FALSE(e->status.has_value());
}

TEST_CASE("events json: values of the wrong JSON type are refused") {
  CheckRefused(MinimalWith(R"("run_id":7)"), "key \"run_id\" must be a JSON string");
  CheckRefused(R"({"item_id":"r","item_seq":"1","event_type":"ITEM_CREATED"})",
               "key \"item_seq\" must be an integer");
  CheckRefused(MinimalWith(R"("value_bool":1)"), "key \"value_bool\" must be true or false");
  CheckRefused(MinimalWith(R"("blob_location":"s3://b/k")"), "must be a JSON object");
  CheckRefused(MinimalWith(R"("event_ts":[1])"), "key \"event_ts\" must be an integer");
}

TEST_CASE("events json: unknown wire names are refused") {
  CheckRefused(R"({"item_id":"r","item_seq":1,"event_type":"item_created"})",
               "key \"event_type\" has unknown value \"item_created\"");
  CheckRefused(MinimalWith(R"("step_kind":"leaf")"), "key \"step_kind\"");
  CheckRefused(MinimalWith(R"("status":"done")"), "key \"status\"");
}

TEST_CASE("events json: integers out of their column's range are refused") {
  CheckRefused(MinimalWith(R"("attempt":4294967296)"), "key \"attempt\"");
  CheckRefused(MinimalWith(R"("attempt":-1)"), "key \"attempt\"");
  CheckRefused(MinimalWith(R"("step_index":1.0)"), "key \"step_index\"");
  CheckRefused(MinimalWith(R"("codec_version":1e3)"), "key \"codec_version\"");
  CheckRefused(MinimalWith(R"("event_ts":9223372036854775808)"), "key \"event_ts\"");
  CheckRefused(MinimalWith(R"("payload_size":18446744073709551616)"), "key \"payload_size\"");
  LAKE_CHECK_OK(ParseEventJson(MinimalWith(R"("event_ts":-9223372036854775808)")));
  LAKE_CHECK_OK(ParseEventJson(MinimalWith(R"("attempt":4294967295)")));
  LAKE_CHECK_OK(ParseEventJson(MinimalWith(R"("attempt":-0)")));
}

TEST_CASE("events json: the event must pass the event and record rules") {
  // A FIELD_SET without its value, a float beyond double (JSON cannot carry
  // infinity), a name over the record's bound, an item_id that does not parse.
  CheckRefused(R"({"item_id":"r","item_seq":1,"event_type":"FIELD_SET","field_name":"f"})",
               "value_kind is missing");
  CheckRefused(R"({"item_id":"r","item_seq":1,"event_type":"FIELD_SET","field_name":"f",)"
               R"("value_kind":"float","value_f64":1e999})",
               "not valid JSON");
  CheckRefused(MinimalWith(absl::StrCat(R"("run_id":")", std::string(kMaxEventNameBytes + 1, 'x'),
                                        "\"")),
               "column run_id");
  CheckRefused(R"({"item_id":"r/","item_seq":1,"event_type":"ITEM_CREATED"})", "r/");
}

TEST_CASE("events json: text that is not one JSON object is refused") {
  CheckRefused("", "not valid JSON");
  CheckRefused("{", "not valid JSON");
  CheckRefused(R"({"item_id":"r"} {})", "not valid JSON");
  CheckRefused("[1]", "not a JSON object");
  CheckRefused(R"({"blob_location":{"uri":{"a":1}}})", "nests deeper");
  CheckRefused(std::string(100000, '['), "nests deeper");
}

TEST_CASE("events json: JSONL errors name their line") {
  std::string ok(kMinimal);
  absl::StatusOr<std::vector<Event>> events =
      ParseEventJsonLines(ok + "\n\n" + ok + "\n{\"item_id\":\"r\"}\n" + ok + "\n");
  REQUIRE_FALSE(events.ok());
  CHECK(absl::IsInvalidArgument(events.status()));
  CHECK(std::string(events.status().message()) == "line 4: key \"item_seq\" is missing");
  events = ParseEventJsonLines(ok + "\nnot json");
  REQUIRE_FALSE(events.ok());
  CHECK(std::string(events.status().message()) == "line 2: not valid JSON");
}

TEST_CASE("events json: JSONL skips blank lines and accepts CRLF") {
  std::string ok(kMinimal);
  absl::StatusOr<std::vector<Event>> events =
      ParseEventJsonLines(ok + "\r\n  \r\n\n" + ok + "\r\n");
  LAKE_REQUIRE_OK(events);
  CHECK(events->size() == 2);
  events = ParseEventJsonLines("");
  LAKE_REQUIRE_OK(events);
  CHECK(events->empty());
}

TEST_CASE("events json: JSONL of the sample events reads back in order") {
  std::vector<Event> samples = SampleEvents();
  std::string text;
  for (const Event& e : samples) text += EventToJson(e) + "\n";
  absl::StatusOr<std::vector<Event>> events = ParseEventJsonLines(text);
  LAKE_REQUIRE_OK(events);
  CHECK(*events == samples);
}

TEST_CASE("events json: a line longer than the bound is refused unread") {
  std::string line = MinimalWith(absl::StrCat(R"("traceback":")",
                                              std::string(kMaxEventJsonBytes, 'x'), "\""));
  absl::StatusOr<std::vector<Event>> events =
      ParseEventJsonLines(std::string(kMinimal) + "\n" + line);
  REQUIRE_FALSE(events.ok());
  CHECK(absl::IsInvalidArgument(events.status()));
  CHECK(std::string(events.status().message()).rfind("line 2: event JSON is ", 0) == 0);
}

}  // namespace
}  // namespace lake::events
