// Uploads: options, from a path, from a read callback, and push writers.
#include "bindings/c/c_handles.h"
#include "bindings/c/callback_upload_source.h"
#include "engine/file_upload_source.h"

namespace {

lake_status Finish(absl::StatusOr<lake::DataLocation> location,
                   lake_location** out, lake_error** err) {
  if (!location.ok()) return lake::c::Report(location.status(), err);
  *out = lake::c::NewLocation(std::move(*location));
  return LAKE_OK;
}

}  // namespace

extern "C" {

lake_upload_options* lake_upload_options_new(void) {
  return new (std::nothrow) lake_upload_options;
}

lake_status lake_upload_options_set_content_type(lake_upload_options* opts,
                                                 const char* content_type,
                                                 lake_error** err) {
  return lake::c::Guarded(err, [&] {
    if (opts == nullptr) return lake::c::NullArgument("opts", err);
    if (content_type == nullptr) return lake::c::NullArgument("content_type", err);
    if (absl::Status s = lake::ValidateContentType(content_type); !s.ok()) {
      return lake::c::Report(absl::InvalidArgumentError(s.message()), err);
    }
    opts->content_type = content_type;
    return LAKE_OK;
  });
}

void lake_upload_options_set_cancel_token(lake_upload_options* opts,
                                          lake_cancel_token* token) {
  if (opts != nullptr) opts->cancel = token;
}

void lake_upload_options_set_progress(lake_upload_options* opts,
                                      lake_progress_fn fn, void* ctx) {
  if (opts == nullptr) return;
  opts->progress = fn;
  opts->progress_ctx = ctx;
}

void lake_upload_options_set_notice(lake_upload_options* opts, lake_notice_fn fn, void* ctx) {
  if (opts == nullptr) return;
  opts->notice = fn;
  opts->notice_ctx = ctx;
}

void lake_upload_options_free(lake_upload_options* opts) { delete opts; }

lake_status lake_stage_upload_path(lake_stage* stage, const char* path,
                                   const lake_upload_options* opts,
                                   lake_location** out, lake_error** err) {
  return lake::c::Guarded(err, [&] {
    if (stage == nullptr) return lake::c::NullArgument("stage", err);
    if (path == nullptr) return lake::c::NullArgument("path", err);
    if (out == nullptr) return lake::c::NullArgument("out", err);
    lake::UploadOptions options = lake::c::ToUploadOptions(opts);
    auto source = lake::FileUploadSource::Open(*stage->fs, path);
    if (!source.ok()) return lake::c::Report(source.status(), err);
    return Finish(stage->stage->Upload(**source, options), out, err);
  });
}

lake_status lake_stage_upload_reader(lake_stage* stage, lake_read_fn read,
                                     void* ctx, const lake_upload_options* opts,
                                     lake_location** out, lake_error** err) {
  return lake::c::Guarded(err, [&] {
    if (stage == nullptr) return lake::c::NullArgument("stage", err);
    if (read == nullptr) return lake::c::NullArgument("read", err);
    if (out == nullptr) return lake::c::NullArgument("out", err);
    lake::c::CallbackUploadSource source(read, ctx);
    return Finish(stage->stage->Upload(source, lake::c::ToUploadOptions(opts)), out, err);
  });
}

lake_status lake_writer_open(lake_stage* stage, const lake_upload_options* opts,
                             lake_writer** out, lake_error** err) {
  return lake::c::Guarded(err, [&] {
    if (stage == nullptr) return lake::c::NullArgument("stage", err);
    if (out == nullptr) return lake::c::NullArgument("out", err);
    auto writer = stage->stage->NewWriter(lake::c::ToUploadOptions(opts));
    if (!writer.ok()) return lake::c::Report(writer.status(), err);
    *out = new lake_writer{std::move(*writer)};
    return LAKE_OK;
  });
}

lake_status lake_writer_write(lake_writer* writer, const void* buf, size_t len,
                              lake_error** err) {
  return lake::c::Guarded(err, [&] {
    if (writer == nullptr) return lake::c::NullArgument("writer", err);
    if (buf == nullptr && len > 0) return lake::c::NullArgument("buf", err);
    if (writer->writer == nullptr) {
      return lake::c::Report(
          absl::FailedPreconditionError("writer is already closed"), err);
    }
    return lake::c::Report(
        writer->writer->Write(static_cast<const uint8_t*>(buf), len), err);
  });
}

lake_status lake_writer_close(lake_writer* writer, lake_location** out,
                              lake_error** err) {
  return lake::c::Guarded(err, [&] {
    if (writer == nullptr) return lake::c::NullArgument("writer", err);
    if (out == nullptr) return lake::c::NullArgument("out", err);
    if (writer->writer == nullptr) {
      return lake::c::Report(
          absl::FailedPreconditionError("writer is already closed"), err);
    }
    lake_status status = Finish(writer->writer->Commit(), out, err);
    writer->writer.reset();  // discards the upload if Commit failed
    return status;
  });
}

void lake_writer_free(lake_writer* writer) { delete writer; }

}  // extern "C"

namespace lake::c {

UploadOptions ToUploadOptions(const lake_upload_options* opts) {
  UploadOptions options;
  if (opts == nullptr) return options;
  options.content_type = opts->content_type;
  options.cancel = opts->cancel != nullptr ? &opts->cancel->token : nullptr;
  if (opts->progress != nullptr) {
    lake_progress_fn fn = opts->progress;
    void* ctx = opts->progress_ctx;
    options.progress = [fn, ctx](uint64_t done, uint64_t total) {
      fn(ctx, done, total);
    };
  }
  if (opts->notice != nullptr) {
    lake_notice_fn fn = opts->notice;
    void* ctx = opts->notice_ctx;
    options.notice = [fn, ctx](std::string_view line) { fn(ctx, std::string(line).c_str()); };
  }
  return options;
}

}  // namespace lake::c
