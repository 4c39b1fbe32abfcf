// The binary record of one event as the event log stores it (EVENT-LOG.md,
// schema version 2). The log frames batches of records and checks their
// integrity; a record only has to say exactly one thing.
//
// Format (schema version 2). Integers are little-endian; str is a u32 byte
// length then the bytes; opt<T> is a presence byte (0 absent, 1 present)
// then T when present; an enum is its u8 code (event.h).
//
//   record := u32 schema_version        (2; any other value is refused)
//             str event_id              (64 lowercase hex)
//             str item_id               (<= kMaxItemIdBytes)
//             str root_item_id          (<= kMaxItemIdBytes)
//             str parent_item_id        (<= kMaxItemIdBytes)
//             u64 item_seq
//             u32 attempt
//             str checkpoint_id         (<= kMaxEventNameBytes)
//             u8  event_type
//             str step_name             (<= kMaxEventNameBytes)
//             opt<u32> step_index
//             opt<u8>  step_kind
//             str enclosing_step        (<= kMaxEventNameBytes)
//             str selector_step         (<= kMaxEventNameBytes)
//             str run_id                (<= kMaxEventNameBytes)
//             str writer_epoch          (<= kMaxEventNameBytes)
//             str field_name            (<= kMaxEventNameBytes)
//             str field_type            (<= kMaxEventNameBytes)
//             u32 codec_version
//             opt<u8>  value_kind
//             i64 value_i64             (two's complement)
//             f64 value_f64             (IEEE-754 bits)
//             u8  value_bool            (0 or 1)
//             str value_str             (<= kMaxEventValueBytes)
//             str value_json            (<= kMaxEventValueBytes)
//             str blob_inline           (<= kMaxEventValueBytes, any bytes)
//             opt<location> blob_location
//             u64 payload_size
//             str payload_checksum      ("" or 64 lowercase hex)
//             str query_tags_json       (<= kMaxEventValueBytes)
//             opt<u8>  status
//             str error_type            (<= kMaxEventNameBytes)
//             str error_dump            (<= kMaxEventValueBytes)
//             str traceback             (<= kMaxEventValueBytes)
//             i64 event_ts              (UTC microseconds; always last)
//   location := str uri (<= table::kMaxReferenceUriBytes), str content_type
//             (<= kMaxContentTypeBytes), u64 size_bytes, sha256[32] (raw)
//
// Nothing follows event_ts: the record ends there, and the next record of a
// batch starts. Every string but blob_inline is UTF-8.
//
// Canonical form: an event has exactly one record. The decoder accepts only
// what the encoder writes for an event that passes ValidateEventRecord, so
// a record that decodes re-encodes to the same bytes. Decoding is total:
// any bytes give either such an event or DataLoss naming the column and
// what is wrong with it. No string is allocated before its length is
// checked against its bound and the bytes remaining.
#ifndef LAKE_ENGINE_EVENTS_EVENT_RECORD_FORMAT_H_
#define LAKE_ENGINE_EVENTS_EVENT_RECORD_FORMAT_H_

#include <cstddef>
#include <string>

#include "absl/status/statusor.h"
#include "engine/events/event.h"
#include "engine/table/byte_codec.h"

namespace lake::events {

// Ids, names and types (checkpoint_id, step names, run_id, writer_epoch,
// field_name, field_type, error_type): far longer than any real one, short
// enough that a log of millions of events stays small.
inline constexpr size_t kMaxEventNameBytes = 4096;
// Values and texts (value_str, value_json, blob_inline, query_tags_json,
// error_dump, traceback): the JSONL line bound, so every event a JSONL line
// can carry fits; anything larger belongs in a blob location.
inline constexpr size_t kMaxEventValueBytes = size_t{16} << 20;

// OK when `event` can be stored as a record: ValidateEvent(event) is OK,
// every string is within its bound above and (but blob_inline) UTF-8, the
// blob location is canonical (CheckCanonicalLocation) with a uri the
// reference journal can record, and value_f64 is finite and, unless the
// value is a float, +0.0 exactly (one spelling per event). InvalidArgument
// naming the column otherwise. `same_item` as for ValidateEvent: an event
// that passed this check, whose item ids need not be parsed again.
absl::Status ValidateEventRecord(const Event& event, const Event* same_item = nullptr);

// Appends the record of `event` to `out`. Precondition:
// ValidateEventRecord(event) is OK (the caller validated it).
void AppendEventRecord(const Event& event, std::string* out);
// The size of that record, so a buffer can be sized before it is written.
size_t EventRecordBytes(const Event& event);

// Reads one record at `reader`, leaving the reader just past it. The event
// passes ValidateEventRecord. DataLoss ("event record: ...") when the bytes
// end early or break the format or the event's rules; "unknown schema
// version N" for a record of another version, which is refused, not
// guessed. After an error the reader's position is unspecified.
absl::StatusOr<Event> ReadEventRecord(table::ByteReader& reader);

// The digest that tells "the same event again" from a different event with
// the same event_id: SHA-256, as 64 lowercase hex characters, of
//   "lake.event-content.v2" 0x00, then the record of `event` without its
// final 8 bytes (event_ts),
// so it covers every column but event_ts. Precondition as for
// AppendEventRecord.
std::string EventContentDigest(const Event& event);

}  // namespace lake::events

#endif  // LAKE_ENGINE_EVENTS_EVENT_RECORD_FORMAT_H_
