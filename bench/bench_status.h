// What a benchmark program does with a failed step: it cannot measure past
// one, so it names the step and the status on stderr and exits 1.
#ifndef LAKE_BENCH_BENCH_STATUS_H_
#define LAKE_BENCH_BENCH_STATUS_H_

#include <errno.h>  // program_invocation_short_name

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace lake::bench {

using Clock = std::chrono::steady_clock;

[[noreturn]] inline void Die(const absl::Status& status, const char* what) {
  std::fprintf(stderr, "%s: %s: %s\n", program_invocation_short_name, what,
               status.ToString().c_str());
  std::exit(1);
}

template <typename T>
T Must(absl::StatusOr<T> value, const char* what) {
  if (!value.ok()) Die(value.status(), what);
  return std::move(*value);
}

inline void Must(const absl::Status& status, const char* what) {
  if (!status.ok()) Die(status, what);
}

inline double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

}  // namespace lake::bench

#endif  // LAKE_BENCH_BENCH_STATUS_H_
