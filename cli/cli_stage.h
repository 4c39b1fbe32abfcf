// The options every `lake` command shares (CLI.md, "Global"), opening the
// stage they name, and reading LOCATION arguments.
#ifndef LAKE_CLI_CLI_STAGE_H_
#define LAKE_CLI_CLI_STAGE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cli/cli_args.h"
#include "lake.h"

namespace lake::cli {

struct GlobalOptions {
  std::string root;  // --root, else $LAKE_ROOT, else ./lake-data
  std::optional<std::string> stage;     // --stage
  std::optional<std::string> endpoint;  // --endpoint / AWS_ENDPOINT_URL
  std::optional<std::string> region;    // --region / AWS_REGION
  bool path_style = false;
  // --busy-timeout MS: how long a table write waits for another writer's
  // commit (lake_db_set_busy_timeout); kDefaultBusyTimeoutMs without it.
  std::optional<std::string> busy_timeout_ms;
};

// A CLI command is usually one of several writers started at once (shell
// loops, pipeline workers): it waits longer than the library's default.
inline constexpr uint32_t kDefaultBusyTimeoutMs = 30'000;

// --root, --stage, --endpoint, --region, --path-style, --busy-timeout.
std::vector<FlagSpec> GlobalFlags();
GlobalOptions GlobalOptionsFrom(const ParsedArgs& args);

// Opens the root and its recorded stage (a new root records the stage the
// flags name: S3 with --stage, else a local stage under <root>/stage).
// Returns an exit code (0 on success) and prints any failure; on success
// *db owns the stage lake_db_stage returns.
int OpenRoot(const GlobalOptions& global, const std::optional<std::string>& tenant,
             lake_db** db);

// How old a read command's view of the tables may be when another process
// writes them (lake_db_open_follower's bound).
inline constexpr uint32_t kReadViewMaxStalenessMs = 1000;

// Opens the root to read its tables (query, table list|describe|versions)
// without waiting on or blocking the process that writes them: once the
// root has tables they are read through a follower view, which takes no
// lock; before that, the root is opened as by OpenRoot (its first table
// call creates them, as for any command). The stage flags are checked, and
// a new root created, as by OpenRoot. Returns an exit code and prints any
// failure.
int OpenRootToRead(const GlobalOptions& global, lake_db** db);

// After a read through OpenRootToRead's handle: a one-line note on stderr
// when the view it read was older than kReadViewMaxStalenessMs (a writer's
// commits since then are not in the answer); nothing otherwise.
void NoteStaleView(lake_db* db);

// LOCATION is the DataLocation JSON text itself, or @PATH of a file holding
// it (read as is: "@-" is a file named "-"). Returns an exit code and prints
// any failure.
int LoadLocation(const std::string& argument, lake_location** out);

}  // namespace lake::cli

#endif  // LAKE_CLI_CLI_STAGE_H_
