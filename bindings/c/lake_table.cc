// Tables through the C ABI: the root's table store, statements, Arrow
// results, and append recovery.
#include <cstdlib>
#include <cstring>
#include <memory>

#include <nlohmann/json.hpp>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "bindings/c/c_handles.h"
#include "bindings/c/callback_upload_source.h"
#include "engine/arrow/arrow_export.h"
#include "engine/arrow/arrow_location.h"
#include "engine/root_format_record.h"
#include "engine/root_stage_record.h"
#include "engine/sql/prepared_statement.h"
#include "engine/table/cell_text.h"
#include "engine/table/manifest_format.h"
#include "engine/table/segment_rewrite.h"

struct lake_statement {
  lake_db* db = nullptr;
  std::unique_ptr<lake::sql::PreparedStatement> prepared;
  // Read callbacks bound as FILE sources, by parameter index: one per
  // parameter at most, replaced when that parameter gets another reader,
  // freed with the statement.
  absl::flat_hash_map<size_t, std::unique_ptr<lake::c::CallbackUploadSource>> sources;
  // What the last successful run changed (lake_statement_changes).
  uint64_t deleted_rows = 0;
  uint64_t inserted_rows = 0;
};

namespace lake::c {

char* CopyString(const std::string& text) {
  char* copy = static_cast<char*>(std::malloc(text.size() + 1));
  if (copy == nullptr) throw std::bad_alloc();
  std::memcpy(copy, text.c_str(), text.size() + 1);
  return copy;
}

absl::StatusOr<table::TableStore*> TablesOf(lake_db* db) {
  absl::MutexLock lock(&db->tables_mu);
  if (db->tables) return db->tables.get();
  registry::RegistryOptions options;
  options.read_only = db->follower;
  options.follower_max_staleness = db->follower_staleness;
  options.busy_timeout = db->busy_timeout;
  absl::StatusOr<std::unique_ptr<registry::Registry>> opened = registry::Registry::Open(
      absl::StrCat(db->root, "/", std::string(registry::kRootRegistryDir)),
      absl::StrCat(db->root, "/", std::string(registry::kRootWriterLock)), options);
  if (!opened.ok()) return opened.status();
  if (!db->follower) {
    if (absl::Status s = (*opened)->PutStageDescriptorIfAbsent(db->stage->descriptor); !s.ok()) {
      return s;
    }
  }
  absl::StatusOr<io::FileSystem*> fs = io::DefaultFileSystem();
  if (!fs.ok()) return fs.status();
  table::TableStoreOptions table_options;
  if (const char* in_log = std::getenv(std::string(table::kVersionsInTableLogEnv).c_str());
      in_log != nullptr && std::string_view(in_log) == "0") {
    table_options.versions_in_table_log = false;
  }
  absl::StatusOr<std::unique_ptr<table::TableStore>> tables = table::TableStore::Open(
      **fs, db->root, **opened, *db->stage->stage, db->stage->descriptor, table_options);
  if (!tables.ok()) return tables.status();
  db->registry = std::move(*opened);
  db->tables = std::move(*tables);
  return db->tables.get();
}

}  // namespace lake::c

