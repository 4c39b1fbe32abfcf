#include "engine/gc/inventory.h"

#include <array>
#include <optional>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "engine/location_uri.h"
#include "engine/table/reference_journal.h"
#include "engine/table/table_log_format.h"
#include "engine/table/table_store.h"
#include "schema/table_schema.h"

namespace lake::gc {
namespace {

// The directories of a table that hold its files.
const std::array<std::string_view, 4>& TableFileDirs() {
  static const std::array<std::string_view, 4> dirs = {
      table::kTableDataDir, table::kTableVersionsDir, table::kObjectRefsDir, table::kTableLogDir};
  return dirs;
}

// The name of the active segment among `names` (a table log directory's):
// the newest segment, "" when there is none.
std::string ActiveSegmentName(const std::vector<std::string>& names) {
  std::optional<uint64_t> newest;
  for (const std::string& name : names) {
    std::optional<uint64_t> segment = table::ParseTableLogSegmentName(name);
    if (segment && (!newest || *segment > *newest)) newest = segment;
  }
  if (!newest) return "";
  std::string path = table::TableLogSegmentRelativePath(*newest);
  return path.substr(path.rfind('/') + 1);
}

absl::StatusOr<std::vector<std::string>> ListOrEmpty(io::FileSystem& fs, const std::string& dir) {
  absl::StatusOr<std::vector<std::string>> names = fs.ListDirectory(dir);
  if (absl::IsNotFound(names.status())) return std::vector<std::string>();
  return names;
}

}  // namespace

absl::Status ListStageObjects(const GcRoot& root, size_t streams, const InventoryVisitor& visit) {
  absl::Status stopped;
  absl::Status listed = root.stage.ListUnordered(streams, [&](const ListedObject& object) {
    stopped = visit(Candidate{CandidateKind::kStageObject, object.uri, object.size_bytes,
                              object.modified_unix_micros});
    return stopped.ok();
  });
  if (!stopped.ok()) return stopped;
  return listed;
}

absl::Status ListTableFiles(const GcRoot& root, const InventoryVisitor& visit) {
  std::string tables_dir = absl::StrCat(root.root_dir, "/", std::string(table::kTablesDir));
  absl::StatusOr<std::vector<std::string>> namespaces = ListOrEmpty(root.fs, tables_dir);
  if (!namespaces.ok()) return namespaces.status();
  for (const std::string& ns : *namespaces) {
    absl::StatusOr<std::vector<std::string>> tables =
        ListOrEmpty(root.fs, absl::StrCat(tables_dir, "/", ns));
    if (!tables.ok()) return tables.status();
    for (const std::string& t : *tables) {
      for (std::string_view sub : TableFileDirs()) {
        std::string dir = absl::StrCat(tables_dir, "/", ns, "/", t, "/", std::string(sub));
        absl::StatusOr<std::vector<std::string>> names = ListOrEmpty(root.fs, dir);
        if (!names.ok()) return names.status();
        // The active segment of a table that may still be written to is
        // never listed: the next append may write there (table_log.h).
        // A dropped table's is: no append reaches a dropped table.
        std::string active;
        if (sub == table::kTableLogDir && ns != table::kDroppedTablesDir) {
          active = ActiveSegmentName(*names);
        }
        for (const std::string& name : *names) {
          if (!active.empty() && name == active) continue;
          std::string path = absl::StrCat(dir, "/", name);
          absl::StatusOr<io::FileInfo> info = root.fs.Stat(path);
          if (absl::IsNotFound(info.status())) continue;  // removed meanwhile
          if (!info.ok()) return info.status();
          if (!info->is_regular) continue;
          if (absl::Status s = visit(Candidate{CandidateKind::kTableFile, FormatFileUri(path),
                                               info->size, info->modified_unix_micros});
              !s.ok()) {
            return s;
          }
        }
      }
    }
  }
  return absl::OkStatus();
}

std::string TableOfTableFile(const std::string& root_dir, std::string_view uri) {
  absl::StatusOr<ParsedUri> parsed = ParseLocationUri(uri);
  if (!parsed.ok() || parsed->scheme != UriScheme::kFile) return "";
  std::string tables_dir = absl::StrCat(root_dir, "/", std::string(table::kTablesDir));
  if (!IsStrictlyBeneath(parsed->path, tables_dir)) return "";
  std::string_view rest = std::string_view(parsed->path).substr(tables_dir.size() + 1);
  std::vector<std::string> parts = absl::StrSplit(absl::string_view(rest.data(), rest.size()), '/');
  if (parts.size() < 4) return "";
  std::string owner;
  if (parts[0] == table::kDroppedTablesDir) {
    uint64_t id = 0;
    if (parts[1].size() != 16 || !absl::SimpleHexAtoi(parts[1], &id) ||
        DroppedTableOwner(id) != absl::StrCat(parts[0], "/", parts[1])) {
      return "";
    }
    owner = DroppedTableOwner(id);
  } else if (table::ValidateIdentifier(parts[0], "namespace").ok() &&
             table::ValidateIdentifier(parts[1], "table").ok()) {
    owner = absl::StrCat(parts[0], ".", parts[1]);
  } else {
    return "";
  }
  std::string sub = parts[2];
  for (size_t i = 3; i + 1 < parts.size(); ++i) sub += "/" + parts[i];
  for (std::string_view dir : TableFileDirs()) {
    if (sub == dir) return owner;
  }
  return "";
}

std::string DroppedTableOwner(uint64_t table_id) {
  return absl::StrFormat("%s/%016x", std::string(table::kDroppedTablesDir), table_id);
}

}  // namespace lake::gc
