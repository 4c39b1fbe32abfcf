// A statement of the SQL subset prepared against one table of a root: its
// parameters bound one by one, then executed — an INSERT through the
// append path (table_store.h), a SELECT as a stream of batches, a DELETE
// as a new version without the rows its WHERE matches
// (TableStore::Delete; the WHERE's meaning is a SELECT's), a
// replace-where as a DELETE and an INSERT in one new version
// (TableStore::ReplaceWhere: its FILE values uploaded as an INSERT's, its
// base the version read before them, a commit in between a conflict), and
// DROP TABLE / ALTER TABLE through the table store's own operations
// (DropTable, TagVersion, UntagVersion, Expire).
//
// Order of an INSERT's execution (ARCHITECTURE.md, durability rule 2):
//   1. prepare: parse, look the table up, bind names and types;
//   2. bind: each parameter is checked against its column's type when it
//      is bound (text is parsed by that type, cell_text.h);
//   3. execute: every placeholder bound, then every FILE path opened and
//      every existing DataLocation checked (containment and stored size),
//      then each FILE uploaded (streaming, hashed; its key leased from
//      before its first byte until the append returns), then — under the
//      root's shared GC lock, engine/gc/gc_locks.h — every existing
//      DataLocation checked again and the rows appended. Any failure
//      before the append leaves the table's version unchanged; objects
//      uploaded by then stay unreferenced (for GC).
//
// A statement runs any number of times; each binding stays until it is
// bound again, except a FILE bound to a caller's source: the first upload
// reads the source to its end, so that binding is cleared once the upload
// starts (a run without binding it again is refused as not bound).
//
// Thread safety: a statement is used by one thread at a time.
#ifndef LAKE_ENGINE_SQL_PREPARED_STATEMENT_H_
#define LAKE_ENGINE_SQL_PREPARED_STATEMENT_H_

#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/managed_object_store.h"
#include "engine/sql/row_sorter.h"
#include "engine/sql/sql_binding.h"
#include "engine/sql/sql_statement.h"
#include "engine/table/table_store.h"
#include "engine/upload_source.h"

namespace lake::gc {
class GcHold;
}  // namespace lake::gc

namespace lake::sql {

// A FILE parameter uploaded from a local path.
struct FileFromPath {
  std::string path;
  std::string content_type;  // empty: application/octet-stream
};
// A FILE parameter uploaded from a caller's source, which must outlive the
// execution.
struct FileFromSource {
  UploadSource* source = nullptr;
  std::string content_type;
};
// Text parsed by the target column's type (cell_text.h).
struct ParameterText {
  std::string text;
};
// What may be bound to a placeholder. A table::CellValue holding a
// DataLocation is an existing object of the stage (nothing is uploaded).
using StatementParameter = std::variant<table::CellValue, ParameterText, FileFromPath,
                                        FileFromSource>;

// What a DROP TABLE or ALTER TABLE did: `version` is the table's version
// (the one tagged for CREATE TAG, the last one for DROP TABLE), `count` the
// versions an EXPIRE VERSIONS retired (0 for the others).
struct TableChangeOutcome {
  uint64_t version = 0;
  uint64_t count = 0;
};

// How a SELECT runs (the defaults suit every caller; tests shrink them).
struct QueryOptions {
  RowSorterOptions sort;
};

// The rows of a SELECT, batch by batch.
class QueryResult {
 public:
  virtual ~QueryResult() = default;
  virtual const table::Schema& schema() const = 0;
  // The version read.
  virtual uint64_t version() const = 0;
  // The next non-empty batch; nullopt at the end.
  virtual absl::StatusOr<std::optional<table::ColumnBatch>> Next() = 0;
  // The fragment files read so far: those the WHERE ruled out by their
  // statistics are not (table::TableScan::fragments_opened).
  virtual size_t fragments_opened() const = 0;
};

class PreparedStatement {
 public:
  // Parses `sql` and binds it to its table's current schema. NotFound
  // when the table does not exist.
  static absl::StatusOr<std::unique_ptr<PreparedStatement>> Prepare(table::TableStore& tables,
                                                                    std::string_view sql);

  bool is_insert() const { return kind_ == Kind::kInsert; }
  bool is_delete() const { return kind_ == Kind::kDelete; }
  bool is_replace() const { return kind_ == Kind::kReplace; }
  bool is_table_change() const { return kind_ == Kind::kTableChange; }
  size_t parameter_count() const { return slots_.size(); }
  // The column type placeholder `index` (1-based) takes.
  table::ColumnType ParameterType(size_t index) const;

