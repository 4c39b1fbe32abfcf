// Running the built `lake` binary (path in $LAKE_CLI) as a user would, for
// the CLI suites: its exit code, stdout and stderr, and small helpers over
// them.
#ifndef LAKE_TESTS_CLI_LAKE_CLI_H_
#define LAKE_TESTS_CLI_LAKE_CLI_H_

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tests/support/test_files.h"

namespace lake::testing {

struct Result {
  int exit_code = -1;  // 128 + the signal when it was killed
  std::string out;
  std::string err;
};

// Who runs lake and with what: `env` entries ("NAME=VALUE") are added to
// the test's environment ($LAKE_ROOT is always removed first); `user`, when
// set, is the uid and gid the child switches to (with no supplementary
// groups) before it runs lake — the test must run as root for that.
struct LakeRun {
  std::string input;
  std::vector<std::string> env;
  struct User {
    uid_t uid;
    gid_t gid;
  };
  std::optional<User> user;
};

// Runs lake in `dir` with `args`; stdin, stdout and stderr go through files
// in `dir` (.stdin, .stdout, .stderr).
Result Lake(const TempDir& dir, const std::vector<std::string>& args, const LakeRun& run);
Result Lake(const TempDir& dir, const std::vector<std::string>& args,
            const std::string& input = "", const std::vector<std::string>& env = {});

// The whole of the file at `path` ("" when it cannot be read).
std::string Slurp(const std::string& path);

// Lines of `text`, without their newlines.
std::vector<std::string> Lines(const std::string& text);

// Writes `size` random bytes (from `seed`) to dir/name; returns them.
std::string WriteSource(const TempDir& dir, const std::string& name, size_t size, uint64_t seed);

// `lake put FILE`'s DataLocation JSON (its output without the newline).
std::string Put(const TempDir& dir, const std::string& file);

// The local path a file:// DataLocation JSON names.
std::string ObjectPath(const std::string& json);

}  // namespace lake::testing

#endif  // LAKE_TESTS_CLI_LAKE_CLI_H_
