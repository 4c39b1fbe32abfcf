// lake_stage: options, open, and the stage-wide calls.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "bindings/c/c_handles.h"
#include "bindings/c/host_object_store.h"
#include "engine/local/local_object_store.h"
#include "engine/managed_key.h"
#include "engine/s3/s3_object_store.h"
#include "engine/stage_descriptor.h"

namespace {

std::string Env(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? std::string() : std::string(value);
}

}  // namespace

// Region and endpoint as the AWS SDKs default them.
lake::StageDescriptor lake::c::S3DescriptorOf(const lake_stage_options& opts) {
  lake::StageDescriptor d;
  d.kind = lake::StageDescriptor::Kind::kS3;
  d.bucket = opts.s3_bucket;
  d.prefix = opts.s3_prefix;
  d.region = opts.s3_region;
  if (d.region.empty()) d.region = Env("AWS_REGION");
  if (d.region.empty()) d.region = Env("AWS_DEFAULT_REGION");
  if (d.region.empty()) d.region = "us-east-1";
  d.endpoint = opts.s3_endpoint;
  if (d.endpoint.empty()) d.endpoint = Env("AWS_ENDPOINT_URL_S3");
  if (d.endpoint.empty()) d.endpoint = Env("AWS_ENDPOINT_URL");
  if (d.endpoint.empty()) d.endpoint = lake::s3http::DefaultS3EndpointUrl(d.region);
  while (!d.endpoint.empty() && d.endpoint.back() == '/') d.endpoint.pop_back();
  d.path_style = opts.s3_path_style;
  return d;
}

namespace {

absl::StatusOr<std::unique_ptr<lake::ManagedObjectStore>> OpenS3Store(
    const lake_stage_options& opts, lake::StageDescriptor* descriptor) {
  absl::StatusOr<lake::StageDescriptor> d =
      lake::ValidateStageDescriptor(lake::c::S3DescriptorOf(opts));
  if (!d.ok()) return d.status();
  absl::StatusOr<lake::s3http::S3Endpoint> endpoint =
      lake::s3http::ParseS3Endpoint(d->endpoint, d->path_style);
  if (!endpoint.ok()) return endpoint.status();
  lake::S3StageOptions options;
  options.bucket = d->bucket;
  options.prefix = d->prefix;
  options.tenant = opts.tenant;
  options.endpoint = *endpoint;
  options.region = d->region;
  options.tuning.concurrency = static_cast<int>(opts.s3_concurrency);
  options.tuning.part_bytes = opts.s3_part_bytes;
  options.download = opts.s3_download;
  options.checkpoint_dir = opts.upload_checkpoint_dir.value_or("");
  options.transport.ca_bundle = Env("AWS_CA_BUNDLE");
  auto store = lake::S3ObjectStore::Open(options, nullptr);
  if (!store.ok()) return store.status();
  *descriptor = *d;
  return std::unique_ptr<lake::ManagedObjectStore>(std::move(*store));
}

absl::StatusOr<std::unique_ptr<lake::ManagedObjectStore>> OpenStore(
    const lake_stage_options& opts, lake::io::FileSystem& fs,
    lake::StageDescriptor* descriptor) {
  int kinds = (opts.host_store.has_value() ? 1 : 0) + (opts.s3 ? 1 : 0) +
              (!opts.local_root.empty() ? 1 : 0);
  if (kinds > 1) {
    return absl::InvalidArgumentError(
        "a stage is one of a local root, an S3 stage or a host store");
  }
  if (opts.s3) return OpenS3Store(opts, descriptor);
  if (opts.host_store.has_value()) {
    lake_host_store table = *opts.host_store;
    if (opts.host_store_root_uri) table.root_uri = opts.host_store_root_uri->c_str();
    if (!opts.host_id.empty()) {
      descriptor->kind = lake::StageDescriptor::Kind::kHost;
      descriptor->host_id = opts.host_id;
    }
    auto store = lake::c::HostObjectStore::Create(table, opts.tenant);
    if (!store.ok()) return store.status();
    return std::unique_ptr<lake::ManagedObjectStore>(std::move(*store));
  }
  if (!opts.host_id.empty()) {
    return absl::InvalidArgumentError(
        "a host id names a host store: set the store too (lake_stage_options_set_host_store)");
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

lake_status lake::c::OpenStage(const lake_stage_options& opts, lake_stage** out,
                               lake_error** err) {
  absl::StatusOr<lake::io::FileSystem*> fs = lake::io::DefaultFileSystem();
  if (!fs.ok()) return lake::c::Report(fs.status(), err);
  lake::StageDescriptor descriptor;  // local unless the store says otherwise
  auto store = OpenStore(opts, **fs, &descriptor);
  if (!store.ok()) return lake::c::Report(store.status(), err);
  auto stage = std::make_unique<lake_stage>();
  stage->backend = std::string((*store)->backend_name());
  // A host store's topology is the host's own: it has a descriptor only
  // when the host named it with a host id.
  if (!opts.host_store.has_value() || !opts.host_id.empty()) {
    stage->descriptor = lake::StageDescriptorToJson(descriptor);
  }
  stage->stage = std::make_unique<lake::ManagedStage>(std::move(*store));
  stage->fs = *fs;
  *out = stage.release();
  return LAKE_OK;
}

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
    opts->host_store->root_uri = nullptr;
    opts->host_store_root_uri.reset();
    if (store->root_uri != nullptr) opts->host_store_root_uri = std::string(store->root_uri);
    return LAKE_OK;
  });
}

