// Experiments: create, get, list, delete, names, and the descriptor format.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "engine/events/experiment_store.h"
#include "io/posix/posix_file_system.h"
#include "tests/support/status_checks.h"
#include "tests/support/test_files.h"

namespace lake::events {
namespace {

TEST_CASE("an experiment is created once, then found, listed and described") {
  testing::TempDir dir;
  io::PosixFileSystem fs;
  ExperimentStore store(fs, dir.path());
  absl::StatusOr<ExperimentInfo> made = store.Create("robots", "run-1");
  LAKE_REQUIRE_OK(made);
  CHECK(made->pipeline == "robots");
  CHECK(made->created_unix_micros > 0);
  CHECK(absl::IsAlreadyExists(store.Create("robots", "run-1").status()));
  absl::StatusOr<ExperimentInfo> got = store.Get("robots", "run-1");
  LAKE_REQUIRE_OK(got);
  CHECK(*got == *made);
  LAKE_REQUIRE_OK(store.Create("robots", "run-0"));
  LAKE_REQUIRE_OK(store.Create("arms", "a"));
  absl::StatusOr<std::vector<ExperimentInfo>> all = store.List(std::nullopt);
  LAKE_REQUIRE_OK(all);
  REQUIRE(all->size() == 3);
  CHECK((*all)[0].pipeline == "arms");
  CHECK((*all)[1].experiment == "run-0");
  CHECK((*all)[2].experiment == "run-1");
  absl::StatusOr<std::vector<ExperimentInfo>> robots = store.List("robots");
  LAKE_REQUIRE_OK(robots);
  CHECK(robots->size() == 2);
  absl::StatusOr<std::vector<ExperimentInfo>> none = store.List("nothing");
  LAKE_REQUIRE_OK(none);
  CHECK(none->empty());
}

TEST_CASE("a deleted experiment is gone with its log, and its name can be reused") {
  testing::TempDir dir;
  io::PosixFileSystem fs;
  ExperimentStore store(fs, dir.path());
  LAKE_REQUIRE_OK(store.Create("p", "x"));
  std::filesystem::create_directories(store.ShardsDir("p", "x") + "/s1");
  std::ofstream(store.ShardsDir("p", "x") + "/s1/segment") << "bytes";
  LAKE_REQUIRE_OK(store.Delete("p", "x"));
  CHECK(absl::IsNotFound(store.Get("p", "x").status()));
  CHECK(absl::IsNotFound(store.Delete("p", "x")));
  CHECK_FALSE(std::filesystem::exists(store.ExperimentDir("p", "x")));
  CHECK(std::filesystem::is_empty(dir.path() + "/datagen/p"));
  // A deletion a crash interrupted left its hidden copy: the next one
  // removes it too.
  LAKE_REQUIRE_OK(store.Create("p", "y"));
  std::filesystem::create_directories(dir.path() + "/datagen/p/.deleted-crashed/shards");
  LAKE_REQUIRE_OK(store.Delete("p", "y"));
  CHECK(std::filesystem::is_empty(dir.path() + "/datagen/p"));
  LAKE_REQUIRE_OK(store.Create("p", "x"));
  absl::StatusOr<std::vector<ExperimentInfo>> all = store.List(std::nullopt);
  LAKE_REQUIRE_OK(all);
  CHECK(all->size() == 1);
}

TEST_CASE("an unfinished create is invisible and completed by the next create") {
  testing::TempDir dir;
  io::PosixFileSystem fs;
  ExperimentStore store(fs, dir.path());
  std::filesystem::create_directories(store.ExperimentDir("p", "half"));
  CHECK(absl::IsNotFound(store.Get("p", "half").status()));
  absl::StatusOr<std::vector<ExperimentInfo>> all = store.List(std::nullopt);
  LAKE_REQUIRE_OK(all);
  CHECK(all->empty());
  LAKE_REQUIRE_OK(store.Create("p", "half"));
  LAKE_CHECK_OK(store.Get("p", "half"));
}

TEST_CASE("names are 1..128 bytes of [A-Za-z0-9._-] not starting with a dot") {
  testing::TempDir dir;
  io::PosixFileSystem fs;
  ExperimentStore store(fs, dir.path());
  for (std::string bad : {std::string(), std::string("."), std::string(".."), std::string(".x"),
                          std::string("a/b"), std::string("a b"), std::string(129, 'a'),
                          std::string("\xc3\xa9")}) {
    CAPTURE(bad);
    CHECK(absl::IsInvalidArgument(store.Create(bad, "x").status()));
    CHECK(absl::IsInvalidArgument(store.Create("p", bad).status()));
    CHECK(absl::IsInvalidArgument(store.Get("p", bad).status()));
  }
  LAKE_CHECK_OK(store.Create(std::string(128, 'a'), "A.b_c-9"));
}

TEST_CASE("the descriptor round-trips and a damaged one is data loss") {
  ExperimentInfo info{"p", "x", 123};
  std::string bytes = EncodeExperimentDescriptor(info);
  CHECK(bytes == R"({"format":1,"pipeline":"p","experiment":"x","created_unix_micros":123})");
  absl::StatusOr<ExperimentInfo> back = DecodeExperimentDescriptor(bytes);
  LAKE_REQUIRE_OK(back);
  CHECK(*back == info);
  for (std::string bad : {std::string("{"), std::string("[]"),
                          std::string(R"({"format":2,"pipeline":"p","experiment":"x","created_unix_micros":1})"),
                          std::string(R"({"format":1,"pipeline":"../p","experiment":"x","created_unix_micros":1})"),
                          std::string(R"({"format":1,"pipeline":"p","experiment":"x"})")}) {
    CAPTURE(bad);
    CHECK(absl::IsDataLoss(DecodeExperimentDescriptor(bad).status()));
  }
  testing::TempDir dir;
  io::PosixFileSystem fs;
  ExperimentStore store(fs, dir.path());
  LAKE_REQUIRE_OK(store.Create("p", "x"));
  std::ofstream(store.ExperimentDir("p", "x") + "/experiment", std::ios::trunc) << "garbage";
  CHECK(absl::IsDataLoss(store.Get("p", "x").status()));
  CHECK(absl::IsDataLoss(store.List(std::nullopt).status()));
}

}  // namespace
}  // namespace lake::events
