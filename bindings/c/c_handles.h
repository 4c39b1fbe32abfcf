// The structs behind lake.h's opaque handles, and the bridge from
// absl::Status to lake_status / lake_error. Internal to bindings/c.
#ifndef LAKE_BINDINGS_C_C_HANDLES_H_
#define LAKE_BINDINGS_C_C_HANDLES_H_

#include <exception>
#include <memory>
#include <new>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "base/cancel_token.h"
#include "engine/data_location.h"
#include "engine/managed_stage.h"
#include "engine/object_reader.h"
#include "engine/s3/s3_parallel_object_stream.h"
#include "engine/stage_descriptor.h"
#include "include/lake.h"
#include "io/file_system.h"
#include "registry/registry.h"
#include "engine/table/table_store.h"
#include "absl/synchronization/mutex.h"

struct lake_error {
  lake_status code = LAKE_OK;
  std::string message;
  lake_integrity_kind integrity_kind = LAKE_INTEGRITY_NONE;
  uint64_t expected = 0;
  uint64_t observed = 0;
  bool retryable = false;
  // The append that failed but may still commit (lake_error_pending_operation_id).
  std::optional<std::string> pending_operation_id;
};

struct lake_cancel_token {
  lake::CancelToken token;
};

struct lake_location {
  lake::DataLocation location;
  std::string json;  // canonical form, computed once
};

struct lake_stage_options {
  std::string local_root;
  std::string tenant;
  std::optional<lake_host_store> host_store;
  // The host store's root_uri, copied (the table's own pointer is not
  // kept: the caller may free its string after the set call).
  std::optional<std::string> host_store_root_uri;
  // The host store's stable identity (lake_stage_options_set_host_id, or a
  // host descriptor): its stage descriptor's host_id. Empty: none.
  std::string host_id;
  // S3: set by lake_stage_options_set_s3 or a descriptor.
  bool s3 = false;
  std::string s3_bucket;
  std::string s3_prefix;
  std::string s3_endpoint;  // empty: from the environment
  std::string s3_region;    // empty: from the environment
  bool s3_path_style = false;
  bool s3_path_style_set = false;
  uint32_t s3_concurrency = 4;
  uint64_t s3_part_bytes = 64ull << 20;
  lake::S3DownloadTuning s3_download;
  // nullopt: the default (none for a stage, <root>/checkpoints/uploads for
  // a root's); "": none.
  std::optional<std::string> upload_checkpoint_dir;
};

struct lake_stage {
  std::unique_ptr<lake::ManagedStage> stage;
  lake::io::FileSystem* fs = nullptr;  // reads upload source files
  std::string backend;
  std::string descriptor;  // canonical JSON
};

struct lake_upload_options {
  std::string content_type{lake::kDefaultContentType};
  lake_cancel_token* cancel = nullptr;
  lake_progress_fn progress = nullptr;
  void* progress_ctx = nullptr;
  lake_notice_fn notice = nullptr;
  void* notice_ctx = nullptr;
};

struct lake_writer {
  std::unique_ptr<lake::LocationWriter> writer;
};

// A lake root. Its tables (registry and table store) open on the first
// table call, under tables_mu; the stage is open from the start.
struct lake_db {
  std::string root;
  lake_stage* stage = nullptr;
  bool follower = false;
  absl::Duration follower_staleness = absl::Seconds(1);
  absl::Mutex tables_mu;
  // lake_db_set_busy_timeout's; given to the registry when it opens.
  absl::Duration busy_timeout ABSL_GUARDED_BY(tables_mu) = lake::registry::kDefaultBusyTimeout;
  std::unique_ptr<lake::registry::Registry> registry ABSL_GUARDED_BY(tables_mu);
  std::unique_ptr<lake::table::TableStore> tables ABSL_GUARDED_BY(tables_mu);
  ~lake_db();
};

struct lake_reader {
  std::unique_ptr<lake::ObjectReader> reader;
  bool closed = false;
};

namespace lake::c {

lake_status StatusCode(const absl::Status& status);

// Builds the lake_error of `status` (never for OK).
lake_error* NewError(const absl::Status& status);

// Reports `status` through `err` (when non-null and status is not OK) and
// returns its code.
lake_status Report(const absl::Status& status, lake_error** err);

lake_location* NewLocation(DataLocation location);

// The upload options a lake_upload_options (may be NULL) gives.
UploadOptions ToUploadOptions(const lake_upload_options* opts);
// The table store of `db`, opened on first use (a writer: the registry's
// owner or one that forwards to it; or a follower's view). The db owns it.
absl::StatusOr<table::TableStore*> TablesOf(lake_db* db);
// A malloc'd copy of `text` for the caller to lake_string_free.
char* CopyString(const std::string& text);
// lake_db_open, and for a follower (lake_db_open_follower) the same open
// without the writer's steps (a follower writes nothing to the root).
lake_status OpenDb(const char* dir, const lake_stage_options* stage_opts, bool follower,
                   lake_db** out, lake_error** err);
// lake_stage_open without the argument checks (also used by lake_db_open).
lake_status OpenStage(const lake_stage_options& opts, lake_stage** out, lake_error** err);
// The descriptor an S3 stage's options name, with the environment's
// defaults for what they leave unset.
StageDescriptor S3DescriptorOf(const lake_stage_options& opts);

// Runs `body` (returning lake_status) so that no C++ exception crosses the
// ABI: an exception becomes LAKE_INTERNAL (LAKE_IO for out-of-memory).
template <typename Body>
lake_status Guarded(lake_error** err, Body&& body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return Report(absl::ResourceExhaustedError("out of memory"), err);
  } catch (const std::exception& e) {
    return Report(absl::InternalError(std::string("internal error: ") + e.what()),
                  err);
  } catch (...) {
    return Report(absl::InternalError("internal error"), err);
  }
}

// A null required argument.
inline lake_status NullArgument(const char* name, lake_error** err) {
  return Report(absl::InvalidArgumentError(std::string(name) + " is NULL"), err);
}

}  // namespace lake::c

#endif  // LAKE_BINDINGS_C_C_HANDLES_H_
