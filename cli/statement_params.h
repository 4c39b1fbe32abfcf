// Binding a statement's placeholders from the command line (CLI.md,
// "Values"): --param VALUE, --file PATH[:CONTENT_TYPE] and
// --location JSON|@PATH, in argv order.
#ifndef LAKE_CLI_STATEMENT_PARAMS_H_
#define LAKE_CLI_STATEMENT_PARAMS_H_

#include <string>
#include <utility>
#include <vector>

#include "cli/cli_args.h"
#include "lake.h"

namespace lake::cli {

// The three flags, repeatable.
std::vector<FlagSpec> ParameterFlags();

// Splits PATH[:CONTENT_TYPE]: the part after the last ':' is the content
// type only if it contains '/'.
std::pair<std::string, std::string> SplitFileArgument(const std::string& argument);

// Binds every parameter of `args` to `stmt` in order. Returns an exit code
// and prints any failure (`command` names the command in messages).
int BindParameters(lake_statement* stmt, const ParsedArgs& args, const std::string& command);

}  // namespace lake::cli

#endif  // LAKE_CLI_STATEMENT_PARAMS_H_
