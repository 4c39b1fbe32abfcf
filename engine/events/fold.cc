#include "engine/events/fold.h"

#include <algorithm>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "engine/events/event_content.h"
#include "engine/events/item_id.h"

namespace lake::events {
namespace {

// absl::StrCat takes absl::string_view, which is not std::string_view in
// this build, so text is quoted into a std::string first.
std::string Quoted(std::string_view text) {
  std::string quoted = "\"";
  quoted.append(text);
  quoted += '"';
  return quoted;
}

// ---- Checks on the whole log of one item, before anything is applied ----

absl::Status CheckEvents(std::string_view item_id, absl::Span<const Event* const> events,
                         EventChecks checks) {
  for (const Event* e : events) {
    if (e->item_id != item_id) {
      return absl::InvalidArgumentError(
          absl::StrCat("fold of item ", Quoted(item_id), " was given an event of item ",
                       Quoted(e->item_id), " (item_seq ", e->item_seq, ")"));
    }
    if (checks == EventChecks::kValidated) continue;
    absl::Status valid = ValidateEvent(*e);
    if (!valid.ok()) return valid;
  }
  return absl::OkStatus();
}

// By item_seq; within one item_seq by event_ts, so the copy of a duplicate
// that is kept does not depend on the order the events were handed over.
std::vector<const Event*> SortedBySeq(absl::Span<const Event* const> events) {
  std::vector<const Event*> sorted(events.begin(), events.end());
  auto before = [](const Event* a, const Event* b) {
    return std::tie(a->item_seq, a->event_ts) < std::tie(b->item_seq, b->event_ts);
  };
  // An EventLog hands each item's events over in item_seq order already.
  if (!std::is_sorted(sorted.begin(), sorted.end(), before)) {
    std::stable_sort(sorted.begin(), sorted.end(), before);
  }
  return sorted;
}

// Pointers to `events`, in order.
std::vector<const Event*> RefsOf(absl::Span<const Event> events) {
  std::vector<const Event*> refs;
  refs.reserve(events.size());
  for (const Event& e : events) refs.push_back(&e);
  return refs;
}

// Drops repeats of an event (a retried batch); a different event at an
// item_seq already taken means two writers raced past the fence.
absl::StatusOr<std::vector<const Event*>> DropDuplicates(
    std::string_view item_id, const std::vector<const Event*>& sorted) {
  std::vector<const Event*> log;
  log.reserve(sorted.size());
  for (const Event* e : sorted) {
    if (!log.empty() && log.back()->item_seq == e->item_seq) {
      if (SameEventContent(*log.back(), *e)) continue;
      return absl::AbortedError(
          absl::StrCat("fencing violation: item ", Quoted(item_id),
                       " has two different events at item_seq ", e->item_seq));
    }
    log.push_back(e);
  }
  return log;
}

// Attempts never go back as item_seq grows, and one attempt has one writer.
absl::Status CheckAttempts(std::string_view item_id, const std::vector<const Event*>& log) {
  const Event* highest = nullptr;  // the first event of the highest attempt so far
  std::map<uint32_t, const Event*> epoch_of_attempt;
  for (const Event* e : log) {
    if (highest && e->attempt < highest->attempt) {
      return absl::AbortedError(absl::StrCat(
          "stale attempt: item ", Quoted(item_id), " has attempt ", e->attempt,
          " at item_seq ", e->item_seq, " after attempt ", highest->attempt,
          " at item_seq ", highest->item_seq));
    }
    if (!highest || e->attempt > highest->attempt) highest = e;
    if (e->writer_epoch.empty()) continue;
    auto [it, inserted] = epoch_of_attempt.emplace(e->attempt, e);
    if (!inserted && it->second->writer_epoch != e->writer_epoch) {
      return absl::AbortedError(absl::StrCat(
          "split brain: item ", Quoted(item_id), " attempt ", e->attempt,
          " was written by writer epochs ", Quoted(it->second->writer_epoch),
          " (item_seq ", it->second->item_seq, ") and ", Quoted(e->writer_epoch),
          " (item_seq ", e->item_seq, ")"));
    }
  }
  return absl::OkStatus();
}

FailureRecord FailureOf(const Event& e) {
  return FailureRecord{e.item_id,    ProvenanceOf(e), e.attempt,   e.item_seq,
                       e.error_type, e.error_dump,    e.traceback, e.event_ts};
}

// ---- Applying events in item_seq order ----

// Builds a FoldedItem from a checked, duplicate-free log whose first event
// is the ITEM_CREATED.
class ItemFolder {
 public:
  explicit ItemFolder(const Event& created) {
    item_.item_id = created.item_id;
    item_.root_item_id = created.root_item_id;
    item_.parent_item_id = created.parent_item_id;
    item_.created_by = ProvenanceOf(created);
    Track(created);
  }

