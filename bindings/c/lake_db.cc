// lake_db: a root directory and the stage it recorded when it was created.
#include <unistd.h>

#include "absl/strings/str_cat.h"
#include "bindings/c/c_handles.h"
#include "engine/gc/root_identity.h"
#include "engine/gc/lease_store.h"
#include "engine/gc/pin_store.h"
#include "engine/root_format_record.h"
#include "engine/root_stage_record.h"
#include "engine/s3/upload_checkpoint_dirs.h"
#include "engine/s3/upload_checkpoint_store.h"
#include "io/durable_paths.h"

lake_db::~lake_db() {
  {
    absl::MutexLock lock(&tables_mu);
    tables.reset();
    registry.reset();  // an owner hands the registry over
  }
  lake_stage_free(stage);
}

namespace {

absl::StatusOr<std::string> AbsoluteRoot(const std::string& dir) {
  if (dir.empty()) return absl::InvalidArgumentError("the root directory is empty");
  if (dir.front() == '/') return dir;
  char cwd[4096];
  if (::getcwd(cwd, sizeof cwd) == nullptr) return absl::UnknownError("getcwd failed");
  return absl::StrCat(cwd, "/", dir);
}

// Whether the options set an S3 endpoint, region or path style (with or
// without a stage URI).
bool HasS3Details(const lake_stage_options& opts) {
  return !opts.s3_endpoint.empty() || !opts.s3_region.empty() || opts.s3_path_style_set;
}

std::string KindName(lake::StageDescriptor::Kind kind) {
  switch (kind) {
    case lake::StageDescriptor::Kind::kS3: return "s3";
    case lake::StageDescriptor::Kind::kHost: return "host";
    default: return "local";
  }
}

// What the options ask for, compared with what the root recorded: only
// what the caller set explicitly counts — except that a root whose stage is
// a host store opens only with the host's store (lake cannot reach it
// otherwise).
absl::Status CheckAgreement(const lake_stage_options& opts, const lake::StageDescriptor& recorded) {
  using Kind = lake::StageDescriptor::Kind;
  auto disagree = [&](const std::string& what, const std::string& asked,
                      const std::string& has) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the stage options disagree with the root's recorded stage: ", what, " '", asked,
        "' asked, '", has, "' recorded (", lake::StageDescriptorToJson(recorded), ")"));
  };
  if (opts.host_store.has_value()) {
    if (recorded.kind != Kind::kHost) return disagree("stage", "host", KindName(recorded.kind));
    if (opts.s3 || HasS3Details(opts)) return disagree("stage", "s3", "host");
    if (opts.host_id != recorded.host_id) {
      return disagree("host id", opts.host_id, recorded.host_id);
    }
    return absl::OkStatus();
  }
  if (recorded.kind == Kind::kHost) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the root's stage is a host store (host id '", recorded.host_id,
        "'), whose callbacks only the program that supplies them can give: open the root "
        "there, through lake_db_open with lake_stage_options_set_host_store and "
        "lake_stage_options_set_host_id (the lake CLI and a follower cannot)"));
  }
  if (!opts.s3 && !HasS3Details(opts)) return absl::OkStatus();
  if (recorded.kind != Kind::kS3) return disagree("stage", "s3", "local");
  // Without a stage URI only the details given are compared.
  if (opts.s3 && opts.s3_bucket != recorded.bucket) {
    return disagree("bucket", opts.s3_bucket, recorded.bucket);
  }
  if (opts.s3 && opts.s3_prefix != recorded.prefix) {
    return disagree("prefix", opts.s3_prefix, recorded.prefix);
  }
  if (!opts.s3_endpoint.empty() && opts.s3_endpoint != recorded.endpoint) {
    return disagree("endpoint", opts.s3_endpoint, recorded.endpoint);
  }
  if (!opts.s3_region.empty() && opts.s3_region != recorded.region) {
    return disagree("region", opts.s3_region, recorded.region);
  }
  if (opts.s3_path_style_set && opts.s3_path_style != recorded.path_style) {
    return disagree("path style", opts.s3_path_style ? "on" : "off",
                    recorded.path_style ? "on" : "off");
  }
  return absl::OkStatus();
}

}  // namespace

