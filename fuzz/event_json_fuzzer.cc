// Fuzzes lake::events::ParseEventJsonLines, the reader of the JSONL events
// `lake events … append FILE.jsonl` takes (engine/events/event_json.h).
//
// Properties checked (a violation traps):
//   1. Any input: no crash, leak, ASan or UBSan finding, no exception; a
//      refusal is InvalidArgument and starts with "line N: ".
//   2. Accepted event: it passes ValidateEventRecord, so it can be appended.
//   3. Accepted event: it round-trips — ParseEventJson(EventToJson(e)) == e,
//      and EventToJson of that is the same text (a fixed point) on one line.
//   4. Accepted event: its binary record decodes to an equal event.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/events/event_json.h"
#include "engine/events/event_record_format.h"
#include "engine/table/byte_codec.h"
#include "fuzz/property_check.h"

namespace {

using lake::events::Event;

using lake::fuzz::Check;

void CheckAccepted(const Event& e) {
  Check(lake::events::ValidateEventRecord(e).ok());

  std::string json = lake::events::EventToJson(e);
  Check(json.find('\n') == std::string::npos);
  absl::StatusOr<Event> reparsed = lake::events::ParseEventJson(json);
  Check(reparsed.ok() && *reparsed == e);
  Check(lake::events::EventToJson(*reparsed) == json);

  std::string record;
  lake::events::AppendEventRecord(e, &record);
  lake::table::ByteReader reader(record);
  absl::StatusOr<Event> decoded = lake::events::ReadEventRecord(reader);
  Check(decoded.ok() && *decoded == e && reader.remaining() == 0);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<std::vector<Event>> events = lake::events::ParseEventJsonLines(text);
  if (!events.ok()) {
    Check(absl::IsInvalidArgument(events.status()));
    Check(std::string(events.status().message()).rfind("line ", 0) == 0);
    return 0;
  }
  for (const Event& e : *events) CheckAccepted(e);
  return 0;
}
