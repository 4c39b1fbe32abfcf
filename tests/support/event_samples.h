// Valid events of every type and value kind, for the tests of the event
// log's formats (record, JSON). Each passes ValidateEventRecord.
#ifndef LAKE_TESTS_SUPPORT_EVENT_SAMPLES_H_
#define LAKE_TESTS_SUPPORT_EVENT_SAMPLES_H_

#include <doctest/doctest.h>

#include <string>
#include <utility>
#include <vector>

#include "engine/data_location.h"
#include "engine/events/event.h"
#include "engine/sha256.h"

namespace lake::testing {

// An event of `type` on `item_id` with the bookkeeping columns a stream
// writer stamps; the derived ids are filled by FinishEvent.
inline events::Event SampleEvent(events::EventType type, std::string item_id = "r/map:1",
                                 uint64_t item_seq = 2) {
  events::Event e;
  e.item_id = std::move(item_id);
  e.item_seq = item_seq;
  e.attempt = 1;
  e.checkpoint_id = "ckpt-7";
  e.event_type = type;
  e.run_id = "run-2024-05";
  e.writer_epoch = "host-a:4711";
  e.event_ts = 1'700'000'000'123'456;
  return e;
}

inline events::Event FinishEvent(events::Event e) {
  absl::Status status = events::FillDerivedIds(e);
  REQUIRE_MESSAGE(status.ok(), status.ToString());
  return e;
}

inline events::Event SampleField(events::ValueKind kind,
                                 events::EventType type = events::EventType::kFieldSet) {
  events::Event e = SampleEvent(type);
  e.step_name = "judge";
  e.step_kind = events::StepKind::kLeaf;
  e.field_name = "score";
  e.field_type = "py:object";
  e.codec_version = 1;
  e.value_kind = kind;
  switch (kind) {
    case events::ValueKind::kInt: e.value_i64 = -42; break;
    case events::ValueKind::kFloat: e.value_f64 = 0.1; break;
    case events::ValueKind::kBool: e.value_bool = true; break;
    case events::ValueKind::kStr: e.value_str = "gr\xC3\xBC\xC3\x9F \"quoted\"\n"; break;
    case events::ValueKind::kJson: e.value_json = "{\"a\": [1, 2.5, null]}"; break;
    case events::ValueKind::kBlob:
      e.blob_inline = std::string("\x00\xFF\x01png", 6);
      e.payload_size = e.blob_inline.size();
      e.payload_checksum = Sha256Hex(e.blob_inline);
      break;
  }
  return FinishEvent(std::move(e));
}

inline DataLocation SampleLocation() {
  absl::StatusOr<DataLocation> location = MakeDataLocation(
      "s3://bucket/blobs/a%20b.bin", "image/png", 3'145'728, Sha256Hex("the blob's bytes"));
  REQUIRE_MESSAGE(location.ok(), location.status().ToString());
  return *location;
}

inline events::Event SampleLocatedBlob() {
  events::Event e = SampleField(events::ValueKind::kBlob, events::EventType::kFieldAppend);
  e.blob_inline.clear();
  e.blob_location = SampleLocation();
  e.payload_size = e.blob_location->size_bytes;
  e.payload_checksum = e.blob_location->sha256;
  return FinishEvent(std::move(e));
}

// One or more valid events of each of the seven types and six value kinds,
// inline and located blobs, root and child items.
inline std::vector<events::Event> SampleEvents() {
  using events::EventType;
  using events::ValueKind;
  std::vector<events::Event> out;
  out.push_back(FinishEvent(SampleEvent(EventType::kItemCreated, "r", 1)));
  events::Event child = SampleEvent(EventType::kItemCreated, "r/route:0/map:3", 1);
  child.step_name = "map";
  child.step_index = 3;
  child.step_kind = events::StepKind::kMapReduce;
  child.enclosing_step = "pipeline";
  child.selector_step = "route";
  child.query_tags_json = "{\"lang\":\"de\"}";
  out.push_back(FinishEvent(child));
  events::Event started = SampleEvent(EventType::kStepStarted);
  started.step_name = "expand";
  started.step_index = 0;
  started.step_kind = events::StepKind::kRouter;
  out.push_back(FinishEvent(started));
  events::Event completed = SampleEvent(EventType::kStepCompleted);
  completed.step_name = "judge";
  completed.step_kind = events::StepKind::kLeaf;
  out.push_back(FinishEvent(completed));
  for (ValueKind kind : {ValueKind::kInt, ValueKind::kFloat, ValueKind::kBool, ValueKind::kStr,
                         ValueKind::kJson, ValueKind::kBlob}) {
    out.push_back(SampleField(kind));
  }
  out.push_back(SampleField(ValueKind::kStr, EventType::kFieldAppend));
  out.push_back(SampleLocatedBlob());
  events::Event failed = SampleEvent(EventType::kFailed);
  failed.status = events::ItemStatus::kFailed;
  failed.error_type = "TimeoutError";
  failed.error_dump = "{\"after_s\": 30}";
  failed.traceback = "Traceback (most recent call last):\n  File \"x.py\", line 1\n";
  out.push_back(FinishEvent(failed));
  events::Event terminal = SampleEvent(EventType::kTerminal, "r", 9);
  terminal.status = events::ItemStatus::kFiltered;
  terminal.event_ts = -5;  // before the epoch: still a valid timestamp
  out.push_back(FinishEvent(terminal));
  return out;
}

}  // namespace lake::testing

#endif  // LAKE_TESTS_SUPPORT_EVENT_SAMPLES_H_