  // Applies an event that follows the ITEM_CREATED.
  absl::Status Apply(const Event& e) {
    absl::Status status = CheckStatusAllows(e);
    if (!status.ok()) return status;
    Track(e);
    switch (e.event_type) {
      case EventType::kItemCreated:
        return Refuse(e, "a second ITEM_CREATED");
      case EventType::kStepStarted:
        OpenFrameOf(e);
        return absl::OkStatus();
      case EventType::kStepCompleted:
        Complete(e);
        return absl::OkStatus();
      case EventType::kFieldSet:
      case EventType::kFieldAppend:
        return ApplyField(e);
      case EventType::kFailed:
        item_.status = ItemStatus::kFailed;
        item_.failure = FailureOf(e);
        return absl::OkStatus();
      case EventType::kTerminal:
        item_.status = *e.status;  // completed or filtered (ValidateEvent)
        return absl::OkStatus();
    }
    return Refuse(e, "an unknown event_type");
  }

  FoldedItem Finish() && { return std::move(item_); }

 private:
  absl::Status Refuse(const Event& e, std::string_view what) const {
    return absl::FailedPreconditionError(absl::StrCat(
        "item ", Quoted(item_.item_id), " has ", std::string(what), " at item_seq ", e.item_seq));
  }

  // A finished item takes no more events, except that a later attempt may
  // resume a failed one.
  absl::Status CheckStatusAllows(const Event& e) {
    if (item_.status == ItemStatus::kCompleted || item_.status == ItemStatus::kFiltered) {
      return Refuse(e, "an event after its TERMINAL");
    }
    if (item_.status == ItemStatus::kFailed) {
      if (e.attempt == item_.failure->attempt) {
        return Refuse(e, absl::StrCat("an event after its FAILED in attempt ", e.attempt));
      }
      item_.status = ItemStatus::kRunning;
      item_.failure.reset();
    }
    return absl::OkStatus();
  }

  // Columns every event contributes whatever its type.
  void Track(const Event& e) {
    if (e.attempt != item_.last_attempt) item_.writer_epoch.clear();
    item_.last_attempt = e.attempt;
    if (!e.writer_epoch.empty()) item_.writer_epoch = e.writer_epoch;
    item_.next_item_seq = e.item_seq + 1;
    if (!e.query_tags_json.empty()) item_.query_tags_json = e.query_tags_json;
  }

  std::vector<OpenFrame>::iterator FrameOf(const Event& e) {
    return std::find_if(item_.open_frames.begin(), item_.open_frames.end(),
                        [&](const OpenFrame& f) {
                          return f.step_name == e.step_name && f.step_index == e.step_index;
                        });
  }

  void OpenFrameOf(const Event& e) {
    auto frame = FrameOf(e);
    if (frame != item_.open_frames.end()) item_.open_frames.erase(frame);
    item_.open_frames.push_back(OpenFrame{e.step_name, e.step_index, *e.step_kind,
                                          e.enclosing_step, e.attempt, e.item_seq});
  }

