// Blob fields and the managed stage: the check an offloaded blob's
// location passes before an event naming it is appended, and load_blob, a
// verified reader over a blob field of a folded item, whether the bytes
// travel inline in the event or live in the managed stage.
//
// Either way the reader checks exactly payload_size bytes and the
// payload_checksum (SHA-256) at EOF, as every full read of lake does
// (VerifiedReader): an inline blob damaged in the log fails the same way a
// damaged object does.
#ifndef LAKE_ENGINE_EVENTS_BLOB_FIELD_H_
#define LAKE_ENGINE_EVENTS_BLOB_FIELD_H_

#include <cstddef>
#include <memory>
#include <optional>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "engine/events/event.h"
#include "engine/events/fold.h"
#include "engine/managed_stage.h"
#include "engine/object_reader.h"

namespace lake::events {

// OK when the blob_location of every event in `events` that has one names
// an object of `stage` (and its tenant) stored with exactly its size_bytes:
// the check of an existing location an INSERT makes
// (ManagedStage::CheckExisting), run on events taken from outside before
// anything of theirs is written (durability rule 2). Events without a
// blob_location cost nothing; a location the stage uploaded or checked
// before is answered from memory, else it costs one stat of the object.
// The first refusal keeps CheckExisting's code and integrity payload
// (InvalidArgument + InvalidLocation outside the stage or tenant; NotFound
// for no object; DataLoss + SizeShort/SizeLong for another size), its
// message naming the event. Events already in a log are not checked again
// (not when read, replayed or compacted): a read of a blob checks its
// location anyway (LoadBlob).
absl::Status CheckBlobLocations(ManagedStage& stage, absl::Span<const Event> events);

// The value of blob field `field_name` of `item`: for a FIELD_SET field its
// value; for a FIELD_APPEND field the value at `index` (default: the last).
// NotFound when the item has no such field (or index); InvalidArgument when
// the field's value is not a blob. An offloaded blob is opened through
// `stage` (containment checked there).
absl::StatusOr<std::unique_ptr<ObjectReader>> LoadBlob(ManagedStage& stage,
                                                       const FoldedItem& item,
                                                       std::string_view field_name,
                                                       std::optional<size_t> index = std::nullopt);

}  // namespace lake::events

#endif  // LAKE_ENGINE_EVENTS_BLOB_FIELD_H_