lake_status lake_stage_options_set_host_id(lake_stage_options* opts, const char* host_id,
                                           lake_error** err) {
  return lake::c::Guarded(err, [&] {
    if (opts == nullptr) return lake::c::NullArgument("opts", err);
    if (host_id == nullptr) return lake::c::NullArgument("host_id", err);
    if (absl::Status s = lake::ValidateHostId(host_id); !s.ok()) return lake::c::Report(s, err);
    opts->host_id = host_id;
    return LAKE_OK;
  });
}

lake_status lake_stage_options_set_s3(lake_stage_options* opts, const char* stage_uri,
                                      lake_error** err) {
  return lake::c::Guarded(err, [&] {
    if (opts == nullptr) return lake::c::NullArgument("opts", err);
    if (stage_uri == nullptr) return lake::c::NullArgument("stage_uri", err);
    std::string uri(stage_uri);
    if (uri.rfind("s3://", 0) != 0) {
      return lake::c::Report(
          absl::InvalidArgumentError("an S3 stage is s3://BUCKET[/PREFIX], not \"" + uri + "\""),
          err);
    }
    std::string rest = uri.substr(5);
    size_t slash = rest.find('/');
    std::string bucket = rest.substr(0, slash);
    std::string prefix = slash == std::string::npos ? "" : rest.substr(slash + 1);
    absl::StatusOr<lake::S3StageLayout> layout = lake::S3StageLayout::Create(bucket, prefix, "");
    if (!layout.ok()) return lake::c::Report(layout.status(), err);
    opts->s3 = true;
    opts->s3_bucket = layout->bucket();
    opts->s3_prefix = layout->prefix();
    return LAKE_OK;
  });
}

lake_status lake_stage_options_set_s3_endpoint(lake_stage_options* opts, const char* url,
                                               lake_error** err) {
  return lake::c::Guarded(err, [&] {
    if (opts == nullptr) return lake::c::NullArgument("opts", err);
    if (url == nullptr) return lake::c::NullArgument("url", err);
    absl::StatusOr<lake::s3http::S3Endpoint> endpoint = lake::s3http::ParseS3Endpoint(url, false);
    if (!endpoint.ok()) return lake::c::Report(endpoint.status(), err);
    opts->s3_endpoint = url;
    while (!opts->s3_endpoint.empty() && opts->s3_endpoint.back() == '/') opts->s3_endpoint.pop_back();
    return LAKE_OK;
  });
}

lake_status lake_stage_options_set_s3_region(lake_stage_options* opts, const char* region,
                                             lake_error** err) {
  return lake::c::Guarded(err, [&] {
    if (opts == nullptr) return lake::c::NullArgument("opts", err);
    if (region == nullptr || region[0] == '\0') {
      return lake::c::Report(absl::InvalidArgumentError("the region must not be empty"), err);
    }
    opts->s3_region = region;
    return LAKE_OK;
  });
}

void lake_stage_options_set_s3_path_style(lake_stage_options* opts, int path_style) {
  if (opts == nullptr) return;
  opts->s3_path_style = path_style != 0;
  opts->s3_path_style_set = true;
}

lake_status lake_stage_options_set_s3_concurrency(lake_stage_options* opts, uint32_t concurrency,
                                                  lake_error** err) {
  return lake::c::Guarded(err, [&] {
    if (opts == nullptr) return lake::c::NullArgument("opts", err);
    if (concurrency < 1 || concurrency > static_cast<uint32_t>(lake::kS3MaxConcurrency)) {
      return lake::c::Report(absl::InvalidArgumentError(absl::StrCat(
                                 "S3 upload concurrency must be 1..", lake::kS3MaxConcurrency,
                                 ", not ", concurrency)),
                             err);
    }
    opts->s3_concurrency = concurrency;
    return LAKE_OK;
  });
}

lake_status lake_stage_options_set_s3_part_size(lake_stage_options* opts, uint64_t bytes,
                                                lake_error** err) {
  return lake::c::Guarded(err, [&] {
    if (opts == nullptr) return lake::c::NullArgument("opts", err);
    if (bytes == 0 || bytes > (uint64_t{5} << 30)) {
      return lake::c::Report(
          absl::InvalidArgumentError("the S3 part size must be 1 byte .. 5 GiB"), err);
    }
    opts->s3_part_bytes = bytes;
    return LAKE_OK;
  });
}

