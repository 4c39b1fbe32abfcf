// A cancellation flag shared between a caller and a long operation.
//
// Any thread may Cancel(); the operation polls IsCancelled() at its step
// boundaries (between chunks, while waiting for buffers) and then unwinds
// with a Cancelled status, cleaning up what it created.
#ifndef LAKE_BASE_CANCEL_TOKEN_H_
#define LAKE_BASE_CANCEL_TOKEN_H_

#include <atomic>

#include "absl/status/status.h"

namespace lake {

class CancelToken {
 public:
  void Cancel() { cancelled_.store(true, std::memory_order_release); }
  bool IsCancelled() const {
    return cancelled_.load(std::memory_order_acquire);
  }

 private:
  std::atomic<bool> cancelled_{false};
};

// OK unless `token` is non-null and cancelled.
inline absl::Status CheckCancelled(const CancelToken* token) {
  if (token != nullptr && token->IsCancelled()) {
    return absl::CancelledError("cancelled by the caller");
  }
  return absl::OkStatus();
}

}  // namespace lake

#endif  // LAKE_BASE_CANCEL_TOKEN_H_
