// lake stage describe | list [--json] | clean-staging
#include <cinttypes>
#include <cstdio>

#include "cli/cli_stage.h"
#include "cli/commands.h"
#include "cli/exit_status.h"

namespace lake::cli {
namespace {

constexpr char kUsage[] =
    "usage: lake [global options] stage SUBCOMMAND\n"
    "\n"
    "  describe        the root's stage descriptor (credential-free JSON):\n"
    "                  {\"version\":1,\"kind\":\"local\"} or {…,\"kind\":\"s3\",\"bucket\":…}\n"
    "  clean-staging   remove leftovers of uploads whose process died before\n"
    "                  publishing (.staging/*.uploading files no live upload\n"
    "                  holds); prints how many were removed. Published objects\n"
    "                  are never touched; safe while other uploads run.\n"
    "  list [--json]   every published object: URI and size, one per line\n"
    "                  (with --json, one {\"uri\",\"size_bytes\"} object per line)\n";

struct ListState {
  bool json;
};

int PrintEntry(void* ctx, const lake_list_entry* entry) {
  if (static_cast<ListState*>(ctx)->json) {
    // Managed URIs are canonical percent-encoded ASCII: no JSON escaping.
    std::printf("{\"uri\":\"%s\",\"size_bytes\":%" PRIu64 "}\n", entry->uri,
                entry->size_bytes);
  } else {
    std::printf("%s\t%" PRIu64 "\n", entry->uri, entry->size_bytes);
  }
  return 0;
}

}  // namespace

int RunStage(const std::vector<std::string>& argv) {
  std::vector<FlagSpec> flags = GlobalFlags();
  flags.push_back({"--json", "", false});
  flags.push_back({"--help", "-h", false});
  absl::StatusOr<ParsedArgs> args = ParseArgs(argv, flags);
  if (!args.ok()) return ReportUsage(args.status(), "stage");
  if (args->Has("--help")) {
    std::fputs(kUsage, stdout);
    return kExitOk;
  }
  if (args->positionals.size() != 1) {
    return ReportUsage("stage needs one subcommand: describe, list or clean-staging", "stage");
  }
  const std::string& sub = args->positionals[0];
  if (sub != "clean-staging" && sub != "list" && sub != "describe") {
    return ReportUsage("unknown stage subcommand " + sub, "stage");
  }
  lake_db* db = nullptr;
  if (int code = OpenRoot(GlobalOptionsFrom(*args), std::nullopt, &db); code != kExitOk) {
    return code;
  }
  lake_stage* stage = lake_db_stage(db);
  lake_error* err = nullptr;
  lake_status status = LAKE_OK;
  if (sub == "describe") {
    std::printf("%s\n", lake_stage_descriptor(stage));
  } else if (sub == "clean-staging") {
    uint64_t removed = 0;
    status = lake_stage_clean_staging(stage, &removed, &err);
    if (status == LAKE_OK) std::printf("%" PRIu64 "\n", removed);
  } else {
    ListState state{args->Has("--json")};
    status = lake_stage_list(stage, &PrintEntry, &state, &err);
  }
  lake_db_free(db);
  if (status != LAKE_OK) return ReportFailure(status, err, "stage " + sub);
  return std::fflush(stdout) == 0 ? kExitOk : kExitStorage;
}

}  // namespace lake::cli
