// The stream writer (engine/events/stream_writer.h): what it stamps, how it
// batches checkpoints, how it hands blobs off, and resuming an item in a new
// attempt from its fold.
#include "engine/events/stream_writer.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "engine/operation_id.h"
#include "engine/sha256.h"
#include "tests/support/status_checks.h"

namespace lake::events {
namespace {

constexpr int64_t kStartMicros = 1'750'000'000'000'000;

// Records the batches it accepts; fails while `failure` is set.
struct RecordingSink {
  std::vector<std::vector<Event>> batches;
  absl::Status failure;
  int calls = 0;

  EventSink AsSink() {
    return [this](std::vector<Event> batch) {
      ++calls;
      if (!failure.ok()) return failure;
      batches.push_back(std::move(batch));
      return absl::OkStatus();
    };
  }
  std::vector<Event> AllEvents() const {
    std::vector<Event> all;
    for (const auto& batch : batches) all.insert(all.end(), batch.begin(), batch.end());
    return all;
  }
};

// A clock that ticks one second per reading.
WriterClock TickingClock() {
  auto micros = std::make_shared<int64_t>(kStartMicros);
  return [micros] {
    absl::Time now = absl::FromUnixMicros(*micros);
    *micros += 1'000'000;
    return now;
  };
}

StreamWriterOptions Options(RecordingSink& sink) {
  StreamWriterOptions options;
  options.sink = sink.AsSink();
  options.clock = TickingClock();
  options.run_id = "run-1";
  return options;
}

StreamWriter Open(RecordingSink& sink, std::string_view item_id = "r",
                  const StepProvenance& created_by = {}) {
  absl::StatusOr<StreamWriter> writer = OpenStream(item_id, "epoch-a", Options(sink), created_by);
  LAKE_REQUIRE_OK(writer);
  return *std::move(writer);
}

FoldedItem FoldOk(std::string_view item_id, const std::vector<Event>& events) {
  absl::StatusOr<std::optional<FoldedItem>> folded = FoldItem(item_id, events);
  LAKE_REQUIRE_OK(folded);
  REQUIRE(folded->has_value());
  return **folded;
}

const StepProvenance kMain{"main", 0, StepKind::kSequence, "", ""};
const StepProvenance kDraft{"draft", 0, StepKind::kLeaf, "main", ""};

TEST_CASE("events stream writer: OpenStream stamps ITEM_CREATED at attempt 0, item_seq 1") {
  RecordingSink sink;
  StreamWriter writer = Open(sink);
  REQUIRE(writer.pending().size() == 1);
  const Event& created = writer.pending()[0];
  CHECK(created.event_type == EventType::kItemCreated);
  CHECK(created.item_id == "r");
  CHECK(created.attempt == 0);
  CHECK(created.item_seq == 1);
  CHECK(writer.attempt() == 0);
  CHECK(writer.next_item_seq() == 2);
  CHECK(sink.calls == 0);  // nothing is written before Commit
}

TEST_CASE("events stream writer: a child's ITEM_CREATED carries the creating step and selector") {
  RecordingSink sink;
  StepProvenance by{"gen", 1, StepKind::kMapReduce, "main", "route"};
  StreamWriter writer = Open(sink, "r/gen:1", by);
  const Event& created = writer.pending()[0];
  CHECK(created.parent_item_id == "r");
  CHECK(created.root_item_id == "r");
  CHECK(created.step_name == "gen");
  CHECK(created.step_index == 1u);
  CHECK(created.step_kind == StepKind::kMapReduce);
  CHECK(created.enclosing_step == "main");
  CHECK(created.selector_step == "route");
}

TEST_CASE("events stream writer: every event is stamped with the bookkeeping columns") {
  RecordingSink sink;
  StreamWriter writer = Open(sink);
  LAKE_REQUIRE_OK(writer.StepStarted(kMain));
  LAKE_REQUIRE_OK(writer.FieldSet("x", FieldValue::Int(1), kDraft));
  const std::vector<Event>& events = writer.pending();
  REQUIRE(events.size() == 3);
  for (size_t i = 0; i < events.size(); ++i) {
    const Event& e = events[i];
    CAPTURE(i);
    CHECK(e.item_seq == i + 1);
    CHECK(e.attempt == 0);
    CHECK(e.writer_epoch == "epoch-a");
    CHECK(e.run_id == "run-1");
    CHECK(e.schema_version == kEventSchemaVersion);
    CHECK(e.event_ts == kStartMicros + static_cast<int64_t>(i) * 1'000'000);
    CHECK(e.event_id == DeriveEventId(e));
    CHECK(e.checkpoint_id == events[0].checkpoint_id);
    LAKE_CHECK_OK(ValidateEvent(e));
  }
  LAKE_CHECK_OK(ParseOperationId(events[0].checkpoint_id));  // a UUIDv7
  CHECK(events[2].step_name == "draft");
  CHECK(events[2].enclosing_step == "main");
}

TEST_CASE("events stream writer: Commit hands the batch to the sink under one checkpoint id") {
  RecordingSink sink;
  StreamWriter writer = Open(sink);
  LAKE_REQUIRE_OK(writer.FieldSet("x", FieldValue::Int(1)));
  LAKE_REQUIRE_OK(writer.Commit());
  CHECK(writer.pending().empty());
  LAKE_REQUIRE_OK(writer.StepCompleted(kDraft));
  LAKE_REQUIRE_OK(writer.Commit());
  REQUIRE(sink.batches.size() == 2);
  REQUIRE(sink.batches[0].size() == 2);
  CHECK(sink.batches[0][0].checkpoint_id == sink.batches[0][1].checkpoint_id);
  REQUIRE(sink.batches[1].size() == 1);
  CHECK(sink.batches[1][0].checkpoint_id != sink.batches[0][0].checkpoint_id);
  CHECK(sink.batches[1][0].item_seq == 3);
}

TEST_CASE("events stream writer: Commit with nothing pending does not call the sink") {
  RecordingSink sink;
  StreamWriter writer = Open(sink);
  LAKE_REQUIRE_OK(writer.Commit());
  LAKE_REQUIRE_OK(writer.Commit());
  CHECK(sink.calls == 1);
}

TEST_CASE("events stream writer: a failed commit keeps the batch and its retry writes the same events") {
  RecordingSink sink;
  StreamWriter writer = Open(sink);
  LAKE_REQUIRE_OK(writer.FieldSet("x", FieldValue::Int(1)));
  std::vector<Event> before = writer.pending();
  sink.failure = absl::UnavailableError("log shard unreachable");
  CHECK(absl::IsUnavailable(writer.Commit()));
  CHECK(writer.pending() == before);
  sink.failure = absl::OkStatus();
  LAKE_REQUIRE_OK(writer.Commit());
  REQUIRE(sink.batches.size() == 1);
  CHECK(sink.batches[0] == before);  // same event ids, checkpoint id and timestamps
}

TEST_CASE("events stream writer: no event is stamped until a failed commit is retried") {
  RecordingSink sink;
  StreamWriter writer = Open(sink);
  sink.failure = absl::UnavailableError("log shard unreachable");
  CHECK_FALSE(writer.Commit().ok());
  CHECK(absl::IsFailedPrecondition(writer.FieldSet("x", FieldValue::Int(1))));
  CHECK(writer.pending().size() == 1);
  sink.failure = absl::OkStatus();
  LAKE_REQUIRE_OK(writer.Commit());
  LAKE_CHECK_OK(writer.FieldSet("x", FieldValue::Int(1)));
}

TEST_CASE("events stream writer: calls after TERMINAL are refused with InvalidArgument") {
  RecordingSink sink;
  StreamWriter writer = Open(sink);
  LAKE_REQUIRE_OK(writer.ItemTerminal(ItemStatus::kCompleted));
  CHECK(writer.finished());
  absl::Status refused = writer.FieldSet("x", FieldValue::Int(1));
  CHECK(absl::IsInvalidArgument(refused));
  CHECK(std::string(refused.message()).find("finished") != std::string::npos);
  CHECK(absl::IsInvalidArgument(writer.ItemFailed("E", "", "")));
  CHECK(writer.pending().size() == 2);
  LAKE_CHECK_OK(writer.Commit());  // the finished batch can still be written
}

TEST_CASE("events stream writer: calls after FAILED are refused with InvalidArgument") {
  RecordingSink sink;
  StreamWriter writer = Open(sink);
  LAKE_REQUIRE_OK(writer.ItemFailed("Timeout", "dump", "trace", kDraft));
  const Event& failed = writer.pending().back();
  CHECK(failed.status == ItemStatus::kFailed);
  CHECK(failed.error_type == "Timeout");
  CHECK(failed.step_name == "draft");
  CHECK(absl::IsInvalidArgument(writer.StepCompleted(kDraft)));
}

TEST_CASE("events stream writer: an invalid event is refused and consumes no item_seq") {
  RecordingSink sink;
  StreamWriter writer = Open(sink);
  StepProvenance leaf{"llm", 0, StepKind::kLeaf, "main", ""};
  CHECK(absl::IsInvalidArgument(writer.StepStarted(leaf)));  // only drivers start
  CHECK(absl::IsInvalidArgument(writer.ItemTerminal(ItemStatus::kRunning)));
  CHECK(absl::IsInvalidArgument(writer.FieldSet("j", FieldValue::Json(""))));
  CHECK(writer.next_item_seq() == 2);
  CHECK(writer.pending().size() == 1);
  CHECK_FALSE(writer.finished());
}

TEST_CASE("events stream writer: field values land in the column of their kind") {
  RecordingSink sink;
  StreamWriter writer = Open(sink);
  FieldValue typed = FieldValue::Str("hello");
  typed.field_type = "str";
  typed.codec_version = 2;
  LAKE_REQUIRE_OK(writer.FieldSet("i", FieldValue::Int(-7)));
  LAKE_REQUIRE_OK(writer.FieldSet("f", FieldValue::Float(0.25)));
  LAKE_REQUIRE_OK(writer.FieldSet("b", FieldValue::Bool(true)));
  LAKE_REQUIRE_OK(writer.FieldAppend("s", typed));
  LAKE_REQUIRE_OK(writer.FieldSet("j", FieldValue::Json(R"({"k":1})")));
  const std::vector<Event>& e = writer.pending();
  REQUIRE(e.size() == 6);
  CHECK((e[1].value_kind == ValueKind::kInt && e[1].value_i64 == -7));
  CHECK((e[2].value_kind == ValueKind::kFloat && e[2].value_f64 == 0.25));
  CHECK((e[3].value_kind == ValueKind::kBool && e[3].value_bool));
  CHECK((e[4].event_type == EventType::kFieldAppend && e[4].value_str == "hello"));
  CHECK(e[4].field_type == "str");
  CHECK(e[4].codec_version == 2);
  CHECK((e[5].value_kind == ValueKind::kJson && e[5].value_json == R"({"k":1})"));
}

TEST_CASE("events stream writer: a blob up to the threshold is inline with its size and sha256") {
  RecordingSink sink;
  StreamWriterOptions options = Options(sink);
  options.blob_inline_threshold = 4;
  options.blob_offloader = [](std::string_view) -> absl::StatusOr<DataLocation> {
    FAIL("a blob at the threshold must stay inline");
    return absl::InternalError("unreachable");
  };
  absl::StatusOr<StreamWriter> writer = OpenStream("r", "epoch-a", std::move(options));
  LAKE_REQUIRE_OK(writer);
  LAKE_REQUIRE_OK(writer->FieldSet("img", FieldValue::Blob("abcd")));
  const Event& e = writer->pending().back();
  CHECK(e.value_kind == ValueKind::kBlob);
  CHECK(e.blob_inline == "abcd");
  CHECK_FALSE(e.blob_location.has_value());
  CHECK(e.payload_size == 4);
  CHECK(e.payload_checksum == Sha256Hex("abcd"));
}

TEST_CASE("events stream writer: a blob above the threshold is offloaded to a location") {
  RecordingSink sink;
  StreamWriterOptions options = Options(sink);
  options.blob_inline_threshold = 4;
  std::string offloaded;
  options.blob_offloader = [&](std::string_view bytes) {
    offloaded = std::string(bytes);
    return MakeDataLocation("file:///stage/objects/ab/blob", kDefaultContentType, bytes.size(),
                            Sha256Hex(bytes));
  };
  absl::StatusOr<StreamWriter> writer = OpenStream("r", "epoch-a", std::move(options));
  LAKE_REQUIRE_OK(writer);
  LAKE_REQUIRE_OK(writer->FieldAppend("frames", FieldValue::Blob("abcde")));
  const Event& e = writer->pending().back();
  CHECK(offloaded == "abcde");
  CHECK(e.blob_inline.empty());
  REQUIRE(e.blob_location.has_value());
  CHECK(e.blob_location->uri == "file:///stage/objects/ab/blob");
  CHECK(e.payload_size == 5);
  CHECK(e.payload_checksum == Sha256Hex("abcde"));
}

TEST_CASE("events stream writer: the default inline threshold is 64 KiB") {
  CHECK(kDefaultBlobInlineThreshold == 64 * 1024);
  RecordingSink sink;
  StreamWriter writer = Open(sink);
  LAKE_CHECK_OK(writer.FieldSet("a", FieldValue::Blob(std::string(64 * 1024, 'x'))));
  CHECK(absl::IsFailedPrecondition(
      writer.FieldSet("b", FieldValue::Blob(std::string(64 * 1024 + 1, 'x')))));
}

TEST_CASE("events stream writer: a large blob without an offloader is refused") {
  RecordingSink sink;
  StreamWriterOptions options = Options(sink);
  options.blob_inline_threshold = 2;
  absl::StatusOr<StreamWriter> writer = OpenStream("r", "epoch-a", std::move(options));
  LAKE_REQUIRE_OK(writer);
  absl::Status refused = writer->FieldSet("img", FieldValue::Blob("abc"));
  CHECK(absl::IsFailedPrecondition(refused));
  CHECK(std::string(refused.message()).find("\"img\"") != std::string::npos);
  CHECK(writer->next_item_seq() == 2);
}

TEST_CASE("events stream writer: an offloaded location not matching the bytes is an integrity error") {
  RecordingSink sink;
  StreamWriterOptions options = Options(sink);
  options.blob_inline_threshold = 2;
  options.blob_offloader = [](std::string_view bytes) {
    return MakeDataLocation("file:///stage/objects/ab/blob", kDefaultContentType, bytes.size(),
                            Sha256Hex("something else"));
  };
  absl::StatusOr<StreamWriter> writer = OpenStream("r", "epoch-a", std::move(options));
  LAKE_REQUIRE_OK(writer);
  absl::Status refused = writer->FieldSet("img", FieldValue::Blob("abc"));
  CHECK(testing::KindOf(refused) == IntegrityKind::kDigestMismatch);
  CHECK(writer->pending().size() == 1);
}

TEST_CASE("events stream writer: an offloader error is returned and nothing is stamped") {
  RecordingSink sink;
  StreamWriterOptions options = Options(sink);
  options.blob_inline_threshold = 2;
  options.blob_offloader = [](std::string_view) -> absl::StatusOr<DataLocation> {
    return absl::UnavailableError("stage down");
  };
  absl::StatusOr<StreamWriter> writer = OpenStream("r", "epoch-a", std::move(options));
  LAKE_REQUIRE_OK(writer);
  CHECK(absl::IsUnavailable(writer->FieldSet("img", FieldValue::Blob("abc"))));
  CHECK(writer->next_item_seq() == 2);
}

TEST_CASE("events stream writer: OpenStream needs a writer epoch, a sink and a valid item id") {
  RecordingSink sink;
  CHECK(absl::IsInvalidArgument(OpenStream("r", "", Options(sink)).status()));
  CHECK(absl::IsInvalidArgument(OpenStream("r", "epoch-a", StreamWriterOptions{}).status()));
  CHECK(absl::IsInvalidArgument(OpenStream("r/gen:01", "epoch-a", Options(sink)).status()));
}

TEST_CASE("events stream writer: query tags are stamped on later events and folded") {
  RecordingSink sink;
  StreamWriterOptions options = Options(sink);
  options.query_tags_json = R"({"split":"train"})";
  absl::StatusOr<StreamWriter> writer = OpenStream("r", "epoch-a", std::move(options));
  LAKE_REQUIRE_OK(writer);
  CHECK(writer->pending()[0].query_tags_json == R"({"split":"train"})");
  writer->SetQueryTags(R"({"split":"eval"})");
  LAKE_REQUIRE_OK(writer->FieldSet("x", FieldValue::Int(1)));
  CHECK(writer->pending()[1].query_tags_json == R"({"split":"eval"})");
  LAKE_REQUIRE_OK(writer->Commit());
  CHECK(FoldOk("r", sink.AllEvents()).query_tags_json == R"({"split":"eval"})");
}

TEST_CASE("events stream writer: resume across two attempts continues the same item") {
  RecordingSink sink;
  StreamWriter first = Open(sink);
  LAKE_REQUIRE_OK(first.StepStarted(kMain));
  LAKE_REQUIRE_OK(first.FieldAppend("drafts", FieldValue::Str("d1"), kDraft));
  LAKE_REQUIRE_OK(first.FieldSet("score", FieldValue::Int(3), kDraft));
  LAKE_REQUIRE_OK(first.StepCompleted(kDraft));
  LAKE_REQUIRE_OK(first.Commit());
  // The first owner goes away; a new one folds the log and resumes.
  FoldedItem folded = FoldOk("r", sink.AllEvents());
  CHECK(folded.last_attempt == 0);
  CHECK(folded.next_item_seq == 6);
  absl::StatusOr<StreamWriter> second = ResumeStream(folded, "epoch-b", Options(sink));
  LAKE_REQUIRE_OK(second);
  CHECK(second->attempt() == 1);
  CHECK(second->next_item_seq() == 6);
  CHECK(second->pending().empty());  // no second ITEM_CREATED
  LAKE_REQUIRE_OK(second->FieldAppend("drafts", FieldValue::Str("d2"), kDraft));
  LAKE_REQUIRE_OK(second->FieldSet("score", FieldValue::Int(5), kDraft));
  LAKE_REQUIRE_OK(second->StepCompleted(kMain));
  LAKE_REQUIRE_OK(second->ItemTerminal(ItemStatus::kCompleted));
  LAKE_REQUIRE_OK(second->Commit());

  FoldedItem done = FoldOk("r", sink.AllEvents());
  CHECK(done.status == ItemStatus::kCompleted);
  CHECK(done.last_attempt == 1);
  CHECK(done.writer_epoch == "epoch-b");
  CHECK(done.next_item_seq == 10);
  const FoldedField& drafts = done.fields.at("drafts");
  REQUIRE(drafts.values.size() == 2);
  CHECK(drafts.values[0].value_str == "d1");
  CHECK(drafts.values[1].value_str == "d2");
  CHECK(done.fields.at("score").values.at(0).value_i64 == 5);
  CHECK(done.open_frames.empty());
  REQUIRE(done.completed_steps.size() == 2);
  CHECK(done.completed_steps[1].attempt == 1);
}

TEST_CASE("events stream writer: open frames of a crashed attempt are the resume cursor") {
  RecordingSink sink;
  StreamWriter first = Open(sink);
  StepProvenance refine{"refine", 0, StepKind::kLoop, "main", ""};
  LAKE_REQUIRE_OK(first.StepStarted(kMain));
  LAKE_REQUIRE_OK(first.StepStarted(refine));
  LAKE_REQUIRE_OK(first.Commit());
  FoldedItem crashed = FoldOk("r", sink.AllEvents());
  REQUIRE(crashed.open_frames.size() == 2);
  CHECK(crashed.open_frames.back().step_name == "refine");  // innermost: pick up here
  CHECK(crashed.open_frames.back().enclosing_step == "main");

  absl::StatusOr<StreamWriter> second = ResumeStream(crashed, "epoch-b", Options(sink));
  LAKE_REQUIRE_OK(second);
  LAKE_REQUIRE_OK(second->StepCompleted(refine));
  LAKE_REQUIRE_OK(second->Commit());
  FoldedItem resumed = FoldOk("r", sink.AllEvents());
  REQUIRE(resumed.open_frames.size() == 1);
  CHECK(resumed.open_frames[0].step_name == "main");
}

TEST_CASE("events stream writer: a failed item is resumed and runs again") {
  RecordingSink sink;
  StreamWriter first = Open(sink);
  LAKE_REQUIRE_OK(first.ItemFailed("Timeout", "dump", "trace", kDraft));
  LAKE_REQUIRE_OK(first.Commit());
  FoldedItem failed = FoldOk("r", sink.AllEvents());
  REQUIRE(failed.status == ItemStatus::kFailed);
  absl::StatusOr<StreamWriter> second = ResumeStream(failed, "epoch-b", Options(sink));
  LAKE_REQUIRE_OK(second);
  LAKE_REQUIRE_OK(second->FieldSet("x", FieldValue::Int(1)));
  LAKE_REQUIRE_OK(second->Commit());
  FoldedItem running = FoldOk("r", sink.AllEvents());
  CHECK(running.status == ItemStatus::kRunning);
  CHECK_FALSE(running.failure.has_value());
  CHECK(Failures(sink.AllEvents()).size() == 1);  // the failure stays in the log
}

TEST_CASE("events stream writer: a completed item is not resumed") {
  RecordingSink sink;
  StreamWriter first = Open(sink);
  LAKE_REQUIRE_OK(first.ItemTerminal(ItemStatus::kFiltered));
  LAKE_REQUIRE_OK(first.Commit());
  FoldedItem filtered = FoldOk("r", sink.AllEvents());
  CHECK(absl::IsFailedPrecondition(ResumeStream(filtered, "epoch-b", Options(sink)).status()));
}

TEST_CASE("events stream writer: a superseded writer's later events are refused by the fold") {
  RecordingSink sink;
  StreamWriter stale = Open(sink);
  LAKE_REQUIRE_OK(stale.Commit());
  absl::StatusOr<StreamWriter> owner = ResumeStream(FoldOk("r", sink.AllEvents()), "epoch-b",
                                                    Options(sink));
  LAKE_REQUIRE_OK(owner);
  LAKE_REQUIRE_OK(owner->FieldSet("x", FieldValue::Int(1)));
  LAKE_REQUIRE_OK(owner->Commit());
  // The old owner still believes it owns attempt 0 and writes item_seq 2,
  // which the new owner already wrote: a fencing violation.
  LAKE_REQUIRE_OK(stale.FieldSet("x", FieldValue::Int(2)));
  LAKE_REQUIRE_OK(stale.Commit());
  CHECK(absl::IsAborted(FoldItem("r", sink.AllEvents()).status()));
}

}  // namespace
}  // namespace lake::events
