#include "base/failpoint.h"

#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "absl/base/call_once.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"

namespace lake::failpoint {
namespace {

struct Point {
  Action action = Action::kOff;
  std::function<absl::Status()> callback;
  uint64_t hits = 0;
};

struct Registry {
  absl::Mutex mu;
  absl::flat_hash_map<std::string, Point> points ABSL_GUARDED_BY(mu);
};

Registry& TheRegistry() {
  static Registry* registry = new Registry;
  return *registry;
}

void LoadEnvironment() {
  const char* spec = std::getenv("LAKE_FAILPOINTS");
  if (spec != nullptr) Configure(spec);
}

absl::once_flag env_once;

}  // namespace

bool Enabled() {
#ifdef LAKE_FAILPOINTS
  return true;
#else
  return false;
#endif
}

absl::Status Hit(std::string_view name) {
  absl::call_once(env_once, LoadEnvironment);
  Registry& registry = TheRegistry();
  Action action;
  std::function<absl::Status()> callback;
  {
    absl::MutexLock lock(&registry.mu);
    Point& point = registry.points[std::string(name)];
    ++point.hits;
    action = point.action;
    callback = point.callback;
  }
  switch (action) {
    case Action::kOff:
      return absl::OkStatus();
    case Action::kError:
      return absl::UnavailableError(
          absl::StrCat("failpoint ", std::string(name), " injected an error"));
    case Action::kKill:
      kill(getpid(), SIGKILL);
      pause();  // SIGKILL is not deliverable late, but never continue.
      return absl::InternalError("unreachable after SIGKILL");
    case Action::kCallback:
      return callback ? callback() : absl::OkStatus();
  }
  return absl::OkStatus();
}

void Set(std::string_view name, Action action,
         std::function<absl::Status()> callback) {
  Registry& registry = TheRegistry();
  absl::MutexLock lock(&registry.mu);
  Point& point = registry.points[std::string(name)];
  point.action = action;
  point.callback = std::move(callback);
}

void Configure(std::string_view spec) {
  for (absl::string_view item :
       absl::StrSplit(absl::string_view(spec.data(), spec.size()), ';', absl::SkipEmpty())) {
    std::pair<absl::string_view, absl::string_view> kv =
        absl::StrSplit(item, absl::MaxSplits('=', 1));
    std::string_view name(kv.first.data(), kv.first.size());
    uint32_t millis = 0;
    if (kv.second == "kill") {
      Set(name, Action::kKill);
    } else if (kv.second == "error") {
      Set(name, Action::kError);
    } else if (absl::ConsumePrefix(&kv.second, "sleep:") && absl::SimpleAtoi(kv.second, &millis)) {
      Set(name, Action::kCallback, [millis] {
        absl::SleepFor(absl::Milliseconds(millis));
        return absl::OkStatus();
      });
    } else {
      Set(name, Action::kOff);
    }
  }
}

void ClearAll() {
  absl::call_once(env_once, [] {});  // tests own the configuration now
  Registry& registry = TheRegistry();
  absl::MutexLock lock(&registry.mu);
  registry.points.clear();
}

uint64_t HitCount(std::string_view name) {
  Registry& registry = TheRegistry();
  absl::MutexLock lock(&registry.mu);
  auto it = registry.points.find(std::string(name));
  return it == registry.points.end() ? 0 : it->second.hits;
}

}  // namespace lake::failpoint
