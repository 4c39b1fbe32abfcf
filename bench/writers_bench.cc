// The many-writers benchmark: single-row INSERTs, each uploading its own
// 1 MiB FILE, from one process and from several processes writing one
// table of one root at once (through the C ABI, as pipeline workers would),
// and the same work done bare, without lake: the floor of this machine.
//
//   writers_bench DIR ROWS ROUNDS PROCESSES...
//
// For each process count P, on a fresh root under DIR: P processes (fork)
// each open the root, prepare the INSERT (which opens the registry: the
// first becomes its owner, the others forward to it) and wait at a start
// line; then each inserts ROWS / P rows, one INSERT per row, each FILE a
// distinct 1 MiB file (written once, under DIR/sources, before the first
// start). The time runs from the
// start to the last process's exit; so does the CPU time each process
// reports (getrusage), for the CPU per row and the cores kept busy.
//
// Bare, for each P the same way in a directory of its own, four floors:
//   - floor: per row, the least a durable insert of a 1 MiB file must do
//     with one commit at a time — read the file, SHA-256 it, write it to a
//     new file (direct I/O, as lake's local stage writes), fdatasync it,
//     rename it into place, fsync the directory; then, holding an
//     exclusive flock on a log shared by every process, append a 256-byte
//     record and fdatasync the log;
//   - group: the same, but the record is appended under the flock and
//     made durable after it, by one fdatasync that serves every record
//     appended before it (group commit: a second flock elects the process
//     that syncs, and a shared counter says how far the log is synced);
//   - uploads: the same without the log, so no commit at all;
//   - shared: group commit whose one sync also makes the uploads durable
//     (syncfs: every file written back, one device flush), an upload
//     syncing neither its file nor its directory — a design lake does not
//     have, measured for what it would gain.
// Their ratios are the most more processes can gain on this machine's
// cores and disk: with one commit at a time, with commits sharing their
// flushes, with none, and with uploads sharing them too.
//
// ROUNDS times over, every count and work in turn: this machine's disk
// and cores vary between identical runs by more than the effects
// measured, so a figure is the median of its rounds, and a ratio the
// median of the rounds' ratios (each round's counts measured seconds
// apart). Nothing is removed until every round is measured. Prints, one
// "key=value" line per figure: <work>_rows_per_s_<P>, <work>_cpu_ms_per_
// row_<P> and <work>_cores_busy_<P> for each P and work (lake, floor,
// group, uploads, shared), then <work>_ratio_<P>_vs_<first P> and, for each
// round, <work>_ratios_<P>_vs_<first P> (comma-separated). With
// LAKE_BENCH_ONLY=<work> in the environment, only that work is measured
// (to profile it alone).
#include <fcntl.h>
#include <openssl/sha.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
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
// Written once: a later measurement reads the same file.
std::string WriteRowFile(const std::string& dir, int process, int row) {
  std::string path = dir + "/src-" + std::to_string(process) + "-" + std::to_string(row);
  std::error_code error;
  if (std::filesystem::file_size(path, error) == kFileBytes) return path;
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
enum class Work { kLake, kFloor, kGroup, kUploads, kShared };
constexpr Work kWorks[] = {Work::kLake, Work::kFloor, Work::kGroup, Work::kUploads, Work::kShared};

const char* NameOf(Work work) {
  switch (work) {
    case Work::kLake:
      return "lake";
    case Work::kFloor:
      return "floor";
    case Work::kGroup:
      return "group";
    case Work::kUploads:
      return "uploads";
    case Work::kShared:
      return "shared";
  }
  return "?";
}

// The floor's log, shared by every floor writer of a run; for group
// commit, the lock that elects the process which syncs it, and the log's
// synced length (a uint64 in a file every writer maps).
constexpr char kFloorLog[] = "floor.log";
constexpr char kFloorSyncLock[] = "floor.sync";
constexpr char kFloorSynced[] = "floor.synced";
constexpr size_t kFloorRecordBytes = 256;

void CheckPosix(bool ok, const std::string& what) {
  if (!ok) Die(what + ": " + std::strerror(errno));
}

// Group commit of the floor's log: a record is durable once the synced
// length passes its end; the process that finds it short takes the sync
// lock and syncs everything appended so far, for every waiter at once.
class GroupSync {
 public:
  // `whole_fs`: a sync writes back every file of the file system and
  // flushes the device once (syncfs), not the log alone.
  GroupSync(const std::string& dir, int log, bool whole_fs) : log_(log), whole_fs_(whole_fs) {
    const std::string lock_path = dir + "/" + kFloorSyncLock;
    lock_ = ::open(lock_path.c_str(), O_RDWR | O_CLOEXEC);
    CheckPosix(lock_ >= 0, "open " + lock_path);
    const std::string synced_path = dir + "/" + kFloorSynced;
    int synced = ::open(synced_path.c_str(), O_RDWR | O_CLOEXEC);
    CheckPosix(synced >= 0, "open " + synced_path);
    void* mapped =
        ::mmap(nullptr, sizeof(uint64_t), PROT_READ | PROT_WRITE, MAP_SHARED, synced, 0);
    CheckPosix(mapped != MAP_FAILED, "map " + synced_path);
    ::close(synced);
    synced_ = static_cast<std::atomic<uint64_t>*>(mapped);
  }
  ~GroupSync() {
    ::munmap(synced_, sizeof(uint64_t));
    ::close(lock_);
  }
  GroupSync(const GroupSync&) = delete;
  GroupSync& operator=(const GroupSync&) = delete;

  void SyncThrough(uint64_t end) {
    if (synced_->load(std::memory_order_acquire) >= end) return;
    CheckPosix(::flock(lock_, LOCK_EX) == 0, "lock the log's sync");
    if (synced_->load(std::memory_order_acquire) < end) {
      struct stat st;
      CheckPosix(::fstat(log_, &st) == 0 && (whole_fs_ ? ::syncfs(log_) : ::fdatasync(log_)) == 0,
                 "sync the log");
      synced_->store(static_cast<uint64_t>(st.st_size), std::memory_order_release);
    }
    CheckPosix(::flock(lock_, LOCK_UN) == 0, "unlock the log's sync");
  }

 private:
  const int log_;
  const bool whole_fs_;
  int lock_ = -1;
  std::atomic<uint64_t>* synced_ = nullptr;
};

// One bare writer: the steps of the header's floor, per row, with the
// commit one at a time (kFloor), sharing flushes (kGroup), without it
// (kUploads), or sharing the commits' flushes with the uploads (kShared).
void RunBareWriter(Work work, const std::string& dir, const std::vector<std::string>& files,
                   int process) {
  const std::string objects = dir + "/objects";
  int objects_dir = ::open(objects.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  CheckPosix(objects_dir >= 0, "open " + objects);
  const std::string log_path = dir + "/" + kFloorLog;
  int log = ::open(log_path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  CheckPosix(log >= 0, "open " + log_path);
  std::optional<GroupSync> group;
  if (work == Work::kGroup || work == Work::kShared) group.emplace(dir, log, work == Work::kShared);
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
    // Shared: no flush of its own; the group's sync makes it durable.
    const bool own_flush = work != Work::kShared;
    CheckPosix(
        object >= 0 &&
            ::write(object, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size()) &&
            (!own_flush || ::fdatasync(object) == 0),
        "write " + staging);
    ::close(object);
    CheckPosix(::rename(staging.c_str(), (objects + "/" + name).c_str()) == 0 &&
                   (!own_flush || ::fsync(objects_dir) == 0),
               "publish " + name);
    if (work == Work::kUploads) continue;
    // The commit: one append at a time across the processes.
    std::memcpy(record.data(), digest.data(), digest.size());
    CheckPosix(::flock(log, LOCK_EX) == 0, "lock " + log_path);
    CheckPosix(::write(log, record.data(), record.size()) ==
                   static_cast<ssize_t>(record.size()),
               "append to " + log_path);
    if (work == Work::kFloor) {
      CheckPosix(::fdatasync(log) == 0, "sync " + log_path);
      CheckPosix(::flock(log, LOCK_UN) == 0, "unlock " + log_path);
      continue;
    }
    const off_t end = ::lseek(log, 0, SEEK_CUR);  // O_APPEND: the log's end
    CheckPosix(end > 0 && ::flock(log, LOCK_UN) == 0, "unlock " + log_path);
    group->SyncThrough(static_cast<uint64_t>(end));
  }
  ::close(log);
  ::close(objects_dir);
}

// CPU time (user and system, of every thread, io_uring's workers
// included) this process has used, in milliseconds.
double CpuMillis() {
  struct rusage usage;
  if (::getrusage(RUSAGE_SELF, &usage) != 0) Die("getrusage");
  auto ms = [](const timeval& t) { return t.tv_sec * 1e3 + t.tv_usec / 1e3; };
  return ms(usage.ru_utime) + ms(usage.ru_stime);
}

// One writer process: prepares, waits for the start, inserts its rows.
// Returns the CPU time it used from the start on, in milliseconds.
double RunWriter(Work work, const std::string& root, const std::string& sources,
                 const std::string& dir, int process, int rows, int ready_fd, int start_fd) {
  std::vector<std::string> files;
  for (int row = 0; row < rows; ++row) files.push_back(WriteRowFile(sources, process, row));
  if (work != Work::kLake) {
    if (::write(ready_fd, "r", 1) != 1) Die("report ready");
    char go = 0;
    if (::read(start_fd, &go, 1) < 0) Die("wait for the start");
    const double cpu_at_start = CpuMillis();
    RunBareWriter(work, dir, files, process);
    return CpuMillis() - cpu_at_start;
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
  const double cpu_at_start = CpuMillis();
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
  return CpuMillis() - cpu_at_start;
}

// The directory of one measurement.
std::string RunDir(const std::string& dir, Work work, int processes, int round) {
  return dir + "/" + NameOf(work) + std::to_string(processes) + "-" + std::to_string(round);
}

// The directory of the row files every measurement reads.
std::string SourcesDir(const std::string& dir) { return dir + "/sources"; }

// One measurement's figures.
struct Figures {
  double rows_per_s = 0;
  double cpu_ms_per_row = 0;  // of every writer process, from the start
  double cores_busy = 0;      // their CPU time over the time taken
};

// `processes` writers inserting `rows` in all, doing `work`.
Figures Measure(const std::string& dir, int rows, int processes, Work work, int round) {
  std::string run = RunDir(dir, work, processes, round);
  std::filesystem::create_directories(run);
  std::string root = run + "/root";
  if (work != Work::kLake) {
    std::filesystem::create_directories(run + "/objects");
    std::ofstream(run + "/" + kFloorLog).flush();
    std::ofstream(run + "/" + kFloorSyncLock).flush();
    const uint64_t synced = 0;
    std::ofstream(run + "/" + kFloorSynced, std::ios::binary)
        .write(reinterpret_cast<const char*>(&synced), sizeof(synced));
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
  int cpu[2];  // each writer's CPU milliseconds, a double, as it ends
  if (::pipe(cpu) != 0) Die("pipe");
  std::vector<pid_t> pids;
  for (int p = 0; p < processes; ++p) {
    int share = rows / processes + (p < rows % processes ? 1 : 0);
    pid_t pid = ::fork();
    if (pid < 0) Die("fork");
    if (pid == 0) {
      ::close(start[1]);
      ::close(ready[0]);
      ::close(cpu[0]);
      const double used = RunWriter(work, root, SourcesDir(dir), run, p, share, ready[1], start[0]);
      if (::write(cpu[1], &used, sizeof(used)) != sizeof(used)) Die("report the CPU time");
      ::_exit(0);
    }
    pids.push_back(pid);
  }
  ::close(start[0]);
  ::close(ready[1]);
  ::close(cpu[1]);
  // Every writer has written its files and prepared (one byte each), and
  // waits at the start line until the pipe closes.
  for (int p = 0; p < processes; ++p) {
    char byte;
    if (::read(ready[0], &byte, 1) != 1) Die("a writer process failed to prepare");
  }
  ::close(ready[0]);
  // Nothing dirty is left to write back during the measurement: the row
  // files the first one wrote (hundreds of MB), the last one's leftovers.
  ::sync();
  Clock::time_point began = Clock::now();
  ::close(start[1]);  // the start: every read returns
  for (pid_t pid : pids) {
    int status = 0;
    if (::waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      Die("a writer process failed");
    }
  }
  double seconds = std::chrono::duration<double>(Clock::now() - began).count();
  double cpu_ms = 0;
  for (int p = 0; p < processes; ++p) {
    double used = 0;
    if (::read(cpu[0], &used, sizeof(used)) != sizeof(used)) Die("read a writer's CPU time");
    cpu_ms += used;
  }
  ::close(cpu[0]);
  return Figures{rows / seconds, cpu_ms / rows, cpu_ms / 1e3 / seconds};
}

std::string TwoDecimals(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.2f", value);
  return text;
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: writers_bench DIR ROWS ROUNDS PROCESSES...\n");
    return 2;
  }
  std::string dir = argv[1];
  int rows = std::atoi(argv[2]);
  if (rows <= 0) Die("ROWS must be positive");
  int rounds = std::atoi(argv[3]);
  if (rounds <= 0) Die("ROUNDS must be positive");
  std::vector<int> counts;
  for (int i = 4; i < argc; ++i) {
    int p = std::atoi(argv[i]);
    if (p <= 0 || p > rows) Die("a process count must be 1..ROWS");
    counts.push_back(p);
  }
  // One work alone (for a profile), when named.
  const char* only = std::getenv("LAKE_BENCH_ONLY");
  std::filesystem::create_directories(SourcesDir(dir));
  // figures[w][i][r]: work kWorks[w] by counts[i] processes in round r.
  std::vector<std::vector<std::vector<Figures>>> figures(
      std::size(kWorks), std::vector<std::vector<Figures>>(counts.size()));
  for (int round = 0; round < rounds; ++round) {
    for (size_t i = 0; i < counts.size(); ++i) {
      for (size_t w = 0; w < std::size(kWorks); ++w) {
        if (only != nullptr && only != std::string_view(NameOf(kWorks[w]))) continue;
        figures[w][i].push_back(Measure(dir, rows, counts[i], kWorks[w], round));
      }
    }
  }
  // Removed only now: on ext4 without a journal, creating a file skips
  // every inode deleted in the last minute (six while its inode block is
  // dirty), reading each one's inode block, so one measurement's clean-up
  // would slow the uploads of the next.
  for (int round = 0; round < rounds; ++round) {
    for (int p : counts) {
      for (Work work : kWorks) std::filesystem::remove_all(RunDir(dir, work, p, round));
    }
  }
  std::filesystem::remove_all(SourcesDir(dir));
  for (size_t w = 0; w < std::size(kWorks); ++w) {
    const char* name = NameOf(kWorks[w]);
    if (figures[w][0].empty()) continue;
    for (size_t i = 0; i < counts.size(); ++i) {
      std::vector<double> rates, cpu, busy;
      for (const Figures& f : figures[w][i]) {
        rates.push_back(f.rows_per_s);
        cpu.push_back(f.cpu_ms_per_row);
        busy.push_back(f.cores_busy);
      }
      std::printf("%s_rows_per_s_%d=%.1f\n", name, counts[i], Median(rates));
      std::printf("%s_cpu_ms_per_row_%d=%.2f\n", name, counts[i], Median(cpu));
      std::printf("%s_cores_busy_%d=%.2f\n", name, counts[i], Median(busy));
    }
    for (size_t i = 1; i < counts.size(); ++i) {
      std::vector<double> ratios;
      std::string listed;
      for (int round = 0; round < rounds; ++round) {
        ratios.push_back(figures[w][i][round].rows_per_s / figures[w][0][round].rows_per_s);
        if (round > 0) listed += ',';
        listed += TwoDecimals(ratios.back());
      }
      std::printf("%s_ratio_%d_vs_%d=%.2f\n", name, counts[i], counts[0], Median(ratios));
      std::printf("%s_ratios_%d_vs_%d=%s\n", name, counts[i], counts[0], listed.c_str());
    }
  }
  return 0;
}
