// Named failpoints: test builds can stop, fail or kill the process at any
// named step of a write path.
//
// A failpoint is compiled in only when LAKE_FAILPOINTS is defined (the
// `failpoints` meson option); otherwise LAKE_FAILPOINT(name) is a constant
// OK status and costs nothing. Names are dotted and owned by the module
// whose step they mark ("local_upload.data_synced"); that module lists them
// in one array so tests can visit every step.
//
// Actions come from the test API below or, for child processes, from the
// environment: LAKE_FAILPOINTS="name=kill;other=error;third=sleep:20" (the
// last passes after 20 ms: it widens a race window in another process).
#ifndef LAKE_BASE_FAILPOINT_H_
#define LAKE_BASE_FAILPOINT_H_

#include <cstdint>
#include <functional>
#include <string_view>

#include "absl/status/status.h"

namespace lake::failpoint {

enum class Action {
  kOff,       // pass through
  kError,     // return an Unavailable status from the step
  kKill,      // SIGKILL the process at the step
  kCallback,  // run a test function; its status is the step's result
};

// True when this build has failpoints compiled in.
bool Enabled();

// Evaluates the failpoint `name`: counts the hit and performs its action.
absl::Status Hit(std::string_view name);

// Test API. Thread-safe.
void Set(std::string_view name, Action action,
         std::function<absl::Status()> callback = nullptr);
// Sets failpoints as LAKE_FAILPOINTS does ("a.b=kill;c.d=error;e.f=sleep:MS");
// an item of another action turns its failpoint off.
void Configure(std::string_view spec);
void ClearAll();            // every failpoint back to kOff, counts to zero
uint64_t HitCount(std::string_view name);

}  // namespace lake::failpoint

#ifdef LAKE_FAILPOINTS
#define LAKE_FAILPOINT(name) ::lake::failpoint::Hit(name)
#else
#define LAKE_FAILPOINT(name) ::absl::OkStatus()
#endif

#endif  // LAKE_BASE_FAILPOINT_H_