  void Complete(const Event& e) {
    auto frame = FrameOf(e);
    if (frame != item_.open_frames.end()) item_.open_frames.erase(frame);
    item_.completed_steps.push_back(CompletedStep{e.step_name, e.step_index, e.step_kind,
                                                  e.enclosing_step, e.attempt, e.item_seq});
  }

  absl::Status ApplyField(const Event& e) {
    FieldMode mode = e.event_type == EventType::kFieldSet ? FieldMode::kSet : FieldMode::kAppend;
    auto [it, inserted] = item_.fields.try_emplace(e.field_name);
    FoldedField& field = it->second;
    if (inserted) {
      field.mode = mode;
    } else if (field.mode != mode) {
      return absl::FailedPreconditionError(absl::StrCat(
          "item ", Quoted(item_.item_id), " field ", Quoted(e.field_name),
          " is both FIELD_SET and FIELD_APPEND (item_seq ", e.item_seq,
          " ", std::string(EventTypeName(e.event_type)), ")"));
    }
    if (mode == FieldMode::kSet) field.values.clear();
    field.values.push_back(e);
    return absl::OkStatus();
  }

  FoldedItem item_;
};

// ---- Trees ----

bool SegmentLess(const ItemPathSegment& a, const ItemPathSegment& b) {
  return std::tie(a.step, a.index) < std::tie(b.step, b.index);
}

bool PathLess(const ItemId& a, const ItemId& b) {
  return std::lexicographical_compare(a.path.begin(), a.path.end(), b.path.begin(),
                                      b.path.end(), SegmentLess);
}

// A folded item of the tree being built: its parsed id, its node, and its
// children until they are moved into the node in order.
struct TreeSlot {
  ItemId id;
  ItemTreeNode node;
  std::vector<TreeSlot*> children;
};

ItemTreeNode NodeOf(FoldedItem item) {
  ItemTreeNode node;
  node.created_by_step = item.created_by.step_name;
  node.selector_step = item.created_by.selector_step;
  node.item = std::move(item);
  return node;
}

// Moves the slot's children into its node, ordered by path (children of one
// parent differ only in their last segment).
void AdoptChildren(TreeSlot& slot) {
  std::stable_sort(slot.children.begin(), slot.children.end(),
                   [](const TreeSlot* a, const TreeSlot* b) { return PathLess(a->id, b->id); });
  for (TreeSlot* child : slot.children) slot.node.children.push_back(std::move(child->node));
  slot.children.clear();
}

// The counter of `status` in `roots` (const or not).
template <typename Roots>
auto& CounterOf(Roots& roots, ItemStatus status) {
  switch (status) {
    case ItemStatus::kCompleted:
      return roots.completed;
    case ItemStatus::kFiltered:
      return roots.filtered;
    case ItemStatus::kFailed:
      return roots.failed;
    case ItemStatus::kRunning:
      break;
  }
  return roots.running;
}

// Calls `visit(key, events)` for `root` and every key under root + "/".
template <typename ByItem, typename Visit>
absl::Status ForEachInTree(std::string_view root, const ByItem& events_by_item, Visit visit) {
  std::string key(root);
  if (auto it = events_by_item.find(key); it != events_by_item.end()) {
    absl::Status status = visit(it->first, it->second);
    if (!status.ok()) return status;
  }
  // Descendants are contiguous in key order: every key with this prefix.
  std::string prefix = std::string(root) + "/";
  for (auto it = events_by_item.lower_bound(prefix);
       it != events_by_item.end() && it->first.compare(0, prefix.size(), prefix) == 0; ++it) {
    absl::Status status = visit(it->first, it->second);
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

// The events of one item of an EventsByItem or an EventRefsByItem, as
// references, and their copies.
std::vector<const Event*> RefsOf(const std::vector<Event>& events) {
  return RefsOf(absl::Span<const Event>(events));
}
const std::vector<const Event*>& RefsOf(const std::vector<const Event*>& events) {
  return events;
}
void AppendCopies(const std::vector<Event>& events, std::vector<Event>* out) {
  out->insert(out->end(), events.begin(), events.end());
}
void AppendCopies(const std::vector<const Event*>& events, std::vector<Event>* out) {
  for (const Event* e : events) out->push_back(*e);
}

}  // namespace

StepProvenance ProvenanceOf(const Event& e) {
  return StepProvenance{e.step_name, e.step_index, e.step_kind, e.enclosing_step,
                        e.selector_step};
}

const OpenFrame* FindOpenFrame(const FoldedItem& item, std::string_view step_name,
                               std::optional<uint32_t> step_index) {
  for (const OpenFrame& frame : item.open_frames) {
    if (frame.step_name == step_name && frame.step_index == step_index) return &frame;
  }
  return nullptr;
}

absl::StatusOr<std::optional<FoldedItem>> FoldItem(std::string_view item_id,
                                                   absl::Span<const Event> events) {
  return FoldItem(item_id, RefsOf(events), EventChecks::kValidate);
}

absl::StatusOr<std::optional<FoldedItem>> FoldItem(std::string_view item_id,
                                                   absl::Span<const Event* const> events,
                                                   EventChecks checks) {
  absl::Status status = CheckEvents(item_id, events, checks);
  if (!status.ok()) return status;
  absl::StatusOr<std::vector<const Event*>> log = DropDuplicates(item_id, SortedBySeq(events));
  if (!log.ok()) return log.status();
  status = CheckAttempts(item_id, *log);
  if (!status.ok()) return status;

  auto created = std::find_if(log->begin(), log->end(), [](const Event* e) {
    return e->event_type == EventType::kItemCreated;
  });
  if (created == log->end()) return std::optional<FoldedItem>();
  if (created != log->begin()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "item ", Quoted(item_id), " has an event at item_seq ", log->front()->item_seq,
        " before its ITEM_CREATED at item_seq ", (*created)->item_seq));
  }
  ItemFolder folder(**created);
  for (auto e = created + 1; e != log->end(); ++e) {
    status = folder.Apply(**e);
    if (!status.ok()) return status;
  }
  return std::optional<FoldedItem>(std::move(folder).Finish());
}

LifecycleView Lifecycle(const FoldedItem& item) {
  return LifecycleView{item.status, item.fields, item.completed_steps, item.open_frames};
}

std::vector<FailureRecord> Failures(absl::Span<const Event> events) {
  return Failures(RefsOf(events));
}

std::vector<FailureRecord> Failures(absl::Span<const Event* const> events) {
  std::vector<const Event*> failed;
  for (const Event* e : events) {
    if (e->event_type == EventType::kFailed) failed.push_back(e);
  }
  std::stable_sort(failed.begin(), failed.end(), [](const Event* a, const Event* b) {
    return std::tie(a->item_id, a->item_seq, a->event_ts) <
           std::tie(b->item_id, b->item_seq, b->event_ts);
  });
  std::vector<FailureRecord> records;
  for (const Event* e : failed) {
    if (!records.empty() && records.back().item_id == e->item_id &&
        records.back().item_seq == e->item_seq) {
      continue;
    }
    records.push_back(FailureOf(*e));
  }
  return records;
}

namespace {

template <typename ByItem>
absl::StatusOr<ItemTree> BuildTree(std::string_view root_item_id, const ByItem& events_by_item,
                                   EventChecks checks) {
  absl::StatusOr<ItemId> root = ParseItemId(root_item_id);
  if (!root.ok()) return root.status();
  if (!root->is_root()) {
    return absl::InvalidArgumentError(
        absl::StrCat("item tree of ", Quoted(root_item_id), ": not a root item id"));
  }

  // Fold every item of the tree.
  std::map<std::string, TreeSlot> slots;
  absl::Status status = ForEachInTree(
      root_item_id, events_by_item,
      [&](const std::string& key, const auto& events) -> absl::Status {
        absl::StatusOr<std::optional<FoldedItem>> folded = FoldItem(key, RefsOf(events), checks);
        if (!folded.ok()) return folded.status();
        if (!folded->has_value()) return absl::OkStatus();
        absl::StatusOr<ItemId> id = ParseItemId(key);  // parses: its events validated
        slots.emplace(key, TreeSlot{*std::move(id), NodeOf(**std::move(folded)), {}});
        return absl::OkStatus();
      });
  if (!status.ok()) return status;
  if (slots.empty()) {
    return absl::NotFoundError(
        absl::StrCat("item tree of ", Quoted(root_item_id), ": no item of it exists"));
  }

  // Deepest first, so a slot's children are complete nodes before they move
  // into it.
  std::vector<TreeSlot*> order;
  for (auto& [key, slot] : slots) order.push_back(&slot);
  std::stable_sort(order.begin(), order.end(), [](const TreeSlot* a, const TreeSlot* b) {
    return a->id.path.size() > b->id.path.size();
  });
  ItemTree tree;
  TreeSlot orphans;  // a stand-in parent for the subtrees whose parent is missing
  for (TreeSlot* slot : order) {
    AdoptChildren(*slot);
    std::optional<ItemId> parent = ParentItemId(slot->id);
    if (!parent) {
      tree.root = std::move(slot->node);
      continue;
    }
    auto parent_slot = slots.find(FormatItemId(*parent));
    TreeSlot& adopter = parent_slot == slots.end() ? orphans : parent_slot->second;
    adopter.children.push_back(slot);
  }
  AdoptChildren(orphans);
  tree.orphans = std::move(orphans.node.children);
  return tree;
}

template <typename ByItem>
absl::StatusOr<RootStatuses> StatusesOfRoots(const ByItem& events_by_item, EventChecks checks) {
  RootStatuses roots;
  for (const auto& [key, events] : events_by_item) {
    if (key.find('/') != std::string::npos) continue;  // a descendant
    absl::StatusOr<std::optional<FoldedItem>> folded = FoldItem(key, RefsOf(events), checks);
    if (!folded.ok()) return folded.status();
    if (!folded->has_value()) continue;
    ItemStatus status = (*folded)->status;
    roots.status_by_root.emplace(key, status);
    ++CounterOf(roots, status);
  }
  return roots;
}

template <typename ByItem>
std::vector<Event> CopiesForRoot(std::string_view root_item_id, const ByItem& events_by_item) {
  std::vector<Event> events;
  ForEachInTree(root_item_id, events_by_item,
                [&](const std::string&, const auto& item_events) {
                  AppendCopies(item_events, &events);
                  return absl::OkStatus();
                })
      .IgnoreError();  // the visitor never fails
  std::stable_sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
    return std::tie(a.item_id, a.item_seq) < std::tie(b.item_id, b.item_seq);
  });
  return events;
}

}  // namespace

