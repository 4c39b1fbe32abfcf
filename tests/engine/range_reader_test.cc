// Half-open range reads: capped at end - start, PrematureEof when cut short,
// and the validation that refuses bad intervals before any I/O.
#include <doctest/doctest.h>

#include "engine/byte_range.h"
#include "engine/range_reader.h"
#include "tests/support/memory_object_stream.h"
#include "tests/support/status_checks.h"
#include "tests/support/test_files.h"

namespace lake {
namespace {

using testing::MemoryObjectStream;
using testing::StreamLog;

TEST_CASE("empty, reversed and out-of-bounds ranges are refused") {
  CHECK(absl::IsInvalidArgument(ValidateRange({5, 5}, 10)));
  CHECK(absl::IsInvalidArgument(ValidateRange({6, 5}, 10)));
  CHECK(absl::IsInvalidArgument(ValidateRange({0, 11}, 10)));
  CHECK(absl::IsInvalidArgument(ValidateRange({10, 11}, 10)));
  CHECK(absl::IsInvalidArgument(ValidateRange({0, 1}, 0)));
  LAKE_CHECK_OK(ValidateRange({0, 10}, 10));
  LAKE_CHECK_OK(ValidateRange({9, 10}, 10));
  LAKE_CHECK_OK(ValidateRange({0, 1}, 1));
}

TEST_CASE("a range yields exactly end - start bytes and asks for no more") {
  std::vector<uint8_t> bytes = testing::RandomBytes(10000, 1);
  StreamLog log;
  ByteRange range{1000, 3500};
  RangeReader reader(std::make_unique<MemoryObjectStream>(bytes, &log, range.start),
                     range, "file:///x");
  std::vector<uint8_t> out;
  uint8_t buf[777];
  for (;;) {
    absl::StatusOr<size_t> n = reader.Read(buf, sizeof buf);
    LAKE_REQUIRE_OK(n);
    if (*n == 0) break;
    out.insert(out.end(), buf, buf + *n);
  }
  CHECK(out == std::vector<uint8_t>(bytes.begin() + 1000, bytes.begin() + 3500));
  CHECK(log.bytes_requested <= range.length());
  CHECK_FALSE(reader.verified());
}

TEST_CASE("a range cut short ends with PrematureEof and its counts") {
  std::vector<uint8_t> bytes = testing::RandomBytes(3000, 2);  // storage shrank
  StreamLog log;
  ByteRange range{1000, 3500};
  RangeReader reader(std::make_unique<MemoryObjectStream>(bytes, &log, range.start),
                     range, "file:///x");
  uint8_t buf[4096];
  uint64_t total = 0;
  absl::Status failure;
  for (;;) {
    absl::StatusOr<size_t> n = reader.Read(buf, sizeof buf);
    if (!n.ok()) {
      failure = n.status();
      break;
    }
    REQUIRE(*n > 0);
    total += *n;
  }
  CHECK(total == 2000);
  std::optional<IntegrityDetail> detail = GetIntegrityDetail(failure);
  REQUIRE(detail.has_value());
  CHECK(detail->kind == IntegrityKind::kPrematureEof);
  CHECK(detail->expected == 2500);
  CHECK(detail->observed == 2000);
}

}  // namespace
}  // namespace lake