lake_status lake_stage_options_set_upload_checkpoint_dir(lake_stage_options* opts,
                                                         const char* dir, lake_error** err) {
  return lake::c::Guarded(err, [&] {
    if (opts == nullptr) return lake::c::NullArgument("opts", err);
    if (dir == nullptr) return lake::c::NullArgument("dir", err);
    opts->upload_checkpoint_dir = std::string(dir);
    return LAKE_OK;
  });
}

lake_status lake_stage_options_set_s3_download_streams(lake_stage_options* opts,
                                                       uint32_t streams, lake_error** err) {
  return lake::c::Guarded(err, [&] {
    if (opts == nullptr) return lake::c::NullArgument("opts", err);
    lake::S3DownloadTuning tuning = opts->s3_download;
    tuning.streams = static_cast<int>(std::min<uint32_t>(streams, INT32_MAX));
    if (absl::Status s = lake::ValidateS3DownloadTuning(tuning); !s.ok()) {
      return lake::c::Report(s, err);
    }
    opts->s3_download = tuning;
    return LAKE_OK;
  });
}

lake_status lake_stage_options_set_s3_download_range_size(lake_stage_options* opts,
                                                          uint64_t bytes, lake_error** err) {
  return lake::c::Guarded(err, [&] {
    if (opts == nullptr) return lake::c::NullArgument("opts", err);
    lake::S3DownloadTuning tuning = opts->s3_download;
    tuning.range_bytes = static_cast<size_t>(std::min<uint64_t>(bytes, SIZE_MAX));
    if (absl::Status s = lake::ValidateS3DownloadTuning(tuning); !s.ok()) {
      return lake::c::Report(s, err);
    }
    opts->s3_download = tuning;
    return LAKE_OK;
  });
}

lake_status lake_stage_options_set_descriptor(lake_stage_options* opts, const char* json,
                                              size_t len, lake_error** err) {
  return lake::c::Guarded(err, [&] {
    if (opts == nullptr) return lake::c::NullArgument("opts", err);
    if (json == nullptr) return lake::c::NullArgument("json", err);
    absl::StatusOr<lake::StageDescriptor> d =
        lake::StageDescriptorFromJson(std::string_view(json, len));
    if (!d.ok()) return lake::c::Report(d.status(), err);
    if (d->kind == lake::StageDescriptor::Kind::kS3) {
      opts->s3 = true;
      opts->s3_bucket = d->bucket;
      opts->s3_prefix = d->prefix;
      opts->s3_region = d->region;
      opts->s3_endpoint = d->endpoint;
      opts->s3_path_style = d->path_style;
      opts->s3_path_style_set = true;
      opts->host_id.clear();
    } else if (d->kind == lake::StageDescriptor::Kind::kHost) {
      opts->s3 = false;
      opts->host_id = d->host_id;  // the store itself comes from the host
    } else {
      opts->s3 = false;
      opts->host_id.clear();
    }
    return LAKE_OK;
  });
}

void lake_stage_options_free(lake_stage_options* opts) { delete opts; }

lake_status lake_stage_open(const lake_stage_options* opts, lake_stage** out,
                            lake_error** err) {
  return lake::c::Guarded(err, [&] {
    if (opts == nullptr) return lake::c::NullArgument("opts", err);
    if (out == nullptr) return lake::c::NullArgument("out", err);
    return lake::c::OpenStage(*opts, out, err);
  });
}

void lake_stage_free(lake_stage* stage) { delete stage; }

const char* lake_stage_io_backend(const lake_stage* stage) {
  return stage == nullptr ? "" : stage->backend.c_str();
}

const char* lake_stage_descriptor(const lake_stage* stage) {
  return stage == nullptr ? "" : stage->descriptor.c_str();
}

lake_status lake_stage_presign(lake_stage* stage, const lake_location* loc,
                               uint32_t ttl_seconds, char** url, lake_error** err) {
  return lake::c::Guarded(err, [&] {
    if (stage == nullptr) return lake::c::NullArgument("stage", err);
    if (loc == nullptr) return lake::c::NullArgument("loc", err);
    if (url == nullptr) return lake::c::NullArgument("url", err);
    absl::StatusOr<std::string> presigned =
        stage->stage->Presign(loc->location, absl::Seconds(ttl_seconds));
    if (!presigned.ok()) return lake::c::Report(presigned.status(), err);
    *url = strdup(presigned->c_str());
    return *url == nullptr ? lake::c::Report(absl::ResourceExhaustedError("out of memory"), err)
                           : LAKE_OK;
  });
}

void lake_string_free(char* text) { free(text); }

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
