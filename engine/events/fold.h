// The fold of the data-generation event log (EVENT-LOG.md, "Fold") and the
// reads derived from it: an item's current state from its events, the
// lifecycle and failure lenses, the item tree under a root, every root's
// status, and a root's raw events. Everything here is a pure function of the
// events it is given; nothing reads or writes storage.
//
// Errors, so a caller can tell a conflict from a malformed log:
//   InvalidArgument     an event does not pass ValidateEvent, or belongs to
//                       another item than the one folded
//   Aborted             a fencing conflict between writers: "fencing
//                       violation" (two different events at one item_seq),
//                       "stale attempt" (an attempt lower than one already
//                       seen at a lower item_seq), "split brain" (two
//                       writer_epochs in one attempt)
//   FailedPrecondition  a log one writer could not have produced: SET and
//                       APPEND on one field, a second ITEM_CREATED, an event
//                       before ITEM_CREATED, after TERMINAL, or after FAILED
//                       in the same attempt
// Every message names the item, and the item_seq or field at fault.
#ifndef LAKE_ENGINE_EVENTS_FOLD_H_
#define LAKE_ENGINE_EVENTS_FOLD_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "engine/events/event.h"

namespace lake::events {

// The step provenance columns of one event ("" / nullopt when unset).
struct StepProvenance {
  std::string step_name;
  std::optional<uint32_t> step_index;
  std::optional<StepKind> step_kind;
  std::string enclosing_step;  // the driver this step runs inside
  std::string selector_step;   // the Router/Conditional that chose the item
  bool operator==(const StepProvenance&) const = default;
};

// The provenance columns of `event`.
StepProvenance ProvenanceOf(const Event& event);

enum class FieldMode : uint8_t { kSet = 1, kAppend = 2 };

// One field of a folded item. Whole events are kept, not just values, so a
// blob's inline bytes or DataLocation, size and checksum stay available to
// load_blob, and every value keeps its step provenance.
//
// Invariant: mode kSet holds exactly one event, the FIELD_SET with the
// highest item_seq; mode kAppend holds every FIELD_APPEND in item_seq order.
struct FoldedField {
  FieldMode mode = FieldMode::kSet;
  std::vector<Event> values;
};

struct CompletedStep {
  std::string step_name;
  std::optional<uint32_t> step_index;
  std::optional<StepKind> step_kind;
  std::string enclosing_step;
  uint32_t attempt = 0;
  uint64_t item_seq = 0;  // of the STEP_COMPLETED
  bool operator==(const CompletedStep&) const = default;
};

// A driver step that started and has not completed: where a resumed attempt
// picks up. A frame is identified by (step_name, step_index); a STEP_STARTED
// of a frame that is already open (a resumed attempt re-entering it)
// replaces it.
struct OpenFrame {
  std::string step_name;
  std::optional<uint32_t> step_index;
  StepKind step_kind = StepKind::kRoot;  // always a driver
  std::string enclosing_step;
  uint32_t attempt = 0;   // of the latest STEP_STARTED
  uint64_t item_seq = 0;  // of the latest STEP_STARTED
  bool operator==(const OpenFrame&) const = default;
};

// One FAILED event.
struct FailureRecord {
  std::string item_id;
  StepProvenance step;
  uint32_t attempt = 0;
  uint64_t item_seq = 0;
  std::string error_type;
  std::string error_dump;
  std::string traceback;
  int64_t event_ts = 0;
  bool operator==(const FailureRecord&) const = default;
};

// An item's state after all of its events.
//
// Invariants: status is kRunning until a TERMINAL (completed / filtered) or
// a FAILED (failed); an event of a later attempt after a FAILED makes it
// kRunning again and clears `failure`. `failure` is set exactly when status
// is kFailed. open_frames are unique by (step_name, step_index) and ordered
// by the item_seq of their STEP_STARTED, outermost first; the last one is
// the innermost frame, the resume cursor.
struct FoldedItem {
  std::string item_id;
  std::string root_item_id;
  std::string parent_item_id;  // "" for a root item
  ItemStatus status = ItemStatus::kRunning;
  std::map<std::string, FoldedField> fields;
  std::vector<CompletedStep> completed_steps;  // item_seq order
  std::vector<OpenFrame> open_frames;
  uint32_t last_attempt = 0;
  uint64_t next_item_seq = 1;   // highest item_seq + 1
  std::string writer_epoch;     // of the last attempt; "" when it wrote none
  std::string query_tags_json;  // the last non-empty one
  std::optional<FailureRecord> failure;
  // The ITEM_CREATED's provenance: for a fan-out child, the step that
  // created it and the Router/Conditional (selector_step) that chose it.
  StepProvenance created_by;
};

// The open frame (step_name, step_index) of `item`, or nullptr. The pointer
// lives as long as `item` is not modified.
const OpenFrame* FindOpenFrame(const FoldedItem& item, std::string_view step_name,
                               std::optional<uint32_t> step_index);

// Whether a fold checks each event with ValidateEvent (kValidate), or
// relies on every event having passed it already (kValidated: an
// EventLog's index holds only events validated when appended or read).
enum class EventChecks : uint8_t { kValidate = 1, kValidated = 2 };

// Folds the events of item `item_id`, given in any order, by item_seq.
// nullopt when there is no ITEM_CREATED (the item does not exist).
// Duplicates — events at one item_seq that are SameEventContent — count
// once (the earliest event_ts is kept). Each event is checked with
// ValidateEvent first (unless `checks` is kValidated). Errors as listed at
// the top of this file.
absl::StatusOr<std::optional<FoldedItem>> FoldItem(std::string_view item_id,
                                                   absl::Span<const Event> events);
absl::StatusOr<std::optional<FoldedItem>> FoldItem(std::string_view item_id,
                                                   absl::Span<const Event* const> events,
                                                   EventChecks checks);

// The lifecycle lens: what an item is and how far it got.
struct LifecycleView {
  ItemStatus status = ItemStatus::kRunning;
  std::map<std::string, FoldedField> fields;
  std::vector<CompletedStep> completed_steps;
  std::vector<OpenFrame> open_frames;
};
LifecycleView Lifecycle(const FoldedItem& item);

// The failure lens: every FAILED event among `events` (any items, any
// order), ordered by item_id then item_seq. Events at one (item_id,
// item_seq) are reported once. No validation: this is a filter, so it still
// shows failures of an item whose fold is refused.
std::vector<FailureRecord> Failures(absl::Span<const Event> events);
std::vector<FailureRecord> Failures(absl::Span<const Event* const> events);

// Events grouped by item_id, as a reader of the log hands them over.
using EventsByItem = std::map<std::string, std::vector<Event>>;
// The same by reference: an EventLog's index, whose events live in the
// batches it keeps. The functions below take either; with references they
// take `checks` too (see FoldItem).
using EventRefsByItem = std::map<std::string, std::vector<const Event*>, std::less<>>;

// One folded item of a tree and the items it created by fan-out.
struct ItemTreeNode {
  FoldedItem item;
  // From item.created_by, for display: the step whose fan-out created this
  // item and the Router/Conditional that chose it ("" for none).
  std::string created_by_step;
  std::string selector_step;
  // Ordered by their last path segment: step name, then numeric index
  // ("gen:2" before "gen:10").
  std::vector<ItemTreeNode> children;
};

// The items under one root. An item whose parent has no ITEM_CREATED is not
// attached to a further ancestor (that would show a link the log does not
// hold): its subtree is listed in `orphans`, ordered by path. When the root
// itself has no ITEM_CREATED, `root` is empty and its children are orphans.
struct ItemTree {
  std::optional<ItemTreeNode> root;
  std::vector<ItemTreeNode> orphans;
};

// Folds `root_item_id` and every descendant (ids starting with root + "/")
// in `events_by_item` and links parent -> child. Items without an
// ITEM_CREATED are left out. InvalidArgument when `root_item_id` is not a
// root item id; NotFound when no item of the tree exists; any fold error.
absl::StatusOr<ItemTree> BuildItemTree(std::string_view root_item_id,
                                       const EventsByItem& events_by_item);
absl::StatusOr<ItemTree> BuildItemTree(std::string_view root_item_id,
                                       const EventRefsByItem& events_by_item,
                                       EventChecks checks);

// Every root item's status, and how many roots have each status.
struct RootStatuses {
  std::map<std::string, ItemStatus> status_by_root;
  size_t running = 0;
  size_t completed = 0;
  size_t filtered = 0;
  size_t failed = 0;

  size_t Count(ItemStatus status) const;
};

// Folds every root item (a key without "/") of `events_by_item`; roots
// without an ITEM_CREATED are left out. Fails with the first fold error.
absl::StatusOr<RootStatuses> RootItemStatuses(const EventsByItem& events_by_item);
absl::StatusOr<RootStatuses> RootItemStatuses(const EventRefsByItem& events_by_item,
                                              EventChecks checks);

// The raw events of `root_item_id` and all its descendants, ordered by
// (item_id, item_seq), duplicates included: the log as written.
std::vector<Event> EventsForRoot(std::string_view root_item_id,
                                 const EventsByItem& events_by_item);
std::vector<Event> EventsForRoot(std::string_view root_item_id,
                                 const EventRefsByItem& events_by_item);

}  // namespace lake::events

#endif  // LAKE_ENGINE_EVENTS_FOLD_H_
