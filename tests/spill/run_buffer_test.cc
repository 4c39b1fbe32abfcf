// RunBuffer (spill/run_buffer.h): the run being built holds exactly what
// its budgeted buffer has room for, and sorts it bytewise however the
// records share their prefixes.
#include <doctest/doctest.h>

#include <random>
#include <set>
#include <string>
#include <vector>

#include "spill/run_buffer.h"
#include "tests/support/status_checks.h"

namespace lake::spill {
namespace {

std::vector<std::string> SortedOut(RunBuffer& buffer) {
  buffer.Sort();
  std::unique_ptr<RecordSource> records = buffer.SortedRecords();
  std::vector<std::string> out;
  for (;;) {
    absl::StatusOr<bool> more = records->Next();
    REQUIRE_MESSAGE(more.ok(), more.status().ToString());
    if (!*more) return out;
    out.emplace_back(records->record());
  }
}

std::vector<std::string> Sorted(const std::vector<std::string>& records) {
  std::set<std::string> set(records.begin(), records.end());
  return {set.begin(), set.end()};
}

TEST_CASE("the run buffer sorts bytewise however long the records' shared prefixes") {
  std::mt19937_64 rng(11);
  const std::string common = "s3://bucket/stage/objects/";
  std::vector<std::string> records;
  // Groups tied for 8, 16, ... 200 bytes past the common prefix, so every
  // level of keys and the bytewise finish are used; lengths and bytes vary.
  for (size_t tie : {0, 3, 8, 13, 16, 40, 64, 65, 72, 200}) {
    const std::string shared = common + std::string(tie, static_cast<char>('a' + tie % 26));
    for (int i = 0; i < 300; ++i) {
      std::string r = shared;
      for (size_t n = rng() % 12; n > 0; --n) r.push_back(static_cast<char>(rng()));
      records.push_back(r);
      if (i % 50 == 0) records.push_back(r);  // duplicates
    }
  }
  // Records that differ only by trailing zero bytes, and ones that end
  // where others go on: the zero padding of the keys must not tie them.
  for (const std::string& r : {common + "ab", common + std::string("ab\0", 3),
                               common + std::string("ab\0\0", 4), common + "a",
                               common + std::string("a\xff", 2), common}) {
    records.push_back(r);
  }
  std::shuffle(records.begin(), records.end(), rng);
  SpillBudget budget(1 << 20);
  absl::StatusOr<RunBuffer> buffer = RunBuffer::Create(budget, 1 << 20);
  LAKE_REQUIRE_OK(buffer);
  for (const std::string& r : records) REQUIRE(buffer->Add(r));
  CHECK(SortedOut(*buffer) == Sorted(records));
}

TEST_CASE("the run buffer sorts records with no prefix in common, the empty one first") {
  std::mt19937_64 rng(12);
  std::vector<std::string> records = {""};
  for (int i = 0; i < 5000; ++i) {
    std::string r(rng() % 24, '\0');
    for (char& c : r) c = static_cast<char>(rng() % 4);  // few values: many ties
    records.push_back(r);
  }
  SpillBudget budget(1 << 20);
  absl::StatusOr<RunBuffer> buffer = RunBuffer::Create(budget, 1 << 20);
  LAKE_REQUIRE_OK(buffer);
  for (const std::string& r : records) REQUIRE(buffer->Add(r));
  CHECK(SortedOut(*buffer) == Sorted(records));
}

TEST_CASE("a run buffer holds records and their entries up to its size, and no more") {
  SpillBudget budget(1 << 20);
  const size_t bytes = 10 * RunBuffer::Cost(84);
  absl::StatusOr<RunBuffer> buffer = RunBuffer::Create(budget, bytes);
  LAKE_REQUIRE_OK(buffer);
  CHECK(budget.in_use() == bytes);
  std::vector<std::string> records;
  for (int i = 0; i < 10; ++i) {
    records.push_back(std::string(84, static_cast<char>('j' - i)));
    CHECK(buffer->Add(records.back()));
  }
  // Even an empty record needs room for its entry.
  CHECK_FALSE(buffer->Add(""));
  CHECK(buffer->records() == 10);
  CHECK(SortedOut(*buffer) == Sorted(records));
  buffer->Clear();
  CHECK(buffer->Add(std::string(84, 'q')));
}

}  // namespace
}  // namespace lake::spill
