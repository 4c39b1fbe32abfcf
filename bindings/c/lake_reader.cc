// Verified full readers and range readers.
#include "bindings/c/c_handles.h"

namespace {

lake_status Wrap(absl::StatusOr<std::unique_ptr<lake::ObjectReader>> reader,
                 lake_reader** out, lake_error** err) {
  if (!reader.ok()) return lake::c::Report(reader.status(), err);
  *out = new lake_reader{std::move(*reader)};
  return LAKE_OK;
}

}  // namespace

extern "C" {

lake_status lake_reader_open(lake_stage* stage, const lake_location* loc,
                             lake_reader** out, lake_error** err) {
  return lake::c::Guarded(err, [&] {
    if (stage == nullptr) return lake::c::NullArgument("stage", err);
    if (loc == nullptr) return lake::c::NullArgument("loc", err);
    if (out == nullptr) return lake::c::NullArgument("out", err);
    return Wrap(stage->stage->OpenVerified(loc->location), out, err);
  });
}

lake_status lake_reader_open_range(lake_stage* stage, const lake_location* loc,
                                   uint64_t start, uint64_t end,
                                   lake_reader** out, lake_error** err) {
  return lake::c::Guarded(err, [&] {
    if (stage == nullptr) return lake::c::NullArgument("stage", err);
    if (loc == nullptr) return lake::c::NullArgument("loc", err);
    if (out == nullptr) return lake::c::NullArgument("out", err);
    return Wrap(stage->stage->OpenRange(loc->location, lake::ByteRange{start, end}),
                out, err);
  });
}

lake_status lake_reader_read(lake_reader* reader, void* buf, size_t cap,
                             size_t* n, lake_error** err) {
  return lake::c::Guarded(err, [&] {
    if (reader == nullptr) return lake::c::NullArgument("reader", err);
    if (buf == nullptr) return lake::c::NullArgument("buf", err);
    if (n == nullptr) return lake::c::NullArgument("n", err);
    *n = 0;
    if (reader->closed) {
      return lake::c::Report(absl::FailedPreconditionError("reader is closed"),
                             err);
    }
    absl::StatusOr<size_t> got =
        reader->reader->Read(static_cast<uint8_t*>(buf), cap);
    if (!got.ok()) return lake::c::Report(got.status(), err);
    *n = *got;
    return LAKE_OK;
  });
}

lake_status lake_reader_read_view(lake_reader* reader, const void** data,
                                  size_t max_len, size_t* n, lake_error** err) {
  return lake::c::Guarded(err, [&] {
    if (reader == nullptr) return lake::c::NullArgument("reader", err);
    if (data == nullptr) return lake::c::NullArgument("data", err);
    if (n == nullptr) return lake::c::NullArgument("n", err);
    *n = 0;
    *data = nullptr;
    if (reader->closed) {
      return lake::c::Report(absl::FailedPreconditionError("reader is closed"),
                             err);
    }
    absl::StatusOr<absl::Span<const uint8_t>> view =
        reader->reader->ReadView(max_len);
    if (!view.ok()) return lake::c::Report(view.status(), err);
    *data = view->data();
    *n = view->size();
    return LAKE_OK;
  });
}

int lake_reader_verified(const lake_reader* reader) {
  return reader != nullptr && reader->reader->verified() ? 1 : 0;
}

lake_status lake_reader_close(lake_reader* reader, lake_error** err) {
  return lake::c::Guarded(err, [&] {
    if (reader == nullptr) return lake::c::NullArgument("reader", err);
    if (reader->closed) return LAKE_OK;
    reader->closed = true;
    return lake::c::Report(reader->reader->Close(), err);
  });
}

void lake_reader_free(lake_reader* reader) {
  if (reader == nullptr) return;
  if (!reader->closed) (void)reader->reader->Close();
  delete reader;
}

}  // extern "C"
