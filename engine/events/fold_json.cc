// The JSON form of the derived reads; its note is in fold_json.h.
#include "engine/events/fold_json.h"

#include <nlohmann/json.hpp>
#include <string_view>
#include <utility>

#include "engine/data_location_json.h"
#include "engine/events/event_json.h"

namespace lake::events {
namespace {

using Json = nlohmann::ordered_json;

std::string Dump(const Json& json) {
  // Replacing invalid UTF-8 keeps dump() from throwing.
  return json.dump(-1, ' ', false, Json::error_handler_t::replace);
}

Json TextOrNull(const std::string& text) { return text.empty() ? Json(nullptr) : Json(text); }

Json IndexOrNull(std::optional<uint32_t> index) {
  return index ? Json(*index) : Json(nullptr);
}

Json KindOrNull(std::optional<StepKind> kind) {
  return kind ? Json(std::string(StepKindName(*kind))) : Json(nullptr);
}

Json StatusName(ItemStatus status) { return Json(std::string(ItemStatusName(status))); }


// The JSON value `text` spells, or `text` as a string when it is not JSON
// (or too deep to render).
Json EmbeddedJson(const std::string& text) {
  if (JsonNestsDeeperThan(text, kMaxRenderedJsonDepth)) return Json(text);
  Json parsed = Json::parse(text, /*cb=*/nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) return Json(text);
  return parsed;
}

Json BlobJson(const Event& e) {
  Json blob = Json::object();
  if (e.blob_location) {
    // DataLocationToJson owns that object's form; embed it as it writes it.
    blob["location"] = EmbeddedJson(DataLocationToJson(*e.blob_location));
  } else {
    blob["inline_bytes"] = e.blob_inline.size();
    blob["sha256"] = TextOrNull(e.payload_checksum);
  }
  Json out = Json::object();
  out["blob"] = std::move(blob);
  return out;
}

Json ValueJson(const Event& e) {
  if (!e.value_kind) return Json(nullptr);
  switch (*e.value_kind) {
    case ValueKind::kInt:
      return Json(e.value_i64);
    case ValueKind::kFloat:
      return Json(e.value_f64);
    case ValueKind::kBool:
      return Json(e.value_bool);
    case ValueKind::kStr:
      return Json(e.value_str);
    case ValueKind::kJson:
      return EmbeddedJson(e.value_json);
    case ValueKind::kBlob:
      return BlobJson(e);
  }
  return Json(nullptr);
}

Json FieldJson(const FoldedField& field) {
  if (field.mode == FieldMode::kSet) {
    return field.values.empty() ? Json(nullptr) : ValueJson(field.values.back());
  }
  Json values = Json::array();
  for (const Event& e : field.values) values.push_back(ValueJson(e));
  return values;
}

Json FieldsJson(const std::map<std::string, FoldedField>& fields) {
  Json out = Json::object();
  for (const auto& [name, field] : fields) out[name] = FieldJson(field);
  return out;
}

Json ProvenanceJson(const StepProvenance& step) {
  if (step == StepProvenance{}) return Json(nullptr);
  Json out = Json::object();
  out["step_name"] = TextOrNull(step.step_name);
  out["step_index"] = IndexOrNull(step.step_index);
  out["step_kind"] = KindOrNull(step.step_kind);
  out["enclosing_step"] = TextOrNull(step.enclosing_step);
  out["selector_step"] = TextOrNull(step.selector_step);
  return out;
}

Json StepJson(const std::string& name, std::optional<uint32_t> index,
              std::optional<StepKind> kind, uint32_t attempt, uint64_t item_seq) {
  Json out = Json::object();
  out["step_name"] = TextOrNull(name);
  out["step_index"] = IndexOrNull(index);
  out["step_kind"] = KindOrNull(kind);
  out["attempt"] = attempt;
  out["item_seq"] = item_seq;
  return out;
}

Json CompletedStepsJson(const std::vector<CompletedStep>& steps) {
  Json out = Json::array();
  for (const CompletedStep& s : steps) {
    out.push_back(StepJson(s.step_name, s.step_index, s.step_kind, s.attempt, s.item_seq));
  }
  return out;
}

Json OpenFramesJson(const std::vector<OpenFrame>& frames) {
  Json out = Json::array();
  for (const OpenFrame& f : frames) {
    out.push_back(StepJson(f.step_name, f.step_index, f.step_kind, f.attempt, f.item_seq));
  }
  return out;
}

Json FailureJson(const FailureRecord& f) {
  Json out = Json::object();
  out["item_id"] = f.item_id;
  out["item_seq"] = f.item_seq;
  out["attempt"] = f.attempt;
  out["step_name"] = TextOrNull(f.step.step_name);
  out["step_index"] = IndexOrNull(f.step.step_index);
  out["error_type"] = f.error_type;
  out["error_dump"] = TextOrNull(f.error_dump);
  out["traceback"] = TextOrNull(f.traceback);
  out["event_ts"] = f.event_ts;
  return out;
}

Json ItemJson(const FoldedItem& item) {
  Json out = Json::object();
  out["item_id"] = item.item_id;
  out["root_item_id"] = item.root_item_id;
  out["parent_item_id"] = TextOrNull(item.parent_item_id);
  out["status"] = StatusName(item.status);
  out["last_attempt"] = item.last_attempt;
  out["next_item_seq"] = item.next_item_seq;
  out["writer_epoch"] = TextOrNull(item.writer_epoch);
  out["query_tags"] =
      item.query_tags_json.empty() ? Json(nullptr) : EmbeddedJson(item.query_tags_json);
  out["created_by"] = ProvenanceJson(item.created_by);
  out["fields"] = FieldsJson(item.fields);
  out["completed_steps"] = CompletedStepsJson(item.completed_steps);
  out["open_frames"] = OpenFramesJson(item.open_frames);
  out["failure"] = item.failure ? FailureJson(*item.failure) : Json(nullptr);
  return out;
}

Json NodeJson(const ItemTreeNode& node) {
  Json out = Json::object();
  out["item"] = ItemJson(node.item);
  out["created_by_step"] = TextOrNull(node.created_by_step);
  out["selector_step"] = TextOrNull(node.selector_step);
  Json children = Json::array();
  for (const ItemTreeNode& child : node.children) children.push_back(NodeJson(child));
  out["children"] = std::move(children);
  return out;
}

}  // namespace

std::string FoldedItemToJson(const FoldedItem& item) { return Dump(ItemJson(item)); }

std::string FoldedItemOrNullToJson(const std::optional<FoldedItem>& item) {
  return item ? FoldedItemToJson(*item) : "null";
}

std::string ItemTreeToJson(const ItemTree& tree) {
  Json out = Json::object();
  out["root"] = tree.root ? NodeJson(*tree.root) : Json(nullptr);
  Json orphans = Json::array();
  for (const ItemTreeNode& orphan : tree.orphans) orphans.push_back(NodeJson(orphan));
  out["orphans"] = std::move(orphans);
  return Dump(out);
}

std::string RootStatusesToJson(const RootStatuses& roots) {
  Json list = Json::array();
  for (const auto& [item_id, status] : roots.status_by_root) {  // std::map: by item_id
    Json root = Json::object();
    root["item_id"] = item_id;
    root["status"] = StatusName(status);
    list.push_back(std::move(root));
  }
  Json counts = Json::object();
  counts["running"] = roots.running;
  counts["completed"] = roots.completed;
  counts["filtered"] = roots.filtered;
  counts["failed"] = roots.failed;
  Json out = Json::object();
  out["roots"] = std::move(list);
  out["counts"] = std::move(counts);
  return Dump(out);
}

std::string FailuresToJson(const std::vector<FailureRecord>& failures) {
  Json out = Json::array();
  for (const FailureRecord& f : failures) out.push_back(FailureJson(f));
  return Dump(out);
}

std::string EventsToJsonLines(const std::vector<Event>& events) {
  std::string out;
  for (const Event& e : events) {
    out += EventToJson(e);
    out += '\n';
  }
  return out;
}

}  // namespace lake::events
