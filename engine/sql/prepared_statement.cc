#include "engine/sql/prepared_statement.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "engine/file_upload_source.h"
#include "engine/gc/reference_hold.h"
#include "engine/sql/predicate_statistics.h"
#include "engine/table/cell_text.h"

namespace lake::sql {
namespace {

template <class... Fs>
struct Overloaded : Fs... {
  using Fs::operator()...;
};
template <class... Fs>
Overloaded(Fs...) -> Overloaded<Fs...>;

std::string TypeName(table::ColumnType type) { return std::string(table::ColumnTypeName(type)); }

// A SELECT's result, read from one scan of its version: what the kinds of
// result below share.
class ScannedQueryResult : public QueryResult {
 public:
  ScannedQueryResult(std::unique_ptr<table::TableScan> scan, BoundSelect select,
                     std::vector<table::CellValue> where)
      : scan_(std::move(scan)), select_(std::move(select)), where_(std::move(where)) {}

  const table::Schema& schema() const override { return select_.output_schema; }
  uint64_t version() const override { return scan_->version(); }
  size_t fragments_opened() const override { return scan_->fragments_opened(); }

 protected:
  // Reads the rest of the scan: `use` gets each batch with the rows of it
  // the WHERE keeps (perhaps none), until it fails.
  using MatchingRowsFn =
      std::function<absl::Status(const table::ColumnBatch&, const std::vector<size_t>&)>;
  absl::Status ForEachMatching(const MatchingRowsFn& use) {
    for (;;) {
      absl::StatusOr<std::optional<table::ColumnBatch>> batch = scan_->Next();
      if (!batch.ok()) return batch.status();
      if (!batch->has_value()) return absl::OkStatus();
      absl::StatusOr<std::vector<size_t>> rows = MatchingRows(**batch, select_, where_);
      if (!rows.ok()) return rows.status();
      if (absl::Status s = use(**batch, *rows); !s.ok()) return s;
    }
  }

  std::unique_ptr<table::TableScan> scan_;
  BoundSelect select_;
  std::vector<table::CellValue> where_;
};

// The rows of a SELECT: the scan's batches, filtered, projected and cut at
// the LIMIT.
class ScanQueryResult final : public ScannedQueryResult {
 public:
  using ScannedQueryResult::ScannedQueryResult;

  absl::StatusOr<std::optional<table::ColumnBatch>> Next() override {
    for (;;) {
      if (select_.limit && produced_ >= *select_.limit) return std::optional<table::ColumnBatch>();
      absl::StatusOr<std::optional<table::ColumnBatch>> batch = scan_->Next();
      if (!batch.ok() || !batch->has_value()) return batch;
      size_t remaining = select_.limit ? *select_.limit - produced_
                                       : std::numeric_limits<size_t>::max();
      bool whole = !select_.predicate && (*batch)->num_rows <= remaining &&
                   select_.projection.size() == select_.schema.columns.size();
      for (size_t i = 0; whole && i < select_.projection.size(); ++i) {
        whole = select_.projection[i] == i;
      }
      if (whole) {
        produced_ += (*batch)->num_rows;
        if ((*batch)->num_rows == 0) continue;
        return batch;
      }
      absl::StatusOr<std::vector<size_t>> rows =
          MatchingRows(**batch, select_, where_, remaining);
      if (!rows.ok()) return rows.status();
      if (rows->empty()) continue;
      absl::StatusOr<table::ColumnBatch> projected = ProjectRows(**batch, select_, *rows);
      if (!projected.ok()) return projected.status();
      produced_ += projected->num_rows;
      return std::optional<table::ColumnBatch>(std::move(*projected));
    }
  }

 private:
  uint64_t produced_ = 0;
};

// SELECT count(*): one row holding the number of rows the WHERE keeps.
// Without a WHERE it is the version's row count, and no fragment is read.
class CountQueryResult final : public ScannedQueryResult {
 public:
  using ScannedQueryResult::ScannedQueryResult;

