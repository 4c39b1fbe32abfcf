// lake uploads list [--json] | resume ID | abort ID
#include <cstdio>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "absl/time/clock.h"

#include "cli/cli_stage.h"
#include "cli/commands.h"
#include "cli/exit_status.h"
#include "cli/progress_bar.h"

namespace lake::cli {
namespace {

constexpr char kUsage[] =
    "usage: lake [global options] uploads list [--json]\n"
    "       lake [global options] uploads resume ID\n"
    "       lake [global options] uploads abort ID\n"
    "\n"
    "The resumable uploads of the root's S3 stage: a `lake put FILE` that was\n"
    "killed or failed leaves a checkpoint in <root>/checkpoints/uploads, and\n"
    "putting the same unchanged FILE again resumes it.\n"
    "\n"
    "  list         one line per checkpoint: ID, source, parts done, bytes done\n"
    "               of the size, age, and 'stale' (gc apply expires it), 'busy'\n"
    "               (an upload holds it now) or 'damaged'; --json: one object\n"
    "               per line\n"
    "  resume ID    resumes the upload from its source file and prints its\n"
    "               DataLocation (exit 4 when the source changed or another\n"
    "               process holds it, 6 when S3 no longer has the upload)\n"
    "  abort ID     aborts the upload on S3 and removes its checkpoint\n"
    "\n"
    "What a resume reused goes to stderr; stdout carries only the DataLocation.\n";

void PrintNotice(void*, const char* line) { std::fprintf(stderr, "lake: %s\n", line); }

struct Listing {
  bool json = false;
  int64_t now_micros = 0;
  size_t count = 0;
};

int EmitUpload(void* ctx, const lake_upload_info* info) {
  Listing& listing = *static_cast<Listing*>(ctx);
  ++listing.count;
  double age = info->updated_unix_micros == 0
                   ? 0
                   : static_cast<double>(listing.now_micros - info->updated_unix_micros) / 1e6;
  std::string state = info->error != nullptr ? "damaged"
                      : info->locked          ? "busy"
                      : info->stale           ? "stale"
                                              : "resumable";
  if (listing.json) {
    nlohmann::ordered_json object;
    object["id"] = info->id;
    object["state"] = state;
    if (info->error != nullptr) {
      object["error"] = info->error;
    } else {
      object["source"] = info->source_path;
      object["uri"] = info->uri;
      object["parts_done"] = info->parts_done;
      object["part_bytes"] = info->part_bytes;
      object["bytes_done"] = info->bytes_done;
      object["size_bytes"] = info->size_bytes;
      object["age_seconds"] = static_cast<int64_t>(age);
      object["stale"] = info->stale != 0;
    }
    std::printf("%s\n", object.dump().c_str());
  } else if (info->error != nullptr) {
    std::printf("%s\tdamaged\t%s\n", info->id, info->error);
  } else {
    std::printf("%s\t%s\t%llu parts\t%llu of %llu bytes\t%.0f s old\t%s\n", info->id,
                info->source_path, static_cast<unsigned long long>(info->parts_done),
                static_cast<unsigned long long>(info->bytes_done),
                static_cast<unsigned long long>(info->size_bytes), age, state.c_str());
  }
  return 0;
}

}  // namespace

int RunUploads(const std::vector<std::string>& argv) {
  std::vector<FlagSpec> flags = GlobalFlags();
  flags.push_back({"--json", "", false});
  flags.push_back({"--help", "-h", false});
  absl::StatusOr<ParsedArgs> args = ParseArgs(argv, flags);
  if (!args.ok()) return ReportUsage(args.status(), "uploads");
  if (args->Has("--help")) {
    std::fputs(kUsage, stdout);
    return kExitOk;
  }
  const std::vector<std::string>& words = args->positionals;
  if (words.empty()) return ReportUsage("uploads needs list, resume ID or abort ID", "uploads");
  const std::string& verb = words[0];
  bool list = verb == "list";
  if (list ? words.size() != 1 : (verb != "resume" && verb != "abort") || words.size() != 2) {
    return ReportUsage("uploads needs list, resume ID or abort ID", "uploads");
  }
  if (!list && args->Has("--json")) return ReportUsage("--json goes with list", "uploads");
  lake_db* opened = nullptr;
  if (int code = OpenRoot(GlobalOptionsFrom(*args), std::nullopt, &opened); code != kExitOk) {
    return code;
  }
  std::unique_ptr<lake_db, void (*)(lake_db*)> db(opened, lake_db_free);
  lake_error* err = nullptr;
  if (list) {
    Listing listing;
    listing.json = args->Has("--json");
    listing.now_micros = static_cast<int64_t>(absl::ToUnixMicros(absl::Now()));
    lake_status status = lake_db_uploads_list(opened, &EmitUpload, &listing, &err);
    if (status != LAKE_OK) return ReportFailure(status, err, "uploads list");
    if (!listing.json && listing.count == 0) std::fprintf(stderr, "no resumable uploads\n");
    return std::fflush(stdout) == 0 ? kExitOk : kExitStorage;
  }
  const std::string& id = words[1];
  if (verb == "abort") {
    lake_status status = lake_db_uploads_abort(opened, id.c_str(), &err);
    if (status != LAKE_OK) return ReportFailure(status, err, "uploads abort " + id);
    std::fprintf(stderr, "aborted upload %s\n", id.c_str());
    return kExitOk;
  }
  lake_upload_options* opts = lake_upload_options_new();
  std::unique_ptr<lake_upload_options, void (*)(lake_upload_options*)> opts_owner(
      opts, lake_upload_options_free);
  lake_upload_options_set_notice(opts, &PrintNotice, nullptr);
  ProgressBar bar("resume " + id);
  if (bar.enabled()) lake_upload_options_set_progress(opts, &ProgressBar::Callback, &bar);
  lake_location* location = nullptr;
  lake_status status = lake_db_uploads_resume(opened, id.c_str(), opts, &location, &err);
  if (status != LAKE_OK) return ReportFailure(status, err, "uploads resume " + id);
  std::printf("%s\n", lake_location_json(location));
  lake_location_free(location);
  return std::fflush(stdout) == 0 ? kExitOk : kExitStorage;
}

}  // namespace lake::cli
