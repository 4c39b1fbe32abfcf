// Command-line parsing for `lake`: flags with and without values, `--`,
// `--flag=value` and `--flag value`, positionals in order. Every command
// declares its flags; anything else is a usage error (exit 2).
#ifndef LAKE_CLI_CLI_ARGS_H_
#define LAKE_CLI_CLI_ARGS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace lake::cli {

struct FlagSpec {
  std::string name;        // "--range"
  std::string short_name;  // "-o", or empty
  bool takes_value = false;
  // May be given many times; its values land in ParsedArgs::repeated.
  bool repeatable = false;
};

struct ParsedArgs {
  std::vector<std::string> positionals;
  std::map<std::string, std::string> values;  // by long name
  std::set<std::string> switches;             // by long name
  // Values of repeatable flags, in argv order: (long name, value).
  std::vector<std::pair<std::string, std::string>> repeated;

  std::optional<std::string> Value(const std::string& name) const;
  bool Has(const std::string& name) const { return switches.count(name) > 0; }
};

absl::StatusOr<ParsedArgs> ParseArgs(const std::vector<std::string>& args,
                                     const std::vector<FlagSpec>& specs);

// A duration flag ("7d", "36h", "90m", "1h30m", "3600s": whole days, or
// absl's durations), 0..36500 days, in whole seconds; false when invalid.
bool ParseDurationSeconds(const std::string& text, uint64_t* seconds);

}  // namespace lake::cli

#endif  // LAKE_CLI_CLI_ARGS_H_