  absl::StatusOr<std::optional<table::ColumnBatch>> Next() override {
    if (done_ || (select_.limit && *select_.limit == 0)) return std::optional<table::ColumnBatch>();
    uint64_t count = 0;
    if (!select_.predicate) {
      count = scan_->total_rows();
    } else {
      absl::Status counted =
          ForEachMatching([&](const table::ColumnBatch&, const std::vector<size_t>& rows) {
            count += rows.size();
            return absl::OkStatus();
          });
      if (!counted.ok()) return counted;
    }
    done_ = true;
    table::ColumnBatch out = table::ColumnBatch::Empty(select_.output_schema);
    if (absl::Status s = out.AppendRow(std::vector<table::CellValue>{static_cast<int64_t>(count)}); !s.ok()) return s;
    return std::optional<table::ColumnBatch>(std::move(out));
  }

 private:
  bool done_ = false;
};

// SELECT … ORDER BY: every matching row goes through a RowSorter at the
// first call, then the sorted rows come back batch by batch.
class SortedQueryResult final : public ScannedQueryResult {
 public:
  SortedQueryResult(std::unique_ptr<table::TableScan> scan, BoundSelect select,
                    std::vector<table::CellValue> where, std::unique_ptr<RowSorter> sorter)
      : ScannedQueryResult(std::move(scan), std::move(select), std::move(where)),
        sorter_(std::move(sorter)) {}

  absl::StatusOr<std::optional<table::ColumnBatch>> Next() override {
    if (!sorted_) {
      if (absl::Status s = SortAll(); !s.ok()) {
        sorter_.reset();  // its spill goes now, not with the result
        return s;
      }
      sorted_ = true;
    }
    if (!sorter_) return std::optional<table::ColumnBatch>();
    absl::StatusOr<std::optional<table::ColumnBatch>> batch = sorter_->Next();
    if (!batch.ok() || !batch->has_value()) sorter_.reset();
    return batch;
  }

 private:
  absl::Status SortAll() {
    if (!sorter_) return absl::FailedPreconditionError("SQL: the query failed before");
    if (select_.limit && *select_.limit == 0) return sorter_->Finish();
    absl::Status added =
        ForEachMatching([&](const table::ColumnBatch& batch, const std::vector<size_t>& rows) {
          return sorter_->Add(batch, rows);
        });
    if (!added.ok()) return added;
    return sorter_->Finish();
  }

