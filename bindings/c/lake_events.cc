// Event logs through the C ABI: experiments, the log handle, stream
// writers, folded items and the derived reads.
#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "base/failpoint.h"
#include "bindings/c/c_handles.h"
#include "engine/events/blob_field.h"
#include "engine/events/event_json.h"
#include "engine/events/event_log.h"
#include "engine/events/event_log_compaction.h"
#include "engine/events/experiment_store.h"
#include "engine/events/fold_json.h"
#include "engine/events/item_id.h"
#include "engine/events/log_stream_options.h"
#include "engine/events/stream_writer.h"
#include "engine/gc/reference_hold.h"
#include "engine/table/cell_text.h"

struct lake_event_log {
  lake_db* db = nullptr;
  std::unique_ptr<lake::events::EventLog> log;
};

struct lake_event_writer {
  lake_event_log* log = nullptr;
  std::optional<lake::events::StreamWriter> writer;
};

struct lake_folded_item {
  lake::events::FoldedItem item;
  std::string json;
  std::string status;
};

namespace {

using lake::c::Guarded;
using lake::c::NullArgument;
using lake::c::Report;
namespace events = lake::events;

absl::StatusOr<events::ExperimentStore> StoreOf(lake_db* db) {
  absl::StatusOr<lake::io::FileSystem*> fs = lake::io::DefaultFileSystem();
  if (!fs.ok()) return fs.status();
  return events::ExperimentStore(**fs, db->root);
}

// An existing experiment of `db`: where its file system and shards are.
struct FoundExperiment {
  lake::io::FileSystem* fs = nullptr;
  events::ExperimentInfo info;
  std::string shards_dir;
};

// NotFound for an unknown experiment (InvalidArgument for a bad name).
absl::StatusOr<FoundExperiment> FindExperiment(lake_db* db, const char* pipeline,
                                               const char* experiment) {
  absl::StatusOr<lake::io::FileSystem*> fs = lake::io::DefaultFileSystem();
  if (!fs.ok()) return fs.status();
  events::ExperimentStore store(**fs, db->root);
  absl::StatusOr<events::ExperimentInfo> info = store.Get(pipeline, experiment);
  if (!info.ok()) return info.status();
  return FoundExperiment{*fs, std::move(*info), store.ShardsDir(pipeline, experiment)};
}

nlohmann::ordered_json ExperimentJson(const events::ExperimentInfo& info) {
  nlohmann::ordered_json j;
  j["pipeline"] = info.pipeline;
  j["experiment"] = info.experiment;
  j["created_at"] = lake::table::FormatTimestampMicros(info.created_unix_micros);
  return j;
}

lake_status ReturnText(const std::string& text, char** out) {
  *out = lake::c::CopyString(text);
  return LAKE_OK;
}

absl::StatusOr<events::StepProvenance> ToProvenance(const lake_step* step) {
  events::StepProvenance p;
  if (step == nullptr) return p;
  if (step->name != nullptr) p.step_name = step->name;
  if (step->index >= 0) {
    if (step->index > UINT32_MAX) {
      return absl::InvalidArgumentError(absl::StrCat("step index ", step->index, " is above 2^32"));
    }
    p.step_index = static_cast<uint32_t>(step->index);
  }
  if (step->kind != nullptr) {
    p.step_kind = events::ParseStepKind(step->kind);
    if (!p.step_kind) {
      return absl::InvalidArgumentError(absl::StrCat("\"", step->kind, "\" is not a step kind"));
    }
  }
  if (step->enclosing_step != nullptr) p.enclosing_step = step->enclosing_step;
  if (step->selector_step != nullptr) p.selector_step = step->selector_step;
  return p;
}

absl::StatusOr<events::FieldValue> ToFieldValue(const lake_value* v) {
  const bool has_bytes = v->kind == LAKE_VALUE_STR || v->kind == LAKE_VALUE_JSON ||
                         v->kind == LAKE_VALUE_BLOB;
  if (has_bytes && v->bytes == nullptr && v->len > 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("a value's bytes are NULL but its len is ", v->len));
  }
  auto text = [&] {
    return v->bytes == nullptr ? std::string()
                               : std::string(static_cast<const char*>(v->bytes), v->len);
  };
  switch (v->kind) {
    case LAKE_VALUE_INT: return events::FieldValue::Int(v->i64);
    case LAKE_VALUE_FLOAT: return events::FieldValue::Float(v->f64);
    case LAKE_VALUE_BOOL: return events::FieldValue::Bool(v->boolean != 0);
    case LAKE_VALUE_STR: return events::FieldValue::Str(text());
    case LAKE_VALUE_JSON: return events::FieldValue::Json(text());
    case LAKE_VALUE_BLOB: return events::FieldValue::Blob(text());
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown value kind ", static_cast<int>(v->kind)));
}

// Writers append to the log and offload large blobs to the root's stage
// (each offloaded blob leased until its batch is appended).
events::StreamWriterOptions WriterOptions(lake_event_log* log) {
  return events::StreamIntoLog(*log->log, *log->db->stage->stage);
}

lake_status FieldEvent(lake_event_writer* w, bool append, const char* field,
                       const lake_value* value, const lake_step* step, lake_error** err) {
  if (w == nullptr) return NullArgument("w", err);
  if (field == nullptr) return NullArgument("field", err);
  if (value == nullptr) return NullArgument("value", err);
  absl::StatusOr<events::FieldValue> v = ToFieldValue(value);
  if (!v.ok()) return Report(v.status(), err);
  absl::StatusOr<events::StepProvenance> p = ToProvenance(step);
  if (!p.ok()) return Report(p.status(), err);
  absl::Status s = append ? w->writer->FieldAppend(field, std::move(*v), *p)
                          : w->writer->FieldSet(field, std::move(*v), *p);
  return Report(s, err);
}

const events::FoldedField* FieldOf(const lake_folded_item* item, const char* field) {
  if (item == nullptr || field == nullptr) return nullptr;
  auto it = item->item.fields.find(field);
  return it == item->item.fields.end() ? nullptr : &it->second;
}

}  // namespace

