// lake table create|list|describe|versions|compact|drop|tag|untag|expire
#include <cstdio>
#include <memory>

#include <nlohmann/json.hpp>

#include "absl/strings/numbers.h"
#include "cli/cli_args.h"
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
    "  table describe NS.TABLE [--json]   columns, version, rows, fragments,\n"
    "        expired versions; per tag, the files and bytes only it retains;\n"
    "        per rolled log segment, its bytes and those still live\n"
    "  table versions NS.TABLE [--json]   the committed versions, their tags\n"
    "        and when each expired\n"
    "  table compact NS.TABLE       merge the fragments into one new version\n"
    "  table compact NS.TABLE --segments [--json]   copy the live records out of\n"
    "        the table log's mostly-dead segments (under half live) into a new\n"
    "        version, so GC takes them once the versions before it expire\n"
    "  table drop NS.TABLE          drop the table (its objects are GC's after the cutoff)\n"
    "  table tag NS.TABLE NAME VERSION   pin VERSION under the tag NAME (never expires)\n"
    "  table untag NS.TABLE NAME    remove the tag NAME\n"
    "  table expire NS.TABLE [--keep-last N] [--older-than DURATION]\n"
    "        retire the versions that are none of the newest N and older than\n"
    "        DURATION (7d, 36h, 90m…), never the current or a tagged one\n";

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
  std::printf("expired    %llu versions\n",
              static_cast<unsigned long long>(t["expired_versions"].get<uint64_t>()));
  for (const json& tag : t["tags"]) {
    std::printf("tag        %s version %llu, only it retains %llu files, %llu bytes\n",
                tag["tag"].get<std::string>().c_str(),
                static_cast<unsigned long long>(tag["version"].get<uint64_t>()),
                static_cast<unsigned long long>(tag["exclusive_files"].get<uint64_t>()),
                static_cast<unsigned long long>(tag["exclusive_bytes"].get<uint64_t>()));
  }
  for (const json& segment : t["log_segments"]) {
    std::printf("segment    %llu: %llu of %llu bytes live%s\n",
                static_cast<unsigned long long>(segment["segment"].get<uint64_t>()),
                static_cast<unsigned long long>(segment["live_bytes"].get<uint64_t>()),
                static_cast<unsigned long long>(segment["file_bytes"].get<uint64_t>()),
                segment["mostly_dead"].get<bool>() ? " (mostly dead: compact --segments)" : "");
  }
}

void RenderVersions(const json& versions) {
  for (const json& v : versions) {
    std::string notes;
    for (const json& tag : v["tags"]) notes += "\ttag " + tag.get<std::string>();
    if (v.contains("expired_at")) notes += "\texpired " + v["expired_at"].get<std::string>();
    std::printf("%llu\tparent %llu\t%s\t%s%s\n",
                static_cast<unsigned long long>(v["version"].get<uint64_t>()),
                static_cast<unsigned long long>(v["parent_version"].get<uint64_t>()),
                v["committed_at"].get<std::string>().c_str(),
                v["operation_id"].get<std::string>().c_str(), notes.c_str());
  }
}

}  // namespace

