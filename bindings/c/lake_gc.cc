// Garbage collection through the C ABI (lake.h, "Garbage collection of a
// root's stage"): the options handle, and plan, show, status, apply and
// verify on a db's root.
#include <unistd.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "bindings/c/c_handles.h"
#include "engine/s3/s3_object_store.h"
#include "engine/s3/upload_checkpoint_dirs.h"
#include "engine/gc/gc_root.h"
#include "engine/gc/live_verifier.h"
#include "engine/gc/orphan_uploads.h"
#include "engine/gc/plan_apply.h"
#include "engine/gc/plan_reader.h"
#include "engine/gc/plan_status.h"
#include "engine/gc/plan_writer.h"
#include "engine/gc/root_identity.h"
#include "engine/gc/stage_keys.h"
#include "engine/operation_id.h"
#include "engine/table/cell_text.h"
#include "spill/spill_sorter.h"

struct lake_gc_options {
  uint64_t cutoff_seconds = 7 * 24 * 3600;
  bool allow_short_cutoff = false;
  uint64_t memory_budget = lake::gc::kDefaultGcMemoryBudget;
  std::string temp_dir;
  lake_gc_progress_fn progress = nullptr;
  void* progress_ctx = nullptr;
  lake_cancel_token* cancel = nullptr;
  uint64_t max_deletes_per_second = 0;
};

namespace {

using lake::c::Guarded;
using lake::c::NullArgument;
using lake::c::Report;
using nlohmann::json;

// The least memory budget: a plan sorts its inventory with half of it and
// the live index in two parts with a quarter each, each at spill's minimum.
uint64_t MinimumGcBudget() { return 4 * lake::spill::SpillSorter::MinimumBudget({}); }

// What a collection reads of a db: its root, stage, registry and identity.
struct GcContext {
  std::unique_ptr<lake::registry::Registry> own_registry;  // a follower of our own
  std::optional<lake::gc::GcRoot> root;
};

absl::StatusOr<std::unique_ptr<GcContext>> OpenGcContext(lake_db* db) {
  absl::StatusOr<lake::io::FileSystem*> fs = lake::io::DefaultFileSystem();
  if (!fs.ok()) return fs.status();
  lake::ManagedObjectStore& store = db->stage->stage->store();
  absl::StatusOr<std::string> key_probe = lake::gc::StageTenant(store);
  if (!key_probe.ok()) return key_probe.status();
  if (!key_probe->empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "garbage collection covers a whole root, every tenant of its stage: open the root "
        "without a tenant (this handle is scoped to tenant \"", *key_probe, "\")"));
  }
  absl::StatusOr<std::string> root_id;
  if (db->follower) {
    absl::StatusOr<std::optional<std::string>> recorded = lake::gc::ReadRootId(**fs, db->root);
    if (!recorded.ok()) return recorded.status();
    if (!recorded->has_value()) {
      return absl::FailedPreconditionError(
          "the root has no id yet: open it once as a writer (any lake command), then collect");
    }
    root_id = **recorded;
  } else {
    root_id = lake::gc::EnsureRootIdentity(**fs, db->root, store);
    if (!root_id.ok()) {
      return absl::Status(root_id.status().code(),
                          absl::StrCat("marking the stage as this root's: ",
                                       root_id.status().message()));
    }
  }
  auto context = std::make_unique<GcContext>();
  lake::registry::Registry* registry = nullptr;
  {
    absl::MutexLock lock(&db->tables_mu);
    registry = db->registry.get();
  }
  if (registry == nullptr) {
    // Read the tables as a follower: the writer (this process's other
    // handle, or another process) keeps its lock and goes on writing.
    std::string registry_dir =
        absl::StrCat(db->root, "/", std::string(lake::registry::kRootRegistryDir));
    absl::StatusOr<lake::io::FileInfo> present = (*fs)->Stat(registry_dir);
    if (present.ok()) {
      lake::registry::RegistryOptions options;
      options.read_only = true;
      absl::StatusOr<std::unique_ptr<lake::registry::Registry>> opened =
          lake::registry::Registry::Open(
              registry_dir,
              absl::StrCat(db->root, "/", std::string(lake::registry::kRootWriterLock)), options);
      if (!opened.ok()) return opened.status();
      context->own_registry = std::move(*opened);
      registry = context->own_registry.get();
    } else if (!absl::IsNotFound(present.status())) {
      return present.status();
    }
  }
  // The collector names table files by file:// URIs of their real paths
  // (a root given as "./lake-data" has a "." segment no URI may hold).
  absl::StatusOr<std::string> real_root = (*fs)->RealPath(db->root);
  if (!real_root.ok()) return real_root.status();
  context->root.emplace(lake::gc::GcRoot{**fs, *real_root, *db->stage->stage, registry,
                                          db->stage->descriptor, *root_id});
  return context;
}

