// The spill benchmark: lake's SpillSorter (spill/, linked statically from
// lake_core, no C ABI) against `LC_ALL=C sort -u -S <budget>` on the same
// synthetic records, at each size given.
//
//   spill_bench DIR [--budget-mib M] [--block-kib K] [--fan-in F] [--no-sort]
//               N [N...]
//
// A record is 80 bytes of text shaped like a reference garbage collection
// spills: a managed object's URI, a tab and a kind (see Records). Record i of N is value i mod D (D = 0.9·N, so a tenth are duplicates)
// scrambled by a bijection, so the order is random and exactly D are
// distinct. lake sorts them in-process as they are generated; sort reads
// the same records as lines from a pipe fed by a generator process (which
// runs on another core: sort's input costs it nothing).
//
// Each side runs in a child process so its peak RSS is its own. Prints,
// one "key=value" line per figure and size N: spill_seconds_N,
// spill_cpu_seconds_N (user + system), spill_peak_budget_bytes_N (the
// SpillBudget's high-water mark), spill_rss_bytes_N, spill_disk_bytes_N
// (the most run bytes on disk at once), spill_runs_N, spill_passes_N,
// spill_fan_in_N; and sort_seconds_N, sort_cpu_seconds_N (sort's own, not
// its generator's), sort_rss_bytes_N, sort_disk_bytes_N (the most bytes in
// sort's temporary directory, polled every 50 ms).
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "io/file_system.h"
#include "spill/spill_budget.h"
#include "spill/spill_sorter.h"

namespace {

using Clock = std::chrono::steady_clock;

constexpr size_t kRecordBytes = 80;

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "spill_bench: %s\n", what.c_str());
  std::exit(1);
}

// A bijection of 64-bit values (splitmix64's finalizer).
uint64_t Scramble(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  x ^= x >> 31;
  return x;
}

// The records of a run of size n, shaped like garbage collection's: the
// URI of a managed object (engine/managed_key.h: objects/<xx>/<uuidv7>,
// <xx> the UUID's last two hex digits) and a tab and a kind, 80 bytes:
//   s3://lake-bench-bucket/stage/objects/xx/<uuidv7>\tref
// Value v's UUID holds v scrambled in its counter and random bits (so the
// records are distinct exactly when the values are) and a millisecond
// within about 4.6 hours that the scrambled value picks.
class Records {
 public:
  explicit Records(uint64_t n) : n_(n), distinct_(Distinct(n)) {
    static constexpr char kShape[] =
        "s3://lake-bench-bucket/stage/objects/xx/01900000-0000-7000-8000-000000000000\tref";
    static_assert(sizeof(kShape) - 1 == kRecordBytes);
    std::memcpy(record_, kShape, kRecordBytes);
  }
  static uint64_t Distinct(uint64_t n) { return n - n / 10; }

  // Record i, valid until the next call.
  std::string_view Get(uint64_t i) {
    const uint64_t w = Scramble(i % distinct_);
    const uint64_t millis = 0x0190000000000ull + ((w >> 40) & 0xffffff);
    char* uuid = record_ + 40;
    Hex(millis >> 16, 8, uuid);                 // time, high 32 bits
    Hex(millis & 0xffff, 4, uuid + 9);          // time, low 16 bits
    Hex(w & 0xfff, 3, uuid + 15);               // "7" then 12 bits
    Hex(0x8000 | ((w >> 12) & 0x3fff), 4, uuid + 19);
    Hex(w >> 26, 12, uuid + 24);                // 38 more bits (of 48)
    record_[37] = uuid[34];                     // the shard: the last two digits
    record_[38] = uuid[35];
    return {record_, kRecordBytes};
  }
  uint64_t size() const { return n_; }

 private:
  static void Hex(uint64_t v, int digits, char* out) {
    static constexpr char kHex[] = "0123456789abcdef";
    for (int k = digits - 1; k >= 0; --k, v >>= 4) out[k] = kHex[v & 0xf];
  }

  const uint64_t n_;
  const uint64_t distinct_;
  char record_[kRecordBytes];
};

struct Options {
  std::string dir;
  uint64_t budget_bytes = 64ull << 20;
  size_t block_bytes = 64 << 10;
  size_t max_fan_in = 128;
  bool run_sort = true;
  std::vector<uint64_t> sizes;
};

