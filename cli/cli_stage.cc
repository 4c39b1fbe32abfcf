#include "cli/cli_stage.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "cli/exit_status.h"
#include "cli/input_file.h"

namespace lake::cli {

std::vector<FlagSpec> GlobalFlags() {
  return {{"--root", "", true},     {"--stage", "", true},
          {"--endpoint", "", true}, {"--region", "", true},
          {"--path-style", "", false}, {"--busy-timeout", "", true}};
}

GlobalOptions GlobalOptionsFrom(const ParsedArgs& args) {
  GlobalOptions global;
  const char* env_root = std::getenv("LAKE_ROOT");
  global.root = args.Value("--root").value_or(
      env_root != nullptr && env_root[0] != '\0' ? env_root : "./lake-data");
  global.stage = args.Value("--stage");
  global.endpoint = args.Value("--endpoint");
  global.region = args.Value("--region");
  global.path_style = args.Has("--path-style");
  global.busy_timeout_ms = args.Value("--busy-timeout");
  return global;
}

int OpenRoot(const GlobalOptions& global, const std::optional<std::string>& tenant,
             lake_db** db) {
  lake_stage_options* opts = lake_stage_options_new();
  lake_error* err = nullptr;
  lake_status status = LAKE_OK;
  // Without --stage the other stage flags are checked against the root's
  // recorded S3 stage (a new root needs --stage for them): lake_db_open.
  if (global.stage.has_value()) {
    status = lake_stage_options_set_s3(opts, global.stage->c_str(), &err);
  }
  if (status == LAKE_OK && global.endpoint.has_value()) {
    status = lake_stage_options_set_s3_endpoint(opts, global.endpoint->c_str(), &err);
  }
  if (status == LAKE_OK && global.region.has_value()) {
    status = lake_stage_options_set_s3_region(opts, global.region->c_str(), &err);
  }
  if (status == LAKE_OK && global.path_style) lake_stage_options_set_s3_path_style(opts, 1);
  if (status == LAKE_OK && tenant.has_value()) {
    status = lake_stage_options_set_tenant(opts, tenant->c_str(), &err);
  }
  uint32_t busy_timeout_ms = kDefaultBusyTimeoutMs;
  if (global.busy_timeout_ms.has_value() &&
      !absl::SimpleAtoi(*global.busy_timeout_ms, &busy_timeout_ms)) {
    lake_stage_options_free(opts);
    lake_error_free(err);
    return ReportUsage(absl::StrCat("--busy-timeout takes milliseconds (0 to ", UINT32_MAX,
                                    "), not \"", *global.busy_timeout_ms, "\""),
                       "");
  }
  if (status == LAKE_OK) status = lake_db_open(global.root.c_str(), opts, db, &err);
  lake_stage_options_free(opts);
  if (status == LAKE_OK) status = lake_db_set_busy_timeout(*db, busy_timeout_ms, &err);
  if (status != LAKE_OK) return ReportFailure(status, err, "opening the root " + global.root);
  return kExitOk;
}

int OpenRootToRead(const GlobalOptions& global, lake_db** db) {
  // The root as any command opens it: the flags checked against its stage
  // record, or a new root recorded. It takes no lock until a table call.
  lake_db* opened = nullptr;
  if (int code = OpenRoot(global, std::nullopt, &opened); code != kExitOk) return code;
  lake_db* follower = nullptr;
  lake_error* err = nullptr;
  lake_status status =
      lake_db_open_follower(global.root.c_str(), kReadViewMaxStalenessMs, &follower, &err);
  if (status == LAKE_NOT_FOUND) {
    // No tables yet: nothing to follow, and nothing a writer could hold.
    lake_error_free(err);
    *db = opened;
    return kExitOk;
  }
  lake_db_free(opened);
  if (status != LAKE_OK) return ReportFailure(status, err, "opening the root " + global.root);
  *db = follower;
  return kExitOk;
}

void NoteStaleView(lake_db* db) {
  int64_t age_micros = lake_db_view_age_micros(db);
  if (age_micros <= int64_t{kReadViewMaxStalenessMs} * 1000) return;
  std::fprintf(stderr,
               "lake: note: read the tables as they were %.1f s ago (another process may be "
               "writing them)\n",
               static_cast<double>(age_micros) / 1e6);
}

int LoadLocation(const std::string& argument, lake_location** out) {
  std::string text = argument;
  if (!argument.empty() && argument[0] == '@') {
    const std::string path = argument.substr(1);
    if (path.empty()) {
      ReportError("location '@' names no file: @PATH");
      return kExitUsage;
    }
    // A file read whole: JSON allows the trailing newline of `lake put >`.
    if (!ReadInputFile(path, &text)) return ReportUnreadableInput("location file", path, errno);
  }
  lake_error* err = nullptr;
  lake_status status = lake_location_from_json(text.data(), text.size(), out, &err);
  if (status != LAKE_OK) return ReportFailure(status, err, "invalid location");
  return kExitOk;
}

}  // namespace lake::cli
