// Batched range reads.
#include <vector>

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "bindings/c/c_handles.h"

extern "C" {

lake_status lake_stage_read_ranges(lake_stage* stage, lake_range* ranges,
                                   size_t count, lake_error** err) {
  return lake::c::Guarded(err, [&] {
    if (stage == nullptr) return lake::c::NullArgument("stage", err);
    if (ranges == nullptr && count > 0) return lake::c::NullArgument("ranges", err);
    std::vector<lake::RangeRead> reads(count);
    for (size_t i = 0; i < count; ++i) {
      lake_range& range = ranges[i];
      range.status = LAKE_OK;
      range.bytes_read = 0;
      range.error = nullptr;
      lake::RangeRead& read = reads[i];
      read.location = range.location != nullptr ? &range.location->location : nullptr;
      read.start = range.start;
      read.end = range.end;
      read.buffer = static_cast<uint8_t*>(range.buffer);
    }
    stage->stage->ReadRanges(absl::MakeSpan(reads));
    size_t failed = 0;
    const absl::Status* first = nullptr;
    for (size_t i = 0; i < count; ++i) {
      const absl::Status& status = reads[i].status;
      ranges[i].bytes_read = reads[i].bytes_read;
      ranges[i].status = lake::c::StatusCode(status);
      if (!status.ok()) {
        ranges[i].error = lake::c::NewError(status);
        if (first == nullptr) first = &status;
        ++failed;
      }
    }
    if (first == nullptr) return LAKE_OK;
    absl::Status summary(first->code(),
                         absl::StrCat(failed, " of ", count,
                                      " ranges failed; the first: ",
                                      first->message()));
    // The first failure's details too (an integrity failure's kind and
    // sizes: lake_error_integrity_kind).
    first->ForEachPayload([&summary](absl::string_view url, const absl::Cord& payload) {
      summary.SetPayload(url, payload);
    });
    return lake::c::Report(summary, err);
  });
}

}  // extern "C"