  std::unique_ptr<RowSorter> sorter_;
  bool sorted_ = false;
};

}  // namespace

absl::StatusOr<std::unique_ptr<PreparedStatement>> PreparedStatement::Prepare(
    table::TableStore& tables, std::string_view sql) {
  absl::StatusOr<Statement> statement = ParseStatement(sql);
  if (!statement.ok()) return statement.status();
  const table::TableName& name =
      std::visit([](const auto& s) -> const table::TableName& { return s.table; }, *statement);
  absl::StatusOr<registry::TableRecord> table = tables.GetTable(name);
  if (!table.ok()) return table.status();
  std::optional<BoundInsert> insert;
  std::optional<BoundSelect> select;
  std::vector<BoundParameter> parameters;
  Kind kind = Kind::kSelect;
  // The rows a DELETE (and a replace-where) removes are those a SELECT *
  // with its WHERE reads.
  auto bind_deleted = [&](const DeleteStatement& d) -> absl::Status {
    SelectStatement rows;
    rows.table = d.table;
    rows.all_columns = true;
    rows.where = d.where;
    rows.placeholder_count = d.placeholder_count;
    absl::StatusOr<BoundSelect> bound = BindSelect(rows, table->schema);
    if (!bound.ok()) return bound.status();
    parameters.insert(parameters.end(), bound->where.begin(), bound->where.end());
    select = std::move(*bound);
    return absl::OkStatus();
  };
  auto bind_inserted = [&](const InsertStatement& i) -> absl::Status {
    absl::StatusOr<BoundInsert> bound = BindInsert(i, table->schema);
    if (!bound.ok()) return bound.status();
    parameters.insert(parameters.end(), bound->parameters.begin(), bound->parameters.end());
    insert = std::move(*bound);
    return absl::OkStatus();
  };
  if (const auto* s = std::get_if<InsertStatement>(&*statement)) {
    if (absl::Status bound = bind_inserted(*s); !bound.ok()) return bound;
    kind = Kind::kInsert;
  } else if (const auto* d = std::get_if<DeleteStatement>(&*statement)) {
    if (absl::Status bound = bind_deleted(*d); !bound.ok()) return bound;
    kind = Kind::kDelete;
  } else if (const auto* r = std::get_if<ReplaceStatement>(&*statement)) {
    // The WHERE's placeholders first, then the VALUES', as in the text.
    if (absl::Status bound = bind_deleted(r->removed); !bound.ok()) return bound;
    if (absl::Status bound = bind_inserted(r->added); !bound.ok()) return bound;
    kind = Kind::kReplace;
  } else if (!std::holds_alternative<SelectStatement>(*statement)) {
    auto prepared = std::unique_ptr<PreparedStatement>(new PreparedStatement(
        tables, std::move(*table), Kind::kTableChange, std::nullopt, std::nullopt, {}));
    prepared->table_change_ = *std::move(statement);
    return prepared;
  } else {
    absl::StatusOr<BoundSelect> bound =
        BindSelect(std::get<SelectStatement>(*statement), table->schema);
    if (!bound.ok()) return bound.status();
    parameters = bound->where;
    select = std::move(*bound);
  }
  return std::unique_ptr<PreparedStatement>(
      new PreparedStatement(tables, std::move(*table), kind, std::move(insert), std::move(select),
                            std::move(parameters)));
}

PreparedStatement::PreparedStatement(table::TableStore& tables, registry::TableRecord table,
                                     Kind kind, std::optional<BoundInsert> insert,
                                     std::optional<BoundSelect> select,
                                     std::vector<BoundParameter> parameters)
    : tables_(tables),
      table_(std::move(table)),
      kind_(kind),
      insert_(std::move(insert)),
      select_(std::move(select)),
      parameters_(std::move(parameters)),
      slots_(parameters_.size()) {}

table::ColumnType PreparedStatement::ParameterType(size_t index) const {
  return parameters_[index - 1].type;
}

absl::Status PreparedStatement::CheckIndex(size_t index) const {
  if (index < 1 || index > slots_.size()) {
    return absl::InvalidArgumentError(absl::StrCat("SQL: parameter ", index,
                                                   " does not exist (the statement has ",
                                                   slots_.size(), " placeholders)"));
  }
  return absl::OkStatus();
}

absl::Status PreparedStatement::Refuse(size_t index, absl::string_view what) const {
  const BoundParameter& target = parameters_[index - 1];
  return absl::InvalidArgumentError(absl::StrCat(
      "SQL: parameter ", index, " (column '", table_.schema.columns[target.column].name, "') is ",
      TypeName(target.type), ", not ", what));
}

absl::Status PreparedStatement::CheckLocation(const DataLocation& location) {
  // Public SQL never reaches outside the stage (checked again, with the
  // stored size, before the append).
  return tables_.stage().store().CheckContainment(location);
}

absl::Status PreparedStatement::Bind(size_t index, StatementParameter value) {
  if (absl::Status s = CheckIndex(index); !s.ok()) return s;
  const BoundParameter& target = parameters_[index - 1];
  if (auto* text = std::get_if<ParameterText>(&value)) {
    absl::StatusOr<table::CellValue> parsed = table::ParseCellText(target.type, text->text);
    if (!parsed.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("SQL: parameter ", index, " (column '",
                       table_.schema.columns[target.column].name,
                       "'): ", std::string(parsed.status().message())));
    }
    value = std::move(*parsed);
  }
  bool is_file_upload =
      std::holds_alternative<FileFromPath>(value) || std::holds_alternative<FileFromSource>(value);
  if (is_file_upload) {
    if (target.type != table::ColumnType::kFile) return Refuse(index, "a file");
    if (index <= WhereSlotCount()) {
      return Refuse(index, "a file to upload (a WHERE takes an existing location)");
    }
    const std::string& content_type = std::holds_alternative<FileFromPath>(value)
                                          ? std::get<FileFromPath>(value).content_type
                                          : std::get<FileFromSource>(value).content_type;
    if (!content_type.empty()) {
      if (absl::Status s = ValidateContentType(content_type); !s.ok()) return s;
    }
    if (const auto* source = std::get_if<FileFromSource>(&value); source && !source->source) {
      return absl::InvalidArgumentError(absl::StrCat("SQL: parameter ", index, " has no source"));
    }
  } else {
    const table::CellValue& cell = std::get<table::CellValue>(value);
    if (!std::holds_alternative<std::monostate>(cell) &&
        table::CellValueType(cell) != target.type) {
      return Refuse(index, TypeName(table::CellValueType(cell)));
    }
    if (const auto* location = std::get_if<DataLocation>(&cell)) {
      if (absl::Status s = CheckLocation(*location); !s.ok()) return s;
    }
  }
  slots_[index - 1] = std::move(value);
  return absl::OkStatus();
}

