#include "cli/cli_args.h"

#include "absl/strings/numbers.h"
#include "absl/time/time.h"

namespace lake::cli {

std::optional<std::string> ParsedArgs::Value(const std::string& name) const {
  auto it = values.find(name);
  if (it == values.end()) return std::nullopt;
  return it->second;
}

absl::StatusOr<ParsedArgs> ParseArgs(const std::vector<std::string>& args,
                                     const std::vector<FlagSpec>& specs) {
  ParsedArgs parsed;
  bool only_positionals = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (only_positionals || arg == "-" || arg.empty() || arg[0] != '-') {
      parsed.positionals.push_back(arg);
      continue;
    }
    if (arg == "--") {
      only_positionals = true;
      continue;
    }
    std::string name = arg;
    std::optional<std::string> inline_value;
    if (size_t eq = arg.find('='); eq != std::string::npos && arg.rfind("--", 0) == 0) {
      name = arg.substr(0, eq);
      inline_value = arg.substr(eq + 1);
    }
    const FlagSpec* spec = nullptr;
    for (const FlagSpec& candidate : specs) {
      if (candidate.name == name ||
          (!candidate.short_name.empty() && candidate.short_name == name)) {
        spec = &candidate;
      }
    }
    if (spec == nullptr) {
      return absl::InvalidArgumentError("unknown option " + name);
    }
    if (!spec->takes_value) {
      if (inline_value) {
        return absl::InvalidArgumentError(spec->name + " takes no value");
      }
      parsed.switches.insert(spec->name);
      continue;
    }
    if (!inline_value) {
      if (i + 1 >= args.size()) {
        return absl::InvalidArgumentError(spec->name + " needs a value");
      }
      inline_value = args[++i];
    }
    if (spec->repeatable) {
      parsed.repeated.emplace_back(spec->name, *inline_value);
      continue;
    }
    if (parsed.values.count(spec->name) > 0) {
      return absl::InvalidArgumentError(spec->name + " given twice");
    }
    parsed.values[spec->name] = *inline_value;
  }
  return parsed;
}

// "7d", "36h", "90m", "1h30m", "3600s": whole days, or absl's durations.
bool ParseDurationSeconds(const std::string& text, uint64_t* seconds) {
  if (text.size() > 1 && text.back() == 'd') {
    uint64_t days = 0;
    if (!absl::SimpleAtoi(text.substr(0, text.size() - 1), &days) ||
        text.find_first_not_of("0123456789") != text.size() - 1 || days > 36500) {
      return false;
    }
    *seconds = days * 86400;
    return true;
  }
  absl::Duration d;
  if (!absl::ParseDuration(text, &d) || d < absl::ZeroDuration() ||
      d > absl::Hours(24 * 36500) || d == absl::InfiniteDuration()) {
    return false;
  }
  *seconds = static_cast<uint64_t>(absl::ToInt64Seconds(d));
  return true;
}

}  // namespace lake::cli
