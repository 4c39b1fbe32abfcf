// Resumable uploads of a root's S3 stage: list, resume and abort its
// upload checkpoints (engine/s3/s3_upload.h).
#include "bindings/c/c_handles.h"
#include "engine/location_uri.h"
#include "engine/operation_id.h"
#include "engine/s3/s3_object_store.h"

namespace {

// The root's S3 store, or null for another kind of stage.
lake::S3ObjectStore* S3StoreOf(lake_db* db) {
  return dynamic_cast<lake::S3ObjectStore*>(&db->stage->stage->store());
}

absl::Status NoCheckpoints() {
  return absl::NotFoundError("this root's stage keeps no upload checkpoints");
}

}  // namespace

extern "C" {

lake_status lake_db_uploads_list(lake_db* db, lake_upload_info_fn emit, void* ctx,
                                 lake_error** err) {
  return lake::c::Guarded(err, [&] {
    if (db == nullptr) return lake::c::NullArgument("db", err);
    if (emit == nullptr) return lake::c::NullArgument("emit", err);
    lake::S3ObjectStore* store = S3StoreOf(db);
    if (store == nullptr || store->checkpoint_store() == nullptr) return LAKE_OK;
    absl::StatusOr<absl::Duration> horizon = lake::AppendOperationRetention();
    if (!horizon.ok()) return lake::c::Report(horizon.status(), err);
    auto listed = store->checkpoint_store()->List(/*probe_locks=*/true);
    if (!listed.ok()) return lake::c::Report(listed.status(), err);
    absl::Time now = absl::Now();
    for (const lake::ListedUploadCheckpoint& entry : *listed) {
      lake_upload_info info{};
      info.id = entry.id.c_str();
      info.locked = entry.locked ? 1 : 0;
      std::string uri, error;
      if (entry.checkpoint.ok()) {
        const lake::UploadCheckpoint& c = *entry.checkpoint;
        uri = lake::FormatS3Uri(c.bucket, c.key);
        info.source_path = c.source_path.c_str();
        info.uri = uri.c_str();
        info.parts_done = c.parts.size();
        info.bytes_done = c.bytes_done();
        info.size_bytes = c.source_size;
        info.part_bytes = c.part_bytes;
        info.updated_unix_micros = c.updated_unix_micros;
        info.stale = lake::IsStaleUploadCheckpoint(c, now, *horizon) ? 1 : 0;
      } else {
        error = std::string(entry.checkpoint.status().message());
        info.source_path = "";
        info.uri = "";
        info.error = error.c_str();
      }
      if (emit(ctx, &info) != 0) break;
    }
    return LAKE_OK;
  });
}

lake_status lake_db_uploads_resume(lake_db* db, const char* id, const lake_upload_options* opts,
                                   lake_location** out, lake_error** err) {
  return lake::c::Guarded(err, [&] {
    if (db == nullptr) return lake::c::NullArgument("db", err);
    if (id == nullptr) return lake::c::NullArgument("id", err);
    if (out == nullptr) return lake::c::NullArgument("out", err);
    lake::S3ObjectStore* store = S3StoreOf(db);
    if (store == nullptr || store->checkpoint_store() == nullptr) {
      return lake::c::Report(NoCheckpoints(), err);
    }
    std::string resumed(id);
    absl::StatusOr<lake::DataLocation> location = db->stage->stage->UploadBy(
        [store, &resumed](const lake::UploadOptions& options) {
          return store->ResumeUpload(resumed, options);
        },
        lake::c::ToUploadOptions(opts));
    if (!location.ok()) return lake::c::Report(location.status(), err);
    *out = lake::c::NewLocation(std::move(*location));
    return LAKE_OK;
  });
}

lake_status lake_db_uploads_abort(lake_db* db, const char* id, lake_error** err) {
  return lake::c::Guarded(err, [&] {
    if (db == nullptr) return lake::c::NullArgument("db", err);
    if (id == nullptr) return lake::c::NullArgument("id", err);
    lake::S3ObjectStore* store = S3StoreOf(db);
    if (store == nullptr || store->checkpoint_store() == nullptr) {
      return lake::c::Report(NoCheckpoints(), err);
    }
    return lake::c::Report(store->AbortUpload(id), err);
  });
}

}  // extern "C"