namespace {

using lake::c::Guarded;
using lake::c::NullArgument;
using lake::c::Report;
using nlohmann::json;

std::string IsoMicros(int64_t micros) { return lake::table::FormatTimestampMicros(micros); }

json TableJson(const lake::registry::TableRecord& table) {
  json columns = json::array();
  for (const lake::table::ColumnSpec& c : table.schema.columns) {
    columns.push_back({{"name", c.name}, {"type", std::string(lake::table::ColumnTypeName(c.type))}});
  }
  return json{{"name", table.name.ToString()},
              {"table_id", table.table_id},
              {"version", table.current_version},
              {"created_at", IsoMicros(table.created_unix_micros)},
              {"columns", std::move(columns)}};
}

lake_status ReturnJson(const json& value, char** json_out) {
  *json_out = lake::c::CopyString(value.dump());
  return LAKE_OK;
}

// The table store, or the failure reported.
#define LAKE_TABLES_OR_RETURN(var, db, err)                             \
  absl::StatusOr<lake::table::TableStore*> var##_or = lake::c::TablesOf(db); \
  if (!var##_or.ok()) return Report(var##_or.status(), err);            \
  lake::table::TableStore& var = **var##_or

// The table name argument `table` parsed into `name` (a StatusOr known to
// hold one), or the failure reported: a null or malformed name. Pure: it
// opens nothing.
#define LAKE_TABLE_NAME_OR_RETURN(name, table, err)                                  \
  if ((table) == nullptr) return NullArgument(#table, err);                          \
  absl::StatusOr<lake::table::TableName> name = lake::table::ParseTableName(table); \
  if (!name.ok()) return Report(name.status(), err)

lake_status Bind(lake_statement* stmt, size_t index, lake::sql::StatementParameter value,
                 lake_error** err) {
  if (stmt == nullptr) return NullArgument("stmt", err);
  return Report(stmt->prepared->Bind(index, std::move(value)), err);
}

}  // namespace

extern "C" {

lake_status lake_db_open_follower(const char* dir, uint32_t max_staleness_ms, lake_db** out,
                                  lake_error** err) {
  return Guarded(err, [&] {
    if (dir == nullptr) return NullArgument("dir", err);
    if (out == nullptr) return NullArgument("out", err);
    absl::StatusOr<lake::io::FileSystem*> fs = lake::io::DefaultFileSystem();
    if (!fs.ok()) return Report(fs.status(), err);
    // A root of a layout this lake does not know is refused first.
    if (absl::Status s = lake::CheckRootFormat(**fs, dir); !s.ok()) return Report(s, err);
    // A follower changes nothing in the root: the root must already hold
    // tables and its stage record (lake_db_open below only reads them).
    if (absl::StatusOr<lake::io::FileInfo> info =
            (*fs)->Stat(absl::StrCat(dir, "/", std::string(lake::registry::kRootRegistryDir)));
        !info.ok()) {
      if (!absl::IsNotFound(info.status())) return Report(info.status(), err);
      return Report(absl::NotFoundError(absl::StrCat(dir, " holds no lake tables to follow")),
                    err);
    }
    absl::StatusOr<std::optional<lake::StageDescriptor>> recorded =
        lake::ReadRootStageRecord(**fs, dir);
    if (!recorded.ok()) return Report(recorded.status(), err);
    if (!recorded->has_value()) {
      return Report(absl::NotFoundError(absl::StrCat(dir, " has no stage record to follow")),
                    err);
    }
    lake_db* db = nullptr;
    if (lake_status s = lake::c::OpenDb(dir, nullptr, /*follower=*/true, &db, err);
        s != LAKE_OK) {
      return s;
    }
    db->follower_staleness =
        absl::Milliseconds(max_staleness_ms == 0 ? 1000 : max_staleness_ms);
    *out = db;
    return LAKE_OK;
  });
}

int64_t lake_db_view_age_micros(lake_db* db) {
  if (db == nullptr) return -1;
  absl::MutexLock lock(&db->tables_mu);
  if (!db->registry) return -1;
  return absl::ToInt64Microseconds(db->registry->ViewAge());
}

lake_status lake_db_set_busy_timeout(lake_db* db, uint32_t busy_timeout_ms, lake_error** err) {
  return Guarded(err, [&] {
    if (db == nullptr) return NullArgument("db", err);
    absl::MutexLock lock(&db->tables_mu);
    db->busy_timeout = absl::Milliseconds(busy_timeout_ms);
    if (db->registry) db->registry->set_busy_timeout(db->busy_timeout);
    return LAKE_OK;
  });
}

lake_status lake_table_create(lake_db* db, const char* table, const char* const* columns,
                              size_t column_count, lake_error** err) {
  return Guarded(err, [&] {
    if (db == nullptr) return NullArgument("db", err);
    LAKE_TABLE_NAME_OR_RETURN(name, table, err);
    if (columns == nullptr && column_count > 0) return NullArgument("columns", err);
    lake::table::Schema schema;
    for (size_t i = 0; i < column_count; ++i) {
      if (columns[i] == nullptr) return NullArgument("a column", err);
      absl::StatusOr<lake::table::ColumnSpec> spec = lake::table::ParseColumnSpec(columns[i]);
      if (!spec.ok()) return Report(spec.status(), err);
      schema.columns.push_back(std::move(*spec));
    }
    if (absl::Status s = lake::table::ValidateSchema(schema); !s.ok()) return Report(s, err);
    LAKE_TABLES_OR_RETURN(tables, db, err);
    return Report(tables.CreateTable(*name, schema).status(), err);
  });
}

lake_status lake_table_list(lake_db* db, char** json_out, lake_error** err) {
  return Guarded(err, [&] {
    if (db == nullptr) return NullArgument("db", err);
    if (json_out == nullptr) return NullArgument("json_out", err);
    LAKE_TABLES_OR_RETURN(tables, db, err);
    absl::StatusOr<std::vector<lake::registry::TableRecord>> list = tables.ListTables();
    if (!list.ok()) return Report(list.status(), err);
    json out = json::array();
    for (const auto& t : *list) out.push_back(TableJson(t));
    return ReturnJson(out, json_out);
  });
}

lake_status lake_table_describe(lake_db* db, const char* table, char** json_out,
                                lake_error** err) {
  return Guarded(err, [&] {
    if (db == nullptr) return NullArgument("db", err);
    LAKE_TABLE_NAME_OR_RETURN(name, table, err);
    if (json_out == nullptr) return NullArgument("json_out", err);
    LAKE_TABLES_OR_RETURN(tables, db, err);
    absl::StatusOr<lake::registry::TableRecord> record = tables.GetTable(*name);
    if (!record.ok()) return Report(record.status(), err);
    absl::StatusOr<std::unique_ptr<lake::table::TableScan>> scan =
        tables.Scan(*name, record->current_version);
    if (!scan.ok()) return Report(scan.status(), err);
    json out = TableJson(*record);
    out["total_rows"] = (*scan)->total_rows();
    out["fragments"] = (*scan)->fragment_count();
    absl::StatusOr<std::vector<lake::registry::RetiredVersionRecord>> retired =
        tables.ListRetiredVersions(*name);
    if (!retired.ok()) return Report(retired.status(), err);
    out["expired_versions"] = retired->size();
    absl::StatusOr<std::vector<lake::table::TagRetention>> tags =
        tables.DescribeTagRetention(*name);
    if (!tags.ok()) return Report(tags.status(), err);
    json tag_list = json::array();
    for (const lake::table::TagRetention& t : *tags) {
      tag_list.push_back({{"tag", t.tag.tag},
                          {"version", t.tag.version},
                          {"created_at", IsoMicros(t.tag.created_unix_micros)},
                          {"exclusive_files", t.exclusive_files},
                          {"exclusive_bytes", t.exclusive_bytes}});
    }
    out["tags"] = std::move(tag_list);
    absl::StatusOr<std::vector<lake::table::SegmentUse>> segments = tables.DescribeSegments(*name);
    if (!segments.ok()) return Report(segments.status(), err);
    json segment_list = json::array();
    for (const lake::table::SegmentUse& use : *segments) {
      segment_list.push_back(
          {{"segment", use.segment},
           {"file_bytes", use.file_bytes},
           {"live_bytes", use.live_bytes},
           {"mostly_dead", lake::table::IsMostlyDeadSegment(use.live_bytes, use.file_bytes)}});
    }
    out["log_segments"] = std::move(segment_list);
    return ReturnJson(out, json_out);
  });
}

lake_status lake_table_versions(lake_db* db, const char* table, char** json_out,
                                lake_error** err) {
  return Guarded(err, [&] {
    if (db == nullptr) return NullArgument("db", err);
    LAKE_TABLE_NAME_OR_RETURN(name, table, err);
    if (json_out == nullptr) return NullArgument("json_out", err);
    LAKE_TABLES_OR_RETURN(tables, db, err);
    absl::StatusOr<std::vector<lake::registry::VersionRecord>> versions =
        tables.ListVersions(*name);
    if (!versions.ok()) return Report(versions.status(), err);
    absl::StatusOr<std::vector<lake::registry::TagRecord>> tags = tables.ListTags(*name);
    if (!tags.ok()) return Report(tags.status(), err);
    absl::StatusOr<std::vector<lake::registry::RetiredVersionRecord>> retired =
        tables.ListRetiredVersions(*name);
    if (!retired.ok()) return Report(retired.status(), err);
    absl::flat_hash_map<uint64_t, int64_t> expired_at;
    for (const auto& r : *retired) expired_at[r.version] = r.retired_unix_micros;
    json out = json::array();
    for (const auto& v : *versions) {
      json tag_names = json::array();
      for (const auto& t : *tags) {
        if (t.version == v.version) tag_names.push_back(t.tag);
      }
      json entry{{"version", v.version},
                 {"parent_version", v.parent_version},
                 {"operation_id", v.operation_id},
                 {"committed_at", IsoMicros(v.committed_unix_micros)},
                 {"reference_delta_sha256", v.reference_delta_sha256},
                 {"tags", std::move(tag_names)}};
      if (auto it = expired_at.find(v.version); it != expired_at.end()) {
        entry["expired_at"] = IsoMicros(it->second);
      }
      out.push_back(std::move(entry));
    }
    return ReturnJson(out, json_out);
  });
}

lake_status lake_table_compact(lake_db* db, const char* table, uint64_t* version_out,
                               lake_error** err) {
  return Guarded(err, [&] {
    if (db == nullptr) return NullArgument("db", err);
    LAKE_TABLE_NAME_OR_RETURN(name, table, err);
    LAKE_TABLES_OR_RETURN(tables, db, err);
    absl::StatusOr<std::optional<lake::table::AppendOutcome>> compacted = tables.Compact(*name);
    if (!compacted.ok()) return Report(compacted.status(), err);
    uint64_t version = 0;
    if (compacted->has_value()) {
      version = (*compacted)->version;
    } else {
      absl::StatusOr<lake::registry::TableRecord> record = tables.GetTable(*name);
      if (!record.ok()) return Report(record.status(), err);
      version = record->current_version;
    }
    if (version_out != nullptr) *version_out = version;
    return LAKE_OK;
  });
}

lake_status lake_table_compact_segments(lake_db* db, const char* table, char** json_out,
                                        lake_error** err) {
  return Guarded(err, [&] {
    if (db == nullptr) return NullArgument("db", err);
    LAKE_TABLE_NAME_OR_RETURN(name, table, err);
    LAKE_TABLES_OR_RETURN(tables, db, err);
    absl::StatusOr<std::optional<lake::table::SegmentCompactionOutcome>> compacted =
        tables.CompactSegments(*name);
    if (!compacted.ok()) return Report(compacted.status(), err);
    if (json_out == nullptr) return LAKE_OK;
    if (!compacted->has_value()) {
      absl::StatusOr<lake::registry::TableRecord> record = tables.GetTable(*name);
      if (!record.ok()) return Report(record.status(), err);
      return ReturnJson(json{{"compacted", false}, {"version", record->current_version}},
                        json_out);
    }
    const lake::table::SegmentCompactionOutcome& outcome = **compacted;
    json segments = json::array();
    for (const lake::table::SegmentUse& use : outcome.rewritten) {
      segments.push_back(json{{"segment", use.segment},
                              {"file_bytes", use.file_bytes},
                              {"live_bytes", use.live_bytes}});
    }
    return ReturnJson(json{{"compacted", true},
                           {"version", outcome.version},
                           {"rewritten_segments", std::move(segments)},
                           {"copied_fragments", outcome.copied_fragments},
                           {"copied_vectors", outcome.copied_vectors},
                           {"copied_bytes", outcome.copied_bytes}},
                      json_out);
  });
}

lake_status lake_table_drop(lake_db* db, const char* table, lake_error** err) {
  return Guarded(err, [&] {
    if (db == nullptr) return NullArgument("db", err);
    LAKE_TABLE_NAME_OR_RETURN(name, table, err);
    LAKE_TABLES_OR_RETURN(tables, db, err);
    absl::StatusOr<lake::registry::DroppedTableRecord> dropped = tables.DropTable(*name);
    if (!dropped.ok()) return Report(dropped.status(), err);
    return LAKE_OK;
  });
}

lake_status lake_table_tag(lake_db* db, const char* table, const char* tag, uint64_t version,
                           lake_error** err) {
  return Guarded(err, [&] {
    if (db == nullptr) return NullArgument("db", err);
    LAKE_TABLE_NAME_OR_RETURN(name, table, err);
    if (tag == nullptr) return NullArgument("tag", err);
    LAKE_TABLES_OR_RETURN(tables, db, err);
    return Report(tables.TagVersion(*name, tag, version).status(), err);
  });
}

lake_status lake_table_untag(lake_db* db, const char* table, const char* tag, lake_error** err) {
  return Guarded(err, [&] {
    if (db == nullptr) return NullArgument("db", err);
    LAKE_TABLE_NAME_OR_RETURN(name, table, err);
    if (tag == nullptr) return NullArgument("tag", err);
    LAKE_TABLES_OR_RETURN(tables, db, err);
    return Report(tables.UntagVersion(*name, tag), err);
  });
}

lake_status lake_table_expire(lake_db* db, const char* table, uint64_t keep_last,
                              int64_t older_than_seconds, char** json_out, lake_error** err) {
  return Guarded(err, [&] {
    if (db == nullptr) return NullArgument("db", err);
    LAKE_TABLE_NAME_OR_RETURN(name, table, err);
    lake::table::ExpirePolicy policy;
    if (keep_last != 0) policy.keep_last = keep_last;
    if (older_than_seconds >= 0) policy.older_than = absl::Seconds(older_than_seconds);
    LAKE_TABLES_OR_RETURN(tables, db, err);
    absl::StatusOr<lake::table::ExpireOutcome> outcome = tables.Expire(*name, policy);
    if (!outcome.ok()) return Report(outcome.status(), err);
    if (json_out == nullptr) return LAKE_OK;
    return ReturnJson(json{{"retired", outcome->retired},
                           {"current_version", outcome->current_version}},
                      json_out);
  });
}

lake_status lake_db_prepare(lake_db* db, const char* sql, lake_statement** out,
                            lake_error** err) {
  return Guarded(err, [&] {
    if (db == nullptr) return NullArgument("db", err);
    if (sql == nullptr) return NullArgument("sql", err);
    if (out == nullptr) return NullArgument("out", err);
    LAKE_TABLES_OR_RETURN(tables, db, err);
    absl::StatusOr<std::unique_ptr<lake::sql::PreparedStatement>> prepared =
        lake::sql::PreparedStatement::Prepare(tables, sql);
    if (!prepared.ok()) return Report(prepared.status(), err);
    auto stmt = std::make_unique<lake_statement>();
    stmt->db = db;
    stmt->prepared = std::move(*prepared);
    *out = stmt.release();
    return LAKE_OK;
  });
}

size_t lake_statement_parameter_count(const lake_statement* stmt) {
  return stmt == nullptr ? 0 : stmt->prepared->parameter_count();
}

lake_status lake_statement_bind_null(lake_statement* stmt, size_t index, lake_error** err) {
  return Guarded(err, [&] { return Bind(stmt, index, lake::table::CellValue{}, err); });
}

lake_status lake_statement_bind_int64(lake_statement* stmt, size_t index, int64_t value,
                                      lake_error** err) {
  return Guarded(err, [&] { return Bind(stmt, index, lake::table::CellValue{value}, err); });
}

lake_status lake_statement_bind_float64(lake_statement* stmt, size_t index, double value,
                                        lake_error** err) {
  return Guarded(err, [&] { return Bind(stmt, index, lake::table::CellValue{value}, err); });
}

lake_status lake_statement_bind_bool(lake_statement* stmt, size_t index, int value,
                                     lake_error** err) {
  return Guarded(err,
                 [&] { return Bind(stmt, index, lake::table::CellValue{value != 0}, err); });
}

lake_status lake_statement_bind_utf8(lake_statement* stmt, size_t index, const char* text,
                                     size_t len, lake_error** err) {
  return Guarded(err, [&] {
    if (text == nullptr && len > 0) return NullArgument("text", err);
    std::string value(text == nullptr ? "" : text, len);
    return Bind(stmt, index, lake::table::CellValue{std::move(value)}, err);
  });
}

lake_status lake_statement_bind_binary(lake_statement* stmt, size_t index, const void* bytes,
                                       size_t len, lake_error** err) {
  return Guarded(err, [&] {
    if (bytes == nullptr && len > 0) return NullArgument("bytes", err);
    lake::table::Binary value{std::string(static_cast<const char*>(bytes), len)};
    return Bind(stmt, index, lake::table::CellValue{std::move(value)}, err);
  });
}

lake_status lake_statement_bind_timestamp_micros(lake_statement* stmt, size_t index,
                                                 int64_t micros, lake_error** err) {
  return Guarded(err, [&] {
    return Bind(stmt, index, lake::table::CellValue{lake::table::TimestampMicros{micros}}, err);
  });
}

lake_status lake_statement_bind_text(lake_statement* stmt, size_t index, const char* text,
                                     lake_error** err) {
  return Guarded(err, [&] {
    if (text == nullptr) return NullArgument("text", err);
    return Bind(stmt, index, lake::sql::ParameterText{text}, err);
  });
}

lake_status lake_statement_bind_file_path(lake_statement* stmt, size_t index, const char* path,
                                          const char* content_type, lake_error** err) {
  return Guarded(err, [&] {
    if (path == nullptr) return NullArgument("path", err);
    return Bind(stmt, index,
                lake::sql::FileFromPath{path, content_type == nullptr ? "" : content_type}, err);
  });
}

lake_status lake_statement_bind_file_reader(lake_statement* stmt, size_t index, lake_read_fn read,
                                            void* read_ctx, const char* content_type,
                                            lake_error** err) {
  return Guarded(err, [&] {
    if (stmt == nullptr) return NullArgument("stmt", err);
    if (read == nullptr) return NullArgument("read", err);
    auto source = std::make_unique<lake::c::CallbackUploadSource>(read, read_ctx);
    lake::sql::FileFromSource value{source.get(), content_type == nullptr ? "" : content_type};
    lake_status status = Bind(stmt, index, value, err);
    if (status == LAKE_OK) stmt->sources[index] = std::move(source);
    return status;
  });
}

lake_status lake_statement_bind_location(lake_statement* stmt, size_t index,
                                         const lake_location* loc, lake_error** err) {
  return Guarded(err, [&] {
    if (loc == nullptr) return NullArgument("loc", err);
    if (stmt == nullptr) return NullArgument("stmt", err);
    return Report(stmt->prepared->BindLocation(index, loc->location), err);
  });
}

lake_status lake_statement_insert(lake_statement* stmt, const lake_upload_options* opts,
                                  uint64_t* version_out, lake_error** err) {
  return Guarded(err, [&] {
    if (stmt == nullptr) return NullArgument("stmt", err);
    absl::StatusOr<lake::table::AppendOutcome> outcome =
        stmt->prepared->ExecuteInsert(lake::c::ToUploadOptions(opts));
    if (!outcome.ok()) return Report(outcome.status(), err);
    stmt->deleted_rows = 0;
    stmt->inserted_rows = outcome->rows;
    if (version_out != nullptr) *version_out = outcome->version;
    return LAKE_OK;
  });
}

lake_status lake_statement_query(lake_statement* stmt, struct ArrowArrayStream* out,
                                 lake_error** err) {
  return Guarded(err, [&] {
    if (stmt == nullptr) return NullArgument("stmt", err);
    if (out == nullptr) return NullArgument("out", err);
    absl::StatusOr<std::unique_ptr<lake::sql::QueryResult>> result =
        stmt->prepared->ExecuteQuery();
    if (!result.ok()) return Report(result.status(), err);
    std::shared_ptr<lake::sql::QueryResult> shared(std::move(*result));
    lake::table::Schema schema = shared->schema();
    *out = lake::arrow::MakeArrowStream(std::move(schema), [shared] { return shared->Next(); });
    return LAKE_OK;
  });
}

lake_status lake_statement_execute(lake_statement* stmt, uint64_t* version_out,
                                   uint64_t* rows_out, lake_error** err) {
  return Guarded(err, [&] {
    if (stmt == nullptr) return NullArgument("stmt", err);
    uint64_t version = 0;
    if (stmt->prepared->is_table_change()) {
      absl::StatusOr<lake::sql::TableChangeOutcome> outcome =
          stmt->prepared->ExecuteTableChange();
      if (!outcome.ok()) return Report(outcome.status(), err);
      stmt->deleted_rows = 0;
      stmt->inserted_rows = 0;
      if (version_out != nullptr) *version_out = outcome->version;
      if (rows_out != nullptr) *rows_out = outcome->count;
      return LAKE_OK;
    }
    if (stmt->prepared->is_replace()) {
      absl::StatusOr<lake::table::ReplaceOutcome> outcome = stmt->prepared->ExecuteReplace({});
      if (!outcome.ok()) return Report(outcome.status(), err);
      version = outcome->version;
      stmt->deleted_rows = outcome->deleted_rows;
      stmt->inserted_rows = outcome->inserted_rows;
    } else {
      absl::StatusOr<lake::table::DeleteOutcome> outcome = stmt->prepared->ExecuteDelete();
      if (!outcome.ok()) return Report(outcome.status(), err);
      version = outcome->version;
      stmt->deleted_rows = outcome->deleted_rows;
      stmt->inserted_rows = 0;
    }
    if (version_out != nullptr) *version_out = version;
    if (rows_out != nullptr) *rows_out = stmt->deleted_rows;
    return LAKE_OK;
  });
}

void lake_statement_changes(const lake_statement* stmt, uint64_t* deleted_out,
                            uint64_t* inserted_out) {
  if (deleted_out != nullptr) *deleted_out = stmt == nullptr ? 0 : stmt->deleted_rows;
  if (inserted_out != nullptr) *inserted_out = stmt == nullptr ? 0 : stmt->inserted_rows;
}

void lake_statement_free(lake_statement* stmt) { delete stmt; }

lake_status lake_location_from_arrow(const struct ArrowSchema* schema,
                                     const struct ArrowArray* batch, int64_t column, int64_t row,
                                     lake_location** out, lake_error** err) {
  return Guarded(err, [&] {
    if (schema == nullptr) return NullArgument("schema", err);
    if (batch == nullptr) return NullArgument("batch", err);
    if (out == nullptr) return NullArgument("out", err);
    absl::StatusOr<lake::DataLocation> location =
        lake::arrow::DataLocationFromArrow(*schema, *batch, column, row);
    if (!location.ok()) return Report(location.status(), err);
    *out = lake::c::NewLocation(std::move(*location));
    return LAKE_OK;
  });
}

lake_status lake_db_pending_appends(lake_db* db, char** json_out, lake_error** err) {
  return Guarded(err, [&] {
    if (db == nullptr) return NullArgument("db", err);
    if (json_out == nullptr) return NullArgument("json_out", err);
    LAKE_TABLES_OR_RETURN(tables, db, err);
    absl::StatusOr<std::vector<lake::table::PendingAppend>> pending = tables.PendingAppends();
    if (!pending.ok()) return Report(pending.status(), err);
    json out = json::array();
    for (const lake::table::PendingAppend& p : *pending) {
      json entry{{"operation_id", p.checkpoint.operation_id},
                 {"age_seconds", absl::ToDoubleSeconds(p.checkpoint.age)},
                 {"size_bytes", p.checkpoint.size_bytes},
                 {"state", std::string(lake::table::PendingAppendStateName(p.state))}};
      if (!p.table.empty()) entry["table"] = p.table;
      if (p.version != 0) entry["version"] = p.version;
      if (!p.reason.empty()) entry["reason"] = p.reason;
      out.push_back(std::move(entry));
    }
    return ReturnJson(out, json_out);
  });
}

lake_status lake_db_discard_append(lake_db* db, const char* operation_id, char** path_out,
                                   lake_error** err) {
  return Guarded(err, [&] {
    if (db == nullptr) return NullArgument("db", err);
    if (operation_id == nullptr) return NullArgument("operation_id", err);
    LAKE_TABLES_OR_RETURN(tables, db, err);
    absl::StatusOr<std::string> moved = tables.DiscardPendingAppend(operation_id);
    if (!moved.ok()) return Report(moved.status(), err);
    if (path_out != nullptr) *path_out = lake::c::CopyString(*moved);
    return LAKE_OK;
  });
}

lake_status lake_db_recover(lake_db* db, char** json_out, lake_error** err) {
  return Guarded(err, [&] {
    if (db == nullptr) return NullArgument("db", err);
    LAKE_TABLES_OR_RETURN(tables, db, err);
    absl::StatusOr<std::vector<lake::table::RecoveredAppend>> recovered = tables.Recover();
    if (!recovered.ok()) return Report(recovered.status(), err);
    json out = json::array();
    for (const auto& r : *recovered) {
      json entry{{"operation_id", r.operation_id},
                 {"table", r.table},
                 {"result", std::string(lake::table::RecoveredAppendResultName(r.result))}};
      if (r.version != 0) entry["version"] = r.version;
      if (!r.message.empty()) entry["message"] = r.message;
      out.push_back(std::move(entry));
    }
    if (json_out != nullptr) return ReturnJson(out, json_out);
    return LAKE_OK;
  });
}

}  // extern "C"