namespace lake::c {

lake_status OpenDb(const char* dir, const lake_stage_options* stage_opts, bool follower,
                   lake_db** out, lake_error** err) {
  return lake::c::Guarded(err, [&] {
    if (dir == nullptr) return lake::c::NullArgument("dir", err);
    if (out == nullptr) return lake::c::NullArgument("out", err);
    lake_stage_options asked = stage_opts != nullptr ? *stage_opts : lake_stage_options{};
    if (!asked.local_root.empty()) {
      return lake::c::Report(
          absl::InvalidArgumentError(
              "a root's stage is its own local stage, an S3 stage or a host store"),
          err);
    }
    if (asked.host_store.has_value() && asked.host_id.empty()) {
      return lake::c::Report(
          absl::InvalidArgumentError("a root's host store needs a stable host id "
                                     "(lake_stage_options_set_host_id), which the root records"),
          err);
    }
    if (!asked.host_store.has_value() && !asked.host_id.empty()) {
      return lake::c::Report(
          absl::InvalidArgumentError("a host id names a host store: set the store too "
                                     "(lake_stage_options_set_host_store)"),
          err);
    }
    absl::StatusOr<lake::io::FileSystem*> fs = lake::io::DefaultFileSystem();
    if (!fs.ok()) return lake::c::Report(fs.status(), err);
    absl::StatusOr<std::string> root = AbsoluteRoot(dir);
    if (!root.ok()) return lake::c::Report(root.status(), err);
    if (absl::Status s = lake::io::CreateDirectoriesDurably(**fs, *root); !s.ok()) {
      return lake::c::Report(s, err);
    }
    // A root of a layout this lake does not know is refused before anything
    // else of it is read.
    if (absl::Status s = lake::CheckRootFormat(**fs, *root); !s.ok()) {
      return lake::c::Report(s, err);
    }
    absl::StatusOr<std::optional<lake::StageDescriptor>> recorded =
        lake::ReadRootStageRecord(**fs, *root);
    if (!recorded.ok()) return lake::c::Report(recorded.status(), err);
    lake::StageDescriptor descriptor;
    if (recorded->has_value()) {
      descriptor = **recorded;
      if (absl::Status s = CheckAgreement(asked, descriptor); !s.ok()) {
        return lake::c::Report(s, err);
      }
    } else {
      if (!asked.s3 && HasS3Details(asked)) {
        return lake::c::Report(
            absl::InvalidArgumentError("a new root needs an S3 stage URI (lake_stage_options_set_s3) "
                                       "for its S3 endpoint, region or path style"),
            err);
      }
      if (asked.host_store.has_value()) {
        if (asked.s3 || HasS3Details(asked)) {
          return lake::c::Report(
              absl::InvalidArgumentError("a stage is one of an S3 stage or a host store"), err);
        }
        descriptor.kind = lake::StageDescriptor::Kind::kHost;
        descriptor.host_id = asked.host_id;
      } else if (asked.s3) {
        absl::StatusOr<lake::StageDescriptor> validated =
            lake::ValidateStageDescriptor(lake::c::S3DescriptorOf(asked));
        if (!validated.ok()) return lake::c::Report(validated.status(), err);
        descriptor = *validated;
      }
      // A new root: its format first, so a root with a stage record and no
      // format record is one created before format records existed.
      if (absl::Status s = lake::WriteRootFormatRecord(**fs, *root); !s.ok()) {
        return lake::c::Report(s, err);
      }
      absl::Status written = lake::WriteRootStageRecord(**fs, *root, descriptor);
      if (absl::IsAlreadyExists(written)) {  // a racing first open recorded it
        absl::StatusOr<std::optional<lake::StageDescriptor>> again =
            lake::ReadRootStageRecord(**fs, *root);
        if (!again.ok()) return lake::c::Report(again.status(), err);
        descriptor = **again;
        if (absl::Status s = CheckAgreement(asked, descriptor); !s.ok()) {
          return lake::c::Report(s, err);
        }
      } else if (!written.ok()) {
        return lake::c::Report(written, err);
      }
    }
    // The collector of any process keeps the keys of upload checkpoints.
    lake::RegisterUploadCheckpointKeys();
    // Open the recorded stage, with this handle's tenant.
    lake_stage_options opening;
    opening.tenant = asked.tenant;
    if (descriptor.kind == lake::StageDescriptor::Kind::kS3) {
      opening.s3 = true;
      opening.s3_bucket = descriptor.bucket;
      opening.s3_prefix = descriptor.prefix;
      opening.s3_region = descriptor.region;
      opening.s3_endpoint = descriptor.endpoint;
      opening.s3_path_style = descriptor.path_style;
      opening.s3_concurrency = asked.s3_concurrency;
      opening.s3_part_bytes = asked.s3_part_bytes;
      // A root's path uploads are resumable unless told otherwise. A
      // directory of the caller's is recorded in the root first, so that
      // every collector of the root reads its checkpoints
      // (engine/s3/upload_checkpoint_dirs.h).
      opening.upload_checkpoint_dir =
          asked.upload_checkpoint_dir.value_or(lake::UploadCheckpointDirOfRoot(*root));
      if (!follower && asked.upload_checkpoint_dir.has_value() &&
          !asked.upload_checkpoint_dir->empty()) {
        absl::StatusOr<std::string> recorded =
            lake::RecordUploadCheckpointDir(**fs, *root, *asked.upload_checkpoint_dir);
        if (!recorded.ok()) return lake::c::Report(recorded.status(), err);
        opening.upload_checkpoint_dir = *recorded;
      }
    } else if (descriptor.kind == lake::StageDescriptor::Kind::kHost) {
      // CheckAgreement made sure the options hold the store of this id.
      opening.host_store = asked.host_store;
      opening.host_store_root_uri = asked.host_store_root_uri;
      opening.host_id = descriptor.host_id;
    } else {
      opening.local_root = *root + "/stage";
    }
    auto db = std::make_unique<lake_db>();
    db->root = *root;
    db->follower = follower;
    lake_status status = lake::c::OpenStage(opening, &db->stage, err);
    if (status != LAKE_OK) return status;
    if (!follower) {
      // A writer's open gives the root its id and marks the stage as its
      // own (root_identity.h). Best effort: a reader with read-only
      // credentials must still open the root; the collector, which needs
      // the marker, runs these steps again and reports what failed.
      (void)lake::gc::EnsureRootIdentity(**fs, *root, db->stage->stage->store());
    }
    // A root's uploads are leased, so no collection of it deletes one in
    // flight (engine/gc/lease_store.h).
    db->stage->stage->set_leaser(lake::gc::LeaseStore::Open(**fs, *root));
    *out = db.release();
    return LAKE_OK;
  });
}

}  // namespace lake::c

