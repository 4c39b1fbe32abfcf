// lake pin LOCATION / lake unpin LOCATION [--tenant T]
#include <cstdio>
#include <memory>

#include "cli/cli_stage.h"
#include "cli/commands.h"
#include "cli/exit_status.h"

namespace lake::cli {
namespace {

constexpr char kPinUsage[] =
    "usage: lake [global options] pin LOCATION [--tenant T]\n"
    "\n"
    "Keeps an existing object of the root's stage from garbage collection,\n"
    "whatever its age and whether or not a table or event log references it,\n"
    "until `lake unpin`: for objects referenced outside lake. The location must\n"
    "lie in the stage (and tenant) and name a stored object of its size (exit 2\n"
    "outside the stage, 6 for no object, 3 for another size). Pinning again is\n"
    "not an error. An object that `lake put` stored and nothing inserted nor\n"
    "pinned is protected by the collection's cutoff alone.\n"
    "LOCATION is the DataLocation JSON text, or @PATH of a file holding it.\n";

constexpr char kUnpinUsage[] =
    "usage: lake [global options] unpin LOCATION [--tenant T]\n"
    "\n"
    "Removes the pin of LOCATION (the object need not exist any more); exit 6\n"
    "when it is not pinned. LOCATION is the DataLocation JSON text, or @PATH.\n";

using PinCall = lake_status (*)(lake_db*, const lake_location*, lake_error**);

int RunPinCommand(const std::vector<std::string>& argv, const char* name, const char* usage,
                  PinCall call) {
  std::vector<FlagSpec> flags = GlobalFlags();
  flags.push_back({"--tenant", "", true});
  flags.push_back({"--help", "-h", false});
  absl::StatusOr<ParsedArgs> args = ParseArgs(argv, flags);
  if (!args.ok()) return ReportUsage(args.status(), name);
  if (args->Has("--help")) {
    std::fputs(usage, stdout);
    return kExitOk;
  }
  if (args->positionals.size() != 1) {
    return ReportUsage(std::string(name) + " needs exactly one LOCATION", name);
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
  lake_error* err = nullptr;
  lake_status status = call(db, location, &err);
  if (status != LAKE_OK) return ReportFailure(status, err, name);
  return kExitOk;
}

}  // namespace

int RunPin(const std::vector<std::string>& argv) {
  return RunPinCommand(argv, "pin", kPinUsage, &lake_db_pin);
}

int RunUnpin(const std::vector<std::string>& argv) {
  return RunPinCommand(argv, "unpin", kUnpinUsage, &lake_db_unpin);
}

}  // namespace lake::cli
