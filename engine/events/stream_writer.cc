#include "engine/events/stream_writer.h"

#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "engine/events/item_id.h"
#include "engine/integrity_error.h"
#include "engine/managed_key.h"
#include "engine/sha256.h"

namespace lake::events {
namespace {

Event EventOf(EventType type, const StepProvenance& step) {
  Event e;
  e.event_type = type;
  e.step_name = step.step_name;
  e.step_index = step.step_index;
  e.step_kind = step.step_kind;
  e.enclosing_step = step.enclosing_step;
  e.selector_step = step.selector_step;
  return e;
}

absl::Status CheckWriterArguments(std::string_view writer_epoch,
                                  const StreamWriterOptions& options) {
  // The epoch is what fences two owners of one attempt apart (split brain);
  // an empty one would disable that check for this writer's events.
  if (writer_epoch.empty()) {
    return absl::InvalidArgumentError("a stream writer needs a non-empty writer_epoch");
  }
  if (!options.sink) return absl::InvalidArgumentError("a stream writer needs a sink");
  return absl::OkStatus();
}

// The offloader's location must name exactly these bytes, or the event
// would point readers at something else.
absl::Status CheckOffloadedLocation(const DataLocation& location, uint64_t size,
                                    const std::string& sha256) {
  if (location.size_bytes != size) {
    IntegrityKind kind =
        location.size_bytes < size ? IntegrityKind::kSizeShort : IntegrityKind::kSizeLong;
    return IntegrityError(kind, size, location.size_bytes,
                          absl::StrCat("blob offloader returned ", location.uri, " of ",
                                       location.size_bytes, " bytes for a blob of ", size));
  }
  if (location.sha256 != sha256) {
    return IntegrityError(IntegrityKind::kDigestMismatch, size, size,
                          absl::StrCat("blob offloader returned ", location.uri,
                                       " with sha256 ", location.sha256,
                                       " for a blob with sha256 ", sha256));
  }
  return absl::OkStatus();
}

}  // namespace

FieldValue FieldValue::Int(int64_t value) {
  FieldValue v;
  v.kind = ValueKind::kInt;
  v.i64 = value;
  return v;
}

FieldValue FieldValue::Float(double value) {
  FieldValue v;
  v.kind = ValueKind::kFloat;
  v.f64 = value;
  return v;
}

FieldValue FieldValue::Bool(bool value) {
  FieldValue v;
  v.kind = ValueKind::kBool;
  v.boolean = value;
  return v;
}

FieldValue FieldValue::Str(std::string text) {
  FieldValue v;
  v.kind = ValueKind::kStr;
  v.bytes = std::move(text);
  return v;
}

FieldValue FieldValue::Json(std::string json_text) {
  FieldValue v;
  v.kind = ValueKind::kJson;
  v.bytes = std::move(json_text);
  return v;
}

FieldValue FieldValue::Blob(std::string bytes) {
  FieldValue v;
  v.kind = ValueKind::kBlob;
  v.bytes = std::move(bytes);
  return v;
}

StreamWriter::StreamWriter(std::string item_id, std::string writer_epoch, uint32_t attempt,
                           uint64_t next_item_seq, StreamWriterOptions options)
    : item_id_(std::move(item_id)),
      writer_epoch_(std::move(writer_epoch)),
      attempt_(attempt),
      next_item_seq_(next_item_seq),
      options_(std::move(options)) {
  if (!options_.clock) options_.clock = [] { return absl::Now(); };
}

absl::Status StreamWriter::StepStarted(const StepProvenance& step) {
  absl::Status status = CheckAcceptsEvents();
  if (!status.ok()) return status;
  return Stamp(EventOf(EventType::kStepStarted, step));
}

absl::Status StreamWriter::StepCompleted(const StepProvenance& step) {
  absl::Status status = CheckAcceptsEvents();
  if (!status.ok()) return status;
  return Stamp(EventOf(EventType::kStepCompleted, step));
}

absl::Status StreamWriter::FieldSet(std::string_view field_name, FieldValue value,
                                    const StepProvenance& step) {
  return FieldEvent(EventType::kFieldSet, field_name, std::move(value), step);
}

absl::Status StreamWriter::FieldAppend(std::string_view field_name, FieldValue value,
                                       const StepProvenance& step) {
  return FieldEvent(EventType::kFieldAppend, field_name, std::move(value), step);
}

absl::Status StreamWriter::ItemTerminal(ItemStatus status, const StepProvenance& step) {
  absl::Status accepts = CheckAcceptsEvents();
  if (!accepts.ok()) return accepts;
  Event e = EventOf(EventType::kTerminal, step);
  e.status = status;
  return Stamp(std::move(e));
}

absl::Status StreamWriter::ItemFailed(std::string_view error_type, std::string_view error_dump,
                                      std::string_view traceback, const StepProvenance& step) {
  absl::Status accepts = CheckAcceptsEvents();
  if (!accepts.ok()) return accepts;
  Event e = EventOf(EventType::kFailed, step);
  e.status = ItemStatus::kFailed;
  e.error_type = error_type;
  e.error_dump = error_dump;
  e.traceback = traceback;
  return Stamp(std::move(e));
}

void StreamWriter::SetQueryTags(std::string query_tags_json) {
  options_.query_tags_json = std::move(query_tags_json);
}

absl::Status StreamWriter::Commit() {
  if (pending_.empty()) return absl::OkStatus();
  // A copy: if the sink fails, the retry must hand over the same batch.
  absl::Status status = options_.sink(pending_);
  if (!status.ok()) {
    commit_failed_ = true;
    return status;
  }
  pending_.clear();
  commit_failed_ = false;
  return absl::OkStatus();
}

absl::Status StreamWriter::CheckAcceptsEvents() const {
  if (finished_) {
    return absl::InvalidArgumentError(absl::StrCat(
        "item \"", item_id_, "\" has finished (TERMINAL or FAILED at item_seq ",
        next_item_seq_ - 1, "); this writer stamps no further events"));
  }
  // Adding to a batch whose commit may or may not have landed would make
  // its retry a different batch under the same checkpoint_id.
  if (commit_failed_) {
    return absl::FailedPreconditionError(absl::StrCat(
        "item \"", item_id_, "\": the commit of checkpoint ", checkpoint_id_,
        " failed; retry Commit before stamping more events"));
  }
  return absl::OkStatus();
}

absl::Status StreamWriter::FieldEvent(EventType type, std::string_view field_name,
                                      FieldValue value, const StepProvenance& step) {
  absl::Status status = CheckAcceptsEvents();
  if (!status.ok()) return status;
  Event e = EventOf(type, step);
  e.field_name = field_name;
  e.field_type = std::move(value.field_type);
  e.codec_version = value.codec_version;
  e.value_kind = value.kind;
  switch (value.kind) {
    case ValueKind::kInt:
      e.value_i64 = value.i64;
      break;
    case ValueKind::kFloat:
      e.value_f64 = value.f64;
      break;
    case ValueKind::kBool:
      e.value_bool = value.boolean;
      break;
    case ValueKind::kStr:
      e.value_str = std::move(value.bytes);
      break;
    case ValueKind::kJson:
      e.value_json = std::move(value.bytes);
      break;
    case ValueKind::kBlob:
      status = PutBlob(e, std::move(value.bytes));
      if (!status.ok()) return status;
      break;
  }
  return Stamp(std::move(e));
}

absl::Status StreamWriter::PutBlob(Event& e, std::string bytes) const {
  e.payload_size = bytes.size();
  e.payload_checksum = Sha256Hex(bytes);
  if (bytes.size() <= options_.blob_inline_threshold) {
    e.blob_inline = std::move(bytes);
    return absl::OkStatus();
  }
  if (!options_.blob_offloader) {
    return absl::FailedPreconditionError(absl::StrCat(
        "item \"", item_id_, "\" field \"", e.field_name, "\": a blob of ", bytes.size(),
        " bytes is above the inline threshold of ", options_.blob_inline_threshold,
        " bytes and the writer has no blob offloader"));
  }
  absl::StatusOr<DataLocation> location = options_.blob_offloader(bytes);
  if (!location.ok()) return location.status();
  absl::Status status = CheckOffloadedLocation(*location, e.payload_size, e.payload_checksum);
  if (!status.ok()) return status;
  e.blob_location = *std::move(location);
  return absl::OkStatus();
}

absl::Status StreamWriter::Stamp(Event e) {
  // One checkpoint id per batch, chosen when its first event is stamped.
  if (pending_.empty()) checkpoint_id_ = NewUuidV7();
  e.item_id = item_id_;
  e.item_seq = next_item_seq_;
  e.attempt = attempt_;
  e.checkpoint_id = checkpoint_id_;
  e.run_id = options_.run_id;
  e.writer_epoch = writer_epoch_;
  e.query_tags_json = options_.query_tags_json;
  e.event_ts = absl::ToUnixMicros(options_.clock());
  e.schema_version = kEventSchemaVersion;
  absl::Status status = FillDerivedIds(e);
  if (!status.ok()) return status;
  status = ValidateEvent(e);
  if (!status.ok()) return status;
  bool finishes = e.event_type == EventType::kTerminal || e.event_type == EventType::kFailed;
  pending_.push_back(std::move(e));
  ++next_item_seq_;
  finished_ = finishes;
  return absl::OkStatus();
}

absl::StatusOr<StreamWriter> OpenStream(std::string_view item_id, std::string_view writer_epoch,
                                        StreamWriterOptions options,
                                        const StepProvenance& created_by) {
  absl::Status status = CheckWriterArguments(writer_epoch, options);
  if (!status.ok()) return status;
  StreamWriter writer(std::string(item_id), std::string(writer_epoch), /*attempt=*/0,
                      /*next_item_seq=*/1, std::move(options));
  status = writer.Stamp(EventOf(EventType::kItemCreated, created_by));
  if (!status.ok()) return status;
  return writer;
}

absl::StatusOr<StreamWriter> ResumeStream(const FoldedItem& item, std::string_view writer_epoch,
                                          StreamWriterOptions options) {
  absl::Status status = CheckWriterArguments(writer_epoch, options);
  if (!status.ok()) return status;
  if (item.status == ItemStatus::kCompleted || item.status == ItemStatus::kFiltered) {
    return absl::FailedPreconditionError(
        absl::StrCat("item \"", item.item_id, "\" is ",
                     std::string(ItemStatusName(item.status)), "; there is nothing to resume"));
  }
  if (item.last_attempt == std::numeric_limits<uint32_t>::max()) {
    return absl::FailedPreconditionError(
        absl::StrCat("item \"", item.item_id, "\" has used every attempt number"));
  }
  return StreamWriter(item.item_id, std::string(writer_epoch), item.last_attempt + 1,
                      item.next_item_seq, std::move(options));
}

}  // namespace lake::events
