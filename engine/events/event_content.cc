#include "engine/events/event_content.h"

#include <bit>
#include <cstdint>
#include <tuple>

namespace lake::events {
namespace {

// Every column of Event except event_ts and value_f64 (compared by its
// bits, below). The structured binding names all
// of Event's members, so adding a column to Event stops this from compiling
// until the column is placed here too — two events differing only in a
// forgotten column must never dedupe silently.
auto ContentColumns(const Event& e) {
  [[maybe_unused]] const auto& [event_id, item_id, root_item_id, parent_item_id,
                                item_seq, attempt, checkpoint_id, event_type,
                                step_name, step_index, step_kind, enclosing_step,
                                selector_step, run_id, writer_epoch, field_name,
                                field_type, codec_version, value_kind, value_i64,
                                value_f64, value_bool, value_str, value_json,
                                blob_inline, blob_location, payload_size,
                                payload_checksum, query_tags_json, status,
                                error_type, error_dump, traceback, event_ts,
                                schema_version] = e;
  return std::tie(event_id, item_id, root_item_id, parent_item_id, item_seq,
                  attempt, checkpoint_id, event_type, step_name, step_index,
                  step_kind, enclosing_step, selector_step, run_id, writer_epoch,
                  field_name, field_type, codec_version, value_kind, value_i64,
                  value_bool, value_str, value_json, blob_inline,
                  blob_location, payload_size, payload_checksum, query_tags_json,
                  status, error_type, error_dump, traceback, schema_version);
}

}  // namespace

bool SameEventContent(const Event& a, const Event& b) {
  // Bits, not ==: a retried NaN is the same value, and -0.0 is not 0.0.
  return std::bit_cast<uint64_t>(a.value_f64) == std::bit_cast<uint64_t>(b.value_f64) &&
         ContentColumns(a) == ContentColumns(b);
}

}  // namespace lake::events
