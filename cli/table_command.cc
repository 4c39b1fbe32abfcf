// lake table create|list|describe|versions|compact
#include <cstdio>
#include <memory>

#include <nlohmann/json.hpp>

#include "cli/cli_stage.h"
#include "cli/commands.h"
#include "cli/exit_status.h"

namespace lake::cli {
namespace {

constexpr char kUsage[] =
    "usage: lake [global options] table SUBCOMMAND …\n"
    "\n"
    "  table create NS.TABLE --column NAME:TYPE [--column …]\n"
    "        types: utf8 int64 float64 bool binary timestamp file\n"
    "  table list [--json]          every table, its version and columns\n"
    "  table describe NS.TABLE [--json]   columns, version, rows, fragments\n"
    "  table versions NS.TABLE [--json]   the committed versions\n"
    "  table compact NS.TABLE       merge the fragments into one new version\n"
    "  table drop NS.TABLE          drop the table (its objects are GC's after the cutoff)\n";

using nlohmann::json;
using DbOwner = std::unique_ptr<lake_db, void (*)(lake_db*)>;

// Prints a JSON text from the C ABI (and frees it): as is with --json,
// else as lines of `fields`.
int PrintJson(char* text, bool as_json, void (*render)(const json&)) {
  std::unique_ptr<char, void (*)(char*)> owner(text, lake_string_free);
  if (as_json) {
    json value = json::parse(text);
    if (value.is_array()) {
      for (const json& item : value) std::printf("%s\n", item.dump().c_str());
    } else {
      std::printf("%s\n", value.dump().c_str());
    }
  } else {
    render(json::parse(text));
  }
  return std::fflush(stdout) == 0 ? kExitOk : kExitStorage;
}

std::string ColumnsText(const json& table) {
  std::string out;
  for (const json& c : table["columns"]) {
    if (!out.empty()) out += ", ";
    out += c["name"].get<std::string>() + ":" + c["type"].get<std::string>();
  }
  return out;
}

void RenderList(const json& tables) {
  for (const json& t : tables) {
    std::printf("%s\tversion %llu\t%s\n", t["name"].get<std::string>().c_str(),
                static_cast<unsigned long long>(t["version"].get<uint64_t>()),
                ColumnsText(t).c_str());
  }
}

void RenderDescribe(const json& t) {
  std::printf("table      %s\n", t["name"].get<std::string>().c_str());
  std::printf("version    %llu\n", static_cast<unsigned long long>(t["version"].get<uint64_t>()));
  std::printf("rows       %llu\n", static_cast<unsigned long long>(t["total_rows"].get<uint64_t>()));
  std::printf("fragments  %llu\n", static_cast<unsigned long long>(t["fragments"].get<uint64_t>()));
  std::printf("created    %s\n", t["created_at"].get<std::string>().c_str());
  for (const json& c : t["columns"]) {
    std::printf("column     %s %s\n", c["name"].get<std::string>().c_str(),
                c["type"].get<std::string>().c_str());
  }
}

void RenderVersions(const json& versions) {
  for (const json& v : versions) {
    std::printf("%llu\tparent %llu\t%s\t%s\n",
                static_cast<unsigned long long>(v["version"].get<uint64_t>()),
                static_cast<unsigned long long>(v["parent_version"].get<uint64_t>()),
                v["committed_at"].get<std::string>().c_str(),
                v["operation_id"].get<std::string>().c_str());
  }
}

}  // namespace

int RunTable(const std::vector<std::string>& argv) {
  std::vector<FlagSpec> flags = GlobalFlags();
  flags.push_back({"--column", "", true, true});
  flags.push_back({"--json", "", false});
  flags.push_back({"--help", "-h", false});
  absl::StatusOr<ParsedArgs> args = ParseArgs(argv, flags);
  if (!args.ok()) return ReportUsage(args.status(), "table");
  if (args->Has("--help")) {
    std::fputs(kUsage, stdout);
    return kExitOk;
  }
  if (args->positionals.empty()) return ReportUsage("table needs a subcommand", "table");
  const std::string sub = args->positionals[0];
  size_t want_names = sub == "list" ? 0 : 1;
  if (sub != "create" && sub != "list" && sub != "describe" && sub != "versions" &&
      sub != "compact" && sub != "drop") {
    return ReportUsage("unknown table subcommand " + sub, "table");
  }
  if (args->positionals.size() != 1 + want_names) {
    return ReportUsage("table " + sub + (want_names ? " needs one NS.TABLE" : " takes no argument"),
                       "table");
  }
  if (sub != "create" && !args->repeated.empty()) {
    return ReportUsage("--column is for table create", "table");
  }
  // list, describe and versions only read: they never wait on a writer.
  bool writes = sub == "create" || sub == "compact" || sub == "drop";
  lake_db* db = nullptr;
  if (int code = writes ? OpenRoot(GlobalOptionsFrom(*args), std::nullopt, &db)
                        : OpenRootToRead(GlobalOptionsFrom(*args), &db);
      code != kExitOk) {
    return code;
  }
  DbOwner db_owner(db, lake_db_free);
  lake_error* err = nullptr;
  bool as_json = args->Has("--json");
  if (sub == "create") {
    std::vector<const char*> columns;
    for (const auto& [flag, value] : args->repeated) columns.push_back(value.c_str());
    if (columns.empty()) return ReportUsage("table create needs --column NAME:TYPE", "table");
    lake_status status = lake_table_create(db, args->positionals[1].c_str(), columns.data(),
                                           columns.size(), &err);
    if (status != LAKE_OK) return ReportFailure(status, err, "table create");
    std::fprintf(stderr, "created %s\n", args->positionals[1].c_str());
    return kExitOk;
  }
  if (sub == "compact") {
    uint64_t version = 0;
    lake_status status = lake_table_compact(db, args->positionals[1].c_str(), &version, &err);
    if (status != LAKE_OK) return ReportFailure(status, err, "table compact");
    std::printf("%llu\n", static_cast<unsigned long long>(version));
    return kExitOk;
  }
  if (sub == "drop") {
    lake_status status = lake_table_drop(db, args->positionals[1].c_str(), &err);
    if (status != LAKE_OK) return ReportFailure(status, err, "table drop");
    std::fprintf(stderr, "dropped %s\n", args->positionals[1].c_str());
    return kExitOk;
  }
  char* text = nullptr;
  lake_status status;
  if (sub == "list") {
    status = lake_table_list(db, &text, &err);
    if (status != LAKE_OK) return ReportFailure(status, err, "table list");
    NoteStaleView(db);
    return PrintJson(text, as_json, RenderList);
  }
  if (sub == "describe") {
    status = lake_table_describe(db, args->positionals[1].c_str(), &text, &err);
    if (status != LAKE_OK) return ReportFailure(status, err, "table describe");
    NoteStaleView(db);
    return PrintJson(text, as_json, RenderDescribe);
  }
  status = lake_table_versions(db, args->positionals[1].c_str(), &text, &err);
  if (status != LAKE_OK) return ReportFailure(status, err, "table versions");
  NoteStaleView(db);
  return PrintJson(text, as_json, RenderVersions);
}

}  // namespace lake::cli
