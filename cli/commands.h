// The `lake` commands. Each takes the arguments after its name and returns
// the process exit code (exit_status.h).
#ifndef LAKE_CLI_COMMANDS_H_
#define LAKE_CLI_COMMANDS_H_

#include <string>
#include <vector>

namespace lake::cli {

int RunPut(const std::vector<std::string>& args);
int RunCat(const std::vector<std::string>& args);
int RunStage(const std::vector<std::string>& args);
int RunPresign(const std::vector<std::string>& args);
int RunTable(const std::vector<std::string>& args);
int RunInsert(const std::vector<std::string>& args);
int RunQuery(const std::vector<std::string>& args);
int RunExec(const std::vector<std::string>& args);
int RunRecover(const std::vector<std::string>& args);
int RunEvents(const std::vector<std::string>& args);
int RunGc(const std::vector<std::string>& args);
int RunPin(const std::vector<std::string>& args);
int RunUnpin(const std::vector<std::string>& args);
int RunUploads(const std::vector<std::string>& args);

}  // namespace lake::cli

#endif  // LAKE_CLI_COMMANDS_H_
