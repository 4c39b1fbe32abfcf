#include "io/s3http/retry_policy.h"

#include <algorithm>
#include <random>

namespace lake::s3http {

bool RetryPolicy::IsRetryable(const absl::Status& status) {
  return absl::IsUnavailable(status) || absl::IsDeadlineExceeded(status);
}

absl::Duration RetryPolicy::Backoff(int attempt) const {
  thread_local std::mt19937_64 rng(std::random_device{}());
  absl::Duration ceiling = base;
  for (int i = 1; i < attempt && ceiling < cap; ++i) ceiling *= 2;
  ceiling = std::min(ceiling, cap);
  std::uniform_int_distribution<int64_t> jitter(0, absl::ToInt64Microseconds(ceiling));
  return absl::Microseconds(jitter(rng));
}

}  // namespace lake::s3http
