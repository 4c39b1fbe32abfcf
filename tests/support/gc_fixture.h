// A lake root for garbage-collection tests: a local stage under
// <root>/stage, the registry and the table store (TableRoot), the root's
// identity and owner marker, and helpers to make objects, references,
// orphans and old modification times.
#ifndef LAKE_TESTS_SUPPORT_GC_FIXTURE_H_
#define LAKE_TESTS_SUPPORT_GC_FIXTURE_H_

#include <functional>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "engine/gc/gc_root.h"
#include "engine/gc/plan_writer.h"
#include "io/file_system.h"
#include "tests/support/table_fixture.h"
#include "tests/support/test_files.h"

namespace lake::testing {

// Every regular file under `root_dir` a collection may delete (the stage's
// objects and the tables' files), as paths beginning with `root_dir`.
std::set<std::string> CollectableFiles(const std::string& root_dir);

class GcTestRoot {
 public:
  // A new root in a fresh directory, on `fs` (the default file system when
  // null). `dir` (when not empty) is used instead of a fresh one. Its table
  // store is opened with `options` (each time it is opened).
  explicit GcTestRoot(io::FileSystem* fs = nullptr, const std::string& dir = "",
                      table::TableStoreOptions options = DefaultTableStoreOptions());
  ~GcTestRoot();

  const std::string& root_dir() const { return root_dir_; }
  io::FileSystem& fs() { return fs_; }
  TableRoot& tables() { return *tables_; }
  const std::string& root_id() const { return root_id_; }
  gc::GcRoot View();
  // Closes the registry and stage (a crash or another process's turn).
  void Close();
  void Reopen();

  // A fresh object of `n` random bytes.
  DataLocation Put(size_t n = 100, uint64_t seed = 0);
  // "ns.t" with columns (id utf8, f file).
  void CreateTable(const std::string& name);
  // One row (id, location) appended to `table`: its new version.
  uint64_t InsertLocation(const std::string& table, const std::string& id,
                          const DataLocation& location);
  // Sets the modification time of every file under the stage's objects and
  // the table directories to `age` ago.
  void AgeEverything(absl::Duration age);
  bool Exists(const DataLocation& location);
  bool FileExists(const std::string& uri);

  // A plan with cutoff zero (allowed), unless options say otherwise.
  absl::StatusOr<gc::PlanSummary> Plan(gc::PlanOptions options = ShortCutoff());
  static gc::PlanOptions ShortCutoff();
  // Every candidate URI of a published plan, in order.
  std::vector<std::string> PlannedUris(const std::string& plan_id);

 private:
  std::unique_ptr<TempDir> owned_dir_;
  std::string root_dir_;
  io::FileSystem& fs_;
  const table::TableStoreOptions options_;
  std::unique_ptr<TableRoot> tables_;
  std::string root_id_;
  uint64_t next_seed_ = 1000;
};

// Runs `operation` (a write to a table of `root`) while a whole collection
// of `root` runs: when the operation reaches the failpoint `step`, a plan
// with cutoff zero and then its apply start on a thread of their own. Waits
// for both and returns the collection's status (it may refuse a root that
// changed under it). Every failpoint is cleared before and after; throws
// when the operation never reached `step`. Needs a build with failpoints.
absl::Status CollectAtStep(GcTestRoot& root, std::string_view step,
                           const std::function<void()>& operation);

// The path of a file:// URI.
std::string PathOfFileUri(const std::string& uri);

}  // namespace lake::testing

#endif  // LAKE_TESTS_SUPPORT_GC_FIXTURE_H_