lake::gc::GcProgressFn ProgressOf(const lake_gc_options* opts) {
  if (opts == nullptr || opts->progress == nullptr) return nullptr;
  lake_gc_progress_fn fn = opts->progress;
  void* ctx = opts->progress_ctx;
  return [fn, ctx](std::string_view phase, uint64_t done, uint64_t total) {
    fn(ctx, std::string(phase).c_str(), done, total);
  };
}

const lake::CancelToken* CancelOf(const lake_gc_options* opts) {
  return opts != nullptr && opts->cancel != nullptr ? &opts->cancel->token : nullptr;
}

std::string IsoMicros(int64_t micros) { return lake::table::FormatTimestampMicros(micros); }

json StatusJson(const lake::gc::PlanStatus& status) {
  const lake::gc::PlanManifest& m = status.manifest;
  json j{{"plan_id", m.plan_id},
         {"state", std::string(lake::gc::PlanStateName(status))},
         {"created_at", IsoMicros(m.created_unix_micros)},
         {"cutoff_seconds", m.cutoff_seconds},
         {"objects", m.objects},
         {"bytes", m.object_bytes},
         {"table_files", m.table_files},
         {"table_file_bytes", m.table_file_bytes},
         {"pages", m.pages},
         {"pages_done", status.progress ? status.progress->pages_done : 0},
         {"objects_deleted", status.progress ? status.progress->objects_deleted : 0},
         {"bytes_deleted", status.progress ? status.progress->bytes_deleted : 0},
         {"table_files_deleted", status.progress ? status.progress->table_files_deleted : 0},
         {"reason", status.progress ? status.progress->reason : ""}};
  return j;
}

lake_status ReturnJson(const json& value, char** json_out) {
  if (json_out != nullptr) *json_out = lake::c::CopyString(value.dump());
  return LAKE_OK;
}

