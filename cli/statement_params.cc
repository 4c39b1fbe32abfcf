#include "cli/statement_params.h"

#include <memory>

#include "absl/strings/str_cat.h"
#include "cli/cli_stage.h"
#include "cli/exit_status.h"

namespace lake::cli {

std::vector<FlagSpec> ParameterFlags() {
  return {{"--param", "", true, true}, {"--file", "", true, true}, {"--location", "", true, true}};
}

std::pair<std::string, std::string> SplitFileArgument(const std::string& argument) {
  size_t colon = argument.rfind(':');
  if (colon != std::string::npos && argument.find('/', colon + 1) != std::string::npos) {
    return {argument.substr(0, colon), argument.substr(colon + 1)};
  }
  return {argument, ""};
}

int BindParameters(lake_statement* stmt, const ParsedArgs& args, const std::string& command) {
  size_t expected = lake_statement_parameter_count(stmt);
  if (args.repeated.size() != expected) {
    return ReportUsage(absl::StrCat("the statement has ", expected, " placeholders, ",
                                    args.repeated.size(), " values given"),
                       command);
  }
  size_t index = 0;
  for (const auto& [flag, value] : args.repeated) {
    ++index;
    lake_error* err = nullptr;
    lake_status status = LAKE_OK;
    if (flag == "--param") {
      status = lake_statement_bind_text(stmt, index, value.c_str(), &err);
    } else if (flag == "--file") {
      auto [path, content_type] = SplitFileArgument(value);
      status = lake_statement_bind_file_path(stmt, index, path.c_str(),
                                             content_type.empty() ? nullptr : content_type.c_str(),
                                             &err);
    } else {
      lake_location* location = nullptr;
      if (int code = LoadLocation(value, &location); code != kExitOk) return code;
      status = lake_statement_bind_location(stmt, index, location, &err);
      lake_location_free(location);
    }
    if (status != LAKE_OK) return ReportFailure(status, err, command);
  }
  return kExitOk;
}

}  // namespace lake::cli
