// A lake root with tables for tests: a local stage under <root>/stage, the
// registry, and a TableStore, on a file system the test chooses.
#ifndef LAKE_TESTS_SUPPORT_TABLE_FIXTURE_H_
#define LAKE_TESTS_SUPPORT_TABLE_FIXTURE_H_

#include <array>
#include <ios>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/managed_stage.h"
#include "engine/sql/prepared_statement.h"
#include "engine/table/table_store.h"
#include "io/file_system.h"
#include "registry/registry.h"

namespace lake::testing {

// The options TableRoot::Open gives every TableStore it opens. A test
// that runs a suite on one layout of versions sets them
// (ScopedVersionLayout); a forked child inherits them.
table::TableStoreOptions& DefaultTableStoreOptions();

// Where a TableStore writes a version's fragment, reference delta and
// manifest (TableStoreOptions::versions_in_table_log): records of the
// table log (the default), or files of their own (lakes before the table
// log, which stay readable and writable).
enum class VersionLayout { kTableLog, kFiles };
inline constexpr std::array<VersionLayout, 2> kVersionLayouts = {VersionLayout::kTableLog,
                                                                 VersionLayout::kFiles};
std::string_view VersionLayoutName(VersionLayout layout);

// Sets DefaultTableStoreOptions' layout for its lifetime.
class ScopedVersionLayout {
 public:
  explicit ScopedVersionLayout(VersionLayout layout)
      : was_(DefaultTableStoreOptions().versions_in_table_log) {
    DefaultTableStoreOptions().versions_in_table_log = layout == VersionLayout::kTableLog;
  }
  ~ScopedVersionLayout() { DefaultTableStoreOptions().versions_in_table_log = was_; }
  ScopedVersionLayout(const ScopedVersionLayout&) = delete;
  ScopedVersionLayout& operator=(const ScopedVersionLayout&) = delete;

 private:
  bool was_;
};
// Versions in the table log whatever the default is.
class ScopedVersionsInTableLog : public ScopedVersionLayout {
 public:
  ScopedVersionsInTableLog() : ScopedVersionLayout(VersionLayout::kTableLog) {}
};
// Versions as files of their own, as lakes before the table log wrote
// them: for tests of that layout (old tables stay readable).
class ScopedVersionsAsFiles : public ScopedVersionLayout {
 public:
  ScopedVersionsAsFiles() : ScopedVersionLayout(VersionLayout::kFiles) {}
};

// Appends committing one at a time, each through its own sync, for its
// lifetime (TableStoreOptions::group_commit off): for tests of what a
// crash between an append's checkpoint and its commit leaves, which group
// commit leaves only after a restart (a later writer commits a queued
// append whose writer was killed).
class ScopedGroupCommitOff {
 public:
  ScopedGroupCommitOff() : was_(DefaultTableStoreOptions().group_commit) {
    DefaultTableStoreOptions().group_commit = false;
  }
  ~ScopedGroupCommitOff() { DefaultTableStoreOptions().group_commit = was_; }
  ScopedGroupCommitOff(const ScopedGroupCommitOff&) = delete;
  ScopedGroupCommitOff& operator=(const ScopedGroupCommitOff&) = delete;

 private:
  bool was_;
};

// The tables of the root `root_dir`, opened as the writer. Everything is
// closed (and the writer lock released) when it is destroyed.
struct TableRoot {
  static absl::StatusOr<std::unique_ptr<TableRoot>> Open(
      io::FileSystem& fs, const std::string& root_dir,
      table::TableStoreOptions options = DefaultTableStoreOptions(),
      registry::RegistryOptions registry_options = {});
  std::unique_ptr<ManagedStage> stage;
  std::unique_ptr<registry::Registry> registry;
  std::unique_ptr<table::TableStore> tables;

  // Prepares `sql` and binds `params` (1-based in order), then inserts.
  absl::StatusOr<table::AppendOutcome> Insert(const std::string& sql,
                                              std::vector<sql::StatementParameter> params);
  // Prepares the DELETE `sql`, binds `params` (1-based in order) and runs it.
  absl::StatusOr<table::DeleteOutcome> Delete(const std::string& sql,
                                              std::vector<table::CellValue> params = {});
  // Prepares the replace-where `sql`, binds `params` (1-based in order)
  // and runs it.
  absl::StatusOr<table::ReplaceOutcome> Replace(const std::string& sql,
                                                std::vector<sql::StatementParameter> params);
  // Every row of `table` at `version` (current when nullopt), as cells.
  absl::StatusOr<std::vector<std::vector<table::CellValue>>> Rows(
      const std::string& table, std::optional<uint64_t> version = std::nullopt);
  // Runs a SELECT with `params` and returns its rows.
  absl::StatusOr<std::vector<std::vector<table::CellValue>>> Query(
      const std::string& sql, std::vector<table::CellValue> params = {},
      const sql::QueryOptions& options = {});
  // Every object the stage holds.
  std::vector<std::string> StageObjects();
  // Every reference the table's lineage holds (EnumerateReferences).
  absl::StatusOr<std::vector<DataLocation>> References(const std::string& table);
  // The references of the table's current version (CurrentReferences).
  absl::StatusOr<std::vector<DataLocation>> CurrentReferences(const std::string& table);
};

// Creates robots.episodes (episode_id utf8, n int64, video file) in `root`
// holding e1..e6 (n = 1..6) in two fragments — versions 1 (e1..e3) and 2
// (e4..e6) — each row with a 300-byte video of its own (seeded by n).
// Returns the videos in row order.
absl::StatusOr<std::vector<DataLocation>> CreateSixEpisodes(TableRoot& root);

// The table path of `version`'s manifest of `table` ("ns.t"), as the
// registry records it: a table log address, or a file of an older version.
std::string ManifestPathOf(TableRoot& root, const std::string& table, uint64_t version);

// `version`'s manifest of `table` ("ns.t") resolved through its chain, as
// a reader sees it: its full fragment list and its reference delta's path.
table::Manifest ManifestOf(TableRoot& root, const std::string& table, uint64_t version);

// Where the bytes a table path names lie on disk: the payload of a table
// log record inside its segment, or a whole file.
struct TablePathBytes {
  std::string file;     // absolute
  uint64_t offset = 0;  // of the first byte inside `file`
  uint64_t size = 0;
};
TablePathBytes LocateTablePath(const std::string& table_dir, const std::string& path);
// The bytes LocateTablePath locates, read back.
std::string ReadTablePathBytes(const std::string& table_dir, const std::string& path);
// Overwrites one byte of what `at` locates, `offset` bytes from its start
// (std::ios::beg) or its end (std::ios::end): a record's checksum or a
// file's digest no longer holds.
void DamageTableByte(const TablePathBytes& at, std::streamoff offset, std::ios::seekdir whence);

// The stage identity a root at `root_dir` records (its local descriptor).
std::string LocalStageIdentity(const std::string& root_dir);

// The files under the checkpoints directory `dir` other than the spares
// removed checkpoints become (AppendCheckpointStore): every pending
// checkpoint and every other temporary.
std::vector<std::string> CheckpointFilesExceptSpares(const std::string& dir);

}  // namespace lake::testing

#endif  // LAKE_TESTS_SUPPORT_TABLE_FIXTURE_H_
