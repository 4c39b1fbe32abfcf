// SpillSorter (spill/spill_sorter.h): sorted, collapsed output in bounded
// memory, merged in passes when there are more runs than the fan-in, and
// a spill directory that never outlives the sort.
#include <doctest/doctest.h>

#include <random>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "base/failpoint.h"
#include "io/posix/posix_file_system.h"
#include "spill/run_format.h"
#include "spill/spill_sorter.h"
#include "tests/support/status_checks.h"
#include "tests/support/test_files.h"

namespace lake::spill {
namespace {

constexpr size_t kBlock = kMinBlockBytes;

// Records like garbage collection's ("uri\0kind"), repeating: `n` records
// drawn from `distinct` values, with binary bytes (>= 0x80, \0) in them.
std::vector<std::string> Records(size_t n, size_t distinct, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::string> records;
  records.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    uint64_t v = rng() % distinct;
    std::string r = "s3://bucket/tenant/" + std::to_string(v % 97) + "/obj-" + std::to_string(v);
    r.push_back('\0');
    r.push_back(static_cast<char>(0x80 + v % 3));
    r += "kind";
    records.push_back(std::move(r));
  }
  return records;
}

std::vector<std::string> SortedDistinct(const std::vector<std::string>& records) {
  std::set<std::string> set(records.begin(), records.end());
  return {set.begin(), set.end()};
}

std::vector<std::string> ReadAll(SortedRecords& sorted) {
  std::vector<std::string> out;
  for (;;) {
    absl::StatusOr<bool> more = sorted.Next();
    REQUIRE_MESSAGE(more.ok(), more.status().ToString());
    if (!*more) return out;
    out.emplace_back(sorted.record());
  }
}

struct Sort {
  testing::TempDir dir;
  io::PosixFileSystem fs;
  std::string tmp = dir.Join("gc/tmp");
  std::string spill_dir = SpillDirectoryPath(tmp, "0190a8f0-0000-7000-8000-000000000001");

