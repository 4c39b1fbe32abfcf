// Named failpoints (test builds).
#include <doctest/doctest.h>

#include "absl/time/clock.h"
#include "base/failpoint.h"

namespace lake {
namespace {

TEST_CASE("failpoints are compiled into test builds") {
  CHECK(failpoint::Enabled());
}

TEST_CASE("a failpoint counts hits and performs its action") {
  failpoint::ClearAll();
  CHECK(LAKE_FAILPOINT("test.step").ok());
  CHECK(failpoint::HitCount("test.step") == 1);
  failpoint::Set("test.step", failpoint::Action::kError);
  absl::Status status = LAKE_FAILPOINT("test.step");
  CHECK(absl::IsUnavailable(status));
  int calls = 0;
  failpoint::Set("test.step", failpoint::Action::kCallback, [&] {
    ++calls;
    return absl::AbortedError("from the test");
  });
  CHECK(absl::IsAborted(LAKE_FAILPOINT("test.step")));
  CHECK(calls == 1);
  CHECK(failpoint::HitCount("test.step") == 3);
  failpoint::ClearAll();
  CHECK(LAKE_FAILPOINT("test.step").ok());
  CHECK(failpoint::HitCount("test.step") == 1);
}

TEST_CASE("a failpoint configured as LAKE_FAILPOINTS is: kill, error, sleep:MS or off") {
  failpoint::ClearAll();
  failpoint::Configure("test.failing=error;test.slow=sleep:40;test.unknown=nonsense");
  CHECK(absl::IsUnavailable(LAKE_FAILPOINT("test.failing")));
  absl::Time start = absl::Now();
  CHECK(LAKE_FAILPOINT("test.slow").ok());
  CHECK(absl::Now() - start >= absl::Milliseconds(40));
  CHECK(LAKE_FAILPOINT("test.unknown").ok());
  failpoint::Configure("test.failing=off");
  CHECK(LAKE_FAILPOINT("test.failing").ok());
  failpoint::ClearAll();
}

}  // namespace
}  // namespace lake
