// The JSON form of the event log's derived reads (engine/events/fold_json.h):
// folded items and their values, item trees, root statuses, failures and raw
// event lines, with their documented keys in their documented order.
#include "engine/events/fold_json.h"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/data_location_json.h"
#include "engine/events/event_json.h"
#include "engine/sha256.h"
#include "tests/support/status_checks.h"

namespace lake::events {
namespace {

using Json = nlohmann::ordered_json;

// ---- building events (as in events_fold_test.cc) ----

struct At {
  std::string item = "r";
  uint64_t seq = 1;
  uint32_t attempt = 0;
};

Event Begin(const At& at, EventType type) {
  Event e;
  e.item_id = at.item;
  e.item_seq = at.seq;
  e.attempt = at.attempt;
  e.event_type = type;
  e.writer_epoch = "epoch-" + std::to_string(at.attempt);
  e.event_ts = 1'000'000 + static_cast<int64_t>(at.seq);
  return e;
}

Event Finish(Event e) {
  LAKE_REQUIRE_OK(FillDerivedIds(e));
  return e;
}

Event Created(const At& at = {}, const StepProvenance& by = {}) {
  Event e = Begin(at, EventType::kItemCreated);
  e.step_name = by.step_name;
  e.step_index = by.step_index;
  e.step_kind = by.step_kind;
  e.enclosing_step = by.enclosing_step;
  e.selector_step = by.selector_step;
  return Finish(e);
}

Event Step(const At& at, EventType type, std::string name, std::optional<uint32_t> index,
           StepKind kind) {
  Event e = Begin(at, type);
  e.step_name = std::move(name);
  e.step_index = index;
  e.step_kind = kind;
  return Finish(e);
}

// A FIELD_SET / FIELD_APPEND of `field` whose value `fill` sets.
template <typename Fill>
Event FieldEvent(const At& at, EventType type, std::string field, ValueKind kind, Fill fill) {
  Event e = Begin(at, type);
  e.field_name = std::move(field);
  e.value_kind = kind;
  fill(e);
  return Finish(e);
}

Event SetInt(const At& at, std::string field, int64_t value) {
  return FieldEvent(at, EventType::kFieldSet, std::move(field), ValueKind::kInt,
                    [&](Event& e) { e.value_i64 = value; });
}

Event AppendStr(const At& at, std::string field, std::string value) {
  return FieldEvent(at, EventType::kFieldAppend, std::move(field), ValueKind::kStr,
                    [&](Event& e) { e.value_str = value; });
}

Event Failed(const At& at, std::string error_type, std::string step = "") {
  Event e = Begin(at, EventType::kFailed);
  e.step_name = std::move(step);
  e.error_type = std::move(error_type);
  e.error_dump = "dump";
  e.traceback = "trace";
  return Finish(e);
}

Event Terminal(const At& at, ItemStatus status) {
  Event e = Begin(at, EventType::kTerminal);
  e.status = status;
  return Finish(e);
}

FoldedItem FoldOk(std::string_view item_id, const std::vector<Event>& events) {
  absl::StatusOr<std::optional<FoldedItem>> folded = FoldItem(item_id, events);
  LAKE_REQUIRE_OK(folded);
  REQUIRE(folded->has_value());
  return **folded;
}

Json Parse(const std::string& text) {
  Json json = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  REQUIRE_MESSAGE(!json.is_discarded(), text);
  return json;
}

std::vector<std::string> Keys(const Json& object) {
  std::vector<std::string> keys;
  for (const auto& item : object.items()) keys.push_back(item.key());
  return keys;
}

// The "fields" object of the folded item of `events` (item "r").
Json FieldsOf(const std::vector<Event>& events) {
  return Parse(FoldedItemToJson(FoldOk("r", events)))["fields"];
}

const std::vector<std::string> kItemKeys = {
    "item_id",    "root_item_id",  "parent_item_id", "status",
    "last_attempt", "next_item_seq", "writer_epoch",  "query_tags",
    "created_by", "fields",        "completed_steps", "open_frames",
    "failure"};
const std::vector<std::string> kStepKeys = {"step_name", "step_index", "step_kind", "attempt",
                                            "item_seq"};
const std::vector<std::string> kFailureKeys = {
    "item_id",    "item_seq",   "attempt",   "step_name", "step_index",
    "error_type", "error_dump", "traceback", "event_ts"};

// ---- values ----

TEST_CASE("fold json: int, float, bool and str values are plain JSON values") {
  std::vector<Event> events = {
      Created(), SetInt({.seq = 2}, "n", -7),
      FieldEvent({.seq = 3}, EventType::kFieldSet, "f", ValueKind::kFloat,
                 [](Event& e) { e.value_f64 = 0.25; }),
      FieldEvent({.seq = 4}, EventType::kFieldSet, "b", ValueKind::kBool,
                 [](Event& e) { e.value_bool = true; }),
      FieldEvent({.seq = 5}, EventType::kFieldSet, "s", ValueKind::kStr,
                 [](Event& e) { e.value_str = "hé \"q\""; })};
  Json fields = FieldsOf(events);
  CHECK(fields["n"] == Json(-7));
  CHECK(fields["f"] == Json(0.25));
  CHECK(fields["b"] == Json(true));
  CHECK(fields["s"] == Json("hé \"q\""));
}

TEST_CASE("fold json: a json value is the parsed JSON, keeping its key order") {
  std::vector<Event> events = {
      Created(), FieldEvent({.seq = 2}, EventType::kFieldSet, "j", ValueKind::kJson,
                            [](Event& e) { e.value_json = R"({"z":1,"a":[true,null]})"; })};
  Json j = FieldsOf(events)["j"];
  REQUIRE(j.is_object());
  CHECK(Keys(j) == std::vector<std::string>{"z", "a"});
  CHECK(j["a"] == Json::parse("[true,null]"));
}

TEST_CASE("fold json: a json value that does not parse is shown as its text") {
  FoldedItem item = FoldOk("r", {Created()});
  Event bad = Begin({.seq = 2}, EventType::kFieldSet);
  bad.value_kind = ValueKind::kJson;
  bad.value_json = "{not json";
  item.fields["j"] = FoldedField{FieldMode::kSet, {bad}};
  CHECK(Parse(FoldedItemToJson(item))["fields"]["j"] == Json("{not json"));
}

TEST_CASE("fold json: a json value nesting too deep to render is shown as its text") {
  FoldedItem item = FoldOk("r", {Created()});
  Event deep = Begin({.seq = 2}, EventType::kFieldSet);
  deep.value_kind = ValueKind::kJson;
  deep.value_json = std::string(100'000, '[') + std::string(100'000, ']');
  item.fields["j"] = FoldedField{FieldMode::kSet, {deep}};
  Json j = Parse(FoldedItemToJson(item))["fields"]["j"];
  REQUIRE(j.is_string());
  CHECK(j.get<std::string>() == deep.value_json);
}

TEST_CASE("fold json: an inline blob shows its size and sha256, not its bytes") {
  Event blob = FieldEvent({.seq = 2}, EventType::kFieldSet, "image", ValueKind::kBlob,
                          [](Event& e) {
                            e.blob_inline = "PNG-SECRET-BYTES";
                            e.payload_size = e.blob_inline.size();
                            e.payload_checksum = Sha256Hex(e.blob_inline);
                          });
  std::string text = FoldedItemToJson(FoldOk("r", {Created(), blob}));
  CHECK(text.find("PNG-SECRET-BYTES") == std::string::npos);
  Json image = Parse(text)["fields"]["image"];
  CHECK(Keys(image) == std::vector<std::string>{"blob"});
  CHECK(Keys(image["blob"]) == std::vector<std::string>{"inline_bytes", "sha256"});
  CHECK(image["blob"]["inline_bytes"] == Json(16));
  CHECK(image["blob"]["sha256"] == Json(blob.payload_checksum));
}

TEST_CASE("fold json: an offloaded blob shows its DataLocation object") {
  DataLocation where{"file:///stage/obj", "video/mp4", 3, Sha256Hex("abc")};
  Event blob = FieldEvent({.seq = 2}, EventType::kFieldSet, "clip", ValueKind::kBlob,
                          [&](Event& e) {
                            e.blob_location = where;
                            e.payload_size = where.size_bytes;
                            e.payload_checksum = where.sha256;
                          });
  Json clip = FieldsOf({Created(), blob})["clip"];
  CHECK(Keys(clip["blob"]) == std::vector<std::string>{"location"});
  CHECK(clip["blob"]["location"] == Parse(DataLocationToJson(where)));
  absl::StatusOr<DataLocation> back = DataLocationFromJson(clip["blob"]["location"].dump());
  LAKE_REQUIRE_OK(back);
  CHECK(*back == where);
}

TEST_CASE("fold json: a set field is one value, an append field a list in item_seq order") {
  std::vector<Event> events = {Created(), SetInt({.seq = 2}, "x", 1), SetInt({.seq = 3}, "x", 2),
                               AppendStr({.seq = 4}, "log", "a"),
                               AppendStr({.seq = 5}, "log", "b")};
  Json fields = FieldsOf(events);
  CHECK(fields["x"] == Json(2));
  CHECK(fields["log"] == Json::parse(R"(["a","b"])"));
}

TEST_CASE("fold json: an append field with one value is still a list") {
  Json fields = FieldsOf({Created(), AppendStr({.seq = 2}, "log", "only")});
  CHECK(fields["log"] == Json::parse(R"(["only"])"));
}

// ---- the folded item ----

TEST_CASE("fold json: a folded item has exactly the documented keys in order") {
  Json item = Parse(FoldedItemToJson(FoldOk("r", {Created()})));
  CHECK(Keys(item) == kItemKeys);
}

TEST_CASE("fold json: a root has a null parent, a child its parent's id") {
  Json root = Parse(FoldedItemToJson(FoldOk("r", {Created()})));
  CHECK(root["item_id"] == Json("r"));
  CHECK(root["root_item_id"] == Json("r"));
  CHECK(root["parent_item_id"].is_null());
  Json child =
      Parse(FoldedItemToJson(FoldOk("r/gen:0/judge:1", {Created({.item = "r/gen:0/judge:1"})})));
  CHECK(child["root_item_id"] == Json("r"));
  CHECK(child["parent_item_id"] == Json("r/gen:0"));
}

TEST_CASE("fold json: a missing item is null") {
  CHECK(FoldedItemOrNullToJson(std::nullopt) == "null");
  FoldedItem item = FoldOk("r", {Created()});
  CHECK(FoldedItemOrNullToJson(item) == FoldedItemToJson(item));
}

TEST_CASE("fold json: bookkeeping shows status, attempt, next item_seq and writer epoch") {
  std::vector<Event> events = {Created(), SetInt({.seq = 2, .attempt = 1}, "x", 1),
                               Terminal({.seq = 3, .attempt = 1}, ItemStatus::kCompleted)};
  Json item = Parse(FoldedItemToJson(FoldOk("r", events)));
  CHECK(item["status"] == Json("completed"));
  CHECK(item["last_attempt"] == Json(1));
  CHECK(item["next_item_seq"] == Json(4));
  CHECK(item["writer_epoch"] == Json("epoch-1"));
  CHECK(item["failure"].is_null());
}

TEST_CASE("fold json: an empty writer epoch is null") {
  FoldedItem item = FoldOk("r", {Created()});
  item.writer_epoch.clear();
  CHECK(Parse(FoldedItemToJson(item))["writer_epoch"].is_null());
}

TEST_CASE("fold json: query tags are parsed JSON, their text if not JSON, null if empty") {
  FoldedItem item = FoldOk("r", {Created()});
  CHECK(Parse(FoldedItemToJson(item))["query_tags"].is_null());
  item.query_tags_json = R"({"split":"train","n":3})";
  Json tags = Parse(FoldedItemToJson(item))["query_tags"];
  CHECK(Keys(tags) == std::vector<std::string>{"split", "n"});
  CHECK(tags["n"] == Json(3));
  item.query_tags_json = "train,dev";
  CHECK(Parse(FoldedItemToJson(item))["query_tags"] == Json("train,dev"));
}

TEST_CASE("fold json: created_by is the ITEM_CREATED provenance, null when it has none") {
  CHECK(Parse(FoldedItemToJson(FoldOk("r", {Created()})))["created_by"].is_null());
  StepProvenance by{"gen", 3, StepKind::kMapReduce, "main", "route"};
  Json child = Parse(FoldedItemToJson(FoldOk("r/gen:3", {Created({.item = "r/gen:3"}, by)})));
  CHECK(child["created_by"] ==
        Json::parse(R"({"step_name":"gen","step_index":3,"step_kind":"MapReduce",)"
                    R"("enclosing_step":"main","selector_step":"route"})"));
  CHECK(Keys(child["created_by"]) == std::vector<std::string>{"step_name", "step_index",
                                                              "step_kind", "enclosing_step",
                                                              "selector_step"});
}

TEST_CASE("fold json: completed steps and open frames list step, kind, attempt and item_seq") {
  std::vector<Event> events = {
      Created(), Step({.seq = 2}, EventType::kStepStarted, "main", std::nullopt,
                      StepKind::kSequence),
      Step({.seq = 3}, EventType::kStepCompleted, "draft", 0, StepKind::kLeaf)};
  Json item = Parse(FoldedItemToJson(FoldOk("r", events)));
  REQUIRE(item["completed_steps"].size() == 1);
  CHECK(Keys(item["completed_steps"][0]) == kStepKeys);
  CHECK(item["completed_steps"][0] ==
        Json::parse(R"({"step_name":"draft","step_index":0,"step_kind":"Leaf",)"
                    R"("attempt":0,"item_seq":3})"));
  REQUIRE(item["open_frames"].size() == 1);
  CHECK(Keys(item["open_frames"][0]) == kStepKeys);
  CHECK(item["open_frames"][0] ==
        Json::parse(R"({"step_name":"main","step_index":null,"step_kind":"Sequence",)"
                    R"("attempt":0,"item_seq":2})"));
}

TEST_CASE("fold json: a failed item carries its failure object") {
  Json item =
      Parse(FoldedItemToJson(FoldOk("r", {Created(), Failed({.seq = 2}, "Timeout", "judge")})));
  CHECK(item["status"] == Json("failed"));
  REQUIRE(item["failure"].is_object());
  CHECK(Keys(item["failure"]) == kFailureKeys);
  CHECK(item["failure"]["error_type"] == Json("Timeout"));
  CHECK(item["failure"]["step_name"] == Json("judge"));
}

TEST_CASE("fold json: invalid UTF-8 in an in-memory item is replaced, not thrown") {
  FoldedItem item = FoldOk("r", {Created()});
  item.writer_epoch = "bad\xff";
  Json parsed = Parse(FoldedItemToJson(item));
  CHECK(parsed["writer_epoch"] == Json("bad\xEF\xBF\xBD"));
}

// ---- trees ----

// r created gen:0 and gen:1 (chosen by the Router "route"); gen:0 has a
// judge child; r/lost:0 was never created, so its child is an orphan.
EventsByItem FanOut() {
  StepProvenance gen{"gen", 0, StepKind::kMapReduce, "main", "route"};
  EventsByItem log;
  log["r"] = {Created()};
  log["r/gen:0"] = {Created({.item = "r/gen:0"}, gen)};
  log["r/gen:1"] = {Created({.item = "r/gen:1"}, gen)};
  log["r/gen:0/judge:0"] = {Created({.item = "r/gen:0/judge:0"})};
  log["r/lost:0/fix:0"] = {Created({.item = "r/lost:0/fix:0"})};
  return log;
}

TEST_CASE("fold json: a tree nests children under their parent and lists orphans") {
  absl::StatusOr<ItemTree> tree = BuildItemTree("r", FanOut());
  LAKE_REQUIRE_OK(tree);
  Json json = Parse(ItemTreeToJson(*tree));
  CHECK(Keys(json) == std::vector<std::string>{"root", "orphans"});
  const Json& root = json["root"];
  CHECK(Keys(root) ==
        std::vector<std::string>{"item", "created_by_step", "selector_step", "children"});
  CHECK(root["item"]["item_id"] == Json("r"));
  CHECK(Keys(root["item"]) == kItemKeys);
  CHECK(root["created_by_step"].is_null());
  REQUIRE(root["children"].size() == 2);
  const Json& gen0 = root["children"][0];
  CHECK(gen0["item"]["item_id"] == Json("r/gen:0"));
  CHECK(gen0["created_by_step"] == Json("gen"));
  CHECK(gen0["selector_step"] == Json("route"));
  REQUIRE(gen0["children"].size() == 1);
  CHECK(gen0["children"][0]["item"]["item_id"] == Json("r/gen:0/judge:0"));
  CHECK(gen0["children"][0]["children"] == Json::array());
  CHECK(root["children"][1]["item"]["item_id"] == Json("r/gen:1"));
  REQUIRE(json["orphans"].size() == 1);
  CHECK(json["orphans"][0]["item"]["item_id"] == Json("r/lost:0/fix:0"));
}

TEST_CASE("fold json: a tree without a created root has a null root") {
  EventsByItem log;
  log["r/gen:0"] = {Created({.item = "r/gen:0"})};
  absl::StatusOr<ItemTree> tree = BuildItemTree("r", log);
  LAKE_REQUIRE_OK(tree);
  Json json = Parse(ItemTreeToJson(*tree));
  CHECK(json["root"].is_null());
  REQUIRE(json["orphans"].size() == 1);
  CHECK(json["orphans"][0]["item"]["item_id"] == Json("r/gen:0"));
}

// ---- roots ----

TEST_CASE("fold json: root statuses are listed by item_id with a count per status") {
  EventsByItem log;
  log["b"] = {Created({.item = "b"}), Terminal({.item = "b", .seq = 2}, ItemStatus::kFiltered)};
  log["a"] = {Created({.item = "a"}), Failed({.item = "a", .seq = 2}, "OOM")};
  log["c"] = {Created({.item = "c"})};
  log["d"] = {Created({.item = "d"}), Terminal({.item = "d", .seq = 2}, ItemStatus::kCompleted)};
  log["e"] = {Created({.item = "e"})};
  log["e/gen:0"] = {Created({.item = "e/gen:0"})};  // not a root
  absl::StatusOr<RootStatuses> roots = RootItemStatuses(log);
  LAKE_REQUIRE_OK(roots);
  Json json = Parse(RootStatusesToJson(*roots));
  CHECK(Keys(json) == std::vector<std::string>{"roots", "counts"});
  CHECK(json["roots"] == Json::parse(R"([{"item_id":"a","status":"failed"},)"
                                     R"({"item_id":"b","status":"filtered"},)"
                                     R"({"item_id":"c","status":"running"},)"
                                     R"({"item_id":"d","status":"completed"},)"
                                     R"({"item_id":"e","status":"running"}])"));
  CHECK(Keys(json["roots"][0]) == std::vector<std::string>{"item_id", "status"});
  CHECK(Keys(json["counts"]) ==
        std::vector<std::string>{"running", "completed", "filtered", "failed"});
  CHECK(json["counts"] ==
        Json::parse(R"({"running":2,"completed":1,"filtered":1,"failed":1})"));
}

TEST_CASE("fold json: no roots is an empty list with zero counts") {
  CHECK(RootStatusesToJson(RootStatuses{}) ==
        R"({"roots":[],"counts":{"running":0,"completed":0,"filtered":0,"failed":0}})");
}

// ---- failures ----

TEST_CASE("fold json: failures list each FAILED event with its step and error") {
  std::vector<Event> events = {Created(), Failed({.seq = 2}, "Timeout", "judge"),
                               Failed({.item = "r/gen:0", .seq = 2}, "ParseError")};
  Json json = Parse(FailuresToJson(Failures(events)));
  REQUIRE(json.is_array());
  REQUIRE(json.size() == 2);
  CHECK(Keys(json[0]) == kFailureKeys);
  CHECK(json[0] == Json::parse(R"({"item_id":"r","item_seq":2,"attempt":0,)"
                               R"("step_name":"judge","step_index":null,)"
                               R"("error_type":"Timeout","error_dump":"dump",)"
                               R"("traceback":"trace","event_ts":1000002})"));
  CHECK(json[1]["item_id"] == Json("r/gen:0"));
  CHECK(json[1]["step_name"].is_null());
  CHECK(FailuresToJson({}) == "[]");
}

// ---- raw events ----

TEST_CASE("fold json: events are one EventToJson line each, newline-terminated") {
  std::vector<Event> events = {Created(), SetInt({.seq = 2}, "x", 1)};
  std::string lines = EventsToJsonLines(events);
  CHECK(lines == EventToJson(events[0]) + "\n" + EventToJson(events[1]) + "\n");
  absl::StatusOr<std::vector<Event>> back = ParseEventJsonLines(lines);
  LAKE_REQUIRE_OK(back);
  CHECK(*back == events);
  CHECK(EventsToJsonLines({}) == "");
}

}  // namespace
}  // namespace lake::events
