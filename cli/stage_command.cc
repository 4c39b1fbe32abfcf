// lake stage clean-staging | list [--json]
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
    return ReportUsage("stage needs one subcommand: clean-staging or list", "stage");
  }
  const std::string& sub = args->positionals[0];
  if (sub != "clean-staging" && sub != "list") {
    return ReportUsage("unknown stage subcommand " + sub, "stage");
  }
  lake_stage* stage = nullptr;
  if (int code = OpenStage(GlobalOptionsFrom(*args), std::nullopt, &stage);
      code != kExitOk) {
    return code;
  }
  lake_error* err = nullptr;
  lake_status status;
  if (sub == "clean-staging") {
    uint64_t removed = 0;
    status = lake_stage_clean_staging(stage, &removed, &err);
    if (status == LAKE_OK) std::printf("%" PRIu64 "\n", removed);
  } else {
    ListState state{args->Has("--json")};
    status = lake_stage_list(stage, &PrintEntry, &state, &err);
  }
  lake_stage_free(stage);
  if (status != LAKE_OK) return ReportFailure(status, err, "stage " + sub);
  return std::fflush(stdout) == 0 ? kExitOk : kExitStorage;
}

}  // namespace lake::cli
