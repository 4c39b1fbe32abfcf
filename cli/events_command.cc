// lake events --pipeline P --experiment X create|list|describe|delete|
//   append|fold|tree|roots|failures|events|blob|compact (EVENT-LOG.md)
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <optional>

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "cli/cli_stage.h"
#include "cli/commands.h"
#include "cli/exit_status.h"
#include "cli/input_file.h"
#include "cli/verified_output.h"

namespace lake::cli {
namespace {

constexpr char kUsage[] =
    "usage: lake [global options] events --pipeline P --experiment X SUBCOMMAND …\n"
    "\n"
    "  events create               create experiment X of pipeline P\n"
    "  events list [--json]        experiments (without --pipeline: of every pipeline)\n"
    "  events describe [--json]    shards, items and events of the experiment\n"
    "  events delete               delete the experiment and its log\n"
    "  events append FILE.jsonl    append events ('-' for stdin; CLI.md, \"Event\n"
    "                              JSONL\"); reports appended and duplicate counts\n"
    "                              (--json: as an object on stdout)\n"
    "  events fold ITEM_ID         the folded item as JSON, or null if unknown\n"
    "  events tree ROOT            the item tree of ROOT as JSON\n"
    "  events roots                every root item's status as JSON\n"
    "  events failures             every failure as JSON\n"
    "  events events ROOT          the raw events of ROOT and its descendants, JSONL\n"
    "  events blob ITEM_ID FIELD [-o OUT]\n"
    "                              the blob's bytes, verified (an appended list\n"
    "                              field: its last value); a regular file OUT\n"
    "                              appears only once every byte is verified (a\n"
    "                              device, FIFO or socket is written as read)\n"
    "  events compact              merge the log's idle shards into one\n";

// ordered_json: the C ABI's key order is kept.
using json = nlohmann::ordered_json;
using DbOwner = std::unique_ptr<lake_db, void (*)(lake_db*)>;
using LogOwner = std::unique_ptr<lake_event_log, void (*)(lake_event_log*)>;
using TextOwner = std::unique_ptr<char, void (*)(char*)>;
using ItemOwner = std::unique_ptr<lake_folded_item, void (*)(lake_folded_item*)>;
using ReaderOwner = std::unique_ptr<lake_reader, void (*)(lake_reader*)>;

// Positional arguments after the subcommand, by subcommand.
const std::map<std::string, size_t>& ArgumentCounts() {
  static const auto* counts = new std::map<std::string, size_t>{
      {"create", 0}, {"list", 0},  {"describe", 0}, {"delete", 0},
      {"append", 1}, {"fold", 1},  {"tree", 1},     {"roots", 0},
      {"failures", 0}, {"events", 1}, {"blob", 2},  {"compact", 0}};
  return *counts;
}

int FlushStdout() { return std::fflush(stdout) == 0 ? kExitOk : kExitStorage; }

// Prints a text from the C ABI as is, ending in one newline, and frees it.
int PrintText(char* text) {
  TextOwner owner(text, lake_string_free);
  size_t len = std::strlen(text);
  std::fwrite(text, 1, len, stdout);
  if (len == 0 || text[len - 1] != '\n') std::fputc('\n', stdout);
  return FlushStdout();
}

void RenderList(const json& experiments) {
  for (const json& e : experiments) {
    std::printf("%s\t%s\t%s\n", e["pipeline"].get<std::string>().c_str(),
                e["experiment"].get<std::string>().c_str(),
                e["created_at"].get<std::string>().c_str());
  }
}

void RenderDescribe(const json& e) {
  std::printf("pipeline    %s\n", e["pipeline"].get<std::string>().c_str());
  std::printf("experiment  %s\n", e["experiment"].get<std::string>().c_str());
  std::printf("created     %s\n", e["created_at"].get<std::string>().c_str());
  for (const char* key : {"shards", "items", "events"}) {
    std::printf("%-11s %llu\n", key, static_cast<unsigned long long>(e[key].get<uint64_t>()));
  }
}

// Prints a JSON text from the C ABI (and frees it): one compact line per
// value (an array: per element) with --json, else through `render`.
int PrintJson(char* text, bool as_json, void (*render)(const json&)) {
  TextOwner owner(text, lake_string_free);
  json value = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (value.is_discarded()) {
    ReportError("events: liblake returned malformed JSON");
    return kExitInternal;
  }
  if (!as_json) {
    render(value);
  } else if (value.is_array()) {
    for (const json& item : value) std::printf("%s\n", item.dump().c_str());
  } else {
    std::printf("%s\n", value.dump().c_str());
  }
  return FlushStdout();
}

// Appends the events of FILE.jsonl (`path`; "-": stdin), read once the log
// is open: a writer holds its shard while it waits for its input.
int Append(lake_event_log* log, const std::string& path, bool as_json) {
  std::string jsonl;
  if (!ReadInputFile(path, &jsonl)) return ReportUnreadableInput("", path, errno);
  uint64_t appended = 0, duplicates = 0;
  lake_error* err = nullptr;
  lake_status status =
      lake_event_log_append_jsonl(log, jsonl.data(), jsonl.size(), &appended, &duplicates, &err);
  if (status != LAKE_OK && appended + duplicates > 0) {
    // The batches before the failing one are durable: said in the same line.
    return ReportFailure(status, err,
                         absl::StrCat("events append (", appended, " appended, ", duplicates,
                                      " duplicates before the failure)"));
  }
  if (status != LAKE_OK) return ReportFailure(status, err, "events append");
  if (as_json) {
    json counts = {{"appended", appended}, {"duplicates", duplicates}};
    std::printf("%s\n", counts.dump().c_str());
    return FlushStdout();
  }
  std::fprintf(stderr, "appended %llu events, %llu duplicates absorbed\n",
               static_cast<unsigned long long>(appended),
               static_cast<unsigned long long>(duplicates));
  return kExitOk;
}

int Fold(lake_event_log* log, const std::string& item_id) {
  lake_folded_item* item = nullptr;
  lake_error* err = nullptr;
  lake_status status = lake_event_log_fold(log, item_id.c_str(), &item, &err);
  if (status != LAKE_OK) return ReportFailure(status, err, "events fold");
  ItemOwner owner(item, lake_folded_item_free);
  // An unknown item is an answer, not an error (CLI.md, exit code 6).
  std::printf("%s\n", item == nullptr ? "null" : lake_folded_item_json(item));
  return FlushStdout();
}

int Blob(lake_event_log* log, const std::string& item_id, const std::string& field,
         const std::optional<std::string>& out_path) {
  lake_folded_item* item = nullptr;
  lake_error* err = nullptr;
  lake_status status = lake_event_log_fold(log, item_id.c_str(), &item, &err);
  if (status != LAKE_OK) return ReportFailure(status, err, "events blob");
  ItemOwner item_owner(item, lake_folded_item_free);
  if (item == nullptr) {
    ReportError("events blob: no item " + item_id);
    return kExitNotFound;
  }
  size_t count = lake_folded_item_value_count(item, field.c_str());
  if (count == 0) {
    ReportError("events blob: item " + item_id + " has no field " + field);
    return kExitNotFound;
  }
  lake_reader* reader = nullptr;
  status = lake_folded_item_open_blob(log, item, field.c_str(), count - 1, &reader, &err);
  if (status != LAKE_OK) return ReportFailure(status, err, "events blob");
  ReaderOwner reader_owner(reader, lake_reader_free);
  VerifiedOutput output(out_path);
  if (!output.Open()) {
    ReportError("cannot create " + output.name() + ": " + std::strerror(errno));
    return kExitStorage;
  }
  return CopyVerified(reader, output, "events blob");
}

// The subcommands that read or write one experiment's log.
int RunOnLog(lake_db* db, const std::string& sub, const ParsedArgs& args) {
  const std::string pipeline = *args.Value("--pipeline");
  const std::string experiment = *args.Value("--experiment");
  lake_event_log* log = nullptr;
  lake_error* err = nullptr;
  lake_status status = lake_event_log_open(db, pipeline.c_str(), experiment.c_str(),
                                           /*writable=*/sub == "append", &log, &err);
  if (status != LAKE_OK) return ReportFailure(status, err, "events " + sub);
  LogOwner log_owner(log, lake_event_log_free);
  const std::vector<std::string>& pos = args.positionals;
  if (sub == "append") return Append(log, pos[1], args.Has("--json"));
  if (sub == "fold") return Fold(log, pos[1]);
  if (sub == "blob") return Blob(log, pos[1], pos[2], args.Value("--output"));
  char* text = nullptr;
  if (sub == "tree") {
    status = lake_event_log_tree(log, pos[1].c_str(), &text, &err);
  } else if (sub == "roots") {
    status = lake_event_log_roots(log, &text, &err);
  } else if (sub == "failures") {
    status = lake_event_log_failures(log, &text, &err);
  } else {
    status = lake_event_log_events(log, pos[1].c_str(), &text, &err);
  }
  if (status != LAKE_OK) return ReportFailure(status, err, "events " + sub);
  return PrintText(text);
}

// The subcommands on the experiment itself.
int RunOnExperiment(lake_db* db, const std::string& sub, const ParsedArgs& args) {
  std::optional<std::string> pipeline = args.Value("--pipeline");
  std::optional<std::string> experiment = args.Value("--experiment");
  const std::string name = pipeline.value_or("") + "/" + experiment.value_or("");
  lake_error* err = nullptr;
  char* text = nullptr;
  lake_status status;
  if (sub == "list") {
    status = lake_experiment_list(db, pipeline ? pipeline->c_str() : nullptr, &text, &err);
    if (status != LAKE_OK) return ReportFailure(status, err, "events list");
    return PrintJson(text, args.Has("--json"), RenderList);
  }
  if (sub == "describe") {
    status = lake_experiment_describe(db, pipeline->c_str(), experiment->c_str(), &text, &err);
    if (status != LAKE_OK) return ReportFailure(status, err, "events describe");
    return PrintJson(text, args.Has("--json"), RenderDescribe);
  }
  if (sub == "compact") {
    status = lake_experiment_compact(db, pipeline->c_str(), experiment->c_str(), &text, &err);
    if (status != LAKE_OK) return ReportFailure(status, err, "events compact");
    return PrintText(text);
  }
  if (sub == "create") {
    status = lake_experiment_create(db, pipeline->c_str(), experiment->c_str(), &err);
  } else {
    status = lake_experiment_delete(db, pipeline->c_str(), experiment->c_str(), &err);
  }
  if (status != LAKE_OK) return ReportFailure(status, err, "events " + sub);
  std::fprintf(stderr, "%s %s\n", sub == "create" ? "created" : "deleted", name.c_str());
  return kExitOk;
}

// A usage message for `args`, or empty when they fit the subcommand.
std::string UsageProblem(const ParsedArgs& args) {
  if (args.positionals.empty()) return "events needs a subcommand";
  const std::string& sub = args.positionals[0];
  auto count = ArgumentCounts().find(sub);
  if (count == ArgumentCounts().end()) return "unknown events subcommand " + sub;
  if (args.positionals.size() != 1 + count->second) {
    static const std::map<std::string, std::string> kArguments = {
        {"append", "FILE.jsonl"}, {"fold", "ITEM_ID"}, {"tree", "ROOT"},
        {"events", "ROOT"},       {"blob", "ITEM_ID FIELD"}};
    auto wanted = kArguments.find(sub);
    return "events " + sub +
           (wanted == kArguments.end() ? " takes no argument" : " needs " + wanted->second);
  }
  if (sub != "list" && !args.Value("--pipeline")) return "events " + sub + " needs --pipeline";
  if (sub != "list" && !args.Value("--experiment")) {
    return "events " + sub + " needs --experiment";
  }
  if (sub == "list" && args.Value("--experiment")) return "events list takes no --experiment";
  if (sub != "blob" && args.Value("--output")) return "-o is for events blob";
  if (args.Value("--output") && args.Value("--output")->empty()) return "-o needs a path, not ''";
  return "";
}

}  // namespace

int RunEvents(const std::vector<std::string>& argv) {
  std::vector<FlagSpec> flags = GlobalFlags();
  flags.push_back({"--pipeline", "", true});
  flags.push_back({"--experiment", "", true});
  flags.push_back({"--output", "-o", true});
  flags.push_back({"--json", "", false});
  flags.push_back({"--help", "-h", false});
  absl::StatusOr<ParsedArgs> args = ParseArgs(argv, flags);
  if (!args.ok()) return ReportUsage(args.status(), "events");
  if (args->Has("--help")) {
    std::fputs(kUsage, stdout);
    return kExitOk;
  }
  if (std::string problem = UsageProblem(*args); !problem.empty()) {
    return ReportUsage(problem, "events");
  }
  lake_db* db = nullptr;
  if (int code = OpenRoot(GlobalOptionsFrom(*args), std::nullopt, &db); code != kExitOk) {
    return code;
  }
  DbOwner db_owner(db, lake_db_free);
  const std::string sub = args->positionals[0];
  if (sub == "create" || sub == "list" || sub == "describe" || sub == "delete" ||
      sub == "compact") {
    return RunOnExperiment(db, sub, *args);
  }
  return RunOnLog(db, sub, *args);
}

}  // namespace lake::cli
