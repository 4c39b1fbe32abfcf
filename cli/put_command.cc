// lake put FILE [--content-type T] [--tenant T]
#include <unistd.h>

#include <cstdio>

#include "cli/cli_stage.h"
#include "cli/commands.h"
#include "cli/exit_status.h"
#include "cli/progress_bar.h"

namespace lake::cli {
namespace {

constexpr char kUsage[] =
    "usage: lake [global options] put FILE [--content-type TYPE] [--tenant T]\n"
    "\n"
    "Uploads FILE (or standard input when FILE is '-') into the root's stage\n"
    "and prints its DataLocation as one line of JSON on stdout:\n"
    "  {\"uri\":…,\"content_type\":…,\"size_bytes\":…,\"sha256\":…}\n"
    "On an S3 stage a FILE's upload is resumable: a killed put leaves a\n"
    "checkpoint (lake uploads list), and putting the same unchanged FILE again\n"
    "resumes it, saying on stderr how much was reused.\n"
    "\n"
    "  --content-type TYPE  default application/octet-stream\n"
    "  --tenant T           upload beneath tenant T's prefix\n"
    "  --root DIR           the lake root (default $LAKE_ROOT, else ./lake-data)\n"
    "  --stage s3://BUCKET/PREFIX [--endpoint URL] [--region R] [--path-style]\n"
    "                       the S3 stage a NEW root records (later: must agree)\n";

void PrintNotice(void*, const char* line) { std::fprintf(stderr, "lake: %s\n", line); }

int64_t ReadStdin(void*, uint8_t* buf, size_t cap) {
  for (;;) {
    ssize_t n = ::read(STDIN_FILENO, buf, cap);
    if (n >= 0 || errno != EINTR) return n;
  }
}

}  // namespace

int RunPut(const std::vector<std::string>& argv) {
  std::vector<FlagSpec> flags = GlobalFlags();
  flags.push_back({"--content-type", "", true});
  flags.push_back({"--tenant", "", true});
  flags.push_back({"--help", "-h", false});
  absl::StatusOr<ParsedArgs> args = ParseArgs(argv, flags);
  if (!args.ok()) return ReportUsage(args.status(), "put");
  if (args->Has("--help")) {
    std::fputs(kUsage, stdout);
    return kExitOk;
  }
  if (args->positionals.size() != 1) {
    return ReportUsage("put needs exactly one FILE", "put");
  }
  const std::string& path = args->positionals[0];

  lake_error* err = nullptr;
  lake_upload_options* opts = lake_upload_options_new();
  if (std::optional<std::string> type = args->Value("--content-type")) {
    lake_status status = lake_upload_options_set_content_type(opts, type->c_str(), &err);
    if (status != LAKE_OK) {
      lake_upload_options_free(opts);
      return ReportFailure(status, err, "--content-type " + *type);
    }
  }
  lake_db* db = nullptr;
  if (int code = OpenRoot(GlobalOptionsFrom(*args), args->Value("--tenant"), &db);
      code != kExitOk) {
    lake_upload_options_free(opts);
    return code;
  }
  lake_stage* stage = lake_db_stage(db);
  lake_upload_options_set_notice(opts, &PrintNotice, nullptr);
  ProgressBar bar("put " + path);
  if (bar.enabled()) lake_upload_options_set_progress(opts, &ProgressBar::Callback, &bar);

  lake_location* location = nullptr;
  lake_status status =
      path == "-" ? lake_stage_upload_reader(stage, &ReadStdin, nullptr, opts, &location, &err)
                  : lake_stage_upload_path(stage, path.c_str(), opts, &location, &err);
  lake_upload_options_free(opts);
  int code = kExitOk;
  if (status == LAKE_OK) {
    std::printf("%s\n", lake_location_json(location));
    if (std::fflush(stdout) != 0) code = kExitStorage;
  } else {
    code = ReportFailure(status, err, "put " + path);
  }
  lake_location_free(location);
  lake_db_free(db);
  return code;
}

}  // namespace lake::cli