int RunTable(const std::vector<std::string>& argv) {
  std::vector<FlagSpec> flags = GlobalFlags();
  flags.push_back({"--column", "", true, true});
  flags.push_back({"--json", "", false});
  flags.push_back({"--keep-last", "", true});
  flags.push_back({"--older-than", "", true});
  flags.push_back({"--segments", "", false});
  flags.push_back({"--help", "-h", false});
  absl::StatusOr<ParsedArgs> args = ParseArgs(argv, flags);
  if (!args.ok()) return ReportUsage(args.status(), "table");
  if (args->Has("--help")) {
    std::fputs(kUsage, stdout);
    return kExitOk;
  }
  if (args->positionals.empty()) return ReportUsage("table needs a subcommand", "table");
  const std::string sub = args->positionals[0];
  if (sub != "create" && sub != "list" && sub != "describe" && sub != "versions" &&
      sub != "compact" && sub != "drop" && sub != "tag" && sub != "untag" && sub != "expire") {
    return ReportUsage("unknown table subcommand " + sub, "table");
  }
  size_t want_args = sub == "list" ? 0 : sub == "tag" ? 3 : sub == "untag" ? 2 : 1;
  if (args->positionals.size() != 1 + want_args) {
    const char* wanted = sub == "list"    ? " takes no argument"
                         : sub == "tag"   ? " needs NS.TABLE NAME VERSION"
                         : sub == "untag" ? " needs NS.TABLE NAME"
                                          : " needs one NS.TABLE";
    return ReportUsage("table " + sub + wanted, "table");
  }
  if (sub != "create" && !args->repeated.empty()) {
    return ReportUsage("--column is for table create", "table");
  }
  if (sub != "expire" && (args->Value("--keep-last") || args->Value("--older-than"))) {
    return ReportUsage("--keep-last and --older-than are for table expire", "table");
  }
  if (sub != "compact" && args->Has("--segments")) {
    return ReportUsage("--segments is for table compact", "table");
  }
  uint64_t keep_last = 0;
  int64_t older_than_seconds = -1;
  if (sub == "expire") {
    std::optional<std::string> keep = args->Value("--keep-last");
    std::optional<std::string> older = args->Value("--older-than");
    if (!keep && !older) {
      return ReportUsage("table expire needs --keep-last N or --older-than DURATION", "table");
    }
    if (keep && (!absl::SimpleAtoi(*keep, &keep_last) || keep_last == 0)) {
      return ReportUsage("--keep-last needs a whole number of versions of at least 1", "table");
    }
    uint64_t seconds = 0;
    if (older) {
      if (!ParseDurationSeconds(*older, &seconds)) {
        return ReportUsage("--older-than needs a duration such as 7d, 36h or 90m", "table");
      }
      older_than_seconds = static_cast<int64_t>(seconds);
    }
  }
  uint64_t tag_version = 0;
  if (sub == "tag" && !absl::SimpleAtoi(args->positionals[3], &tag_version)) {
    return ReportUsage("table tag needs a version number, not " + args->positionals[3], "table");
  }
  // list, describe and versions only read: they never wait on a writer.
  bool writes = sub == "create" || sub == "compact" || sub == "drop" || sub == "tag" ||
                sub == "untag" || sub == "expire";
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
  if (sub == "compact" && args->Has("--segments")) {
    char* text = nullptr;
    lake_status status = lake_table_compact_segments(db, args->positionals[1].c_str(), &text, &err);
    if (status != LAKE_OK) return ReportFailure(status, err, "table compact --segments");
    return PrintJson(text, as_json, [](const json& outcome) {
      if (!outcome["compacted"].get<bool>()) {
        std::printf("no mostly-dead segment to rewrite: version %llu\n",
                    static_cast<unsigned long long>(outcome["version"].get<uint64_t>()));
        return;
      }
      std::string segments;
      for (const json& s : outcome["rewritten_segments"]) {
        segments += (segments.empty() ? "" : " ") + std::to_string(s["segment"].get<uint64_t>());
      }
      std::printf("version %llu: rewrote segments %s (%llu fragments, %llu deletion vectors, "
                  "%llu bytes copied)\n",
                  static_cast<unsigned long long>(outcome["version"].get<uint64_t>()),
                  segments.c_str(),
                  static_cast<unsigned long long>(outcome["copied_fragments"].get<uint64_t>()),
                  static_cast<unsigned long long>(outcome["copied_vectors"].get<uint64_t>()),
                  static_cast<unsigned long long>(outcome["copied_bytes"].get<uint64_t>()));
    });
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
  if (sub == "tag") {
    lake_status status = lake_table_tag(db, args->positionals[1].c_str(),
                                        args->positionals[2].c_str(), tag_version, &err);
    if (status != LAKE_OK) return ReportFailure(status, err, "table tag");
    std::fprintf(stderr, "tagged version %llu of %s as %s\n",
                 static_cast<unsigned long long>(tag_version), args->positionals[1].c_str(),
                 args->positionals[2].c_str());
    return kExitOk;
  }
  if (sub == "untag") {
    lake_status status =
        lake_table_untag(db, args->positionals[1].c_str(), args->positionals[2].c_str(), &err);
    if (status != LAKE_OK) return ReportFailure(status, err, "table untag");
    std::fprintf(stderr, "removed tag %s of %s\n", args->positionals[2].c_str(),
                 args->positionals[1].c_str());
    return kExitOk;
  }
  char* text = nullptr;
  lake_status status;
  if (sub == "expire") {
    status = lake_table_expire(db, args->positionals[1].c_str(), keep_last, older_than_seconds,
                               &text, &err);
    if (status != LAKE_OK) return ReportFailure(status, err, "table expire");
    return PrintJson(text, as_json, [](const json& outcome) {
      std::string retired;
      for (const json& v : outcome["retired"]) {
        retired += (retired.empty() ? "" : " ") + std::to_string(v.get<uint64_t>());
      }
      std::printf("expired %zu versions%s%s\n", outcome["retired"].size(),
                  retired.empty() ? "" : ": ", retired.c_str());
    });
  }
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
