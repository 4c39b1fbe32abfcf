// lake_stage: options, open, and the stage-wide calls.
#include "bindings/c/c_handles.h"
#include "bindings/c/host_object_store.h"
#include "engine/local/local_object_store.h"
#include "engine/managed_key.h"

namespace {

absl::StatusOr<std::unique_ptr<lake::ManagedObjectStore>> OpenStore(
    const lake_stage_options& opts, lake::io::FileSystem& fs) {
  if (opts.host_store.has_value()) {
    if (!opts.local_root.empty()) {
      return absl::InvalidArgumentError(
          "a stage is either a local root or a host store, not both");
    }
    auto store = lake::c::HostObjectStore::Create(*opts.host_store, opts.tenant);
    if (!store.ok()) return store.status();
    return std::unique_ptr<lake::ManagedObjectStore>(std::move(*store));
  }
  if (opts.local_root.empty()) {
    return absl::InvalidArgumentError(
        "stage options need a local root (lake_stage_options_set_local_root) "
        "or a host store");
  }
  auto store = lake::LocalObjectStore::Open(fs, opts.local_root, opts.tenant);
  if (!store.ok()) return store.status();
  return std::unique_ptr<lake::ManagedObjectStore>(std::move(*store));
}

}  // namespace

extern "C" {

lake_stage_options* lake_stage_options_new(void) {
  return new (std::nothrow) lake_stage_options;
}

lake_status lake_stage_options_set_local_root(lake_stage_options* opts,
                                              const char* dir,
                                              lake_error** err) {
  return lake::c::Guarded(err, [&] {
    if (opts == nullptr) return lake::c::NullArgument("opts", err);
    if (dir == nullptr || dir[0] == '\0') {
      return lake::c::Report(
          absl::InvalidArgumentError("local root must be a non-empty path"), err);
    }
    opts->local_root = dir;
    return LAKE_OK;
  });
}

lake_status lake_stage_options_set_tenant(lake_stage_options* opts,
                                          const char* tenant, lake_error** err) {
  return lake::c::Guarded(err, [&] {
    if (opts == nullptr) return lake::c::NullArgument("opts", err);
    if (tenant == nullptr) return lake::c::NullArgument("tenant", err);
    if (absl::Status s = lake::ValidateTenant(tenant); !s.ok()) {
      return lake::c::Report(s, err);
    }
    opts->tenant = tenant;
    return LAKE_OK;
  });
}

lake_status lake_stage_options_set_host_store(lake_stage_options* opts,
                                              const lake_host_store* store,
                                              lake_error** err) {
  return lake::c::Guarded(err, [&] {
    if (opts == nullptr) return lake::c::NullArgument("opts", err);
    if (store == nullptr) return lake::c::NullArgument("store", err);
    opts->host_store = *store;
    return LAKE_OK;
  });
}

void lake_stage_options_free(lake_stage_options* opts) { delete opts; }

lake_status lake_stage_open(const lake_stage_options* opts, lake_stage** out,
                            lake_error** err) {
  return lake::c::Guarded(err, [&] {
    if (opts == nullptr) return lake::c::NullArgument("opts", err);
    if (out == nullptr) return lake::c::NullArgument("out", err);
    absl::StatusOr<lake::io::FileSystem*> fs = lake::io::DefaultFileSystem();
    if (!fs.ok()) return lake::c::Report(fs.status(), err);
    auto store = OpenStore(*opts, **fs);
    if (!store.ok()) return lake::c::Report(store.status(), err);
    auto stage = std::make_unique<lake_stage>();
    stage->backend = std::string((*store)->backend_name());
    stage->stage = std::make_unique<lake::ManagedStage>(std::move(*store));
    stage->fs = *fs;
    *out = stage.release();
    return LAKE_OK;
  });
}

void lake_stage_free(lake_stage* stage) { delete stage; }

const char* lake_stage_io_backend(const lake_stage* stage) {
  return stage == nullptr ? "" : stage->backend.c_str();
}

lake_status lake_stage_clean_staging(lake_stage* stage, uint64_t* removed,
                                     lake_error** err) {
  return lake::c::Guarded(err, [&] {
    if (stage == nullptr) return lake::c::NullArgument("stage", err);
    absl::StatusOr<uint64_t> count = stage->stage->CleanStaging();
    if (!count.ok()) return lake::c::Report(count.status(), err);
    if (removed != nullptr) *removed = *count;
    return LAKE_OK;
  });
}

lake_status lake_stage_list(lake_stage* stage, lake_list_fn emit, void* ctx,
                            lake_error** err) {
  return lake::c::Guarded(err, [&] {
    if (stage == nullptr) return lake::c::NullArgument("stage", err);
    if (emit == nullptr) return lake::c::NullArgument("emit", err);
    absl::Status status =
        stage->stage->List([&](const lake::ListedObject& object) {
          lake_list_entry entry{object.uri.c_str(), object.size_bytes,
                                object.modified_unix_micros};
          return emit(ctx, &entry) == 0;
        });
    return lake::c::Report(status, err);
  });
}

lake_status lake_stage_delete(lake_stage* stage, const lake_location* loc,
                              lake_error** err) {
  return lake::c::Guarded(err, [&] {
    if (stage == nullptr) return lake::c::NullArgument("stage", err);
    if (loc == nullptr) return lake::c::NullArgument("loc", err);
    return lake::c::Report(stage->stage->Delete(loc->location), err);
  });
}

}  // extern "C"