#define LAKE_GC_CONTEXT_OR_RETURN(var, db, err)                                  \
  absl::StatusOr<std::unique_ptr<GcContext>> var##_or = OpenGcContext(db);       \
  if (!var##_or.ok()) return Report(var##_or.status(), err);                     \
  const lake::gc::GcRoot& var = *(*var##_or)->root

}  // namespace

extern "C" {

lake_gc_options* lake_gc_options_new(void) { return new (std::nothrow) lake_gc_options(); }

void lake_gc_options_set_cutoff_seconds(lake_gc_options* opts, uint64_t seconds) {
  if (opts != nullptr) opts->cutoff_seconds = seconds;
}

void lake_gc_options_set_allow_short_cutoff(lake_gc_options* opts, int allow) {
  if (opts != nullptr) opts->allow_short_cutoff = allow != 0;
}

lake_status lake_gc_options_set_memory_budget(lake_gc_options* opts, uint64_t bytes,
                                              lake_error** err) {
  return Guarded(err, [&] {
    if (opts == nullptr) return NullArgument("opts", err);
    if (bytes < MinimumGcBudget()) {
      return Report(absl::InvalidArgumentError(absl::StrCat(
                        "a collection needs a memory budget of at least ", MinimumGcBudget(),
                        " bytes, not ", bytes)),
                    err);
    }
    opts->memory_budget = bytes;
    return LAKE_OK;
  });
}

lake_status lake_gc_options_set_temp_dir(lake_gc_options* opts, const char* dir,
                                         lake_error** err) {
  return Guarded(err, [&] {
    if (opts == nullptr) return NullArgument("opts", err);
    if (dir == nullptr) return NullArgument("dir", err);
    std::string path(dir);
    if (path.empty() || path.front() != '/') {
      char cwd[4096];
      if (path.empty() || ::getcwd(cwd, sizeof cwd) == nullptr) {
        return Report(absl::InvalidArgumentError("the temporary directory must be a path"), err);
      }
      path = absl::StrCat(cwd, "/", path);
    }
    opts->temp_dir = path;
    return LAKE_OK;
  });
}

void lake_gc_options_set_progress(lake_gc_options* opts, lake_gc_progress_fn fn, void* ctx) {
  if (opts == nullptr) return;
  opts->progress = fn;
  opts->progress_ctx = ctx;
}

void lake_gc_options_set_cancel_token(lake_gc_options* opts, lake_cancel_token* token) {
  if (opts != nullptr) opts->cancel = token;
}

void lake_gc_options_set_max_deletes_per_second(lake_gc_options* opts, uint64_t per_second) {
  if (opts != nullptr) opts->max_deletes_per_second = per_second;
}

void lake_gc_options_free(lake_gc_options* opts) { delete opts; }

lake_status lake_gc_plan(lake_db* db, const lake_gc_options* opts, char** json_out,
                         lake_error** err) {
  return Guarded(err, [&] {
    if (db == nullptr) return NullArgument("db", err);
    if (json_out == nullptr) return NullArgument("json_out", err);
    lake_gc_options defaults;
    const lake_gc_options& o = opts != nullptr ? *opts : defaults;
    LAKE_GC_CONTEXT_OR_RETURN(root, db, err);
    lake::gc::PlanOptions options;
    options.cutoff = absl::Seconds(static_cast<int64_t>(o.cutoff_seconds));
    options.allow_short_cutoff = o.allow_short_cutoff;
    options.memory_budget = o.memory_budget;
    options.temp_dir = o.temp_dir;
    options.progress = ProgressOf(opts);
    options.cancel = CancelOf(opts);
    absl::StatusOr<absl::Duration> retention = lake::AppendOperationRetention();
    if (!retention.ok()) return Report(retention.status(), err);
    options.lease_expiry = *retention;
    absl::StatusOr<lake::gc::PlanSummary> plan = lake::gc::WritePlan(root, options);
    if (!plan.ok()) return Report(plan.status(), err);
    const lake::gc::PlanManifest& m = plan->manifest;
    json tenants = json::array();
    for (const auto& [tenant, totals] : plan->tenants) {
      tenants.push_back({{"tenant", tenant}, {"objects", totals.objects}, {"bytes", totals.bytes}});
    }
    return ReturnJson(json{{"plan_id", m.plan_id},
                           {"objects", m.objects},
                           {"bytes", m.object_bytes},
                           {"table_files", m.table_files},
                           {"table_file_bytes", m.table_file_bytes},
                           {"pages", m.pages},
                           {"cutoff_seconds", m.cutoff_seconds},
                           {"created_at", IsoMicros(m.created_unix_micros)},
                           {"listed_objects", plan->listed_objects},
                           {"listed_table_files", plan->listed_table_files},
                           {"live_references", plan->live_references},
                           {"listed_multipart_uploads", plan->listed_uploads},
                           {"multipart_uploads", plan->orphan_uploads},
                           {"multipart_upload_bytes", plan->orphan_upload_bytes},
                           {"multipart_uploads_left", plan->orphan_uploads_left},
                           {"tenants", std::move(tenants)}},
                      json_out);
  });
}

lake_status lake_gc_show(lake_db* db, const char* plan_id, lake_gc_candidate_fn emit, void* ctx,
                         char** json_out, lake_error** err) {
  return Guarded(err, [&] {
    if (db == nullptr) return NullArgument("db", err);
    if (plan_id == nullptr) return NullArgument("plan_id", err);
    LAKE_GC_CONTEXT_OR_RETURN(root, db, err);
    absl::StatusOr<std::vector<lake::gc::PlanStatus>> statuses =
        lake::gc::ReadPlanStatuses(root.fs, root.root_dir, std::string(plan_id));
    if (!statuses.ok()) return Report(statuses.status(), err);
    const lake::gc::PlanManifest& manifest = statuses->front().manifest;
    absl::Status walked = lake::gc::ForEachPlanPage(
        root.fs, root.root_dir, manifest,
        [&](const lake::gc::PlanPage& page, const std::string&) -> absl::Status {
          if (emit == nullptr) return absl::OkStatus();
          for (const lake::gc::Candidate& c : page.entries) {
            bool object = c.kind == lake::gc::CandidateKind::kStageObject;
            std::string tenant;
            if (object) {
              absl::StatusOr<std::string> key = lake::gc::StageRelativeKey(root.stage.store(), c.uri);
              if (key.ok()) tenant = lake::gc::TenantOfKey(*key);
            }
            lake_gc_candidate candidate{c.uri.c_str(), object ? "object" : "table_file",
                                        c.size_bytes, c.modified_unix_micros, tenant.c_str()};
            if (emit(ctx, &candidate) != 0) {
              return absl::CancelledError("the caller stopped the listing");
            }
          }
          return absl::OkStatus();
        });
    if (!walked.ok()) return Report(walked, err);
    absl::StatusOr<lake::gc::PlannedUploads> uploads =
        lake::gc::ReadPlannedUploads(root, plan_id);
    if (!uploads.ok()) return Report(uploads.status(), err);
    for (const lake::gc::PlannedUpload& u : uploads->uploads) {
      if (emit == nullptr) break;
      absl::StatusOr<std::string> key = lake::gc::StageRelativeKey(root.stage.store(), u.uri);
      std::string tenant = key.ok() ? lake::gc::TenantOfKey(*key) : "";
      lake_gc_candidate candidate{u.uri.c_str(), "multipart_upload", u.bytes,
                                  u.initiated_unix_micros, tenant.c_str()};
      if (emit(ctx, &candidate) != 0) {
        return Report(absl::CancelledError("the caller stopped the listing"), err);
      }
    }
    json out = StatusJson(statuses->front());
    out["multipart_uploads"] = uploads->uploads.size();
    return ReturnJson(out, json_out);
  });
}

lake_status lake_gc_status(lake_db* db, const char* plan_id, char** json_out, lake_error** err) {
  return Guarded(err, [&] {
    if (db == nullptr) return NullArgument("db", err);
    if (json_out == nullptr) return NullArgument("json_out", err);
    absl::StatusOr<lake::io::FileSystem*> fs = lake::io::DefaultFileSystem();
    if (!fs.ok()) return Report(fs.status(), err);
    std::optional<std::string> one;
    if (plan_id != nullptr) {
      if (absl::Status s = lake::gc::CheckPlanId(plan_id); !s.ok()) return Report(s, err);
      one = plan_id;
    }
    absl::StatusOr<std::vector<lake::gc::PlanStatus>> statuses =
        lake::gc::ReadPlanStatuses(**fs, db->root, one);
    if (!statuses.ok()) return Report(statuses.status(), err);
    json out = json::array();
    for (const lake::gc::PlanStatus& status : *statuses) out.push_back(StatusJson(status));
    return ReturnJson(out, json_out);
  });
}

lake_status lake_gc_apply(lake_db* db, const char* plan_id, const lake_gc_options* opts,
                          char** json_out, lake_error** err) {
  return Guarded(err, [&] {
    if (db == nullptr) return NullArgument("db", err);
    if (plan_id == nullptr) return NullArgument("plan_id", err);
    LAKE_GC_CONTEXT_OR_RETURN(root, db, err);
    lake::gc::ApplyOptions options;
    options.progress = ProgressOf(opts);
    options.cancel = CancelOf(opts);
    options.max_deletes_per_second = opts != nullptr ? opts->max_deletes_per_second : 0;
    absl::StatusOr<absl::Duration> retention = lake::AppendOperationRetention();
    if (!retention.ok()) return Report(retention.status(), err);
    options.lease_expiry = *retention;
    uint64_t uploads_aborted = 0;
    options.uploads_aborted = &uploads_aborted;
    absl::StatusOr<lake::gc::ApplyProgress> done = lake::gc::ApplyPlan(root, plan_id, options);
    if (!done.ok()) return Report(done.status(), err);
    absl::StatusOr<std::vector<lake::gc::PlanStatus>> statuses =
        lake::gc::ReadPlanStatuses(root.fs, root.root_dir, std::string(plan_id));
    if (!statuses.ok()) return Report(statuses.status(), err);
    json out = StatusJson(statuses->front());
    out["multipart_uploads_aborted"] = uploads_aborted;
    // Nothing billed forever: stale upload checkpoints go with the apply
    // (their multipart uploads aborted, their keys no longer protected).
    out["upload_checkpoints_expired"] = 0;
    if (auto* s3 = dynamic_cast<lake::S3ObjectStore*>(&db->stage->stage->store())) {
      absl::StatusOr<std::vector<std::string>> dirs =
          lake::UploadCheckpointDirsOfRoot(root.fs, db->root);
      if (!dirs.ok()) return Report(dirs.status(), err);
      absl::StatusOr<uint64_t> expired = s3->ExpireStaleUploads(absl::Now(), *retention, *dirs);
      if (!expired.ok()) return Report(expired.status(), err);
      out["upload_checkpoints_expired"] = *expired;
    }
    return ReturnJson(out, json_out);
  });
}

lake_status lake_gc_verify(lake_db* db, int deep, const lake_gc_options* opts,
                           lake_gc_problem_fn emit, void* ctx, char** json_out, lake_error** err) {
  return Guarded(err, [&] {
    if (db == nullptr) return NullArgument("db", err);
    LAKE_GC_CONTEXT_OR_RETURN(root, db, err);
    lake::gc::VerifyOptions options;
    options.deep = deep != 0;
    if (opts != nullptr) {
      options.memory_budget = opts->memory_budget / 2;
      options.temp_dir = opts->temp_dir;
    }
    options.progress = ProgressOf(opts);
    options.cancel = CancelOf(opts);
    absl::StatusOr<absl::Duration> retention = lake::AppendOperationRetention();
    if (!retention.ok()) return Report(retention.status(), err);
    options.lease_expiry = *retention;
    absl::StatusOr<lake::gc::VerifySummary> summary = lake::gc::VerifyLiveIndex(
        root, options, [&](const lake::gc::VerifyProblem& p) -> absl::Status {
          if (emit == nullptr) return absl::OkStatus();
          std::vector<const char*> referrers;
          for (const std::string& r : p.referrers) referrers.push_back(r.c_str());
          std::string name(lake::gc::VerifyProblemName(p.kind));
          lake_gc_problem problem{p.uri.c_str(),      name.c_str(),     p.expected_size,
                                  p.observed_size,    p.message.c_str(), referrers.data(),
                                  referrers.size(),   p.more_referrers};
          if (emit(ctx, &problem) != 0) return absl::CancelledError("the caller stopped");
          return absl::OkStatus();
        });
    if (!summary.ok()) return Report(summary.status(), err);
    return ReturnJson(json{{"objects_checked", summary->objects_checked},
                           {"table_files_checked", summary->table_files_checked},
                           {"bytes_verified", summary->bytes_verified},
                           {"skipped", summary->skipped},
                           {"problems", summary->problems}},
                      json_out);
  });
}

}  // extern "C"
