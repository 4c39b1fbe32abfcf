#include "cli/cli_stage.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "cli/exit_status.h"

namespace lake::cli {

std::vector<FlagSpec> GlobalFlags() {
  return {{"--root", "", true},     {"--stage", "", true},
          {"--endpoint", "", true}, {"--region", "", true},
          {"--path-style", "", false}};
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
  if (status == LAKE_OK) status = lake_db_open(global.root.c_str(), opts, db, &err);
  lake_stage_options_free(opts);
  if (status != LAKE_OK) return ReportFailure(status, err, "opening the root " + global.root);
  return kExitOk;
}

int LoadLocation(const std::string& argument, lake_location** out) {
  std::string text = argument;
  if (!argument.empty() && argument[0] == '@') {
    std::ifstream in(argument.substr(1), std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "lake: cannot read location file %s\n",
                   argument.substr(1).c_str());
      return kExitNotFound;
    }
    std::ostringstream content;
    content << in.rdbuf();
    text = content.str();  // JSON allows the trailing newline of `lake put >`
  }
  lake_error* err = nullptr;
  lake_status status = lake_location_from_json(text.data(), text.size(), out, &err);
  if (status != LAKE_OK) return ReportFailure(status, err, "invalid location");
  return kExitOk;
}

}  // namespace lake::cli