  // Binds placeholder `index` (1-based). InvalidArgument when the index is
  // out of range or the value does not fit the column (a FILE source for a
  // non-FILE column, a value of another type, text that does not parse).
  absl::Status Bind(size_t index, StatementParameter value);
  // Bind(index, CellValue(location)), without building the value first:
  // a location bound over one bound before reuses its storage (a batch
  // bound again row by row allocates nothing).
  absl::Status BindLocation(size_t index, const DataLocation& location);
  // Unbinds every placeholder.
  void ClearBindings();

  // An INSERT: steps 3.. above. Returns the committed version.
  absl::StatusOr<table::AppendOutcome> ExecuteInsert(const UploadOptions& upload_options);
  // A DELETE: every placeholder bound and of its column's type, then the
  // rows the WHERE matches (every row without one) deleted in one new
  // version. FailedPrecondition when the table was dropped or changed
  // since the statement was prepared.
  absl::StatusOr<table::DeleteOutcome> ExecuteDelete();
  // A replace-where: every placeholder bound, the WHERE's of its column's
  // type; then the table read (the base), then the INSERT's steps 3.. up to
  // the append, which is TableStore::ReplaceWhere on that base (Aborted
  // when any commit landed since the base was read).
  absl::StatusOr<table::ReplaceOutcome> ExecuteReplace(const UploadOptions& upload_options);
  // A DROP TABLE or ALTER TABLE (no placeholders): the table store's
  // operation on the table, by name. FailedPrecondition when the table
  // was dropped and created again since the statement was prepared.
  absl::StatusOr<TableChangeOutcome> ExecuteTableChange();
  // A SELECT. With ORDER BY, the first Next of the result reads and sorts
  // every matching row (row_sorter.h: top-k in memory for a small LIMIT,
  // else spilled under <root>/sort/); count(*) without WHERE reads no
  // fragment.
  absl::StatusOr<std::unique_ptr<QueryResult>> ExecuteQuery(const QueryOptions& options = {});

 private:
  enum class Kind { kInsert, kSelect, kDelete, kReplace, kTableChange };
  PreparedStatement(table::TableStore& tables, registry::TableRecord table, Kind kind,
                    std::optional<BoundInsert> insert, std::optional<BoundSelect> select,
                    std::vector<BoundParameter> parameters);

  // InvalidArgument unless placeholder `index` (1-based) exists.
  absl::Status CheckIndex(size_t index) const;
  // The refusal of `what` for placeholder `index`, naming its column.
  absl::Status Refuse(size_t index, absl::string_view what) const;
  // A location a placeholder may hold: contained in the stage.
  absl::Status CheckLocation(const DataLocation& location);
  // How many placeholders, from the first, the WHERE holds (a SELECT's, a
  // DELETE's, a replace-where's: its VALUES follow).
  size_t WhereSlotCount() const { return select_ ? select_->where.size() : 0; }
  // The WHERE's values, one per placeholder; InvalidArgument naming the
  // first placeholder not bound.
  absl::StatusOr<std::vector<table::CellValue>> WhereParameters() const;
  // The rows the WHERE (of select_, with these values) picks, for a
  // DELETE or a replace-where; the WHERE is compiled once with them
  // (compiled_predicate.h) for every fragment. Precondition: `where`
  // passed CheckParameters.
  table::RowSelector WhereSelector(std::vector<table::CellValue> where) const;
  // FailedPrecondition unless `now` is the table this statement was
  // prepared against (same registration, same schema).
  absl::Status CheckUnchanged(const registry::TableRecord& now) const;
  // The rows of an INSERT's VALUES (the placeholders from
  // WhereSlotCount() on): every file opened and every existing location
  // checked, then each FILE uploaded (leases into `leases`), and — when a
  // value is an existing location — the shared GC lock taken into `hold`
  // and the locations checked again.
  absl::StatusOr<table::ColumnBatch> UploadRows(const UploadOptions& upload_options,
                                                std::vector<std::unique_ptr<KeyLease>>* leases,
                                                gc::GcHold* hold);

  table::TableStore& tables_;
  registry::TableRecord table_;
  // A DELETE's and a replace-where's select_ holds the rows they delete
  // (SELECT * WHERE …); a replace-where's insert_ its VALUES.
  Kind kind_;
  std::optional<BoundInsert> insert_;
  std::optional<BoundSelect> select_;
  std::optional<Statement> table_change_;  // kTableChange: the parsed statement
  std::vector<BoundParameter> parameters_;
  std::vector<std::optional<StatementParameter>> slots_;
};

}  // namespace lake::sql

#endif  // LAKE_ENGINE_SQL_PREPARED_STATEMENT_H_