extern "C" {

lake_status lake_experiment_create(lake_db* db, const char* pipeline, const char* experiment,
                                   lake_error** err) {
  return Guarded(err, [&] {
    if (db == nullptr) return NullArgument("db", err);
    if (pipeline == nullptr) return NullArgument("pipeline", err);
    if (experiment == nullptr) return NullArgument("experiment", err);
    absl::StatusOr<events::ExperimentStore> store = StoreOf(db);
    if (!store.ok()) return Report(store.status(), err);
    return Report(store->Create(pipeline, experiment).status(), err);
  });
}

lake_status lake_experiment_delete(lake_db* db, const char* pipeline, const char* experiment,
                                   lake_error** err) {
  return Guarded(err, [&] {
    if (db == nullptr) return NullArgument("db", err);
    if (pipeline == nullptr) return NullArgument("pipeline", err);
    if (experiment == nullptr) return NullArgument("experiment", err);
    absl::StatusOr<events::ExperimentStore> store = StoreOf(db);
    if (!store.ok()) return Report(store.status(), err);
    return Report(store->Delete(pipeline, experiment), err);
  });
}

lake_status lake_experiment_list(lake_db* db, const char* pipeline, char** json_out,
                                 lake_error** err) {
  return Guarded(err, [&] {
    if (db == nullptr) return NullArgument("db", err);
    if (json_out == nullptr) return NullArgument("json_out", err);
    absl::StatusOr<events::ExperimentStore> store = StoreOf(db);
    if (!store.ok()) return Report(store.status(), err);
    absl::StatusOr<std::vector<events::ExperimentInfo>> all =
        store->List(pipeline ? std::optional<std::string_view>(pipeline) : std::nullopt);
    if (!all.ok()) return Report(all.status(), err);
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const events::ExperimentInfo& info : *all) list.push_back(ExperimentJson(info));
    return ReturnText(list.dump(), json_out);
  });
}

lake_status lake_experiment_describe(lake_db* db, const char* pipeline, const char* experiment,
                                     char** json_out, lake_error** err) {
  return Guarded(err, [&] {
    if (db == nullptr) return NullArgument("db", err);
    if (pipeline == nullptr) return NullArgument("pipeline", err);
    if (experiment == nullptr) return NullArgument("experiment", err);
    if (json_out == nullptr) return NullArgument("json_out", err);
    absl::StatusOr<FoundExperiment> found = FindExperiment(db, pipeline, experiment);
    if (!found.ok()) return Report(found.status(), err);
    absl::StatusOr<std::unique_ptr<events::EventLog>> log =
        events::EventLog::Open(*found->fs, found->shards_dir, false);
    if (!log.ok()) return Report(log.status(), err);
    events::EventLogStats stats = (*log)->Stats();
    nlohmann::ordered_json j = ExperimentJson(found->info);
    j["shards"] = stats.shards;
    j["items"] = stats.items;
    j["events"] = stats.events;
    return ReturnText(j.dump(), json_out);
  });
}