absl::Status PreparedStatement::BindLocation(size_t index, const DataLocation& location) {
  if (absl::Status s = CheckIndex(index); !s.ok()) return s;
  if (parameters_[index - 1].type != table::ColumnType::kFile) {
    return Refuse(index, TypeName(table::ColumnType::kFile));
  }
  if (absl::Status s = CheckLocation(location); !s.ok()) return s;
  // Over the location bound before, if any: its strings' storage is reused.
  std::optional<StatementParameter>& slot = slots_[index - 1];
  auto* cell = slot ? std::get_if<table::CellValue>(&*slot) : nullptr;
  if (auto* bound = cell ? std::get_if<DataLocation>(cell) : nullptr) {
    *bound = location;
  } else {
    slot.emplace(table::CellValue(location));
  }
  return absl::OkStatus();
}

void PreparedStatement::ClearBindings() {
  for (auto& slot : slots_) slot.reset();
}

absl::Status PreparedStatement::CheckUnchanged(const registry::TableRecord& now) const {
  if (now.table_id != table_.table_id || !(now.schema == table_.schema)) {
    return absl::FailedPreconditionError(absl::StrCat(
        "SQL: ", table_.name.ToString(), " changed since the statement was prepared"));
  }
  return absl::OkStatus();
}

absl::StatusOr<table::AppendOutcome> PreparedStatement::ExecuteInsert(
    const UploadOptions& upload_options) {
  if (kind_ != Kind::kInsert) {
    return absl::InvalidArgumentError(
        kind_ == Kind::kReplace
            ? "SQL: INSERT … REPLACE WHERE is executed as a statement, not as an insert"
            : "SQL: only an INSERT is run as an insert");
  }
  for (size_t i = 0; i < slots_.size(); ++i) {
    if (!slots_[i]) {
      return absl::InvalidArgumentError(
          absl::StrCat("SQL: parameter ", i + 1, " of ", slots_.size(), " is not bound"));
    }
  }
  // The table as the append will build on: the same registration.
  absl::StatusOr<registry::TableRecord> table = tables_.GetTable(table_.name);
  if (!table.ok()) return table.status();
  if (absl::Status s = CheckUnchanged(*table); !s.ok()) return s;
  std::vector<std::unique_ptr<KeyLease>> leases;
  gc::GcHold hold;
  absl::StatusOr<table::ColumnBatch> rows = UploadRows(upload_options, &leases, &hold);
  if (!rows.ok()) return rows.status();
  // An INSERT only adds rows: it goes on whatever version is current when
  // it commits, so concurrent INSERTs wait for each other, never conflict.
  // Its FILE cells were checked contained when bound (CheckLocation) or
  // are this stage's uploads.
  return tables_.AppendBatch(*table, *rows, table::AppendBase::kCurrent,
                             table::FileCellContainment::kCheckedWhenBound);
}

