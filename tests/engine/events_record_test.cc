// The binary record of one event (engine/events/event_record_format.h): the
// layout, round trips, fail-closed decoding and the content digest.
#include "engine/events/event_record_format.h"

#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "engine/sha256.h"
#include "tests/support/event_samples.h"
#include "tests/support/status_checks.h"

namespace lake::events {
namespace {

using lake::testing::FinishEvent;
using lake::testing::SampleEvent;
using lake::testing::SampleEvents;
using lake::testing::SampleField;

std::string Record(const Event& e) {
  std::string out;
  AppendEventRecord(e, &out);
  CHECK(EventRecordBytes(e) == out.size());
  return out;
}

absl::StatusOr<Event> ReadAll(std::string_view bytes) {
  table::ByteReader reader(bytes);
  absl::StatusOr<Event> event = ReadEventRecord(reader);
  if (event.ok() && reader.remaining() != 0) {
    return absl::InternalError("the record did not end where expected");
  }
  return event;
}

std::string Le32(uint32_t v) { return std::string(reinterpret_cast<const char*>(&v), 4); }
std::string Le64(uint64_t v) { return std::string(reinterpret_cast<const char*>(&v), 8); }
std::string Str(std::string_view s) {
  return Le32(static_cast<uint32_t>(s.size())) + std::string(s);
}

void CheckDataLoss(std::string_view bytes, std::string_view expected_text) {
  absl::StatusOr<Event> event = ReadAll(bytes);
  REQUIRE_FALSE(event.ok());
  CHECK_MESSAGE(absl::IsDataLoss(event.status()), event.status().ToString());
  CHECK_MESSAGE(std::string(event.status().message()).find(expected_text) != std::string::npos,
                event.status().ToString());
}

// The offset of the first byte after the column holding `marker`.
size_t OffsetAfter(const std::string& record, std::string_view marker) {
  size_t at = record.find(marker);
  REQUIRE(at != std::string::npos);
  return at + marker.size();
}

TEST_CASE("events record: the layout of a root ITEM_CREATED is pinned") {
  Event e = FinishEvent(SampleEvent(EventType::kItemCreated, "r", 1));
  std::string expected = Le32(2) + Str(e.event_id) + Str("r") + Str("r") + Str("") +
                         Le64(1) + Le32(1) + Str("ckpt-7") + std::string(1, '\x01') +
                         Str("") +                                    // step_name
                         std::string(2, '\0') +                       // step_index, step_kind
                         Str("") + Str("") +                          // enclosing, selector
                         Str("run-2024-05") + Str("host-a:4711") +    // run_id, writer_epoch
                         Str("") + Str("") + Le32(0) +                // field_*, codec_version
                         std::string(1, '\0') +                       // value_kind
                         Le64(0) + Le64(0) + std::string(1, '\0') +   // i64, f64, bool
                         Str("") + Str("") + Str("") +                // str, json, blob_inline
                         std::string(1, '\0') + Le64(0) + Str("") +   // location, size, checksum
                         Str("") + std::string(1, '\0') +             // query_tags, status
                         Str("") + Str("") + Str("") +                // error_type, dump, traceback
                         Le64(1'700'000'000'123'456);                 // event_ts
  CHECK(Record(e) == expected);
}

TEST_CASE("events record: every sample event round-trips") {
  for (const Event& e : SampleEvents()) {
    CAPTURE(e.item_id);
    CAPTURE(EventTypeName(e.event_type));
    LAKE_REQUIRE_OK(ValidateEventRecord(e));
    std::string bytes = Record(e);
    absl::StatusOr<Event> read = ReadAll(bytes);
    LAKE_REQUIRE_OK(read);
    CHECK(*read == e);
    CHECK(Record(*read) == bytes);
  }
}

TEST_CASE("events record: a located blob keeps its four location fields") {
  Event e = lake::testing::SampleLocatedBlob();
  absl::StatusOr<Event> read = ReadAll(Record(e));
  LAKE_REQUIRE_OK(read);
  REQUIRE(read->blob_location.has_value());
  CHECK(*read->blob_location == lake::testing::SampleLocation());
  CHECK(read->blob_inline.empty());
}

TEST_CASE("events record: records of a batch are read one after another") {
  std::vector<Event> events = SampleEvents();
  std::string batch;
  for (const Event& e : events) AppendEventRecord(e, &batch);
  table::ByteReader reader(batch);
  for (const Event& e : events) {
    absl::StatusOr<Event> read = ReadEventRecord(reader);
    LAKE_REQUIRE_OK(read);
    CHECK(*read == e);
  }
  CHECK(reader.remaining() == 0);
}

TEST_CASE("events record: an unknown schema version is refused, not guessed") {
  std::string bytes = Record(FinishEvent(SampleEvent(EventType::kItemCreated)));
  for (uint32_t version : {0u, 1u, 3u, 0xFFFFFFFFu}) {
    std::string other = Le32(version) + bytes.substr(4);
    CheckDataLoss(other, absl::StrCat("unknown schema version ", version));
  }
}

TEST_CASE("events record: every truncation is refused with DataLoss") {
  for (const Event& e : SampleEvents()) {
    std::string bytes = Record(e);
    for (size_t size = 0; size < bytes.size(); ++size) {
      CAPTURE(size);
      CheckDataLoss(std::string_view(bytes).substr(0, size), "ends early");
    }
  }
}

TEST_CASE("events record: a length past the bytes left or over its bound is refused") {
  std::string bytes = Record(FinishEvent(SampleEvent(EventType::kItemCreated)));
  // traceback's length sits just before event_ts; 1 MiB is within its bound
  // but past the 8 bytes left.
  std::string longer = bytes;
  longer.replace(bytes.size() - 12, 4, Le32(1 << 20));
  CheckDataLoss(longer, "column traceback is cut off");
  // event_id's length comes right after schema_version.
  std::string huge = bytes;
  huge.replace(4, 4, Le32(0xFFFFFFF0u));
  CheckDataLoss(huge, "column event_id is 4294967280 bytes, over its bound of 64");
}

TEST_CASE("events record: a presence or bool byte other than 0 or 1 is refused") {
  Event e = SampleField(ValueKind::kBool);
  std::string bytes = Record(e);
  // value_bool is the byte before value_str's length; the sample's value is 1.
  size_t value_bool = OffsetAfter(bytes, "py:object") + 4 + 2 + 8 + 8;
  REQUIRE(bytes[value_bool] == 1);
  bytes[value_bool] = 2;
  CheckDataLoss(bytes, "column value_bool holds byte 2");
}

TEST_CASE("events record: an unknown enum code is refused") {
  std::string bytes = Record(FinishEvent(SampleEvent(EventType::kItemCreated, "r", 1)));
  size_t event_type = OffsetAfter(bytes, "ckpt-7");
  REQUIRE(bytes[event_type] == 1);
  bytes[event_type] = 8;
  CheckDataLoss(bytes, "column event_type holds unknown code 8");
}

TEST_CASE("events record: text that is not UTF-8 is refused") {
  Event e = SampleField(ValueKind::kStr);
  std::string bytes = Record(e);
  size_t at = bytes.find("gr\xC3\xBC");
  REQUIRE(at != std::string::npos);
  bytes[at + 2] = '\xFF';
  CheckDataLoss(bytes, "column value_str is not UTF-8");
}

TEST_CASE("events record: an event that breaks the event rules is refused") {
  Event e = FinishEvent(SampleEvent(EventType::kItemCreated, "r", 1));
  std::string bytes = Record(e);
  size_t id = bytes.find(e.event_id);
  bytes[id] = bytes[id] == 'a' ? 'b' : 'a';
  CheckDataLoss(bytes, "event_id is not the derived id");
}

TEST_CASE("events record: ValidateEventRecord refuses what a record cannot hold") {
  Event name = FinishEvent(SampleEvent(EventType::kItemCreated));
  name.run_id.assign(kMaxEventNameBytes + 1, 'x');
  CHECK(absl::IsInvalidArgument(ValidateEventRecord(name)));
  Event text = FinishEvent(SampleEvent(EventType::kItemCreated));
  text.writer_epoch = "\xC0\x80";  // overlong NUL
  CHECK(absl::IsInvalidArgument(ValidateEventRecord(text)));
  Event nan = SampleField(ValueKind::kFloat);
  nan.value_f64 = std::numeric_limits<double>::quiet_NaN();
  CHECK(absl::IsInvalidArgument(ValidateEventRecord(nan)));
  nan.value_f64 = std::numeric_limits<double>::infinity();
  CHECK(absl::IsInvalidArgument(ValidateEventRecord(nan)));
}

TEST_CASE("events record: -0.0 is a float value, not a spelling of an unset value_f64") {
  Event f = SampleField(ValueKind::kFloat);
  f.value_f64 = -0.0;
  LAKE_CHECK_OK(ValidateEventRecord(f));
  absl::StatusOr<Event> read = ReadAll(Record(f));
  LAKE_REQUIRE_OK(read);
  CHECK(std::signbit(read->value_f64));
  Event i = SampleField(ValueKind::kInt);
  i.value_f64 = -0.0;
  CHECK(absl::IsInvalidArgument(ValidateEventRecord(i)));
}

TEST_CASE("events record: the content digest ignores event_ts") {
  Event a = SampleField(ValueKind::kJson);
  Event b = a;
  b.event_ts += 1'000'000;
  CHECK(EventContentDigest(a) == EventContentDigest(b));
  CHECK(EventContentDigest(a).size() == 64);
  CHECK(table::Sha256FromHex(EventContentDigest(a)).has_value());
}

TEST_CASE("events record: the content digest covers every column but event_ts") {
  // Each change touches one column (validity does not matter to the digest).
  std::vector<std::pair<const char*, std::function<void(Event&)>>> changes = {
      {"schema_version", [](Event& e) { e.schema_version = 3; }},
      {"event_id", [](Event& e) { e.event_id[0] ^= 1; }},
      {"item_id", [](Event& e) { e.item_id += "x"; }},
      {"root_item_id", [](Event& e) { e.root_item_id += "x"; }},
      {"parent_item_id", [](Event& e) { e.parent_item_id += "x"; }},
      {"item_seq", [](Event& e) { ++e.item_seq; }},
      {"attempt", [](Event& e) { ++e.attempt; }},
      {"checkpoint_id", [](Event& e) { e.checkpoint_id += "x"; }},
      {"event_type", [](Event& e) { e.event_type = EventType::kFieldAppend; }},
      {"step_name", [](Event& e) { e.step_name += "x"; }},
      {"step_index", [](Event& e) { e.step_index = 0; }},
      {"step_kind", [](Event& e) { e.step_kind = StepKind::kLoop; }},
      {"enclosing_step", [](Event& e) { e.enclosing_step = "x"; }},
      {"selector_step", [](Event& e) { e.selector_step = "x"; }},
      {"run_id", [](Event& e) { e.run_id += "x"; }},
      {"writer_epoch", [](Event& e) { e.writer_epoch += "x"; }},
      {"field_name", [](Event& e) { e.field_name += "x"; }},
      {"field_type", [](Event& e) { e.field_type += "x"; }},
      {"codec_version", [](Event& e) { ++e.codec_version; }},
      {"value_kind", [](Event& e) { e.value_kind = ValueKind::kStr; }},
      {"value_i64", [](Event& e) { e.value_i64 = 1; }},
      {"value_f64", [](Event& e) { e.value_f64 = 1; }},
      {"value_bool", [](Event& e) { e.value_bool = true; }},
      {"value_str", [](Event& e) { e.value_str = "x"; }},
      {"value_json", [](Event& e) { e.value_json += " "; }},
      {"blob_inline", [](Event& e) { e.blob_inline = "x"; }},
      {"blob_location", [](Event& e) { e.blob_location = lake::testing::SampleLocation(); }},
      {"payload_size", [](Event& e) { ++e.payload_size; }},
      {"payload_checksum", [](Event& e) { e.payload_checksum = Sha256Hex("x"); }},
      {"query_tags_json", [](Event& e) { e.query_tags_json = "{}"; }},
      {"status", [](Event& e) { e.status = ItemStatus::kRunning; }},
      {"error_type", [](Event& e) { e.error_type = "x"; }},
      {"error_dump", [](Event& e) { e.error_dump = "x"; }},
      {"traceback", [](Event& e) { e.traceback = "x"; }},
  };
  Event base = SampleField(ValueKind::kJson);
  std::string digest = EventContentDigest(base);
  for (const auto& change : changes) {
    CAPTURE(change.first);
    Event changed = base;
    change.second(changed);
    CHECK(EventContentDigest(changed) != digest);
  }
}

}  // namespace
}  // namespace lake::events
