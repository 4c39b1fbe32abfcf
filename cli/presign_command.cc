// lake presign LOCATION [--ttl SECONDS]
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "absl/strings/numbers.h"
#include "cli/cli_stage.h"
#include "cli/commands.h"
#include "cli/exit_status.h"

namespace lake::cli {
namespace {

constexpr char kUsage[] =
    "usage: lake [global options] presign LOCATION [--ttl SECONDS]\n"
    "\n"
    "Prints a URL that GETs the object without credentials (an additional\n"
    "Range header works too) for SECONDS (1..3600, default 900). S3 stages\n"
    "only. The URL is a bearer credential: it is printed, never logged.\n"
    "LOCATION is the DataLocation JSON text, or @PATH of a file holding it.\n";

constexpr uint32_t kDefaultTtlSeconds = 900;

}  // namespace

int RunPresign(const std::vector<std::string>& argv) {
  std::vector<FlagSpec> flags = GlobalFlags();
  flags.push_back({"--ttl", "", true});
  flags.push_back({"--tenant", "", true});
  flags.push_back({"--help", "-h", false});
  absl::StatusOr<ParsedArgs> args = ParseArgs(argv, flags);
  if (!args.ok()) return ReportUsage(args.status(), "presign");
  if (args->Has("--help")) {
    std::fputs(kUsage, stdout);
    return kExitOk;
  }
  if (args->positionals.size() != 1) {
    return ReportUsage("presign needs exactly one LOCATION", "presign");
  }
  uint32_t ttl = kDefaultTtlSeconds;
  if (std::optional<std::string> text = args->Value("--ttl")) {
    // Decimal digits only: SimpleAtoi alone would take a sign or spaces.
    if (text->empty() || text->find_first_not_of("0123456789") != std::string::npos ||
        !absl::SimpleAtoi(*text, &ttl)) {
      return ReportUsage("--ttl " + *text + ": not a whole number of seconds (1..3600)",
                         "presign");
    }
  }
  lake_location* location = nullptr;
  if (int code = LoadLocation(args->positionals[0], &location); code != kExitOk) return code;
  std::unique_ptr<lake_location, void (*)(lake_location*)> location_owner(location,
                                                                          lake_location_free);
  lake_db* db = nullptr;
  if (int code = OpenRoot(GlobalOptionsFrom(*args), args->Value("--tenant"), &db);
      code != kExitOk) {
    return code;
  }
  std::unique_ptr<lake_db, void (*)(lake_db*)> db_owner(db, lake_db_free);
  char* url = nullptr;
  lake_error* err = nullptr;
  lake_status status = lake_stage_presign(lake_db_stage(db), location, ttl, &url, &err);
  if (status != LAKE_OK) return ReportFailure(status, err, "presign");
  std::printf("%s\n", url);
  lake_string_free(url);
  return std::fflush(stdout) == 0 ? kExitOk : kExitStorage;
}

}  // namespace lake::cli