  std::unique_ptr<SpillSorter> Start(SpillBudget& budget, SpillOptions options) {
    absl::StatusOr<std::unique_ptr<SpillSorter>> sorter =
        SpillSorter::Create(fs, spill_dir, budget, options);
    REQUIRE_MESSAGE(sorter.ok(), sorter.status().ToString());
    return *std::move(sorter);
  }
  std::unique_ptr<SortedRecords> Finish(SpillSorter& sorter) {
    absl::StatusOr<std::unique_ptr<SortedRecords>> sorted = sorter.Finish();
    REQUIRE_MESSAGE(sorted.ok(), sorted.status().ToString());
    return *std::move(sorted);
  }
  // What is left in gc/tmp: nothing once a sort is over.
  std::vector<std::string> Leftovers() {
    absl::StatusOr<std::vector<std::string>> names = fs.ListDirectory(tmp);
    REQUIRE_MESSAGE(names.ok(), names.status().ToString());
    return *names;
  }
};

SpillOptions SmallBlocks(size_t max_fan_in = 128) {
  SpillOptions options;
  options.block_bytes = kBlock;
  options.max_fan_in = max_fan_in;
  return options;
}

TEST_CASE("records come out in ascending bytewise order") {
  Sort sort;
  SpillBudget budget(512 << 10);
  std::unique_ptr<SpillSorter> sorter = sort.Start(budget, SmallBlocks());
  std::vector<std::string> records = Records(40000, 1 << 30, 1);
  for (const std::string& r : records) LAKE_REQUIRE_OK(sorter->Add(r));
  CHECK(sorter->stats().runs_written >= 2);
  std::unique_ptr<SortedRecords> sorted = sort.Finish(*sorter);
  CHECK(ReadAll(*sorted) == SortedDistinct(records));
}

TEST_CASE("equal records are collapsed within a run and across runs") {
  Sort sort;
  SpillBudget budget(512 << 10);
  std::unique_ptr<SpillSorter> sorter = sort.Start(budget, SmallBlocks());
  // 500 values, each many times in every run.
  std::vector<std::string> records = Records(60000, 500, 2);
  for (const std::string& r : records) LAKE_REQUIRE_OK(sorter->Add(r));
  REQUIRE(sorter->stats().runs_written >= 2);
  std::unique_ptr<SortedRecords> sorted = sort.Finish(*sorter);
  std::vector<std::string> out = ReadAll(*sorted);
  CHECK(out.size() == 500);
  CHECK(out == SortedDistinct(records));
}

TEST_CASE("more runs than the fan-in are merged in several passes") {
  Sort sort;
  SpillBudget budget(512 << 10);
  std::unique_ptr<SpillSorter> sorter = sort.Start(budget, SmallBlocks(/*max_fan_in=*/3));
  std::vector<std::string> records = Records(100000, 1 << 30, 3);
  for (const std::string& r : records) LAKE_REQUIRE_OK(sorter->Add(r));
  REQUIRE(sorter->stats().runs_written >= 8);
  std::unique_ptr<SortedRecords> sorted = sort.Finish(*sorter);
  CHECK(sorter->stats().merge_passes >= 3);
  CHECK(sorter->stats().final_fan_in == 3);
  CHECK(ReadAll(*sorted) == SortedDistinct(records));
}

TEST_CASE("memory stays within the budget with data many times larger than it") {
  Sort sort;
  const uint64_t limit = 1 << 20;
  SpillBudget budget(limit);
  std::unique_ptr<SpillSorter> sorter = sort.Start(budget, SmallBlocks(/*max_fan_in=*/8));
  // 16 MiB of distinct records through 1 MiB: runs, merge passes and the
  // last merge. (Multiplying by an odd number is a bijection: distinct.)
  uint64_t added = 0;
  for (uint64_t i = 0; added < 16 * limit; ++i) {
    std::string r = "s3://bucket/tenant/" + std::to_string(i % 97) + "/obj-" +
                    std::to_string(i * 0x9E3779B97F4A7C15ull);
    LAKE_REQUIRE_OK(sorter->Add(r));
    added += r.size();
  }
  std::unique_ptr<SortedRecords> sorted = sort.Finish(*sorter);
  uint64_t out = 0;
  std::string last;
  for (;;) {
    absl::StatusOr<bool> more = sorted->Next();
    LAKE_REQUIRE_OK(more);
    if (!*more) break;
    REQUIRE((out == 0 || sorted->record() > last));
    last = sorted->record();
    ++out;
  }
  CHECK(out == sorter->stats().records_added);
  CHECK(sorter->stats().runs_written >= 16);
  CHECK(sorter->stats().merge_passes >= 1);
  CHECK(budget.peak() <= limit);
  CHECK(budget.peak() >= limit * 3 / 4);  // the run buffer is charged
  CHECK(budget.in_use() == 0);
}

TEST_CASE("a sort that fits in memory writes no run") {
  Sort sort;
  SpillBudget budget(1 << 20);
  std::unique_ptr<SpillSorter> sorter = sort.Start(budget, SmallBlocks());
  std::vector<std::string> records = Records(1000, 300, 4);
  for (const std::string& r : records) LAKE_REQUIRE_OK(sorter->Add(r));
  std::unique_ptr<SortedRecords> sorted = sort.Finish(*sorter);
  CHECK(sorter->stats().runs_written == 0);
  CHECK(testing::FilesUnder(sort.spill_dir).empty());
  CHECK(ReadAll(*sorted) == SortedDistinct(records));
}

TEST_CASE("an empty input gives no records") {
  Sort sort;
  SpillBudget budget(1 << 20);
  std::unique_ptr<SpillSorter> sorter = sort.Start(budget, SmallBlocks());
  std::unique_ptr<SortedRecords> sorted = sort.Finish(*sorter);
  CHECK(ReadAll(*sorted).empty());
  CHECK(sort.Leftovers().empty());
  CHECK(budget.in_use() == 0);
}

TEST_CASE("a record longer than a block holds is refused and the sort goes on") {
  Sort sort;
  SpillBudget budget(1 << 20);
  std::unique_ptr<SpillSorter> sorter = sort.Start(budget, SmallBlocks());
  std::string longest(MaxRecordBytes(kBlock), 'z');
  absl::Status refused = sorter->Add(longest + "z");
  CHECK(absl::IsInvalidArgument(refused));
  CHECK(absl::StrContains(refused.message(), "longer than"));
  LAKE_REQUIRE_OK(sorter->Add(longest));
  LAKE_REQUIRE_OK(sorter->Add("a"));
  std::unique_ptr<SortedRecords> sorted = sort.Finish(*sorter);
  CHECK(ReadAll(*sorted) == std::vector<std::string>{"a", longest});
}

TEST_CASE("a budget too small for a sort is refused before anything is made") {
  Sort sort;
  SpillBudget budget(SpillSorter::MinimumBudget(SmallBlocks()) - 1);
  absl::StatusOr<std::unique_ptr<SpillSorter>> sorter =
      SpillSorter::Create(sort.fs, sort.spill_dir, budget, SmallBlocks());
  CHECK(absl::IsInvalidArgument(sorter.status()));
  CHECK_FALSE(testing::PathExists(sort.tmp));
}

TEST_CASE("the spill directory is removed once the records have been read") {
  Sort sort;
  SpillBudget budget(512 << 10);
  std::unique_ptr<SpillSorter> sorter = sort.Start(budget, SmallBlocks());
  for (const std::string& r : Records(40000, 1 << 30, 5)) LAKE_REQUIRE_OK(sorter->Add(r));
  CHECK(testing::FilesUnder(sort.spill_dir).size() >= 2);
  std::unique_ptr<SortedRecords> sorted = sort.Finish(*sorter);
  ReadAll(*sorted);
  // Before the stream is destroyed: the end of the records is the end.
  CHECK(sort.Leftovers().empty());
  CHECK(budget.in_use() == 0);
}

TEST_CASE("the spill directory is removed when the stream is dropped early") {
  Sort sort;
  SpillBudget budget(512 << 10);
  std::unique_ptr<SpillSorter> sorter = sort.Start(budget, SmallBlocks());
  for (const std::string& r : Records(40000, 1 << 30, 6)) LAKE_REQUIRE_OK(sorter->Add(r));
  std::unique_ptr<SortedRecords> sorted = sort.Finish(*sorter);
  LAKE_REQUIRE_OK(sorted->Next());
  CHECK_FALSE(sort.Leftovers().empty());
  sorted.reset();
  CHECK(sort.Leftovers().empty());
}

TEST_CASE("a merge pass that fails removes the spill directory before the error returns") {
  REQUIRE(failpoint::Enabled());
  Sort sort;
  SpillBudget budget(512 << 10);
  std::unique_ptr<SpillSorter> sorter = sort.Start(budget, SmallBlocks(/*max_fan_in=*/2));
  for (const std::string& r : Records(40000, 1 << 30, 7)) LAKE_REQUIRE_OK(sorter->Add(r));
  REQUIRE(sorter->stats().runs_written >= 3);
  failpoint::Set("spill.merge_pass_written", failpoint::Action::kError);
  absl::StatusOr<std::unique_ptr<SortedRecords>> sorted = sorter->Finish();
  failpoint::ClearAll();
  CHECK(absl::IsUnavailable(sorted.status()));
  CHECK(sort.Leftovers().empty());
  CHECK(budget.in_use() == 0);
  // The sorter stays failed.
  CHECK(absl::IsUnavailable(sorter->Add("more")));
}

TEST_CASE("a damaged run fails the merge with data loss and removes the spill directory") {
  Sort sort;
  SpillBudget budget(512 << 10);
  std::unique_ptr<SpillSorter> sorter = sort.Start(budget, SmallBlocks());
  for (const std::string& r : Records(40000, 1 << 30, 8)) LAKE_REQUIRE_OK(sorter->Add(r));
  std::vector<std::string> runs = testing::FilesUnder(sort.spill_dir);
  REQUIRE(runs.size() >= 2);
  std::string run = sort.spill_dir + "/" + runs[0];
  std::vector<uint8_t> bytes = testing::ReadFile(run);
  bytes[bytes.size() / 2] ^= 0x01;
  testing::WriteFile(run, bytes);
  std::unique_ptr<SortedRecords> sorted = sort.Finish(*sorter);
  absl::Status failure;
  for (;;) {
    absl::StatusOr<bool> more = sorted->Next();
    if (!more.ok()) {
      failure = more.status();
      break;
    }
    REQUIRE(*more);  // the damage must be found before the end
  }
  CHECK_MESSAGE(absl::IsDataLoss(failure), failure.ToString());
  CHECK(sort.Leftovers().empty());
}

}  // namespace
}  // namespace lake::spill
