// lake — the command-line client of the lake C ABI (CLI.md).
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "cli/cli_args.h"
#include "cli/cli_stage.h"
#include "cli/commands.h"
#include "cli/exit_status.h"
#include "lake.h"

namespace {

constexpr char kUsage[] =
    "usage: lake [--root DIR] COMMAND [ARGS…]\n"
    "\n"
    "lake stores large immutable objects and gives back their DataLocation\n"
    "{uri, content_type, size_bytes, sha256}; reads are verified against it.\n"
    "\n"
    "commands:\n"
    "  put FILE              upload FILE ('-' for stdin); prints its DataLocation\n"
    "  cat LOCATION          write the object's bytes, verified (or a --range)\n"
    "  presign LOCATION      a time-limited GET URL for the object (S3 stages)\n"
    "  stage describe        the root's stage descriptor\n"
    "  stage list            list published objects\n"
    "  stage clean-staging   remove leftovers of crashed uploads\n"
    "  table …               tables: create, list, describe, versions, compact,\n"
    "                        drop, tag, untag, expire (retire old versions)\n"
    "  insert \"INSERT …\"     append rows (FILE values uploaded first)\n"
    "  query \"SELECT …\"      print rows (--json: one object per line)\n"
    "  exec \"DELETE …\"       delete rows; print the new version and the count\n"
    "  recover [--list]      settle (or list) appends a crash or failure left\n"
    "  recover --discard ID  move one stuck append checkpoint aside, kept\n"
    "  events …              pipeline event logs: experiments, append, fold,\n"
    "                        tree, roots, failures, events, blob, compact\n"
    "  gc plan|show|status|apply|verify   garbage collection of the stage:\n"
    "                        plan (deletes nothing), then apply\n"
    "  pin LOCATION          keep an object from garbage collection until unpinned\n"
    "  unpin LOCATION        remove a pin\n"
    "  uploads list|resume ID|abort ID   resumable S3 uploads a killed put left\n"
    "\n"
    "global options (on any command):\n"
    "  --root DIR    the lake root (default $LAKE_ROOT, else ./lake-data)\n"
    "  --stage s3://BUCKET/PREFIX   an S3 stage for a new root (a root records\n"
    "                its stage; later flags must agree with it)\n"
    "  --endpoint URL, --region R, --path-style   S3 details (defaults:\n"
    "                $AWS_ENDPOINT_URL, $AWS_REGION, virtual-hosted)\n"
    "  --busy-timeout MS   how long a table write waits for another writer's\n"
    "                commit before failing with exit 4 (default 30000)\n"
    "  --help        usage of lake or of a command\n"
    "  --version     print the version\n"
    "\n"
    "exit codes: 0 ok, 1 internal error, 2 usage or invalid input, 3 integrity\n"
    "failure, 4 conflict, 5 storage failure, 6 not found.\n";

bool IsFlagWithValue(const std::string& arg) {
  return arg == "--root" || arg == "--stage" || arg == "--endpoint" ||
         arg == "--region" || arg == "--busy-timeout";
}

}  // namespace

int main(int argc, char** argv) {
  if (lake_abi_version() != LAKE_ABI_VERSION) {
    std::fprintf(stderr, "lake: liblake ABI %u does not match this tool's %d\n",
                 lake_abi_version(), LAKE_ABI_VERSION);
    return lake::cli::kExitInternal;
  }
  // The command is the first argument that is not a global option (or its
  // value); global options may come before or after it.
  std::vector<std::string> rest;
  std::string command;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (command.empty()) {
      if (arg == "--help" || arg == "-h" || arg == "help") {
        std::fputs(kUsage, stdout);
        return lake::cli::kExitOk;
      }
      if (arg == "--version") {
        std::printf("lake %s (ABI %u)\n", lake_version_string(), lake_abi_version());
        return lake::cli::kExitOk;
      }
      if (IsFlagWithValue(arg) && i + 1 < argc) {
        rest.push_back(arg);
        rest.push_back(argv[++i]);
        continue;
      }
      if (!arg.empty() && arg[0] != '-') {
        command = arg;
        continue;
      }
    }
    rest.push_back(arg);
  }
  if (command == "put") return lake::cli::RunPut(rest);
  if (command == "cat") return lake::cli::RunCat(rest);
  if (command == "stage") return lake::cli::RunStage(rest);
  if (command == "presign") return lake::cli::RunPresign(rest);
  if (command == "table") return lake::cli::RunTable(rest);
  if (command == "events") return lake::cli::RunEvents(rest);
  if (command == "insert") return lake::cli::RunInsert(rest);
  if (command == "query") return lake::cli::RunQuery(rest);
  if (command == "exec") return lake::cli::RunExec(rest);
  if (command == "recover") return lake::cli::RunRecover(rest);
  if (command == "gc") return lake::cli::RunGc(rest);
  if (command == "pin") return lake::cli::RunPin(rest);
  if (command == "uploads") return lake::cli::RunUploads(rest);
  if (command == "unpin") return lake::cli::RunUnpin(rest);
  if (command.empty() && rest.empty()) {
    std::fputs(kUsage, stderr);
    return lake::cli::kExitUsage;
  }
  if (command.empty()) {
    // Only options: name the one that is wrong, else the missing command.
    absl::StatusOr<lake::cli::ParsedArgs> parsed =
        lake::cli::ParseArgs(rest, lake::cli::GlobalFlags());
    if (!parsed.ok()) return lake::cli::ReportUsage(parsed.status(), "");
    return lake::cli::ReportUsage("no command given", "");
  }
  return lake::cli::ReportUsage("unknown command " + command, "");
}
