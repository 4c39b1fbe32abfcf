// The stream writer of one item (EVENT-LOG.md, "Writers"). Callers say what
// happened — a step started or completed, a field was set or appended to,
// the item finished or failed — and the writer stamps the bookkeeping
// columns (item_seq, attempt, checkpoint_id, event_id, writer_epoch,
// event_ts, schema_version) and gathers the events into a checkpoint batch
// that Commit() hands to a sink. The writer does no I/O of its own: the
// sink persists batches and the BlobOffloader stores large blobs.
//
// A fresh item starts with OpenStream (attempt 0, item_seq 1, which stamps
// its ITEM_CREATED); a new owner of an existing item continues it with
// ResumeStream (the folded item's last attempt + 1, item_seq continuing).
//
// Thread safety: none. One writer owns one attempt of one item and is used
// from one thread at a time.
#ifndef LAKE_ENGINE_EVENTS_STREAM_WRITER_H_
#define LAKE_ENGINE_EVENTS_STREAM_WRITER_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "engine/data_location.h"
#include "engine/events/event.h"
#include "engine/events/fold.h"

namespace lake::events {

// Blobs up to this many bytes travel inline in their event; larger ones are
// offloaded to a managed object and the event holds its DataLocation. Small
// values (text, scores, short JSON) are read with their item in one scan of
// the log; larger payloads (images, audio, long traces) would make every
// scan of the log carry them, so they live on the managed stage instead.
inline constexpr size_t kDefaultBlobInlineThreshold = 64 * 1024;

// A field's value as the caller means it. Only the member of `kind` is used
// (`bytes` holds the text of a str, the JSON text of a json and the bytes
// of a blob); the others are ignored.
struct FieldValue {
  ValueKind kind = ValueKind::kStr;
  int64_t i64 = 0;
  double f64 = 0;
  bool boolean = false;
  std::string bytes;
  // How the caller encoded the value (a type name and its codec's version,
  // say); stored in field_type / codec_version, never interpreted.
  std::string field_type;
  uint32_t codec_version = 0;

  static FieldValue Int(int64_t value);
  static FieldValue Float(double value);
  static FieldValue Bool(bool value);
  static FieldValue Str(std::string text);
  static FieldValue Json(std::string json_text);
  static FieldValue Blob(std::string bytes);
};

// Persists one checkpoint batch atomically: all of it or none (EVENT-LOG.md,
// "Writers"). Called with a copy; an error leaves the batch pending.
using EventSink = std::function<absl::Status(std::vector<Event> batch)>;

// Stores the bytes of a blob above the inline threshold as a managed object
// and returns its location, whose size and sha256 must describe `bytes`.
using BlobOffloader = std::function<absl::StatusOr<DataLocation>(std::string_view bytes)>;

// The time stamped into event_ts (as UTC microseconds).
using WriterClock = std::function<absl::Time()>;

// The writer keeps its own copies of these callbacks and calls them
// synchronously, on the thread of the writer call that needs them (Commit
// calls the sink; FieldSet / FieldAppend the offloader; every event call
// the clock). Whatever they capture must outlive the writer.
struct StreamWriterOptions {
  EventSink sink;                // required
  BlobOffloader blob_offloader;  // optional: without it larger blobs are refused
  size_t blob_inline_threshold = kDefaultBlobInlineThreshold;
  WriterClock clock;             // optional: absl::Now
  std::string run_id;            // stamped on every event
  std::string query_tags_json;   // stamped on every event until SetQueryTags
};

// Invariants: item_seq numbers are contiguous — each stamped event takes the
// next one and an event refused at stamping takes none; every pending event
// passed ValidateEvent; the pending events share one checkpoint_id, which
// is replaced only after the sink accepted the batch; while a commit has
// failed the batch is frozen, so its retry writes the very same events;
// after a TERMINAL or FAILED no event is stamped.
class StreamWriter {
 public:
  StreamWriter(StreamWriter&&) = default;
  StreamWriter& operator=(StreamWriter&&) = default;
  StreamWriter(const StreamWriter&) = delete;
  StreamWriter& operator=(const StreamWriter&) = delete;