lake_status lake_experiment_compact(lake_db* db, const char* pipeline, const char* experiment,
                                    char** json_out, lake_error** err) {
  return Guarded(err, [&] {
    if (db == nullptr) return NullArgument("db", err);
    if (pipeline == nullptr) return NullArgument("pipeline", err);
    if (experiment == nullptr) return NullArgument("experiment", err);
    if (json_out == nullptr) return NullArgument("json_out", err);
    absl::StatusOr<FoundExperiment> found = FindExperiment(db, pipeline, experiment);
    if (!found.ok()) return Report(found.status(), err);
    absl::StatusOr<events::CompactionResult> result =
        events::CompactEventLog(*found->fs, found->shards_dir);
    if (!result.ok()) {
      // Another compaction holding the log is a conflict, not an outage.
      absl::Status status = result.status();
      if (absl::IsUnavailable(status)) status = absl::AbortedError(status.message());
      return Report(status, err);
    }
    nlohmann::ordered_json j;
    j["compacted"] = result->compacted;
    j["shard"] = result->compacted ? nlohmann::ordered_json(result->shard_id) : nullptr;
    j["merged_shards"] = result->compacted_shards.size();
    j["skipped_shards"] = result->skipped_shards.size();
    j["events"] = result->events_written;
    return ReturnText(j.dump(), json_out);
  });
}

lake_status lake_event_log_open(lake_db* db, const char* pipeline, const char* experiment,
                                int writable, lake_event_log** out, lake_error** err) {
  return Guarded(err, [&] {
    if (db == nullptr) return NullArgument("db", err);
    if (pipeline == nullptr) return NullArgument("pipeline", err);
    if (experiment == nullptr) return NullArgument("experiment", err);
    if (out == nullptr) return NullArgument("out", err);
    absl::StatusOr<FoundExperiment> found = FindExperiment(db, pipeline, experiment);
    if (!found.ok()) return Report(found.status(), err);
    absl::StatusOr<std::unique_ptr<events::EventLog>> log =
        events::EventLog::Open(*found->fs, found->shards_dir, writable != 0);
    if (!log.ok()) return Report(log.status(), err);
    auto handle = std::make_unique<lake_event_log>();
    handle->db = db;
    handle->log = std::move(*log);
    *out = handle.release();
    return LAKE_OK;
  });
}

lake_status lake_event_log_refresh(lake_event_log* log, lake_error** err) {
  return Guarded(err, [&] {
    if (log == nullptr) return NullArgument("log", err);
    return Report(log->log->Refresh(), err);
  });
}

void lake_event_log_free(lake_event_log* log) { delete log; }

