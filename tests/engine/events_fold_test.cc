// The fold of the event log (engine/events/fold.h): an item's state from its
// events, the fencing rules, the lifecycle and failure lenses, item trees,
// root statuses and a root's raw events.
#include "engine/events/fold.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "engine/events/fold_json.h"
#include "engine/sha256.h"
#include "tests/support/status_checks.h"

namespace lake::events {
namespace {

// Where an event sits in an item's log. Attempt `a` is written by writer
// epoch "epoch-a" unless a test says otherwise.
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
           StepKind kind, std::string enclosing = "") {
  Event e = Begin(at, type);
  e.step_name = std::move(name);
  e.step_index = index;
  e.step_kind = kind;
  e.enclosing_step = std::move(enclosing);
  return Finish(e);
}

Event Started(const At& at, std::string name, std::optional<uint32_t> index, StepKind kind,
              std::string enclosing = "") {
  return Step(at, EventType::kStepStarted, std::move(name), index, kind, std::move(enclosing));
}

Event Completed(const At& at, std::string name, std::optional<uint32_t> index, StepKind kind) {
  return Step(at, EventType::kStepCompleted, std::move(name), index, kind);
}

Event SetInt(const At& at, std::string field, int64_t value) {
  Event e = Begin(at, EventType::kFieldSet);
  e.field_name = std::move(field);
  e.value_kind = ValueKind::kInt;
  e.value_i64 = value;
  return Finish(e);
}

Event AppendStr(const At& at, std::string field, std::string value) {
  Event e = Begin(at, EventType::kFieldAppend);
  e.field_name = std::move(field);
  e.value_kind = ValueKind::kStr;
  e.value_str = std::move(value);
  return Finish(e);
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

bool Mentions(const absl::Status& status, std::string_view text) {
  return std::string(status.message()).find(text) != std::string::npos;
}

// ---- The fold of one item ----

TEST_CASE("events fold: an item without ITEM_CREATED folds to nothing") {
  absl::StatusOr<std::optional<FoldedItem>> none = FoldItem("r", {});
  LAKE_REQUIRE_OK(none);
  CHECK_FALSE(none->has_value());
  std::vector<Event> events = {SetInt({.seq = 2}, "x", 1)};
  none = FoldItem("r", events);
  LAKE_REQUIRE_OK(none);
  CHECK_FALSE(none->has_value());
}

TEST_CASE("events fold: events are applied in item_seq order whatever order they arrive in") {
  std::vector<Event> events = {SetInt({.seq = 3}, "x", 3), Created(), SetInt({.seq = 2}, "x", 2)};
  FoldedItem item = FoldOk("r", events);
  CHECK(item.item_id == "r");
  CHECK(item.root_item_id == "r");
  CHECK(item.parent_item_id == "");
  CHECK(item.status == ItemStatus::kRunning);
  CHECK(item.fields.at("x").values.at(0).value_i64 == 3);
}

TEST_CASE("events fold: FIELD_SET is last writer wins by item_seq") {
  std::vector<Event> events = {Created(), SetInt({.seq = 2}, "x", 1), SetInt({.seq = 3}, "x", 2),
                               SetInt({.seq = 4}, "y", 7)};
  FoldedItem item = FoldOk("r", events);
  const FoldedField& x = item.fields.at("x");
  CHECK(x.mode == FieldMode::kSet);
  REQUIRE(x.values.size() == 1);
  CHECK(x.values[0].value_i64 == 2);
  CHECK(x.values[0].item_seq == 3);
  CHECK(item.fields.at("y").values.at(0).value_i64 == 7);
}

TEST_CASE("events fold: FIELD_APPEND accumulates every value in item_seq order") {
  std::vector<Event> events = {Created(), AppendStr({.seq = 3}, "log", "b"),
                               AppendStr({.seq = 2}, "log", "a"),
                               AppendStr({.seq = 4}, "log", "c")};
  FoldedItem item = FoldOk("r", events);
  const FoldedField& log = item.fields.at("log");
  CHECK(log.mode == FieldMode::kAppend);
  REQUIRE(log.values.size() == 3);
  CHECK(log.values[0].value_str == "a");
  CHECK(log.values[1].value_str == "b");
  CHECK(log.values[2].value_str == "c");
}

TEST_CASE("events fold: SET and APPEND on one field is an error naming item and field") {
  Event append = AppendStr({.seq = 3}, "x", "a");
  std::vector<Event> events = {Created(), SetInt({.seq = 2}, "x", 1), append};
  absl::StatusOr<std::optional<FoldedItem>> folded = FoldItem("r", events);
  CHECK(absl::IsFailedPrecondition(folded.status()));
  CHECK(Mentions(folded.status(), "\"r\""));
  CHECK(Mentions(folded.status(), "field \"x\""));
}

TEST_CASE("events fold: an event repeated with another event_ts counts once") {
  Event set = SetInt({.seq = 2}, "log_len", 1);
  Event retried = set;
  retried.event_ts += 5'000'000;
  Event append = AppendStr({.seq = 3}, "log", "a");
  std::vector<Event> events = {Created(), retried, set, append, append};
  FoldedItem item = FoldOk("r", events);
  CHECK(item.fields.at("log").values.size() == 1);
  CHECK(item.fields.at("log_len").values.at(0).event_ts == set.event_ts);  // the earliest
  CHECK(item.next_item_seq == 4);
}

TEST_CASE("events fold: a different event at a taken item_seq is a fencing violation") {
  std::vector<Event> events = {Created(), SetInt({.seq = 2}, "x", 1), SetInt({.seq = 2}, "x", 2)};
  absl::StatusOr<std::optional<FoldedItem>> folded = FoldItem("r", events);
  CHECK(absl::IsAborted(folded.status()));
  CHECK(Mentions(folded.status(), "fencing violation"));
  CHECK(Mentions(folded.status(), "\"r\""));
  CHECK(Mentions(folded.status(), "item_seq 2"));
}

TEST_CASE("events fold: an attempt lower than one at a lower item_seq is stale") {
  std::vector<Event> events = {Created(), SetInt({.seq = 2, .attempt = 1}, "x", 1),
                               SetInt({.seq = 3, .attempt = 0}, "x", 2)};
  absl::StatusOr<std::optional<FoldedItem>> folded = FoldItem("r", events);
  CHECK(absl::IsAborted(folded.status()));
  CHECK(Mentions(folded.status(), "stale attempt"));
  CHECK(Mentions(folded.status(), "item_seq 3"));
}

TEST_CASE("events fold: two writer epochs in one attempt are split brain") {
  Event other = SetInt({.seq = 3}, "x", 2);
  other.writer_epoch = "intruder";
  std::vector<Event> events = {Created(), SetInt({.seq = 2}, "x", 1), other};
  absl::StatusOr<std::optional<FoldedItem>> folded = FoldItem("r", events);
  CHECK(absl::IsAborted(folded.status()));
  CHECK(Mentions(folded.status(), "split brain"));
  CHECK(Mentions(folded.status(), "\"intruder\""));
}

TEST_CASE("events fold: an event without a writer epoch does not conflict") {
  Event anonymous = SetInt({.seq = 2}, "x", 1);
  anonymous.writer_epoch = "";
  std::vector<Event> events = {Created(), anonymous, SetInt({.seq = 3}, "x", 2)};
  FoldedItem item = FoldOk("r", events);
  CHECK(item.writer_epoch == "epoch-0");
}

TEST_CASE("events fold: an event of another item is InvalidArgument") {
  std::vector<Event> events = {Created(), SetInt({.item = "s", .seq = 2}, "x", 1)};
  CHECK(absl::IsInvalidArgument(FoldItem("r", events).status()));
}

TEST_CASE("events fold: an event failing ValidateEvent is refused with its error") {
  Event leaf = Started({.seq = 2}, "llm", 0, StepKind::kSequence);
  leaf.step_kind = StepKind::kLeaf;  // only drivers may STEP_STARTED
  std::vector<Event> events = {Created(), leaf};
  absl::StatusOr<std::optional<FoldedItem>> folded = FoldItem("r", events);
  CHECK(absl::IsInvalidArgument(folded.status()));
  CHECK(folded.status() == ValidateEvent(leaf));
}

TEST_CASE("events fold: TERMINAL sets status completed or filtered") {
  std::vector<Event> done = {Created(), Terminal({.seq = 2}, ItemStatus::kCompleted)};
  CHECK(FoldOk("r", done).status == ItemStatus::kCompleted);
  std::vector<Event> dropped = {Created(), Terminal({.seq = 2}, ItemStatus::kFiltered)};
  CHECK(FoldOk("r", dropped).status == ItemStatus::kFiltered);
}

TEST_CASE("events fold: FAILED makes the item failed and records the failure") {
  std::vector<Event> events = {Created(), Failed({.seq = 2}, "Timeout", "judge")};
  FoldedItem item = FoldOk("r", events);
  CHECK(item.status == ItemStatus::kFailed);
  REQUIRE(item.failure.has_value());
  CHECK(item.failure->item_id == "r");
  CHECK(item.failure->step.step_name == "judge");
  CHECK(item.failure->attempt == 0);
  CHECK(item.failure->item_seq == 2);
  CHECK(item.failure->error_type == "Timeout");
  CHECK(item.failure->error_dump == "dump");
  CHECK(item.failure->traceback == "trace");
}

TEST_CASE("events fold: a later attempt after FAILED makes the item running again") {
  std::vector<Event> events = {Created(), Failed({.seq = 2}, "Timeout"),
                               SetInt({.seq = 3, .attempt = 1}, "x", 1)};
  FoldedItem item = FoldOk("r", events);
  CHECK(item.status == ItemStatus::kRunning);
  CHECK_FALSE(item.failure.has_value());
  CHECK(item.last_attempt == 1);
}

TEST_CASE("events fold: an event after FAILED in the same attempt is refused") {
  std::vector<Event> events = {Created(), Failed({.seq = 2}, "Timeout"), SetInt({.seq = 3}, "x", 1)};
  absl::StatusOr<std::optional<FoldedItem>> folded = FoldItem("r", events);
  CHECK(absl::IsFailedPrecondition(folded.status()));
  CHECK(Mentions(folded.status(), "after its FAILED"));
}

TEST_CASE("events fold: an event after TERMINAL is refused, even in a later attempt") {
  std::vector<Event> events = {Created(), Terminal({.seq = 2}, ItemStatus::kCompleted),
                               SetInt({.seq = 3, .attempt = 1}, "x", 1)};
  absl::StatusOr<std::optional<FoldedItem>> folded = FoldItem("r", events);
  CHECK(absl::IsFailedPrecondition(folded.status()));
  CHECK(Mentions(folded.status(), "after its TERMINAL"));
}

TEST_CASE("events fold: ITEM_CREATED must be the item's first and only creation") {
  std::vector<Event> late = {SetInt({.seq = 1}, "x", 1), Created({.seq = 2})};
  CHECK(absl::IsFailedPrecondition(FoldItem("r", late).status()));
  std::vector<Event> twice = {Created(), Created({.seq = 2})};
  absl::StatusOr<std::optional<FoldedItem>> folded = FoldItem("r", twice);
  CHECK(absl::IsFailedPrecondition(folded.status()));
  CHECK(Mentions(folded.status(), "second ITEM_CREATED"));
}

TEST_CASE("events fold: open frames are driver steps started and not completed") {
  std::vector<Event> events = {
      Created(),
      Started({.seq = 2}, "main", std::nullopt, StepKind::kSequence),
      Started({.seq = 3}, "refine", 0, StepKind::kLoop, "main"),
      Completed({.seq = 4}, "draft", 0, StepKind::kLeaf),
      Started({.seq = 5}, "fanout", 1, StepKind::kMapReduce, "refine"),
      Completed({.seq = 6}, "fanout", 1, StepKind::kMapReduce),
  };
  FoldedItem item = FoldOk("r", events);
  REQUIRE(item.open_frames.size() == 2);
  CHECK(item.open_frames[0] ==
        OpenFrame{"main", std::nullopt, StepKind::kSequence, "", 0, 2});
  CHECK(item.open_frames[1] == OpenFrame{"refine", 0, StepKind::kLoop, "main", 0, 3});
  // The innermost open frame is where a resumed attempt picks up.
  CHECK(item.open_frames.back().step_name == "refine");
  CHECK(FindOpenFrame(item, "refine", 0) == &item.open_frames[1]);
  CHECK(FindOpenFrame(item, "refine", 1) == nullptr);
  CHECK(FindOpenFrame(item, "fanout", 1) == nullptr);
}

TEST_CASE("events fold: a frame started again by a later attempt is replaced, not duplicated") {
  std::vector<Event> events = {
      Created(),
      Started({.seq = 2}, "main", 0, StepKind::kSequence),
      Started({.seq = 3, .attempt = 1}, "main", 0, StepKind::kSequence),
  };
  FoldedItem item = FoldOk("r", events);
  REQUIRE(item.open_frames.size() == 1);
  CHECK(item.open_frames[0].attempt == 1);
  CHECK(item.open_frames[0].item_seq == 3);
}

TEST_CASE("events fold: completed steps are listed in item_seq order") {
  std::vector<Event> events = {
      Created(),
      Completed({.seq = 3, .attempt = 1}, "judge", 0, StepKind::kLeaf),
      Completed({.seq = 2}, "draft", 0, StepKind::kLeaf),
  };
  FoldedItem item = FoldOk("r", events);
  REQUIRE(item.completed_steps.size() == 2);
  CHECK(item.completed_steps[0] == CompletedStep{"draft", 0, StepKind::kLeaf, "", 0, 2});
  CHECK(item.completed_steps[1] == CompletedStep{"judge", 0, StepKind::kLeaf, "", 1, 3});
}

TEST_CASE("events fold: bookkeeping follows the last attempt and the last non-empty tags") {
  Event tagged = SetInt({.seq = 2}, "x", 1);
  tagged.query_tags_json = R"({"split":"train"})";
  LAKE_REQUIRE_OK(FillDerivedIds(tagged));
  Event resumed = SetInt({.seq = 3, .attempt = 2}, "x", 2);
  std::vector<Event> events = {Created(), tagged, resumed};
  FoldedItem item = FoldOk("r", events);
  CHECK(item.last_attempt == 2);
  CHECK(item.next_item_seq == 4);
  CHECK(item.writer_epoch == "epoch-2");
  CHECK(item.query_tags_json == R"({"split":"train"})");
}

TEST_CASE("events fold: writer_epoch is the last attempt's, empty when it wrote none") {
  Event anonymous = SetInt({.seq = 2, .attempt = 1}, "x", 1);
  anonymous.writer_epoch = "";
  std::vector<Event> events = {Created(), anonymous};
  FoldedItem item = FoldOk("r", events);
  CHECK(item.last_attempt == 1);
  CHECK(item.writer_epoch == "");  // not attempt 0's "epoch-0"
}

TEST_CASE("events fold: ITEM_CREATED provenance names the creating step and selector") {
  StepProvenance by{"gen", 0, StepKind::kMapReduce, "main", "route"};
  std::vector<Event> events = {Created({.item = "r/gen:0"}, by)};
  FoldedItem item = FoldOk("r/gen:0", events);
  CHECK(item.created_by == by);
  CHECK(item.parent_item_id == "r");
  CHECK(item.root_item_id == "r");
}

TEST_CASE("events fold: a blob field keeps its whole event for load_blob") {
  Event blob = Begin({.seq = 2}, EventType::kFieldSet);
  blob.field_name = "image";
  blob.value_kind = ValueKind::kBlob;
  blob.blob_inline = "PNG...";
  blob.payload_size = blob.blob_inline.size();
  blob.payload_checksum = Sha256Hex(blob.blob_inline);
  blob = Finish(blob);
  std::vector<Event> events = {Created(), blob};
  FoldedItem item = FoldOk("r", events);
  const Event& held = item.fields.at("image").values.at(0);
  CHECK(held.blob_inline == "PNG...");
  CHECK(held.payload_checksum == blob.payload_checksum);
  CHECK(held.event_id == blob.event_id);
}

// ---- Lenses ----

TEST_CASE("events fold: the lifecycle lens shows status, fields, steps and open frames") {
  std::vector<Event> events = {
      Created(), Started({.seq = 2}, "main", 0, StepKind::kSequence),
      SetInt({.seq = 3}, "x", 1), Completed({.seq = 4}, "draft", 0, StepKind::kLeaf)};
  FoldedItem item = FoldOk("r", events);
  LifecycleView view = Lifecycle(item);
  CHECK(view.status == ItemStatus::kRunning);
  CHECK(view.fields.size() == 1);
  CHECK(view.completed_steps == item.completed_steps);
  CHECK(view.open_frames == item.open_frames);
}

TEST_CASE("events fold: the failures lens lists every FAILED event by item then item_seq") {
  Event first = Failed({.seq = 2}, "Timeout", "judge");
  std::vector<Event> events = {
      Failed({.item = "r/gen:0", .seq = 2}, "ParseError"),
      Created(),
      Failed({.seq = 4, .attempt = 1}, "OOM"),
      first,
      first,  // a duplicate is reported once
      SetInt({.seq = 3, .attempt = 1}, "x", 1),
  };
  std::vector<FailureRecord> failures = Failures(events);
  REQUIRE(failures.size() == 3);
  CHECK(failures[0].item_id == "r");
  CHECK(failures[0].item_seq == 2);
  CHECK(failures[0].error_type == "Timeout");
  CHECK(failures[0].step.step_name == "judge");
  CHECK(failures[0].event_ts == first.event_ts);
  CHECK(failures[1].item_id == "r");
  CHECK(failures[1].attempt == 1);
  CHECK(failures[1].error_type == "OOM");
  CHECK(failures[2].item_id == "r/gen:0");
  CHECK(failures[2].error_type == "ParseError");
}

// ---- Derived reads over many items ----

// A fan-out: r runs a Router "route" that picks the generator "gen", which
// makes two children; gen:0 has a judge child of its own.
EventsByItem FanOut() {
  StepProvenance gen{"gen", 0, StepKind::kMapReduce, "main", "route"};
  StepProvenance judge{"judge", 0, StepKind::kMapReduce, "gen", ""};
  EventsByItem log;
  log["r"] = {Created(), Started({.seq = 2}, "route", 0, StepKind::kRouter)};
  log["r/gen:1"] = {Created({.item = "r/gen:1"}, gen),
                    Terminal({.item = "r/gen:1", .seq = 2}, ItemStatus::kFiltered)};
  log["r/gen:0"] = {Created({.item = "r/gen:0"}, gen)};
  log["r/gen:0/judge:0"] = {Created({.item = "r/gen:0/judge:0"}, judge),
                            SetInt({.item = "r/gen:0/judge:0", .seq = 2}, "score", 9)};
  log["r2"] = {Created({.item = "r2"})};
  return log;
}

TEST_CASE("events fold: an item tree links a fan-out and shows the Router that chose it") {
  absl::StatusOr<ItemTree> tree = BuildItemTree("r", FanOut());
  LAKE_REQUIRE_OK(tree);
  REQUIRE(tree->root.has_value());
  CHECK(tree->orphans.empty());
  const ItemTreeNode& root = *tree->root;
  CHECK(root.item.item_id == "r");
  REQUIRE(root.children.size() == 2);
  const ItemTreeNode& gen0 = root.children[0];
  CHECK(gen0.item.item_id == "r/gen:0");
  CHECK(gen0.created_by_step == "gen");
  CHECK(gen0.selector_step == "route");
  CHECK(root.children[1].item.item_id == "r/gen:1");
  CHECK(root.children[1].item.status == ItemStatus::kFiltered);
  REQUIRE(gen0.children.size() == 1);
  const ItemTreeNode& judge = gen0.children[0];
  CHECK(judge.item.item_id == "r/gen:0/judge:0");
  CHECK(judge.created_by_step == "judge");
  CHECK(judge.selector_step == "");
  CHECK(judge.item.fields.at("score").values.at(0).value_i64 == 9);
  CHECK(judge.children.empty());
}

TEST_CASE("events fold: tree children are ordered by step name, then numeric index") {
  EventsByItem log;
  log["r"] = {Created()};
  for (std::string id : {"r/gen:10", "r/gen:2", "r/alt:5"}) log[id] = {Created({.item = id})};
  absl::StatusOr<ItemTree> tree = BuildItemTree("r", log);
  LAKE_REQUIRE_OK(tree);
  REQUIRE(tree->root->children.size() == 3);
  CHECK(tree->root->children[0].item.item_id == "r/alt:5");
  CHECK(tree->root->children[1].item.item_id == "r/gen:2");
  CHECK(tree->root->children[2].item.item_id == "r/gen:10");
}

TEST_CASE("events fold: a subtree whose parent was never created is an orphan") {
  EventsByItem log;
  log["r"] = {Created()};
  log["r/gen:0"] = {SetInt({.item = "r/gen:0", .seq = 2}, "x", 1)};  // no ITEM_CREATED
  log["r/gen:0/judge:0"] = {Created({.item = "r/gen:0/judge:0"})};
  log["r/gen:0/judge:0/fix:0"] = {Created({.item = "r/gen:0/judge:0/fix:0"})};
  absl::StatusOr<ItemTree> tree = BuildItemTree("r", log);
  LAKE_REQUIRE_OK(tree);
  CHECK(tree->root->children.empty());
  REQUIRE(tree->orphans.size() == 1);
  CHECK(tree->orphans[0].item.item_id == "r/gen:0/judge:0");
  REQUIRE(tree->orphans[0].children.size() == 1);
  CHECK(tree->orphans[0].children[0].item.item_id == "r/gen:0/judge:0/fix:0");
}

TEST_CASE("events fold: without a created root its children are orphans") {
  EventsByItem log;
  log["r/gen:1"] = {Created({.item = "r/gen:1"})};
  log["r/gen:0"] = {Created({.item = "r/gen:0"})};
  absl::StatusOr<ItemTree> tree = BuildItemTree("r", log);
  LAKE_REQUIRE_OK(tree);
  CHECK_FALSE(tree->root.has_value());
  REQUIRE(tree->orphans.size() == 2);
  CHECK(tree->orphans[0].item.item_id == "r/gen:0");
  CHECK(tree->orphans[1].item.item_id == "r/gen:1");
}

TEST_CASE("events fold: an item tree needs a root id and an existing item") {
  CHECK(absl::IsInvalidArgument(BuildItemTree("r/gen:0", FanOut()).status()));
  CHECK(absl::IsNotFound(BuildItemTree("nobody", FanOut()).status()));
}

TEST_CASE("events fold: a fold error inside a tree fails the tree") {
  EventsByItem log = FanOut();
  log["r/gen:0"].push_back(SetInt({.item = "r/gen:0", .seq = 1}, "x", 1));  // seq 1 taken
  absl::StatusOr<ItemTree> tree = BuildItemTree("r", log);
  CHECK(absl::IsAborted(tree.status()));
  CHECK(Mentions(tree.status(), "r/gen:0"));
}

TEST_CASE("events fold: root statuses give each root's status and the count per status") {
  EventsByItem log = FanOut();
  log["done"] = {Created({.item = "done"}), Terminal({.item = "done", .seq = 2},
                                                     ItemStatus::kCompleted)};
  log["bad"] = {Created({.item = "bad"}), Failed({.item = "bad", .seq = 2}, "E")};
  log["ghost"] = {SetInt({.item = "ghost", .seq = 2}, "x", 1)};  // never created
  absl::StatusOr<RootStatuses> roots = RootItemStatuses(log);
  LAKE_REQUIRE_OK(roots);
  CHECK(roots->status_by_root ==
        std::map<std::string, ItemStatus>{{"bad", ItemStatus::kFailed},
                                          {"done", ItemStatus::kCompleted},
                                          {"r", ItemStatus::kRunning},
                                          {"r2", ItemStatus::kRunning}});
  CHECK(roots->running == 2);
  CHECK(roots->completed == 1);
  CHECK(roots->filtered == 0);  // r/gen:1 is filtered, but it is not a root
  CHECK(roots->failed == 1);
  CHECK(roots->Count(ItemStatus::kRunning) == 2);
  CHECK(roots->Count(ItemStatus::kFailed) == 1);
}

TEST_CASE("events fold: events for a root are its tree's raw events by item_id and item_seq") {
  EventsByItem log = FanOut();
  log["r-other"] = {Created({.item = "r-other"})};  // sorts between "r" and "r/..."
  log["r"].insert(log["r"].begin(), log["r"][1]);   // a duplicate stays: raw events
  std::vector<Event> events = EventsForRoot("r", log);
  std::vector<std::pair<std::string, uint64_t>> order;
  for (const Event& e : events) order.emplace_back(e.item_id, e.item_seq);
  CHECK(order == std::vector<std::pair<std::string, uint64_t>>{{"r", 1},
                                                               {"r", 2},
                                                               {"r", 2},
                                                               {"r/gen:0", 1},
                                                               {"r/gen:0/judge:0", 1},
                                                               {"r/gen:0/judge:0", 2},
                                                               {"r/gen:1", 1},
                                                               {"r/gen:1", 2}});
}

// The log by reference, as an EventLog's index holds it.
EventRefsByItem RefsOf(const EventsByItem& log) {
  EventRefsByItem refs;
  for (const auto& [item, events] : log) {
    for (const Event& e : events) refs[item].push_back(&e);
  }
  return refs;
}

TEST_CASE("events fold: the log by reference reads as the log by value") {
  EventsByItem log = FanOut();
  log["done"] = {Created({.item = "done"}), Terminal({.item = "done", .seq = 2},
                                                     ItemStatus::kCompleted)};
  log["bad"] = {Created({.item = "bad"}), Failed({.item = "bad", .seq = 2}, "E")};
  EventRefsByItem refs = RefsOf(log);
  for (EventChecks checks : {EventChecks::kValidate, EventChecks::kValidated}) {
    absl::StatusOr<ItemTree> by_value = BuildItemTree("r", log);
    absl::StatusOr<ItemTree> by_ref = BuildItemTree("r", refs, checks);
    LAKE_REQUIRE_OK(by_value);
    LAKE_REQUIRE_OK(by_ref);
    CHECK(ItemTreeToJson(*by_ref) == ItemTreeToJson(*by_value));
    absl::StatusOr<RootStatuses> roots_by_value = RootItemStatuses(log);
    absl::StatusOr<RootStatuses> roots_by_ref = RootItemStatuses(refs, checks);
    LAKE_REQUIRE_OK(roots_by_value);
    LAKE_REQUIRE_OK(roots_by_ref);
    CHECK(RootStatusesToJson(*roots_by_ref) == RootStatusesToJson(*roots_by_value));
    absl::StatusOr<std::optional<FoldedItem>> bad = FoldItem("bad", refs["bad"], checks);
    LAKE_REQUIRE_OK(bad);
    CHECK(FoldedItemOrNullToJson(*bad) ==
          FoldedItemOrNullToJson(*FoldItem("bad", log["bad"])));
  }
  CHECK(EventsForRoot("r", refs) == EventsForRoot("r", log));
  std::vector<const Event*> all;
  for (const auto& [item, events] : refs) all.insert(all.end(), events.begin(), events.end());
  CHECK(FailuresToJson(Failures(all)) == FailuresToJson(Failures(log["bad"])));
  CHECK(Failures(all).size() == 1);
}

TEST_CASE("events fold: by reference, only kValidate validates; both check the item") {
  Event forged = SetInt({.seq = 2}, "x", 1);
  forged.event_id = std::string(64, '0');  // not DeriveEventId of the event
  std::vector<Event> events = {Created(), forged};
  std::vector<const Event*> refs = {&events[0], &events[1]};
  CHECK(absl::IsInvalidArgument(FoldItem("r", refs, EventChecks::kValidate).status()));
  // kValidated trusts that every event passed ValidateEvent already.
  LAKE_CHECK_OK(FoldItem("r", refs, EventChecks::kValidated));
  for (EventChecks checks : {EventChecks::kValidate, EventChecks::kValidated}) {
    absl::StatusOr<std::optional<FoldedItem>> other = FoldItem("s", refs, checks);
    CHECK(absl::IsInvalidArgument(other.status()));
    CHECK(Mentions(other.status(), "was given an event of item"));
  }
}

}  // namespace
}  // namespace lake::events
