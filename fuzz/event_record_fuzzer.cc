// Fuzzes lake::events::ReadEventRecord, the decoder of one event as the
// event log stores it (engine/events/event_record_format.h).
//
// Properties checked (a violation traps):
//   1. Any input: no crash, leak, ASan or UBSan finding; a refusal is
//      DataLoss.
//   2. Accepted record: the event passes ValidateEventRecord (and so
//      ValidateEvent).
//   3. Accepted record: it is canonical — AppendEventRecord of the event
//      gives back exactly the bytes the reader consumed, as many as
//      EventRecordBytes counts.
//   4. Accepted record: decode(encode(e)) == e.
//   5. Accepted record: the content digest is 64 lowercase hex characters,
//      unchanged by a different event_ts and changed by a different
//      item_seq, writer_epoch or value_str.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "engine/events/event_record_format.h"
#include "engine/table/byte_codec.h"
#include "fuzz/property_check.h"

namespace {

using lake::events::Event;

using lake::fuzz::Check;

void CheckDigest(const Event& e) {
  std::string digest = lake::events::EventContentDigest(e);
  Check(lake::table::Sha256FromHex(digest).has_value());
  Event other = e;
  other.event_ts = ~e.event_ts;
  Check(lake::events::EventContentDigest(other) == digest);
  other = e;
  ++other.item_seq;
  Check(lake::events::EventContentDigest(other) != digest);
  other = e;
  other.writer_epoch += "'";
  Check(lake::events::EventContentDigest(other) != digest);
  other = e;
  other.value_str += "'";
  Check(lake::events::EventContentDigest(other) != digest);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  lake::table::ByteReader reader(bytes);
  absl::StatusOr<Event> event = lake::events::ReadEventRecord(reader);
  if (!event.ok()) {
    Check(absl::IsDataLoss(event.status()));
    return 0;
  }
  Check(lake::events::ValidateEventRecord(*event).ok());

  std::string encoded;
  lake::events::AppendEventRecord(*event, &encoded);
  Check(encoded == bytes.substr(0, reader.position()));
  Check(lake::events::EventRecordBytes(*event) == encoded.size());

  lake::table::ByteReader again(encoded);
  absl::StatusOr<Event> reread = lake::events::ReadEventRecord(again);
  Check(reread.ok() && *reread == *event && again.remaining() == 0);

  CheckDigest(*event);
  return 0;
}
