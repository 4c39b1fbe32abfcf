// Stops S3 requests from another thread: an upload whose part failed, or
// whose caller cancelled, aborts the requests its other parts have in
// flight, and every later request through the same canceller fails at
// once with Cancelled.
#ifndef LAKE_IO_S3HTTP_CALL_CANCELLER_H_
#define LAKE_IO_S3HTTP_CALL_CANCELLER_H_

#include <set>

#include "absl/synchronization/mutex.h"
#include "io/s3http/http_transport.h"

namespace lake::s3http {

class CallCanceller {
 public:
  void Cancel() {
    absl::MutexLock lock(&mu_);
    cancelled_ = true;
    for (HttpCall* call : calls_) call->Abort();
  }
  bool cancelled() const {
    absl::MutexLock lock(&mu_);
    return cancelled_;
  }

  // While registered, Cancel() aborts `call`. Returns false (and registers
  // nothing) when already cancelled.
  bool Register(HttpCall* call) {
    absl::MutexLock lock(&mu_);
    if (cancelled_) return false;
    calls_.insert(call);
    return true;
  }
  void Unregister(HttpCall* call) {
    absl::MutexLock lock(&mu_);
    calls_.erase(call);
  }

 private:
  mutable absl::Mutex mu_;
  bool cancelled_ ABSL_GUARDED_BY(mu_) = false;
  std::set<HttpCall*> calls_ ABSL_GUARDED_BY(mu_);
};

}  // namespace lake::s3http

#endif  // LAKE_IO_S3HTTP_CALL_CANCELLER_H_