lake_status lake_event_log_append_jsonl(lake_event_log* log, const char* jsonl, size_t len,
                                        uint64_t* appended_out, uint64_t* duplicates_out,
                                        lake_error** err) {
  return Guarded(err, [&] {
    if (log == nullptr) return NullArgument("log", err);
    if (jsonl == nullptr && len != 0) return NullArgument("jsonl", err);
    if (appended_out != nullptr) *appended_out = 0;
    if (duplicates_out != nullptr) *duplicates_out = 0;
    absl::StatusOr<std::vector<events::Event>> parsed =
        events::ParseEventJsonLines(std::string_view(jsonl == nullptr ? "" : jsonl, len));
    if (!parsed.ok()) return Report(parsed.status(), err);
    // Every event is checked before the first batch is appended, as an
    // INSERT checks its existing locations: a location outside the stage or
    // its tenant, or naming no object of its size, leaves no trace. From
    // those checks until the batches naming them are appended (each records
    // its blobs in the shard's blob journal first), no collection deletes.
    lake::ManagedStage& stage = *log->db->stage->stage;
    lake::gc::GcHold hold;
    if (std::any_of(parsed->begin(), parsed->end(),
                    [](const events::Event& e) { return e.blob_location.has_value(); })) {
      absl::StatusOr<lake::io::FileSystem*> fs = lake::io::DefaultFileSystem();
      if (!fs.ok()) return Report(fs.status(), err);
      absl::StatusOr<lake::gc::GcHold> held =
          lake::gc::HoldToAddReferences(**fs, log->db->root, stage);
      if (!held.ok()) return Report(held.status(), err);
      hold = std::move(*held);
    }
    if (absl::Status s = events::CheckBlobLocations(stage, *parsed); !s.ok()) {
      return Report(s, err);
    }
    // Between the checks and the append (tests widen the window with a
    // sleep to race a collection against it).
    if (absl::Status s = LAKE_FAILPOINT("event_append.blobs_checked"); !s.ok()) {
      return Report(s, err);
    }
    // Batches by checkpoint_id, in the order of their first event.
    std::vector<std::vector<events::Event>> batches;
    std::map<std::string, size_t> batch_of;
    for (events::Event& e : *parsed) {
      auto [it, added] = batch_of.emplace(e.checkpoint_id, batches.size());
      if (added) batches.emplace_back();
      batches[it->second].push_back(std::move(e));
    }
    // A bulk load: each batch relaxed (atomic, written), then one sync, so
    // every batch appended is durable when the call returns, refused or not.
    uint64_t appended = 0, duplicates = 0;
    absl::Status failed = absl::OkStatus();
    for (std::vector<events::Event>& batch : batches) {
      absl::StatusOr<events::AppendResult> r =
          log->log->Append(std::move(batch), events::Durability::kRelaxed);
      if (!r.ok()) {
        failed = r.status();
        break;
      }
      appended += r->appended;
      duplicates += r->duplicates;
    }
    if (appended > 0) {
      if (absl::Status synced = log->log->Sync(); !synced.ok() && failed.ok()) failed = synced;
    }
    lake_status status = failed.ok() ? LAKE_OK : Report(failed, err);
    if (appended_out != nullptr) *appended_out = appended;
    if (duplicates_out != nullptr) *duplicates_out = duplicates;
    return status;
  });
}

lake_status lake_event_writer_open(lake_event_log* log, const char* item_id,
                                   const char* writer_epoch, const lake_step* created_by,
                                   lake_event_writer** out, lake_error** err) {
  return Guarded(err, [&] {
    if (log == nullptr) return NullArgument("log", err);
    if (item_id == nullptr) return NullArgument("item_id", err);
    if (writer_epoch == nullptr) return NullArgument("writer_epoch", err);
    if (out == nullptr) return NullArgument("out", err);
    absl::StatusOr<events::StepProvenance> p = ToProvenance(created_by);
    if (!p.ok()) return Report(p.status(), err);
    absl::StatusOr<events::StreamWriter> writer =
        events::OpenStream(item_id, writer_epoch, WriterOptions(log), *p);
    if (!writer.ok()) return Report(writer.status(), err);
    auto handle = std::make_unique<lake_event_writer>();
    handle->log = log;
    handle->writer.emplace(std::move(*writer));
    *out = handle.release();
    return LAKE_OK;
  });
}

lake_status lake_event_writer_resume(lake_event_log* log, const char* item_id,
                                     const char* writer_epoch, lake_event_writer** out,
                                     lake_error** err) {
  return Guarded(err, [&] {
    if (log == nullptr) return NullArgument("log", err);
    if (item_id == nullptr) return NullArgument("item_id", err);
    if (writer_epoch == nullptr) return NullArgument("writer_epoch", err);
    if (out == nullptr) return NullArgument("out", err);
    absl::StatusOr<std::optional<events::FoldedItem>> folded = log->log->Fold(item_id);
    if (!folded.ok()) return Report(folded.status(), err);
    if (!folded->has_value()) {
      return Report(absl::NotFoundError(absl::StrCat("no item \"", item_id, "\" to resume")), err);
    }
    absl::StatusOr<events::StreamWriter> writer =
        events::ResumeStream(**folded, writer_epoch, WriterOptions(log));
    if (!writer.ok()) return Report(writer.status(), err);
    auto handle = std::make_unique<lake_event_writer>();
    handle->log = log;
    handle->writer.emplace(std::move(*writer));
    *out = handle.release();
    return LAKE_OK;
  });
}

lake_status lake_event_writer_step_started(lake_event_writer* w, const lake_step* step,
                                           lake_error** err) {
  return Guarded(err, [&] {
    if (w == nullptr) return NullArgument("w", err);
    if (step == nullptr) return NullArgument("step", err);
    absl::StatusOr<events::StepProvenance> p = ToProvenance(step);
    if (!p.ok()) return Report(p.status(), err);
    return Report(w->writer->StepStarted(*p), err);
  });
}

