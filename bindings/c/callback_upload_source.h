// An UploadSource pulling from a host's lake_read_fn.
#ifndef LAKE_BINDINGS_C_CALLBACK_UPLOAD_SOURCE_H_
#define LAKE_BINDINGS_C_CALLBACK_UPLOAD_SOURCE_H_

#include "absl/strings/str_cat.h"
#include "engine/upload_source.h"
#include "include/lake.h"

namespace lake::c {

class CallbackUploadSource final : public UploadSource {
 public:
  CallbackUploadSource(lake_read_fn read, void* ctx) : read_(read), ctx_(ctx) {}

  absl::StatusOr<size_t> Read(uint8_t* dst, size_t len) override {
    int64_t n = read_(ctx_, dst, len);
    if (n < 0) {
      return absl::UnknownError(
          absl::StrCat("the source read callback failed (returned ", n, ")"));
    }
    if (static_cast<uint64_t>(n) > len) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the source read callback returned ", n, " bytes for a ", len,
          "-byte buffer"));
    }
    return static_cast<size_t>(n);
  }

 private:
  lake_read_fn read_;
  void* ctx_;
};

}  // namespace lake::c

#endif  // LAKE_BINDINGS_C_CALLBACK_UPLOAD_SOURCE_H_
