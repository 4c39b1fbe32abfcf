// Named failpoints (test builds).
#include <doctest/doctest.h>

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

}  // namespace
}  // namespace lake
