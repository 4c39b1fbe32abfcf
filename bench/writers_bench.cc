// The many-writers benchmark: single-row INSERTs, each uploading its own
// 1 MiB FILE, from one process and from several processes writing one
// table of one root at once (through the C ABI, as pipeline workers would).
//
//   writers_bench DIR ROWS PROCESSES...
//
// For each process count P, on a fresh root under DIR: P processes (fork)
// each open the root, prepare the INSERT (which opens the registry: the
// first becomes its owner, the others forward to it) and wait at a start
// line; then each inserts ROWS / P rows, one INSERT per row, each FILE a
// distinct 1 MiB file written before the start. The time runs from the
// start to the last process's exit. Prints, one "key=value" line per
// figure: rows_per_s_<P> for each P, then ratio_<P>_vs_<first P>.
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "lake.h"

namespace {

using Clock = std::chrono::steady_clock;

constexpr size_t kFileBytes = size_t{1} << 20;

[[noreturn]] void Die(const std::string& what, lake_error* err = nullptr) {
  std::fprintf(stderr, "writers_bench: %s%s%s\n", what.c_str(), err ? ": " : "",
               err ? lake_error_message(err) : "");
  std::exit(1);
}

void Check(lake_status status, lake_error* err, const std::string& what) {
  if (status != LAKE_OK) Die(what, err);
}

// A distinct 1 MiB file per row: the row's number in its first bytes.
std::string WriteRowFile(const std::string& dir, int process, int row) {
  std::string path = dir + "/src-" + std::to_string(process) + "-" + std::to_string(row);
  std::string bytes(kFileBytes, '\0');
  uint64_t x = 0x9e3779b97f4a7c15ULL * static_cast<uint64_t>(process * 1000003 + row + 1);
  for (size_t i = 0; i < bytes.size(); ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    bytes[i] = static_cast<char>(x);
  }
  std::ofstream(path, std::ios::binary).write(bytes.data(), bytes.size());
  return path;
}

// One writer process: prepares, waits for the start, inserts its rows.
void RunWriter(const std::string& root, const std::string& dir, int process, int rows,
               int ready_fd, int start_fd) {
  std::vector<std::string> files;
  for (int row = 0; row < rows; ++row) files.push_back(WriteRowFile(dir, process, row));
  lake_db* db = nullptr;
  lake_error* err = nullptr;
  Check(lake_db_open(root.c_str(), nullptr, &db, &err), err, "open " + root);
  Check(lake_db_set_busy_timeout(db, 600000, &err), err, "busy timeout");
  lake_statement* insert = nullptr;
  Check(lake_db_prepare(db, "INSERT INTO bench.files (id, video) VALUES (?, ?)", &insert, &err),
        err, "prepare");
  if (::write(ready_fd, "r", 1) != 1) Die("report ready");
  char go = 0;
  if (::read(start_fd, &go, 1) < 0) Die("wait for the start");
  for (int row = 0; row < rows; ++row) {
    std::string id = std::to_string(process) + "-" + std::to_string(row);
    Check(lake_statement_bind_utf8(insert, 1, id.data(), id.size(), &err), err, "bind id");
    Check(lake_statement_bind_file_path(insert, 2, files[row].c_str(), "video/mp4", &err), err,
          "bind file");
    uint64_t version = 0;
    Check(lake_statement_insert(insert, nullptr, &version, &err), err, "insert " + id);
  }
  lake_statement_free(insert);
  lake_db_free(db);
  for (const std::string& file : files) std::filesystem::remove(file);
}

// Rows per second of `processes` writers inserting `rows` in all.
double Measure(const std::string& dir, int rows, int processes) {
  std::string run = dir + "/p" + std::to_string(processes);
  std::filesystem::create_directories(run);
  std::string root = run + "/root";
  {
    lake_db* db = nullptr;
    lake_error* err = nullptr;
    Check(lake_db_open(root.c_str(), nullptr, &db, &err), err, "open " + root);
    const char* columns[] = {"id:utf8", "video:file"};
    Check(lake_table_create(db, "bench.files", columns, 2, &err), err, "create table");
    lake_db_free(db);
  }
  int start[2];
  if (::pipe(start) != 0) Die("pipe");
  int ready[2];
  if (::pipe(ready) != 0) Die("pipe");
  std::vector<pid_t> pids;
  for (int p = 0; p < processes; ++p) {
    int share = rows / processes + (p < rows % processes ? 1 : 0);
    pid_t pid = ::fork();
    if (pid < 0) Die("fork");
    if (pid == 0) {
      ::close(start[1]);
      ::close(ready[0]);
      RunWriter(root, run, p, share, ready[1], start[0]);
      ::_exit(0);
    }
    pids.push_back(pid);
  }
  ::close(start[0]);
  ::close(ready[1]);
  // Every writer has written its files and prepared (one byte each), and
  // waits at the start line until the pipe closes.
  for (int p = 0; p < processes; ++p) {
    char byte;
    if (::read(ready[0], &byte, 1) != 1) Die("a writer process failed to prepare");
  }
  ::close(ready[0]);
  Clock::time_point began = Clock::now();
  ::close(start[1]);  // the start: every read returns
  for (pid_t pid : pids) {
    int status = 0;
    if (::waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      Die("a writer process failed");
    }
  }
  double seconds = std::chrono::duration<double>(Clock::now() - began).count();
  std::filesystem::remove_all(run);
  return rows / seconds;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: writers_bench DIR ROWS PROCESSES...\n");
    return 2;
  }
  std::string dir = argv[1];
  int rows = std::atoi(argv[2]);
  if (rows <= 0) Die("ROWS must be positive");
  std::vector<int> counts;
  for (int i = 3; i < argc; ++i) {
    int p = std::atoi(argv[i]);
    if (p <= 0 || p > rows) Die("a process count must be 1..ROWS");
    counts.push_back(p);
  }
  std::vector<double> rates;
  for (int p : counts) {
    rates.push_back(Measure(dir, rows, p));
    std::printf("rows_per_s_%d=%.1f\n", p, rates.back());
    std::fflush(stdout);
  }
  for (size_t i = 1; i < counts.size(); ++i) {
    std::printf("ratio_%d_vs_%d=%.2f\n", counts[i], counts[0], rates[i] / rates[0]);
  }
  return 0;
}
