// robots.episodes, the table the table crash and lifecycle tests (append,
// drop, retention) work on: an episode id and its video file, in a root
// under a test's temporary directory, beside the backups a fault-injecting
// file system keeps; and a child process SIGKILLed at a failpoint.
#ifndef LAKE_TESTS_SUPPORT_EPISODES_TABLE_H_
#define LAKE_TESTS_SUPPORT_EPISODES_TABLE_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/data_location.h"
#include "io/file_system.h"
#include "io/posix/posix_file_system.h"
#include "schema/table_schema.h"
#include "tests/support/table_fixture.h"
#include "tests/support/test_files.h"

namespace lake::testing {

inline constexpr char kEpisodesTable[] = "robots.episodes";
inline constexpr char kEpisodesInsert[] =
    "INSERT INTO robots.episodes (episode_id, video) VALUES (?, ?)";

table::TableName EpisodesTableName();

// The tables of `root_dir` on `fs`, opened as the writer; the test case
// stops when they cannot be.
std::unique_ptr<TableRoot> OpenTableRootOrStop(io::FileSystem& fs, const std::string& root_dir);

// Creates robots.episodes (episode_id utf8, video file).
void CreateEpisodesTable(TableRoot& root);

// Inserts episode `id` whose video is `video_bytes` random bytes from
// `seed`; the location its video got.
DataLocation InsertEpisode(TableRoot& root, const std::string& id, uint64_t seed,
                           size_t video_bytes = 1000);

// The current version of `table`; the test case stops when it cannot be
// read.
uint64_t CurrentVersion(TableRoot& root, const std::string& table = kEpisodesTable);

// The distinct uris of `locations`, sorted.
std::vector<std::string> Uris(const std::vector<DataLocation>& locations);

// The distinct uris the current version of `table` references, sorted;
// the test case stops when they cannot be read.
std::vector<std::string> CurrentUris(TableRoot& root, const std::string& table = kEpisodesTable);

// A root for crash tests: <dir>/root, <dir>/backups (made) and the real
// file system.
struct CrashTestRoot {
  CrashTestRoot();

  TempDir dir;
  std::string root_dir = dir.Join("root");
  std::string backups = dir.Join("backups");
  io::PosixFileSystem posix;
};

// Forks a child that opens the tables of `root_dir` (on the default file
// system) and runs `write` with failpoint `step` set to kill it; returns
// once the child is reaped, having checked it died of SIGKILL.
void RunKilledAt(std::string_view step, const std::string& root_dir,
                 const std::function<void(TableRoot&)>& write);

}  // namespace lake::testing

#endif  // LAKE_TESTS_SUPPORT_EPISODES_TABLE_H_