absl::StatusOr<ItemTree> BuildItemTree(std::string_view root_item_id,
                                       const EventsByItem& events_by_item) {
  return BuildTree(root_item_id, events_by_item, EventChecks::kValidate);
}

absl::StatusOr<ItemTree> BuildItemTree(std::string_view root_item_id,
                                       const EventRefsByItem& events_by_item,
                                       EventChecks checks) {
  return BuildTree(root_item_id, events_by_item, checks);
}

size_t RootStatuses::Count(ItemStatus status) const { return CounterOf(*this, status); }

absl::StatusOr<RootStatuses> RootItemStatuses(const EventsByItem& events_by_item) {
  return StatusesOfRoots(events_by_item, EventChecks::kValidate);
}

absl::StatusOr<RootStatuses> RootItemStatuses(const EventRefsByItem& events_by_item,
                                              EventChecks checks) {
  return StatusesOfRoots(events_by_item, checks);
}

std::vector<Event> EventsForRoot(std::string_view root_item_id,
                                 const EventsByItem& events_by_item) {
  return CopiesForRoot(root_item_id, events_by_item);
}

std::vector<Event> EventsForRoot(std::string_view root_item_id,
                                 const EventRefsByItem& events_by_item) {
  return CopiesForRoot(root_item_id, events_by_item);
}

}  // namespace lake::events