extern "C" {

lake_status lake_db_open(const char* dir, const lake_stage_options* stage_opts, lake_db** out,
                         lake_error** err) {
  return lake::c::OpenDb(dir, stage_opts, /*follower=*/false, out, err);
}

lake_stage* lake_db_stage(lake_db* db) { return db == nullptr ? nullptr : db->stage; }

void lake_db_free(lake_db* db) { delete db; }

lake_status lake_db_pin(lake_db* db, const lake_location* loc, lake_error** err) {
  return lake::c::Guarded(err, [&] {
    if (db == nullptr) return lake::c::NullArgument("db", err);
    if (loc == nullptr) return lake::c::NullArgument("loc", err);
    absl::StatusOr<lake::io::FileSystem*> fs = lake::io::DefaultFileSystem();
    if (!fs.ok()) return lake::c::Report(fs.status(), err);
    return lake::c::Report(lake::gc::Pin(**fs, db->root, *db->stage->stage, loc->location), err);
  });
}

lake_status lake_db_unpin(lake_db* db, const lake_location* loc, lake_error** err) {
  return lake::c::Guarded(err, [&] {
    if (db == nullptr) return lake::c::NullArgument("db", err);
    if (loc == nullptr) return lake::c::NullArgument("loc", err);
    absl::StatusOr<lake::io::FileSystem*> fs = lake::io::DefaultFileSystem();
    if (!fs.ok()) return lake::c::Report(fs.status(), err);
    return lake::c::Report(lake::gc::Unpin(**fs, db->root, *db->stage->stage, loc->location),
                           err);
  });
}

}  // extern "C"
