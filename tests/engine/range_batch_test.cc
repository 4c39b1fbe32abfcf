// Batched range reads: many ranges over one or several objects, submitted
// together; every range gets its own status.
#include <doctest/doctest.h>
#include <unistd.h>

#include <random>

#include "tests/support/stage_fixture.h"
#include "tests/support/status_checks.h"

namespace lake {
namespace {

using testing::StageFixture;

TEST_CASE("thousands of random ranges across two objects read back exactly") {
  StageFixture f;
  std::vector<uint8_t> a = testing::RandomBytes(3 * 1024 * 1024 + 5, 1);
  std::vector<uint8_t> b = testing::RandomBytes(1024 * 1024, 2);
  absl::StatusOr<DataLocation> la = f.UploadBytes(a);
  absl::StatusOr<DataLocation> lb = f.UploadBytes(b);
  LAKE_REQUIRE_OK(la);
  LAKE_REQUIRE_OK(lb);

  std::mt19937_64 rng(3);
  const size_t count = 5000;
  std::vector<RangeRead> ranges(count);
  std::vector<std::vector<uint8_t>> buffers(count);
  for (size_t i = 0; i < count; ++i) {
    bool first = rng() % 2 == 0;
    const std::vector<uint8_t>& bytes = first ? a : b;
    uint64_t start = rng() % bytes.size();
    uint64_t end = std::min<uint64_t>(bytes.size(), start + 1 + rng() % 20000);
    buffers[i].resize(end - start);
    ranges[i] = RangeRead{first ? &*la : &*lb, start, end, buffers[i].data()};
  }
  f.stage->ReadRanges(absl::MakeSpan(ranges));
  for (size_t i = 0; i < count; ++i) {
    CAPTURE(i);
    LAKE_REQUIRE_OK(ranges[i].status);
    const std::vector<uint8_t>& bytes = ranges[i].location == &*la ? a : b;
    CHECK(ranges[i].bytes_read == ranges[i].end - ranges[i].start);
    CHECK(std::equal(buffers[i].begin(), buffers[i].end(),
                     bytes.begin() + static_cast<long>(ranges[i].start)));
  }
}

TEST_CASE("invalid ranges fail alone; the others are read") {
  StageFixture f;
  std::vector<uint8_t> bytes = testing::RandomBytes(1000, 4);
  absl::StatusOr<DataLocation> location = f.UploadBytes(bytes);
  LAKE_REQUIRE_OK(location);
  DataLocation outside = *MakeDataLocation("file:///etc/passwd", "a/b", 1000, location->sha256);
  std::vector<uint8_t> buf(5 * 1000);
  std::vector<RangeRead> ranges = {
      {&*location, 0, 10, buf.data()},
      {&*location, 10, 10, buf.data() + 1000},       // empty
      {&*location, 990, 1001, buf.data() + 2000},    // out of bounds
      {&outside, 0, 10, buf.data() + 3000},          // not contained
      {&*location, 500, 1000, buf.data() + 4000},
      {nullptr, 0, 1, buf.data()},                   // no location
  };
  f.stage->ReadRanges(absl::MakeSpan(ranges));
  LAKE_CHECK_OK(ranges[0].status);
  CHECK(absl::IsInvalidArgument(ranges[1].status));
  CHECK(absl::IsInvalidArgument(ranges[2].status));
  CHECK(testing::KindOf(ranges[3].status) == IntegrityKind::kInvalidLocation);
  LAKE_CHECK_OK(ranges[4].status);
  CHECK(absl::IsInvalidArgument(ranges[5].status));
  CHECK(std::equal(buf.begin(), buf.begin() + 10, bytes.begin()));
  CHECK(std::equal(buf.begin() + 4000, buf.begin() + 4500, bytes.begin() + 500));
}

TEST_CASE("a range past the end of truncated storage is PrematureEof; a missing object NotFound") {
  StageFixture f;
  std::vector<uint8_t> bytes = testing::RandomBytes(100000, 5);
  absl::StatusOr<DataLocation> cut = f.UploadBytes(bytes);
  absl::StatusOr<DataLocation> gone = f.UploadBytes(bytes);
  LAKE_REQUIRE_OK(cut);
  LAKE_REQUIRE_OK(gone);
  REQUIRE(::truncate(f.PathOf(*cut).c_str(), 50000) == 0);
  REQUIRE(::unlink(f.PathOf(*gone).c_str()) == 0);
  std::vector<uint8_t> buf(3 * 100000);
  std::vector<RangeRead> ranges = {
      {&*cut, 40000, 60000, buf.data()},
      {&*cut, 0, 100, buf.data() + 100000},
      {&*gone, 0, 100, buf.data() + 200000},
  };
  f.stage->ReadRanges(absl::MakeSpan(ranges));
  std::optional<IntegrityDetail> detail = GetIntegrityDetail(ranges[0].status);
  REQUIRE(detail.has_value());
  CHECK(detail->kind == IntegrityKind::kPrematureEof);
  CHECK(detail->expected == 20000);
  CHECK(detail->observed == 10000);
  CHECK(ranges[0].bytes_read == 10000);
  LAKE_CHECK_OK(ranges[1].status);
  CHECK(absl::IsNotFound(ranges[2].status));
}

TEST_CASE("every range of an object that cannot be opened fails with the open's status") {
  StageFixture f;
  std::vector<uint8_t> bytes = testing::RandomBytes(1000, 6);
  absl::StatusOr<DataLocation> gone = f.UploadBytes(bytes);
  absl::StatusOr<DataLocation> kept = f.UploadBytes(bytes);
  LAKE_REQUIRE_OK(gone);
  LAKE_REQUIRE_OK(kept);
  REQUIRE(::unlink(f.PathOf(*gone).c_str()) == 0);
  DataLocation gone_copy = *gone;  // the same object through another pointer
  const uint8_t untouched = 0xA5;
  std::vector<uint8_t> buf(5 * 100, untouched);
  std::vector<RangeRead> ranges = {
      {&*gone, 0, 100, buf.data()},
      {&*gone, 100, 200, buf.data() + 100},  // same pointer as the failed open
      {&*kept, 0, 100, buf.data() + 200},
      {&gone_copy, 0, 100, buf.data() + 300},
      {&gone_copy, 200, 300, buf.data() + 400},
  };
  f.stage->ReadRanges(absl::MakeSpan(ranges));
  for (size_t i : {0, 1, 3, 4}) {
    CAPTURE(i);
    CHECK(absl::IsNotFound(ranges[i].status));
    CHECK(ranges[i].bytes_read == 0);
    CHECK(std::all_of(buf.begin() + static_cast<long>(i) * 100,
                      buf.begin() + static_cast<long>(i + 1) * 100,
                      [&](uint8_t b) { return b == untouched; }));
  }
  LAKE_CHECK_OK(ranges[2].status);
  CHECK(std::equal(buf.begin() + 200, buf.begin() + 300, bytes.begin()));
}

}  // namespace
}  // namespace lake