absl::StatusOr<table::ColumnBatch> PreparedStatement::UploadRows(
    const UploadOptions& upload_options, std::vector<std::unique_ptr<KeyLease>>* leases,
    gc::GcHold* hold) {
  const size_t first = WhereSlotCount();
  // Open every file and check every existing location before the first
  // upload, in placeholder order (the first failure is the one returned):
  // the locations up to each file at once.
  std::vector<std::unique_ptr<FileUploadSource>> opened(slots_.size());
  std::vector<const DataLocation*> unchecked;
  std::optional<uint64_t> checked_generation;  // of the first check
  auto check_existing = [&]() -> absl::Status {
    if (unchecked.empty()) return absl::OkStatus();
    absl::StatusOr<uint64_t> generation = tables_.stage().CheckExistingAll(unchecked);
    if (!generation.ok()) return generation.status();
    if (!checked_generation) checked_generation = *generation;
    unchecked.clear();
    return absl::OkStatus();
  };
  for (size_t i = first; i < slots_.size(); ++i) {
    if (const auto* path = std::get_if<FileFromPath>(&*slots_[i])) {
      if (absl::Status s = check_existing(); !s.ok()) return s;
      absl::StatusOr<std::unique_ptr<FileUploadSource>> source =
          FileUploadSource::Open(tables_.fs(), path->path);
      if (!source.ok()) {
        return absl::Status(source.status().code(),
                            absl::StrCat("parameter ", i + 1, ": ", path->path, ": ",
                                         std::string(source.status().message())));
      }
      opened[i] = std::move(*source);
    } else if (const auto* cell = std::get_if<table::CellValue>(&*slots_[i])) {
      if (const auto* location = std::get_if<DataLocation>(cell)) unchecked.push_back(location);
    }
  }
  if (absl::Status s = check_existing(); !s.ok()) return s;
  // Each value read where it is: a bound one in its slot, an uploaded
  // FILE's location in `uploaded`. The uploads' leases are held until the
  // caller's commit returns: its checkpoint published or its commit made
  // the objects referenced (or it failed, leaving them unreferenced).
  std::vector<const table::CellValue*> values(slots_.size() - first);
  // Only the uploads' cells: reserved whole, so `values` may point in.
  std::vector<table::CellValue> uploaded;
  uploaded.reserve(static_cast<size_t>(std::count_if(
      slots_.begin() + static_cast<std::ptrdiff_t>(first), slots_.end(),
      [](const std::optional<StatementParameter>& slot) {
        return std::holds_alternative<FileFromPath>(*slot) ||
               std::holds_alternative<FileFromSource>(*slot);
      })));
  bool binds_existing = false;
  for (size_t i = first; i < slots_.size(); ++i) {
    UploadSource* source = nullptr;
    std::string content_type;
    if (const auto* path = std::get_if<FileFromPath>(&*slots_[i])) {
      source = opened[i].get();
      content_type = path->content_type;
    } else if (auto* from = std::get_if<FileFromSource>(&*slots_[i])) {
      source = from->source;
      content_type = std::move(from->content_type);
      slots_[i].reset();  // read to its end by this upload, whatever happens
    } else {
      values[i - first] = &std::get<table::CellValue>(*slots_[i]);
      binds_existing = binds_existing || std::holds_alternative<DataLocation>(*values[i - first]);
      continue;
    }
    UploadOptions options = upload_options;
    options.content_type = content_type.empty() ? std::string(kDefaultContentType) : content_type;
    absl::StatusOr<LeasedLocation> location = tables_.stage().UploadLeased(*source, options);
    if (!location.ok()) return location.status();
    uploaded.push_back(std::move(location->location));
    values[i - first] = &uploaded.back();
    if (location->lease != nullptr) leases->push_back(std::move(location->lease));
  }
  absl::StatusOr<table::ColumnBatch> rows = InsertRows(*insert_, values);
  if (!rows.ok()) return rows.status();
  // An existing location is true again from under the shared GC lock to
  // the commit, so no collection deletes it in between: checked again
  // unless nothing the first check relied on was forgotten since (no
  // collection observed, no delete).
  if (binds_existing) {
    absl::StatusOr<gc::GcHold> held =
        gc::HoldToAddReferences(tables_.fs(), tables_.root_dir(), tables_.stage());
    if (!held.ok()) return held.status();
    *hold = std::move(*held);
    if (!tables_.stage().RememberedSince(*checked_generation)) {
      for (size_t i = first; i < slots_.size(); ++i) {
        const std::optional<StatementParameter>& slot = slots_[i];
        const auto* cell = slot ? std::get_if<table::CellValue>(&*slot) : nullptr;
        const auto* location = cell ? std::get_if<DataLocation>(cell) : nullptr;
        if (location != nullptr) unchecked.push_back(location);
      }
      if (absl::Status s = check_existing(); !s.ok()) return s;
    }
  }
  return rows;
}

absl::StatusOr<std::vector<table::CellValue>> PreparedStatement::WhereParameters() const {
  std::vector<table::CellValue> where(WhereSlotCount());
  for (size_t i = 0; i < where.size(); ++i) {
    if (!slots_[i]) {
      return absl::InvalidArgumentError(
          absl::StrCat("SQL: parameter ", i + 1, " of ", slots_.size(), " is not bound"));
    }
    where[i] = std::get<table::CellValue>(*slots_[i]);
  }
  return where;
}

