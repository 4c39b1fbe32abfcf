// The many-writers benchmark: single-row INSERTs, each uploading its own
// 1 MiB FILE, from one process and from several processes writing one
// table of one root at once (through the C ABI, as pipeline workers would),
// and the same work done bare, without lake: the floor of this machine.
//
//   writers_bench DIR ROWS PROCESSES...
//
// For each process count P, on a fresh root under DIR: P processes (fork)
// each open the root, prepare the INSERT (which opens the registry: the
// first becomes its owner, the others forward to it) and wait at a start
// line; then each inserts ROWS / P rows, one INSERT per row, each FILE a
// distinct 1 MiB file written before the start. The time runs from the
// start to the last process's exit.
//
// Bare, for each P the same way in a directory of its own, two floors:
//   - floor: per row, the least a durable insert of a 1 MiB file must do
//     with one commit at a time — read the file, SHA-256 it, write it to a
//     new file (direct I/O, as lake's local stage writes), fdatasync it,
//     rename it into place, fsync the directory; then, holding an
//     exclusive flock on a log shared by every process, append a 256-byte
//     record and fdatasync the log;
//   - uploads: the same without the log, so no commit at all.
// Their ratios are the most more processes can gain on this machine's
// cores and disk: with one commit at a time, and with none.
//
// Nothing is removed until every count is measured. Prints, one
// "key=value" line per figure: <work>_rows_per_s_<P> for each P and work
// (lake, floor, uploads), then <work>_ratio_<P>_vs_<first P>.
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <iterator>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include <openssl/sha.h>
#include <sys/file.h>
#include <sys/stat.h>

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

// What the processes of a measurement do per row.
enum class Work { kLake, kFloor, kUploads };
constexpr Work kWorks[] = {Work::kLake, Work::kFloor, Work::kUploads};

const char* NameOf(Work work) {
  switch (work) {
    case Work::kLake:
      return "lake";
    case Work::kFloor:
      return "floor";
    case Work::kUploads:
      return "uploads";
  }
  return "?";
}

// The floor's log, shared by every floor writer of a run.
constexpr char kFloorLog[] = "floor.log";
constexpr size_t kFloorRecordBytes = 256;

void CheckPosix(bool ok, const std::string& what) {
  if (!ok) Die(what + ": " + std::strerror(errno));
}

// One bare writer: the steps of the header's floor, per row, with the
// commit (kFloor) or without it (kUploads).
void RunBareWriter(Work work, const std::string& dir, const std::vector<std::string>& files,
                   int process) {
  const std::string objects = dir + "/objects";
  int objects_dir = ::open(objects.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  CheckPosix(objects_dir >= 0, "open " + objects);
  const std::string log_path = dir + "/" + kFloorLog;
  int log = ::open(log_path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  CheckPosix(log >= 0, "open " + log_path);
  // Page-aligned, for the direct write lake's local stage makes too.
  void* aligned = nullptr;
  CheckPosix(::posix_memalign(&aligned, 4096, kFileBytes) == 0, "allocate");
  std::unique_ptr<char, decltype(&std::free)> buffer(static_cast<char*>(aligned), &std::free);
  std::string_view bytes(buffer.get(), kFileBytes);
  std::array<unsigned char, SHA256_DIGEST_LENGTH> digest;
  std::array<char, kFloorRecordBytes> record{};
  for (size_t row = 0; row < files.size(); ++row) {
    int source = ::open(files[row].c_str(), O_RDONLY | O_CLOEXEC);
    CheckPosix(source >= 0 && ::read(source, buffer.get(), bytes.size()) ==
                                  static_cast<ssize_t>(bytes.size()),
               "read " + files[row]);
    ::close(source);
    SHA256(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), digest.data());
    const std::string name = std::to_string(process) + "-" + std::to_string(row);
    const std::string staging = objects + "/." + name + ".uploading";
    int object =
        ::open(staging.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_DIRECT | O_CLOEXEC, 0644);
    CheckPosix(object >= 0 &&
                   ::write(object, bytes.data(), bytes.size()) ==
                       static_cast<ssize_t>(bytes.size()) &&
                   ::fdatasync(object) == 0,
               "write " + staging);
    ::close(object);
    CheckPosix(::rename(staging.c_str(), (objects + "/" + name).c_str()) == 0 &&
                   ::fsync(objects_dir) == 0,
               "publish " + name);
    if (work == Work::kUploads) continue;
    // The commit: one at a time across the processes.
    std::memcpy(record.data(), digest.data(), digest.size());
    CheckPosix(::flock(log, LOCK_EX) == 0, "lock " + log_path);
    CheckPosix(::write(log, record.data(), record.size()) ==
                       static_cast<ssize_t>(record.size()) &&
                   ::fdatasync(log) == 0,
               "append to " + log_path);
    CheckPosix(::flock(log, LOCK_UN) == 0, "unlock " + log_path);
  }
  ::close(log);
  ::close(objects_dir);
}

// One writer process: prepares, waits for the start, inserts its rows.
void RunWriter(Work work, const std::string& root, const std::string& dir, int process,
               int rows, int ready_fd, int start_fd) {
  std::vector<std::string> files;
  for (int row = 0; row < rows; ++row) files.push_back(WriteRowFile(dir, process, row));
  if (work != Work::kLake) {
    if (::write(ready_fd, "r", 1) != 1) Die("report ready");
    char go = 0;
    if (::read(start_fd, &go, 1) < 0) Die("wait for the start");
    RunBareWriter(work, dir, files, process);
    return;
  }
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
}

// The directory of one measurement.
std::string RunDir(const std::string& dir, Work work, int processes) {
  return dir + "/" + NameOf(work) + std::to_string(processes);
}

// Rows per second of `processes` writers inserting `rows` in all, doing
// `work`.
double Measure(const std::string& dir, int rows, int processes, Work work) {
  std::string run = RunDir(dir, work, processes);
  std::filesystem::create_directories(run);
  std::string root = run + "/root";
  if (work != Work::kLake) {
    std::filesystem::create_directories(run + "/objects");
    std::ofstream(run + "/" + kFloorLog).flush();
  } else {
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
      RunWriter(work, root, run, p, share, ready[1], start[0]);
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
  // rates[w][i]: work kWorks[w] by counts[i] processes.
  std::vector<std::vector<double>> rates(std::size(kWorks));
  for (int p : counts) {
    for (size_t w = 0; w < std::size(kWorks); ++w) {
      rates[w].push_back(Measure(dir, rows, p, kWorks[w]));
      std::printf("%s_rows_per_s_%d=%.1f\n", NameOf(kWorks[w]), p, rates[w].back());
      std::fflush(stdout);
    }
  }
  // Removed only now: on ext4 without a journal, creating a file skips
  // every inode deleted in the last few seconds (minutes while its inode
  // block is dirty), reading each one's inode block, so one measurement's
  // clean-up would slow the uploads of the next.
  for (int p : counts) {
    for (Work work : kWorks) std::filesystem::remove_all(RunDir(dir, work, p));
  }
  for (size_t w = 0; w < std::size(kWorks); ++w) {
    for (size_t i = 1; i < counts.size(); ++i) {
      std::printf("%s_ratio_%d_vs_%d=%.2f\n", NameOf(kWorks[w]), counts[i], counts[0],
                  rates[w][i] / rates[w][0]);
    }
  }
  return 0;
}
