// lake cat LOCATION [--range START..END] [-o OUT] [--tenant T]
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "cli/cli_stage.h"
#include "cli/commands.h"
#include "cli/exit_status.h"
#include "cli/progress_bar.h"
#include "cli/range_text.h"
#include "cli/verified_output.h"

namespace lake::cli {
namespace {

constexpr char kUsage[] =
    "usage: lake [global options] cat LOCATION [--range START..END] [-o OUT] [--tenant T]\n"
    "\n"
    "Writes the object's bytes to stdout (or OUT). LOCATION is the DataLocation\n"
    "JSON text, or @PATH of a file holding it. A full read is verified: the\n"
    "command exits 3 naming the integrity failure (SizeShort, SizeLong,\n"
    "DigestMismatch) if the object is not exactly what the location names.\n"
    "With -o, a regular file OUT appears only once every byte is verified; a\n"
    "device, FIFO or socket is written as the bytes are read (the exit code\n"
    "still says whether they verified).\n"
    "\n"
    "  --range START..END  only bytes [START, END) (END omitted: to the end);\n"
    "                      exits 3 with PrematureEof if the object is cut short.\n"
    "                      A range read does not verify the object's SHA-256.\n"
    "  -o, --output OUT    write to OUT instead of stdout\n"
    "  --tenant T          refuse locations outside tenant T\n";


}  // namespace

int RunCat(const std::vector<std::string>& argv) {
  std::vector<FlagSpec> flags = GlobalFlags();
  flags.push_back({"--range", "", true});
  flags.push_back({"--output", "-o", true});
  flags.push_back({"--tenant", "", true});
  flags.push_back({"--help", "-h", false});
  absl::StatusOr<ParsedArgs> args = ParseArgs(argv, flags);
  if (!args.ok()) return ReportUsage(args.status(), "cat");
  if (args->Has("--help")) {
    std::fputs(kUsage, stdout);
    return kExitOk;
  }
  if (args->positionals.size() != 1) {
    return ReportUsage("cat needs exactly one LOCATION", "cat");
  }
  std::optional<RangeText> range;
  if (std::optional<std::string> text = args->Value("--range")) {
    absl::StatusOr<RangeText> parsed = ParseRangeText(*text);
    if (!parsed.ok()) {
      return ReportUsage("--range " + *text + ": " + std::string(parsed.status().message()), "cat");
    }
    range = *parsed;
  }
  if (std::optional<std::string> out = args->Value("--output"); out && out->empty()) {
    return ReportUsage("-o needs a path, not ''", "cat");
  }
  lake_location* location = nullptr;
  if (int code = LoadLocation(args->positionals[0], &location); code != kExitOk) {
    return code;
  }
  std::unique_ptr<lake_location, void (*)(lake_location*)> location_owner(
      location, lake_location_free);
  lake_db* db = nullptr;
  if (int code = OpenRoot(GlobalOptionsFrom(*args), args->Value("--tenant"), &db);
      code != kExitOk) {
    return code;
  }
  std::unique_ptr<lake_db, void (*)(lake_db*)> db_owner(db, lake_db_free);
  lake_stage* stage = lake_db_stage(db);

  uint64_t total = lake_location_size_bytes(location);
  lake_reader* reader = nullptr;
  lake_error* err = nullptr;
  lake_status status;
  if (range) {
    uint64_t end = range->end.value_or(total);
    status = lake_reader_open_range(stage, location, range->start, end, &reader, &err);
    total = end > range->start ? end - range->start : 0;
  } else {
    status = lake_reader_open(stage, location, &reader, &err);
  }
  if (status != LAKE_OK) return ReportFailure(status, err, "cat");
  std::unique_ptr<lake_reader, void (*)(lake_reader*)> reader_owner(reader, lake_reader_free);

  VerifiedOutput output(args->Value("--output"));
  if (!output.Open()) {
    ReportError("cannot create " + output.name() + ": " + std::strerror(errno));
    return kExitStorage;
  }
  ProgressBar bar("cat");
  uint64_t done = 0;
  for (;;) {
    // Views of lake's read-ahead buffers: no copy between lake and write().
    const void* data = nullptr;
    size_t n = 0;
    status = lake_reader_read_view(reader, &data, kMaxOutputWriteBytes, &n, &err);
    if (status != LAKE_OK) return ReportFailure(status, err, "cat");
    if (n == 0) break;
    if (!output.Write(static_cast<const uint8_t*>(data), n)) {
      ReportError("writing " + output.name() + ": " + std::strerror(errno));
      return kExitStorage;
    }
    done += n;
    bar.Update(done, total);
  }
  status = lake_reader_close(reader, &err);
  if (status != LAKE_OK) return ReportFailure(status, err, "cat");
  if (!output.Finish()) {
    ReportError("finishing " + output.name() + ": " + std::strerror(errno));
    return kExitStorage;
  }
  return kExitOk;
}

}  // namespace lake::cli