table::RowSelector PreparedStatement::WhereSelector(std::vector<table::CellValue> where) const {
  table::RowSelector selector;
  if (select_->predicate) {
    // Compiled once here, for every fragment the selector is shown (the
    // callers checked the parameters).
    auto test = std::make_shared<const std::pair<BoundSelect, CompiledPredicate>>(
        *select_, CompiledPredicate(*select_->predicate, std::move(where)));
    selector.columns = WhereColumns(*select_);
    selector.matching_rows = [test](const table::ColumnBatch& partial) {
      return MatchingRows(partial, test->first, test->second);
    };
    selector.statistics_may_match = [test](const table::FragmentStatistics& statistics,
                                           uint64_t rows) {
      return PredicateMayMatch(test->second, statistics, rows);
    };
  }
  return selector;
}

absl::StatusOr<table::DeleteOutcome> PreparedStatement::ExecuteDelete() {
  if (kind_ != Kind::kDelete) {
    return absl::InvalidArgumentError("SQL: only a DELETE is run as a DELETE");
  }
  absl::StatusOr<std::vector<table::CellValue>> where = WhereParameters();
  if (!where.ok()) return where.status();
  // Refused before anything is read: parameters of the wrong type.
  if (absl::Status s = CheckParameters(select_->schema, select_->where, *where); !s.ok()) return s;
  table::RowSelector selector = WhereSelector(*std::move(where));
  absl::StatusOr<registry::TableRecord> now = tables_.GetTable(table_.name);
  if (!now.ok()) return now.status();
  if (absl::Status s = CheckUnchanged(*now); !s.ok()) return s;
  return tables_.Delete(table_.name, selector);
}

absl::StatusOr<table::ReplaceOutcome> PreparedStatement::ExecuteReplace(
    const UploadOptions& upload_options) {
  if (kind_ != Kind::kReplace) {
    return absl::InvalidArgumentError("SQL: only INSERT … REPLACE WHERE is run as a replace-where");
  }
  absl::StatusOr<std::vector<table::CellValue>> where = WhereParameters();
  if (!where.ok()) return where.status();
  for (size_t i = where->size(); i < slots_.size(); ++i) {
    if (!slots_[i]) {
      return absl::InvalidArgumentError(
          absl::StrCat("SQL: parameter ", i + 1, " of ", slots_.size(), " is not bound"));
    }
  }
  if (absl::Status s = CheckParameters(select_->schema, select_->where, *where); !s.ok()) return s;
  table::RowSelector selector = WhereSelector(*std::move(where));
  // The base: the version read now, before any upload. A commit after this
  // read is a conflict (TableStore::ReplaceWhere).
  absl::StatusOr<registry::TableRecord> base = tables_.GetTable(table_.name);
  if (!base.ok()) return base.status();
  if (absl::Status s = CheckUnchanged(*base); !s.ok()) return s;
  std::vector<std::unique_ptr<KeyLease>> leases;
  gc::GcHold hold;
  absl::StatusOr<table::ColumnBatch> rows = UploadRows(upload_options, &leases, &hold);
  if (!rows.ok()) return rows.status();
  return tables_.ReplaceWhere(*base, selector, *rows);
}