  // The event calls. Each stamps one event into the pending batch, or
  // returns why not and stamps nothing: InvalidArgument when the item has
  // already finished or the event fails ValidateEvent (a STEP_STARTED of a
  // Leaf, a TERMINAL status other than completed / filtered, ...);
  // FailedPrecondition while a failed Commit has not been retried.
  absl::Status StepStarted(const StepProvenance& step);
  absl::Status StepCompleted(const StepProvenance& step);
  // A blob above the threshold goes to the BlobOffloader first: its error is
  // returned as is, a location not matching the bytes is an integrity error
  // (engine/integrity_error.h), and with no offloader it is
  // FailedPrecondition. An offloaded object whose event is never committed
  // is left to garbage collection.
  absl::Status FieldSet(std::string_view field_name, FieldValue value,
                        const StepProvenance& step = {});
  absl::Status FieldAppend(std::string_view field_name, FieldValue value,
                           const StepProvenance& step = {});
  // `status` is completed or filtered.
  absl::Status ItemTerminal(ItemStatus status, const StepProvenance& step = {});
  absl::Status ItemFailed(std::string_view error_type, std::string_view error_dump,
                          std::string_view traceback, const StepProvenance& step = {});

  // Tags every event stamped from now on; the fold keeps the last non-empty.
  void SetQueryTags(std::string query_tags_json);

  // Hands the pending batch to the sink. On success the batch is cleared
  // and the next event opens a new checkpoint; on error the batch stays
  // pending, unchanged, and the sink's error is returned — call Commit again
  // to retry with the same checkpoint_id and event ids. OK and no sink call
  // when nothing is pending.
  absl::Status Commit();

  const std::string& item_id() const { return item_id_; }
  uint32_t attempt() const { return attempt_; }
  uint64_t next_item_seq() const { return next_item_seq_; }
  // The stamped events not yet accepted by the sink.
  const std::vector<Event>& pending() const { return pending_; }
  // True after a TERMINAL or FAILED was stamped.
  bool finished() const { return finished_; }

 private:
  friend absl::StatusOr<StreamWriter> OpenStream(std::string_view, std::string_view,
                                                 StreamWriterOptions, const StepProvenance&);
  friend absl::StatusOr<StreamWriter> ResumeStream(const FoldedItem&, std::string_view,
                                                   StreamWriterOptions);
  StreamWriter(std::string item_id, std::string writer_epoch, uint32_t attempt,
               uint64_t next_item_seq, StreamWriterOptions options);

  absl::Status CheckAcceptsEvents() const;
  absl::Status FieldEvent(EventType type, std::string_view field_name, FieldValue value,
                          const StepProvenance& step);
  absl::Status PutBlob(Event& event, std::string bytes) const;
  absl::Status Stamp(Event event);

  std::string item_id_;
  std::string writer_epoch_;
  uint32_t attempt_ = 0;
  uint64_t next_item_seq_ = 1;
  StreamWriterOptions options_;
  std::string checkpoint_id_;  // of the pending batch
  std::vector<Event> pending_;
  bool commit_failed_ = false;
  bool finished_ = false;
};

// A writer for a new item: attempt 0, item_seq from 1, with the item's
// ITEM_CREATED already pending. `created_by` is the creating step's
// provenance for a fan-out child (step name, index and kind, enclosing_step,
// and the Router/Conditional in selector_step); empty for a root.
// InvalidArgument when item_id does not parse, writer_epoch is empty or
// options.sink is unset.
absl::StatusOr<StreamWriter> OpenStream(std::string_view item_id, std::string_view writer_epoch,
                                        StreamWriterOptions options,
                                        const StepProvenance& created_by = {});

// A writer continuing `item` (from FoldItem) in a new attempt: the last
// attempt + 1, item_seq from item.next_item_seq, no new ITEM_CREATED. A
// failed item may be resumed; FailedPrecondition for a completed or filtered
// one. InvalidArgument as for OpenStream.
absl::StatusOr<StreamWriter> ResumeStream(const FoldedItem& item, std::string_view writer_epoch,
                                          StreamWriterOptions options);

}  // namespace lake::events

#endif  // LAKE_ENGINE_EVENTS_STREAM_WRITER_H_
