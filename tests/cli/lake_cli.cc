#include "tests/cli/lake_cli.h"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <grp.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace lake::testing {

Result Lake(const TempDir& dir, const std::vector<std::string>& args, const LakeRun& run) {
  const char* cli = std::getenv("LAKE_CLI");
  REQUIRE_MESSAGE(cli != nullptr, "LAKE_CLI must name the lake binary");
  std::string in_path = dir.Join(".stdin"), out_path = dir.Join(".stdout"),
              err_path = dir.Join(".stderr");
  std::ofstream(in_path, std::ios::binary) << run.input;
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    if (chdir(dir.path().c_str()) != 0) _exit(120);
    int in = open(in_path.c_str(), O_RDONLY);
    int out = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(in, 0);
    dup2(out, 1);
    dup2(err, 2);
    unsetenv("LAKE_ROOT");
    for (const std::string& kv : run.env) putenv(strdup(kv.c_str()));
    if (run.user) {
      // Groups first: they need the privilege the uid switch gives up.
      if (setgroups(0, nullptr) != 0 || setgid(run.user->gid) != 0 ||
          setuid(run.user->uid) != 0) {
        _exit(122);
      }
    }
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(cli));
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(cli, argv.data());
    _exit(121);
  }
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  Result r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = Slurp(out_path);
  r.err = Slurp(err_path);
  return r;
}

Result Lake(const TempDir& dir, const std::vector<std::string>& args, const std::string& input,
            const std::vector<std::string>& env) {
  return Lake(dir, args, LakeRun{input, env, std::nullopt});
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string WriteSource(const TempDir& dir, const std::string& name, size_t size, uint64_t seed) {
  std::vector<uint8_t> bytes = RandomBytes(size, seed);
  WriteFile(dir.Join(name), bytes);
  return std::string(bytes.begin(), bytes.end());
}

std::string Put(const TempDir& dir, const std::string& file) {
  Result r = Lake(dir, {"put", file});
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  REQUIRE(!r.out.empty());
  CHECK(r.out.back() == '\n');
  return r.out.substr(0, r.out.size() - 1);
}

std::string ObjectPath(const std::string& json) {
  size_t start = json.find("file://") + 7;
  return json.substr(start, json.find('"', start) - start);
}

}  // namespace lake::testing