lake_status lake_event_writer_step_completed(lake_event_writer* w, const lake_step* step,
                                             lake_error** err) {
  return Guarded(err, [&] {
    if (w == nullptr) return NullArgument("w", err);
    if (step == nullptr) return NullArgument("step", err);
    absl::StatusOr<events::StepProvenance> p = ToProvenance(step);
    if (!p.ok()) return Report(p.status(), err);
    return Report(w->writer->StepCompleted(*p), err);
  });
}

lake_status lake_event_writer_field_set(lake_event_writer* w, const char* field,
                                        const lake_value* value, const lake_step* step,
                                        lake_error** err) {
  return Guarded(err, [&] { return FieldEvent(w, false, field, value, step, err); });
}

lake_status lake_event_writer_field_append(lake_event_writer* w, const char* field,
                                           const lake_value* value, const lake_step* step,
                                           lake_error** err) {
  return Guarded(err, [&] { return FieldEvent(w, true, field, value, step, err); });
}

lake_status lake_event_writer_terminal(lake_event_writer* w, int filtered, const lake_step* step,
                                       lake_error** err) {
  return Guarded(err, [&] {
    if (w == nullptr) return NullArgument("w", err);
    absl::StatusOr<events::StepProvenance> p = ToProvenance(step);
    if (!p.ok()) return Report(p.status(), err);
    return Report(w->writer->ItemTerminal(
                      filtered ? events::ItemStatus::kFiltered : events::ItemStatus::kCompleted,
                      *p),
                  err);
  });
}

lake_status lake_event_writer_failed(lake_event_writer* w, const char* error_type,
                                     const char* error_dump, const char* traceback,
                                     const lake_step* step, lake_error** err) {
  return Guarded(err, [&] {
    if (w == nullptr) return NullArgument("w", err);
    if (error_type == nullptr) return NullArgument("error_type", err);
    absl::StatusOr<events::StepProvenance> p = ToProvenance(step);
    if (!p.ok()) return Report(p.status(), err);
    return Report(w->writer->ItemFailed(error_type, error_dump ? error_dump : "",
                                        traceback ? traceback : "", *p),
                  err);
  });
}

lake_status lake_event_writer_commit(lake_event_writer* w, lake_error** err) {
  return Guarded(err, [&] {
    if (w == nullptr) return NullArgument("w", err);
    return Report(w->writer->Commit(), err);
  });
}

uint32_t lake_event_writer_attempt(const lake_event_writer* w) {
  return w == nullptr ? 0 : w->writer->attempt();
}

void lake_event_writer_free(lake_event_writer* w) { delete w; }

lake_status lake_event_log_fold(lake_event_log* log, const char* item_id, lake_folded_item** out,
                                lake_error** err) {
  return Guarded(err, [&] {
    if (log == nullptr) return NullArgument("log", err);
    if (item_id == nullptr) return NullArgument("item_id", err);
    if (out == nullptr) return NullArgument("out", err);
    absl::StatusOr<std::optional<events::FoldedItem>> folded = log->log->Fold(item_id);
    if (!folded.ok()) return Report(folded.status(), err);
    *out = nullptr;
    if (!folded->has_value()) return LAKE_OK;
    auto handle = std::make_unique<lake_folded_item>();
    handle->item = std::move(**folded);
    handle->json = events::FoldedItemToJson(handle->item);
    handle->status = std::string(events::ItemStatusName(handle->item.status));
    *out = handle.release();
    return LAKE_OK;
  });
}

const char* lake_folded_item_json(const lake_folded_item* item) {
  return item == nullptr ? "" : item->json.c_str();
}

const char* lake_folded_item_status(const lake_folded_item* item) {
  return item == nullptr ? "" : item->status.c_str();
}

uint32_t lake_folded_item_last_attempt(const lake_folded_item* item) {
  return item == nullptr ? 0 : item->item.last_attempt;
}

uint64_t lake_folded_item_next_item_seq(const lake_folded_item* item) {
  return item == nullptr ? 0 : item->item.next_item_seq;
}

size_t lake_folded_item_value_count(const lake_folded_item* item, const char* field) {
  const events::FoldedField* f = FieldOf(item, field);
  return f == nullptr ? 0 : f->values.size();
}

