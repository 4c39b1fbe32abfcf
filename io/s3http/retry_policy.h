// When and how long to wait before repeating an S3 request.
//
// Only requests that are safe to repeat are retried (every S3 call lake
// makes is: GET/HEAD/DELETE, PUT of a whole object or part under a key
// nobody else writes, and the multipart calls, whose lost-response cases
// the upload verifies). What is retried: 5xx, throttling (SlowDown, 503),
// RequestTimeout, and transport failures (refused or broken connections,
// stalls). Waits grow exponentially from `base` to `cap` with full jitter
// (a uniform wait in [0, min(cap, base * 2^attempt)]), so clients that
// failed together do not return together.
#ifndef LAKE_IO_S3HTTP_RETRY_POLICY_H_
#define LAKE_IO_S3HTTP_RETRY_POLICY_H_

#include "absl/status/status.h"
#include "absl/time/time.h"

namespace lake::s3http {

struct RetryPolicy {
  int max_attempts = 5;  // including the first
  absl::Duration base = absl::Milliseconds(100);
  absl::Duration cap = absl::Seconds(5);

  // Whether a failed attempt's status is worth repeating.
  static bool IsRetryable(const absl::Status& status);
  // The wait before attempt number `attempt` (1 = the first retry).
  absl::Duration Backoff(int attempt) const;
};

}  // namespace lake::s3http

#endif  // LAKE_IO_S3HTTP_RETRY_POLICY_H_