double Seconds(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// User and system time of a child.
double CpuSeconds(const struct rusage& usage) {
  return usage.ru_utime.tv_sec + usage.ru_stime.tv_sec +
         (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

// Bytes of the files directly in `dir` (sort's temporary files).
uint64_t BytesIn(const std::string& dir) {
  uint64_t total = 0;
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return 0;
  while (dirent* e = ::readdir(d)) {
    struct stat st;
    std::string path = dir + "/" + e->d_name;
    if (::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
      total += static_cast<uint64_t>(st.st_blocks) * 512;
    }
  }
  ::closedir(d);
  return total;
}

// Runs the spill in a child that writes its figures to a pipe.
void RunSpill(const Options& o, uint64_t n) {
  int figures[2];
  if (::pipe(figures) != 0) Die("pipe");
  auto start = Clock::now();
  pid_t pid = ::fork();
  if (pid < 0) Die("fork");
  if (pid == 0) {
    ::close(figures[0]);
    absl::StatusOr<lake::io::FileSystem*> fs = lake::io::DefaultFileSystem();
    if (!fs.ok()) Die(fs.status().ToString());
    lake::spill::SpillBudget budget(o.budget_bytes);
    lake::spill::SpillOptions options;
    options.block_bytes = o.block_bytes;
    options.max_fan_in = o.max_fan_in;
    absl::StatusOr<std::unique_ptr<lake::spill::SpillSorter>> sorter =
        lake::spill::SpillSorter::Create(**fs, lake::spill::SpillDirectoryPath(o.dir + "/gc/tmp", std::to_string(n)),
                                         budget, options);
    if (!sorter.ok()) Die(sorter.status().ToString());
    Records records(n);
    for (uint64_t i = 0; i < n; ++i) {
      if (absl::Status s = (*sorter)->Add(records.Get(i)); !s.ok()) Die(s.ToString());
    }
    absl::StatusOr<std::unique_ptr<lake::spill::SortedRecords>> sorted = (*sorter)->Finish();
    if (!sorted.ok()) Die(sorted.status().ToString());
    uint64_t out = 0;
    for (;;) {
      absl::StatusOr<bool> more = (*sorted)->Next();
      if (!more.ok()) Die(more.status().ToString());
      if (!*more) break;
      ++out;
    }
    if (out != Records::Distinct(n)) {
      Die("spill gave " + std::to_string(out) + " records, not " +
          std::to_string(Records::Distinct(n)));
    }
    const lake::spill::SpillStats& stats = (*sorter)->stats();
    std::string text = "spill_peak_budget_bytes_" + std::to_string(n) + "=" +
                       std::to_string(budget.peak()) + "\n" + "spill_disk_bytes_" +
                       std::to_string(n) + "=" + std::to_string(stats.peak_disk_bytes) + "\n" +
                       "spill_runs_" + std::to_string(n) + "=" +
                       std::to_string(stats.runs_written) + "\n" + "spill_passes_" +
                       std::to_string(n) + "=" + std::to_string(stats.merge_passes) + "\n" +
                       "spill_fan_in_" + std::to_string(n) + "=" +
                       std::to_string(stats.final_fan_in) + "\n";
    if (::write(figures[1], text.data(), text.size()) != static_cast<ssize_t>(text.size())) {
      Die("write figures");
    }
    ::_exit(0);
  }
  ::close(figures[1]);
  std::string text;
  char buf[4096];
  ssize_t got;
  while ((got = ::read(figures[0], buf, sizeof(buf))) > 0) text.append(buf, got);
  ::close(figures[0]);
  int status = 0;
  struct rusage usage;
  if (::wait4(pid, &status, 0, &usage) != pid || !WIFEXITED(status) ||
      WEXITSTATUS(status) != 0) {
    Die("the spill child failed");
  }
  std::printf("spill_seconds_%llu=%.3f\n", static_cast<unsigned long long>(n), Seconds(start));
  std::printf("spill_cpu_seconds_%llu=%.3f\n", static_cast<unsigned long long>(n), CpuSeconds(usage));
  std::printf("spill_rss_bytes_%llu=%llu\n", static_cast<unsigned long long>(n),
              static_cast<unsigned long long>(usage.ru_maxrss) * 1024);
  std::fputs(text.c_str(), stdout);
  std::fflush(stdout);
}

// Feeds the records as lines to `fd` (a child of its own).
pid_t StartGenerator(uint64_t n, int fd) {
  pid_t pid = ::fork();
  if (pid < 0) Die("fork");
  if (pid != 0) return pid;
  Records records(n);
  std::string buffer;
  buffer.reserve(1 << 20);
  for (uint64_t i = 0; i < n; ++i) {
    buffer.append(records.Get(i));
    buffer.push_back('\n');
    if (buffer.size() >= (1 << 20) - 100 || i + 1 == n) {
      for (size_t off = 0; off < buffer.size();) {
        ssize_t w = ::write(fd, buffer.data() + off, buffer.size() - off);
        if (w <= 0) ::_exit(1);
        off += static_cast<size_t>(w);
      }
      buffer.clear();
    }
  }
  ::_exit(0);
}

void RunSort(const Options& o, uint64_t n) {
  const std::string tmp = o.dir + "/sort-tmp-" + std::to_string(n);
  if (::mkdir(tmp.c_str(), 0755) != 0) Die("mkdir " + tmp);
  int lines[2];
  if (::pipe(lines) != 0) Die("pipe");
  auto start = Clock::now();
  pid_t generator = StartGenerator(n, lines[1]);
  pid_t sort = ::fork();
  if (sort < 0) Die("fork");
  if (sort == 0) {
    ::dup2(lines[0], 0);
    ::close(lines[0]);
    ::close(lines[1]);
    ::setenv("LC_ALL", "C", 1);
    std::string memory = "-S" + std::to_string(o.budget_bytes >> 20) + "M";
    std::string temp = "-T" + tmp;
    ::execlp("sort", "sort", "-u", memory.c_str(), temp.c_str(), "-o", "/dev/null",
             static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(lines[0]);
  ::close(lines[1]);
  uint64_t disk = 0;
  int status = 0;
  struct rusage usage;
  for (;;) {
    pid_t done = ::wait4(sort, &status, WNOHANG, &usage);
    if (done == sort) break;
    if (done < 0) Die("wait for sort");
    disk = std::max(disk, BytesIn(tmp));
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  const double seconds = Seconds(start);
  int generator_status = 0;
  ::waitpid(generator, &generator_status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || !WIFEXITED(generator_status) ||
      WEXITSTATUS(generator_status) != 0) {
    Die("sort or its generator failed");
  }
  ::rmdir(tmp.c_str());
  std::printf("sort_seconds_%llu=%.3f\n", static_cast<unsigned long long>(n), seconds);
  std::printf("sort_cpu_seconds_%llu=%.3f\n", static_cast<unsigned long long>(n), CpuSeconds(usage));
  std::printf("sort_rss_bytes_%llu=%llu\n", static_cast<unsigned long long>(n),
              static_cast<unsigned long long>(usage.ru_maxrss) * 1024);
  std::printf("sort_disk_bytes_%llu=%llu\n", static_cast<unsigned long long>(n),
              static_cast<unsigned long long>(disk));
  std::fflush(stdout);
}

Options Parse(int argc, char** argv) {
  Options o;
  if (argc < 3) {
    Die("usage: spill_bench DIR [--budget-mib M] [--block-kib K] [--fan-in F] [--no-sort] N...");
  }
  o.dir = argv[1];
  for (int i = 2; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&]() -> uint64_t {
      if (i + 1 >= argc) Die(arg + " needs a value");
      return std::strtoull(argv[++i], nullptr, 10);
    };
    if (arg == "--budget-mib") {
      o.budget_bytes = value() << 20;
    } else if (arg == "--block-kib") {
      o.block_bytes = value() << 10;
    } else if (arg == "--fan-in") {
      o.max_fan_in = value();
    } else if (arg == "--no-sort") {
      o.run_sort = false;
    } else {
      uint64_t n = std::strtoull(arg.c_str(), nullptr, 10);
      if (n == 0) Die("not a size: " + arg);
      o.sizes.push_back(n);
    }
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  Options o = Parse(argc, argv);
  std::printf("budget_bytes=%llu\nblock_bytes=%zu\nrecord_bytes=%zu\n",
              static_cast<unsigned long long>(o.budget_bytes), o.block_bytes, kRecordBytes);
  for (uint64_t n : o.sizes) {
    RunSpill(o, n);
    if (o.run_sort) RunSort(o, n);
  }
  return 0;
}
