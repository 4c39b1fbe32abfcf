#include "tests/support/episodes_table.h"

#include <doctest/doctest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <variant>
#include <vector>

#include "base/failpoint.h"
#include "tests/support/stage_fixture.h"
#include "tests/support/status_checks.h"

namespace lake::testing {

table::TableName EpisodesTableName() { return *table::ParseTableName(kEpisodesTable); }

std::unique_ptr<TableRoot> OpenTableRootOrStop(io::FileSystem& fs, const std::string& root_dir) {
  absl::StatusOr<std::unique_ptr<TableRoot>> root = TableRoot::Open(fs, root_dir);
  LAKE_REQUIRE_OK(root);
  return std::move(*root);
}

void CreateEpisodesTable(TableRoot& root) {
  table::Schema schema;
  schema.columns = {{"episode_id", table::ColumnType::kUtf8}, {"video", table::ColumnType::kFile}};
  LAKE_REQUIRE_OK(root.tables->CreateTable(EpisodesTableName(), schema));
}

DataLocation InsertEpisode(TableRoot& root, const std::string& id, uint64_t seed,
                           size_t video_bytes) {
  std::vector<uint8_t> bytes = RandomBytes(video_bytes, seed);
  MemorySource source(bytes);
  LAKE_REQUIRE_OK(root.Insert(kEpisodesInsert,
                              {table::CellValue{id}, sql::FileFromSource{&source, "video/mp4"}}));
  absl::StatusOr<std::vector<std::vector<table::CellValue>>> rows = root.Rows(kEpisodesTable);
  LAKE_REQUIRE_OK(rows);
  REQUIRE_FALSE(rows->empty());
  return std::get<DataLocation>(rows->back()[1]);
}

uint64_t CurrentVersion(TableRoot& root, const std::string& table) {
  absl::StatusOr<table::TableName> name = table::ParseTableName(table);
  LAKE_REQUIRE_OK(name);
  absl::StatusOr<registry::TableRecord> record = root.tables->GetTable(*name);
  LAKE_REQUIRE_OK(record);
  return record->current_version;
}

std::vector<std::string> Uris(const std::vector<DataLocation>& locations) {
  std::vector<std::string> uris;
  for (const DataLocation& l : locations) uris.push_back(l.uri);
  std::sort(uris.begin(), uris.end());
  uris.erase(std::unique(uris.begin(), uris.end()), uris.end());
  return uris;
}

std::vector<std::string> CurrentUris(TableRoot& root, const std::string& table) {
  absl::StatusOr<std::vector<DataLocation>> refs = root.CurrentReferences(table);
  LAKE_REQUIRE_OK(refs);
  return Uris(*refs);
}

CrashTestRoot::CrashTestRoot() { std::filesystem::create_directories(backups); }

void RunKilledAt(std::string_view step, const std::string& root_dir,
                 const std::function<void(TableRoot&)>& write) {
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    failpoint::ClearAll();
    failpoint::Set(step, failpoint::Action::kKill);
    absl::StatusOr<io::FileSystem*> fs = io::DefaultFileSystem();
    if (!fs.ok()) ::_exit(10);
    absl::StatusOr<std::unique_ptr<TableRoot>> root = TableRoot::Open(**fs, root_dir);
    if (!root.ok()) ::_exit(11);
    write(**root);
    ::_exit(13);  // the failpoint should have killed it
  }
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  INFO("the child's exit code (10, 11: it could not open the root; 13: it was not killed): ",
       WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  REQUIRE(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGKILL);
}

}  // namespace lake::testing