lake_status lake_folded_item_value(const lake_folded_item* item, const char* field, size_t index,
                                   lake_value* out, lake_error** err) {
  return Guarded(err, [&] {
    if (item == nullptr) return NullArgument("item", err);
    if (field == nullptr) return NullArgument("field", err);
    if (out == nullptr) return NullArgument("out", err);
    const events::FoldedField* f = FieldOf(item, field);
    if (f == nullptr || index >= f->values.size()) {
      return Report(absl::NotFoundError(absl::StrCat("item \"", item->item.item_id,
                                                     "\" has no value ", index, " of field \"",
                                                     field, "\"")),
                    err);
    }
    const events::Event& e = f->values[index];
    *out = lake_value{};
    out->kind = static_cast<lake_value_kind>(*e.value_kind);
    out->i64 = e.value_i64;
    out->f64 = e.value_f64;
    out->boolean = e.value_bool ? 1 : 0;
    const std::string* bytes = nullptr;
    switch (*e.value_kind) {
      case events::ValueKind::kStr: bytes = &e.value_str; break;
      case events::ValueKind::kJson: bytes = &e.value_json; break;
      case events::ValueKind::kBlob:
        if (!e.blob_location) bytes = &e.blob_inline;
        out->len = e.payload_size;
        break;
      default: break;
    }
    if (bytes != nullptr) {
      out->bytes = bytes->data();
      out->len = bytes->size();
    }
    return LAKE_OK;
  });
}

lake_status lake_folded_item_open_blob(lake_event_log* log, const lake_folded_item* item,
                                       const char* field, size_t index, lake_reader** out,
                                       lake_error** err) {
  return Guarded(err, [&] {
    if (log == nullptr) return NullArgument("log", err);
    if (item == nullptr) return NullArgument("item", err);
    if (field == nullptr) return NullArgument("field", err);
    if (out == nullptr) return NullArgument("out", err);
    absl::StatusOr<std::unique_ptr<lake::ObjectReader>> reader =
        events::LoadBlob(*log->db->stage->stage, item->item, field, index);
    if (!reader.ok()) return Report(reader.status(), err);
    auto handle = std::make_unique<lake_reader>();
    handle->reader = std::move(*reader);
    *out = handle.release();
    return LAKE_OK;
  });
}

void lake_folded_item_free(lake_folded_item* item) { delete item; }

lake_status lake_event_log_tree(lake_event_log* log, const char* root_item_id, char** json_out,
                                lake_error** err) {
  return Guarded(err, [&] {
    if (log == nullptr) return NullArgument("log", err);
    if (root_item_id == nullptr) return NullArgument("root_item_id", err);
    if (json_out == nullptr) return NullArgument("json_out", err);
    absl::StatusOr<events::ItemTree> tree = log->log->Tree(root_item_id);
    if (!tree.ok()) return Report(tree.status(), err);
    return ReturnText(events::ItemTreeToJson(*tree), json_out);
  });
}

lake_status lake_event_log_roots(lake_event_log* log, char** json_out, lake_error** err) {
  return Guarded(err, [&] {
    if (log == nullptr) return NullArgument("log", err);
    if (json_out == nullptr) return NullArgument("json_out", err);
    absl::StatusOr<events::RootStatuses> roots = log->log->Roots();
    if (!roots.ok()) return Report(roots.status(), err);
    return ReturnText(events::RootStatusesToJson(*roots), json_out);
  });
}

lake_status lake_event_log_failures(lake_event_log* log, char** json_out, lake_error** err) {
  return Guarded(err, [&] {
    if (log == nullptr) return NullArgument("log", err);
    if (json_out == nullptr) return NullArgument("json_out", err);
    return ReturnText(events::FailuresToJson(log->log->AllFailures()), json_out);
  });
}

lake_status lake_event_log_events(lake_event_log* log, const char* root_item_id,
                                  char** jsonl_out, lake_error** err) {
  return Guarded(err, [&] {
    if (log == nullptr) return NullArgument("log", err);
    if (root_item_id == nullptr) return NullArgument("root_item_id", err);
    if (jsonl_out == nullptr) return NullArgument("jsonl_out", err);
    // As for a tree: a text that is no root item id is refused.
    absl::StatusOr<events::ItemId> root = events::ParseItemId(root_item_id);
    if (!root.ok()) return Report(root.status(), err);
    if (!root->is_root()) {
      return Report(absl::InvalidArgumentError(absl::StrCat(
                        "events of item ", root_item_id, ": not a root item id")),
                    err);
    }
    return ReturnText(events::EventsToJsonLines(log->log->EventsOfRoot(root_item_id)), jsonl_out);
  });
}

}  // extern "C"
