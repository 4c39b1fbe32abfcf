#include "tests/support/table_fixture.h"

#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "absl/strings/str_cat.h"
#include "engine/local/local_object_store.h"
#include "engine/stage_descriptor.h"
#include "engine/table/manifest_chain.h"
#include "engine/table/table_log_format.h"
#include "tests/support/stage_fixture.h"
#include "tests/support/test_files.h"

namespace lake::testing {

std::string LocalStageIdentity(const std::string&) {
  return StageDescriptorToJson(StageDescriptor{});
}

absl::StatusOr<std::vector<DataLocation>> CreateSixEpisodes(TableRoot& root) {
  table::Schema schema;
  schema.columns = {{"episode_id", table::ColumnType::kUtf8},
                    {"n", table::ColumnType::kInt64},
                    {"video", table::ColumnType::kFile}};
  const table::TableName name{"robots", "episodes"};
  if (absl::Status s = root.tables->CreateTable(name, schema).status(); !s.ok()) return s;
  for (int first : {1, 4}) {
    std::vector<std::vector<uint8_t>> bytes;
    std::vector<MemorySource> sources;
    bytes.reserve(3);
    sources.reserve(3);
    std::vector<sql::StatementParameter> params;
    for (int n = first; n < first + 3; ++n) {
      bytes.push_back(RandomBytes(300, static_cast<uint64_t>(n)));
      sources.emplace_back(bytes.back());
      params.push_back(table::CellValue{"e" + std::to_string(n)});
      params.push_back(table::CellValue{int64_t{n}});
      params.push_back(sql::FileFromSource{&sources.back(), "video/mp4"});
    }
    absl::Status inserted =
        root.Insert("INSERT INTO robots.episodes (episode_id, n, video) VALUES (?, ?, ?), "
                    "(?, ?, ?), (?, ?, ?)",
                    std::move(params))
            .status();
    if (!inserted.ok()) return inserted;
  }
  absl::StatusOr<std::vector<std::vector<table::CellValue>>> rows = root.Rows(name.ToString());
  if (!rows.ok()) return rows.status();
  std::vector<DataLocation> videos;
  for (const auto& row : *rows) videos.push_back(std::get<DataLocation>(row[2]));
  return videos;
}

table::TableStoreOptions& DefaultTableStoreOptions() {
  static table::TableStoreOptions options;
  return options;
}

std::string_view VersionLayoutName(VersionLayout layout) {
  return layout == VersionLayout::kTableLog ? "table log" : "files";
}

absl::StatusOr<std::unique_ptr<TableRoot>> TableRoot::Open(
    io::FileSystem& fs, const std::string& root_dir, table::TableStoreOptions options,
    registry::RegistryOptions registry_options) {
  auto root = std::make_unique<TableRoot>();
  absl::StatusOr<std::unique_ptr<LocalObjectStore>> store =
      LocalObjectStore::Open(fs, root_dir + "/stage", "");
  if (!store.ok()) return store.status();
  root->stage = std::make_unique<ManagedStage>(std::move(*store));
  absl::StatusOr<std::unique_ptr<registry::Registry>> registry =
      registry::Registry::Open(root_dir + "/registry", root_dir + "/writer.lock",
                               std::move(registry_options));
  if (!registry.ok()) return registry.status();
  root->registry = std::move(*registry);
  absl::StatusOr<std::unique_ptr<table::TableStore>> tables = table::TableStore::Open(
      fs, root_dir, *root->registry, *root->stage, LocalStageIdentity(root_dir), options);
  if (!tables.ok()) return tables.status();
  root->tables = std::move(*tables);
  return root;
}

absl::StatusOr<table::AppendOutcome> TableRoot::Insert(
    const std::string& sql, std::vector<sql::StatementParameter> params) {
  absl::StatusOr<std::unique_ptr<sql::PreparedStatement>> stmt =
      sql::PreparedStatement::Prepare(*tables, sql);
  if (!stmt.ok()) return stmt.status();
  for (size_t i = 0; i < params.size(); ++i) {
    if (absl::Status s = (*stmt)->Bind(i + 1, std::move(params[i])); !s.ok()) return s;
  }
  return (*stmt)->ExecuteInsert({});
}

absl::StatusOr<std::vector<std::vector<table::CellValue>>> TableRoot::Query(
    const std::string& sql, std::vector<table::CellValue> params, const sql::QueryOptions& options) {
  absl::StatusOr<std::unique_ptr<sql::PreparedStatement>> stmt =
      sql::PreparedStatement::Prepare(*tables, sql);
  if (!stmt.ok()) return stmt.status();
  for (size_t i = 0; i < params.size(); ++i) {
    if (absl::Status s = (*stmt)->Bind(i + 1, params[i]); !s.ok()) return s;
  }
  absl::StatusOr<std::unique_ptr<sql::QueryResult>> result = (*stmt)->ExecuteQuery(options);
  if (!result.ok()) return result.status();
  std::vector<std::vector<table::CellValue>> rows;
  for (;;) {
    absl::StatusOr<std::optional<table::ColumnBatch>> batch = (*result)->Next();
    if (!batch.ok()) return batch.status();
    if (!batch->has_value()) break;
    for (size_t r = 0; r < (*batch)->num_rows; ++r) {
      std::vector<table::CellValue> row;
      for (size_t c = 0; c < (*batch)->columns.size(); ++c) row.push_back((*batch)->Cell(r, c));
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

absl::StatusOr<std::vector<std::vector<table::CellValue>>> TableRoot::Rows(
    const std::string& table, std::optional<uint64_t> version) {
  std::string sql = absl::StrCat("SELECT * FROM ", table);
  if (version) absl::StrAppend(&sql, " AS OF VERSION ", *version);
  return Query(sql);
}

std::vector<std::string> TableRoot::StageObjects() {
  std::vector<std::string> uris;
  absl::Status listed = stage->List([&](const ListedObject& object) {
    uris.push_back(object.uri);
    return true;
  });
  if (!listed.ok()) uris.push_back("LIST FAILED: " + listed.ToString());
  return uris;
}

absl::StatusOr<std::vector<DataLocation>> TableRoot::References(const std::string& table) {
  absl::StatusOr<table::TableName> name = table::ParseTableName(table);
  if (!name.ok()) return name.status();
  std::vector<DataLocation> refs;
  absl::Status s = tables->EnumerateReferences(
      *name, [&](uint64_t, const std::vector<DataLocation>& chunk) {
        refs.insert(refs.end(), chunk.begin(), chunk.end());
        return absl::OkStatus();
      });
  if (!s.ok()) return s;
  return refs;
}

absl::StatusOr<table::DeleteOutcome> TableRoot::Delete(const std::string& sql,
                                                      std::vector<table::CellValue> params) {
  absl::StatusOr<std::unique_ptr<sql::PreparedStatement>> statement =
      sql::PreparedStatement::Prepare(*tables, sql);
  if (!statement.ok()) return statement.status();
  for (size_t i = 0; i < params.size(); ++i) {
    if (absl::Status s = (*statement)->Bind(i + 1, std::move(params[i])); !s.ok()) return s;
  }
  return (*statement)->ExecuteDelete();
}

absl::StatusOr<table::ReplaceOutcome> TableRoot::Replace(
    const std::string& sql, std::vector<sql::StatementParameter> params) {
  absl::StatusOr<std::unique_ptr<sql::PreparedStatement>> statement =
      sql::PreparedStatement::Prepare(*tables, sql);
  if (!statement.ok()) return statement.status();
  for (size_t i = 0; i < params.size(); ++i) {
    if (absl::Status s = (*statement)->Bind(i + 1, std::move(params[i])); !s.ok()) return s;
  }
  return (*statement)->ExecuteReplace({});
}

absl::StatusOr<std::vector<DataLocation>> TableRoot::CurrentReferences(const std::string& table) {
  absl::StatusOr<table::TableName> name = table::ParseTableName(table);
  if (!name.ok()) return name.status();
  return tables->CurrentReferences(*name);
}

std::vector<std::string> CheckpointFilesExceptSpares(const std::string& dir) {
  std::vector<std::string> files = FilesUnder(dir);
  std::erase_if(files, [](const std::string& name) { return name.starts_with(".spare-"); });
  return files;
}

std::string ManifestPathOf(TableRoot& root, const std::string& table, uint64_t version) {
  absl::StatusOr<table::TableName> name = table::ParseTableName(table);
  if (!name.ok()) throw std::runtime_error(name.status().ToString());
  absl::StatusOr<std::vector<registry::VersionRecord>> versions = root.tables->ListVersions(*name);
  if (!versions.ok()) throw std::runtime_error(versions.status().ToString());
  for (const registry::VersionRecord& v : *versions) {
    if (v.version == version) return v.manifest_path;
  }
  throw std::runtime_error(absl::StrCat(table, " has no version ", version));
}

table::Manifest ManifestOf(TableRoot& root, const std::string& table, uint64_t version) {
  absl::StatusOr<table::TableName> name = table::ParseTableName(table);
  if (!name.ok()) throw std::runtime_error(name.status().ToString());
  absl::StatusOr<io::FileSystem*> fs = io::DefaultFileSystem();
  if (!fs.ok()) throw std::runtime_error(fs.status().ToString());
  table::ManifestChainReader reader(**fs, root.tables->TableDir(*name));
  absl::StatusOr<const table::ResolvedManifest*> resolved =
      reader.Resolve(version, ManifestPathOf(root, table, version));
  if (!resolved.ok()) throw std::runtime_error(resolved.status().ToString());
  return (*resolved)->manifest;
}

TablePathBytes LocateTablePath(const std::string& table_dir, const std::string& path) {
  if (!table::IsTableLogPath(path)) {
    std::string file = table_dir + "/" + path;
    return TablePathBytes{file, 0, std::filesystem::file_size(file)};
  }
  absl::StatusOr<table::TableLogAddress> address = table::ParseTableLogAddress(path);
  if (!address.ok()) throw std::runtime_error(address.status().ToString());
  return TablePathBytes{table_dir + "/" + table::TableLogSegmentRelativePath(address->segment),
                        address->offset + table::kTableLogRecordHeaderBytes,
                        address->payload_bytes};
}

std::string ReadTablePathBytes(const std::string& table_dir, const std::string& path) {
  TablePathBytes at = LocateTablePath(table_dir, path);
  std::ifstream in(at.file, std::ios::binary);
  in.seekg(static_cast<std::streamoff>(at.offset));
  std::string bytes(at.size, '\0');
  in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!in) throw std::runtime_error("cannot read " + path + " in " + at.file);
  return bytes;
}

void DamageTableByte(const TablePathBytes& at, std::streamoff offset, std::ios::seekdir whence) {
  std::streamoff position = whence == std::ios::end
                                ? static_cast<std::streamoff>(at.offset + at.size) + offset
                                : static_cast<std::streamoff>(at.offset) + offset;
  std::fstream file(at.file, std::ios::in | std::ios::out | std::ios::binary);
  file.seekg(position);
  char old = 0;
  file.get(old);
  file.seekp(position);
  file.put(static_cast<char>(old ^ 0x5a));
}

}  // namespace lake::testing