absl::StatusOr<TableChangeOutcome> PreparedStatement::ExecuteTableChange() {
  if (kind_ != Kind::kTableChange) {
    return absl::InvalidArgumentError(
        "SQL: only DROP TABLE and ALTER TABLE are run as a table change");
  }
  absl::StatusOr<registry::TableRecord> now = tables_.GetTable(table_.name);
  if (!now.ok()) return now.status();
  if (now->table_id != table_.table_id) {
    return absl::FailedPreconditionError(absl::StrCat(
        "SQL: ", table_.name.ToString(), " changed since the statement was prepared"));
  }
  const table::TableName& name = table_.name;
  return std::visit(
      Overloaded{
          [&](const DropTableStatement&) -> absl::StatusOr<TableChangeOutcome> {
            absl::StatusOr<registry::DroppedTableRecord> dropped = tables_.DropTable(name);
            if (!dropped.ok()) return dropped.status();
            return TableChangeOutcome{dropped->table.current_version, 0};
          },
          [&](const CreateTagStatement& s) -> absl::StatusOr<TableChangeOutcome> {
            absl::StatusOr<registry::TagRecord> tag = tables_.TagVersion(name, s.tag, s.version);
            if (!tag.ok()) return tag.status();
            return TableChangeOutcome{tag->version, 0};
          },
          [&](const DropTagStatement& s) -> absl::StatusOr<TableChangeOutcome> {
            if (absl::Status untagged = tables_.UntagVersion(name, s.tag); !untagged.ok()) {
              return untagged;
            }
            return TableChangeOutcome{now->current_version, 0};
          },
          [&](const ExpireStatement& s) -> absl::StatusOr<TableChangeOutcome> {
            table::ExpirePolicy policy;
            policy.keep_last = s.keep_last;
            if (s.older_than_seconds) {
              policy.older_than = absl::Seconds(static_cast<int64_t>(*s.older_than_seconds));
            }
            absl::StatusOr<table::ExpireOutcome> expired = tables_.Expire(name, policy);
            if (!expired.ok()) return expired.status();
            return TableChangeOutcome{expired->current_version, expired->retired.size()};
          },
          [](const auto&) -> absl::StatusOr<TableChangeOutcome> {
            return absl::InternalError("SQL: not a table change");
          },
      },
      *table_change_);
}

absl::StatusOr<std::unique_ptr<QueryResult>> PreparedStatement::ExecuteQuery(const QueryOptions& options) {
  if (kind_ != Kind::kSelect) {
    return absl::InvalidArgumentError("SQL: only a SELECT is run as a query");
  }
  absl::StatusOr<std::vector<table::CellValue>> bound_where = WhereParameters();
  if (!bound_where.ok()) return bound_where.status();
  std::vector<table::CellValue> where = *std::move(bound_where);
  // A WHERE is tested on its own columns first: a fragment without a
  // matching row is passed over without decoding the rest of it.
  std::optional<table::ScanPrefilter> prefilter;
  if (select_->predicate) {
    if (CheckParameters(select_->schema, select_->where, where).ok()) {
      // Compiled once here, for every fragment the scan tests.
      auto test = std::make_shared<const std::pair<BoundSelect, CompiledPredicate>>(
          *select_, CompiledPredicate(*select_->predicate, where));
      prefilter = table::ScanPrefilter{
          WhereColumns(*select_),
          [test](const table::ColumnBatch& partial) {
            return MayHaveMatchingRows(partial, test->first, test->second);
          },
          // A fragment whose statistics rule the WHERE out is never opened.
          [test](const table::FragmentStatistics& statistics, uint64_t rows) {
            return PredicateMayMatch(test->second, statistics, rows);
          }};
    } else {
      // Parameters that do not fit: no fragment is passed over, and the
      // scan's MatchingRows reports them.
      auto test = std::make_shared<const std::pair<BoundSelect, std::vector<table::CellValue>>>(
          *select_, where);
      prefilter = table::ScanPrefilter{
          WhereColumns(*select_),
          [test](const table::ColumnBatch& partial) {
            return MayHaveMatchingRows(partial, test->first, test->second);
          },
          {}};
    }
  }
  absl::StatusOr<std::unique_ptr<table::TableScan>> scan =
      tables_.Scan(table_.name, select_->as_of_version, std::move(prefilter));
  if (!scan.ok()) return scan.status();
  if (!((*scan)->schema() == select_->schema)) {
    return absl::FailedPreconditionError(absl::StrCat(
        "SQL: ", table_.name.ToString(), " changed since the statement was prepared"));
  }
  if (select_->count_rows) {
    return std::unique_ptr<QueryResult>(new CountQueryResult(std::move(*scan), *select_, std::move(where)));
  }
  if (!select_->order_by.empty()) {
    absl::StatusOr<std::unique_ptr<RowSorter>> sorter = RowSorter::Create(
        tables_.fs(), absl::StrCat(tables_.root_dir(), "/", std::string(kSortDir)), *select_, options.sort);
    if (!sorter.ok()) return sorter.status();
    return std::unique_ptr<QueryResult>(
        new SortedQueryResult(std::move(*scan), *select_, std::move(where), std::move(*sorter)));
  }
  return std::unique_ptr<QueryResult>(
      new ScanQueryResult(std::move(*scan), *select_, std::move(where)));
}

}  // namespace lake::sql
