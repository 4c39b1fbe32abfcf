// The tables benchmark: lake (through its C ABI, as a host would use it)
// against SQLite (WAL, one transaction per batch) on the same rows.
//
//   table_bench DIR [ROWS] [BATCH] [LATENCY_SAMPLES]
//   table_bench insert-round DIR SAMPLES   (one round of RunInsertRound)
//   table_bench delete-once ROOT ROWS      (one DELETE and scan, as CompareDeletes
//                                           runs them, on a kept copy: profiling)
//
// Rows are (name utf8, n int64, video file); the file column is bound to
// DataLocations uploaded once before any timing (SQLite stores their four
// fields as columns). Prints, one "key=value" line per figure:
//   fsync floor (fsyncs/s of 4 KiB appends in DIR), insert rows/s for lake
//   and SQLite synchronous=FULL (by alternating rounds: kInsertRoundBatches)
//   and =NORMAL (alone, after), full-scan and selective-scan rows/s for
//   both, and p50/p99 of a single-row lake INSERT uploading 1 MiB;
//   then a DELETE of every 100th row (1 % of the rows, spread so that every
//   fragment is touched) and a full scan after it, on both sides (lake:
//   n IN (the 1 % of n values), SQLite: n % 100 = 0, synchronous=FULL),
//   each side LAKE_BENCH_DELETE_REPS times (default 5) on a fresh copy of
//   its data, the median printed (CompareDeletes).
// LAKE_BENCH_ONLY_DELETE=1: only the inserts (lake, SQLite FULL) and that;
// LAKE_BENCH_KEEP_COPIES=1 keeps the copies (DIR/pristine-*) for delete-once.
// Where the kernel counts them (/sys/dev/block/M:m/stat, field 16), also
// the disk's cache flushes per batch on each side: on a disk without FUA
// every fsync is one flush, and flushes do not overlap, so flushes per
// batch divided by the fsync floor bounds a durable insert's batches/s.
// Also the protocol floor: the file operations one durable append of the
// specified protocol needs, run bare (no lake code) with lake's own file
// sizes, in appends/s and the rows/s that allows at BATCH rows per append;
// and the same for the table log's two-flush protocol (LogProtocolFloor)
// with the bytes lake wrote to the log per version, which it prints.
#include <sqlite3.h>

#include <algorithm>
#include <barrier>
#include <filesystem>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <thread>
#include <unistd.h>
#include <vector>

#include "lake.h"

namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The CPU time (user and system, every thread) this process has used, in
// ms: on a machine other work shares, a change's CPU shows where its wall
// time drowns in the scheduler's noise.
double ProcessCpuMs() {
  struct rusage usage {};
  if (::getrusage(RUSAGE_SELF, &usage) != 0) return 0;
  auto ms = [](const struct timeval& t) { return t.tv_sec * 1000.0 + t.tv_usec / 1000.0; };
  return ms(usage.ru_utime) + ms(usage.ru_stime);
}

[[noreturn]] void Die(const std::string& what, lake_error* err = nullptr) {
  std::fprintf(stderr, "table_bench: %s%s%s\n", what.c_str(), err ? ": " : "",
               err ? lake_error_message(err) : "");
  std::exit(1);
}

void Check(lake_status status, lake_error* err, const std::string& what) {
  if (status != LAKE_OK) Die(what, err);
}

struct Bytes {
  std::string data;
  size_t offset = 0;
};
int64_t ReadBytes(void* ctx, uint8_t* buf, size_t cap) {
  auto* b = static_cast<Bytes*>(ctx);
  size_t n = std::min(cap, b->data.size() - b->offset);
  std::memcpy(buf, b->data.data() + b->offset, n);
  b->offset += n;
  return static_cast<int64_t>(n);
}

double FsyncFloor(const std::string& dir) {
  std::string path = dir + "/fsync-probe";
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) Die("open " + path);
  std::string block(4096, 'x');
  const int n = 200;
  auto start = Clock::now();
  for (int i = 0; i < n; ++i) {
    if (::write(fd, block.data(), block.size()) != 4096 || ::fsync(fd) != 0) Die("fsync probe");
  }
  double s = Seconds(start);
  ::close(fd);
  ::unlink(path.c_str());
  return n / s;
}

// Mean time of creating an empty file (open with O_CREAT | O_EXCL) in a
// new directory under `dir`, in microseconds. Each append creates three
// (fragment, manifest, reference delta), and on ext4 without a journal a
// create right after many deletions is slow: the inode allocator passes
// over recently deleted inodes one at a time. The probe's files are left
// for the run directory's removal, since removing them here would slow the
// creates that follow.
double FileCreateMicros(const std::string& dir) {
  std::string probe_dir = dir + "/create-probe";
  if (::mkdir(probe_dir.c_str(), 0755) != 0) Die("mkdir " + probe_dir);
  const int n = 200;
  auto start = Clock::now();
  for (int i = 0; i < n; ++i) {
    std::string path = probe_dir + "/" + std::to_string(i);
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) Die("create " + path);
    ::close(fd);
  }
  return Seconds(start) / n * 1e6;
}

// The mean size of the regular files directly in `dir` whose names end in
// `suffix` (0 when there are none).
uint64_t MeanFileBytes(const std::string& dir, const std::string& suffix) {
  uint64_t total = 0, count = 0;
  if (!std::filesystem::is_directory(dir)) return 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::string name = entry.path().filename().string();
    if (!entry.is_regular_file() || name.size() < suffix.size() ||
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) {
      continue;
    }
    total += entry.file_size();
    ++count;
  }
  return count == 0 ? 0 : total / count;
}

// The table log's record kinds (engine/table/table_log_format.h).
enum class LogRecordKind : uint8_t {
  kFragment = 2,
  kReferenceDelta = 3,
  kManifest = 4,
  kAppendCheckpoint = 5,
};

struct LocationFields {
  std::string uri, content_type, sha256;
  uint64_t size;
};

// What the records of the table log segments under `log_dir` hold: per
// kind, how many and their payload bytes; and every record's bytes, headers
// included; and of the append checkpoints (kind 5), those naming their
// fragment record (checkpoint format version 2: the u32 after the
// payload's 8-byte magic). The layout, from the format note: a 32-byte
// segment header, then records back to back, each a 32-byte header (magic
// "LKTR", the kind at byte 4, the payload bytes as a little-endian u64 at
// byte 16) and its payload.
struct LogRecordTotals {
  std::map<uint8_t, std::pair<uint64_t, uint64_t>> by_kind;  // kind -> (count, payload bytes)
  uint64_t record_bytes = 0;
  uint64_t naming_checkpoints = 0, naming_checkpoint_bytes = 0;

  uint64_t MeanPayload(LogRecordKind kind) const {
    auto it = by_kind.find(static_cast<uint8_t>(kind));
    return it == by_kind.end() ? 0 : it->second.second / it->second.first;
  }
  // The bytes one version wrote to the log: every record over the versions
  // (one manifest each).
  uint64_t MeanVersionBytes() const {
    auto it = by_kind.find(static_cast<uint8_t>(LogRecordKind::kManifest));
    return it == by_kind.end() ? 0 : record_bytes / it->second.first;
  }
};

LogRecordTotals ReadLogRecordTotals(const std::string& log_dir) {
  constexpr size_t kSegmentHeaderBytes = 32, kRecordHeaderBytes = 32;
  LogRecordTotals totals;
  if (!std::filesystem::is_directory(log_dir)) return totals;
  for (const auto& entry : std::filesystem::directory_iterator(log_dir)) {
    if (entry.path().extension() != ".seg") continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::string segment((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    size_t at = kSegmentHeaderBytes;
    while (at + kRecordHeaderBytes <= segment.size() && segment.compare(at, 4, "LKTR") == 0) {
      uint64_t payload = 0;
      for (int i = 7; i >= 0; --i) {
        payload = (payload << 8) | static_cast<uint8_t>(segment[at + 16 + i]);
      }
      const uint8_t kind = static_cast<uint8_t>(segment[at + 4]);
      auto& [count, bytes] = totals.by_kind[kind];
      ++count;
      bytes += payload;
      if (kind == static_cast<uint8_t>(LogRecordKind::kAppendCheckpoint) && payload > 12 &&
          at + kRecordHeaderBytes + 12 <= segment.size() &&
          static_cast<uint8_t>(segment[at + kRecordHeaderBytes + 8]) == 2) {
        ++totals.naming_checkpoints;
        totals.naming_checkpoint_bytes += payload;
      }
      totals.record_bytes += kRecordHeaderBytes + payload;
      at += kRecordHeaderBytes + payload;
    }
  }
  return totals;
}

// Prints the table log's bytes (records and their headers) per batch of
// `batches`, and the mean payload of its fragment and append checkpoint
// records (format version 1 holds the batch, 2 names the fragment record).
void PrintLogBytesPerBatch(const std::string& log_dir, uint64_t batches) {
  const LogRecordTotals totals = ReadLogRecordTotals(log_dir);
  auto mean = [](uint64_t bytes, uint64_t count) -> unsigned long long {
    return count == 0 ? 0 : bytes / count;
  };
  std::printf("lake_insert_log_bytes_per_batch=%llu\n", mean(totals.record_bytes, batches));
  std::printf("lake_insert_fragment_record_bytes=%llu\n",
              static_cast<unsigned long long>(totals.MeanPayload(LogRecordKind::kFragment)));
  auto it = totals.by_kind.find(static_cast<uint8_t>(LogRecordKind::kAppendCheckpoint));
  const uint64_t all = it == totals.by_kind.end() ? 0 : it->second.first;
  const uint64_t all_bytes = it == totals.by_kind.end() ? 0 : it->second.second;
  const uint64_t holding = all - totals.naming_checkpoints;
  std::printf("lake_insert_checkpoint_record_bytes=%llu (holding the batch: %llu), %llu (naming"
              " the fragment record: %llu)\n",
              mean(all_bytes - totals.naming_checkpoint_bytes, holding),
              static_cast<unsigned long long>(holding),
              mean(totals.naming_checkpoint_bytes, totals.naming_checkpoints),
              static_cast<unsigned long long>(totals.naming_checkpoints));
}

// The mean bytes of a version's object of one kind, as files of their own
// (`dir`/*`suffix`, the layout of versions written as files) or else as
// table log records.
uint64_t MeanVersionObjectBytes(const std::string& table_dir, const std::string& dir,
                                const std::string& suffix, LogRecordKind kind) {
  uint64_t files = MeanFileBytes(table_dir + "/" + dir, suffix);
  return files != 0 ? files : ReadLogRecordTotals(table_dir + "/_log").MeanPayload(kind);
}

// The bytes of the reference delta of a batch whose rows reference the
// distinct `locations` (reference_delta_format.h: a 56-byte header, one
// 16-byte chunk header per 4,096 entries, each entry's u16 uri length, uri,
// u8 type length, type, u64 size and raw SHA-256, a 32-byte trailer): what
// an append writes as its delta where it is not derived from its fragment.
uint64_t ReferenceDeltaBytes(const std::vector<LocationFields>& locations) {
  uint64_t bytes = 56 + 16 * ((locations.size() + 4095) / 4096) + 32;
  for (const LocationFields& l : locations) bytes += 2 + l.uri.size() + 1 + l.content_type.size() + 8 + 32;
  return bytes;
}

void WriteAll(int fd, const std::string& bytes, const std::string& what) {
  if (::write(fd, bytes.data(), bytes.size()) != static_cast<ssize_t>(bytes.size())) Die(what);
}

// Appends/s of the file operations one append of lake's protocol needs,
// without lake: four files (checkpoint, fragment, manifest, reference delta,
// of `file_bytes` each, each in its own directory) each written to a
// temporary name, fdatasync'ed, renamed and its directory fsync'ed, the
// four at once on four threads as lake does; then one small append +
// fdatasync (the registry's commit). No CPU work but the syscalls: no
// implementation of this protocol can append faster on this disk.
double ProtocolFloor(const std::string& dir, const std::vector<uint64_t>& file_bytes, int appends) {
  const size_t files = file_bytes.size();
  std::vector<std::string> dirs, contents;
  for (size_t i = 0; i < files; ++i) {
    dirs.push_back(dir + "/protocol-floor-" + std::to_string(i));
    if (::mkdir(dirs.back().c_str(), 0755) != 0) Die("mkdir " + dirs.back());
    contents.emplace_back(std::max<uint64_t>(file_bytes[i], 1), static_cast<char>('a' + i));
  }
  int log = ::open((dir + "/protocol-floor.log").c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (log < 0) Die("open protocol floor log");
  std::string record(200, 'r');
  std::barrier round(static_cast<std::ptrdiff_t>(files + 1));
  std::vector<std::thread> writers;
  for (size_t i = 0; i < files; ++i) {
    writers.emplace_back([&, i] {
      for (int n = 0; n < appends; ++n) {
        round.arrive_and_wait();
        std::string path = dirs[i] + "/" + std::to_string(n), temp = path + ".tmp";
        int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
        if (fd < 0) Die("create " + temp);
        WriteAll(fd, contents[i], "protocol floor write");
        if (::fdatasync(fd) != 0 || ::close(fd) != 0) Die("protocol floor sync");
        if (::rename(temp.c_str(), path.c_str()) != 0) Die("protocol floor rename");
        int dfd = ::open(dirs[i].c_str(), O_RDONLY | O_DIRECTORY);
        if (dfd < 0 || ::fsync(dfd) != 0 || ::close(dfd) != 0) Die("protocol floor dir sync");
        round.arrive_and_wait();
      }
    });
  }
  auto start = Clock::now();
  for (int n = 0; n < appends; ++n) {
    round.arrive_and_wait();  // the four files start
    round.arrive_and_wait();  // and are durable
    WriteAll(log, record, "protocol floor log");
    if (::fdatasync(log) != 0) Die("protocol floor log sync");
  }
  double s = Seconds(start);
  for (std::thread& writer : writers) writer.join();
  ::close(log);
  return appends / s;
}

// Appends/s of the table log's protocol (engine/table/table_log.h), bare:
// one version's records (`record_bytes`: what the four files of
// ProtocolFloor hold) written into a preallocated segment and fdatasync'ed,
// then one small append + fdatasync (a synced registry commit): two
// flushes, no new inode, no directory sync. The floor of a two-flush append
// on this disk (lake's deferred commit needs only the first).
double LogProtocolFloor(const std::string& dir, uint64_t record_bytes, int appends) {
  std::string path = dir + "/log-protocol-floor.seg";
  int segment = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
  if (segment < 0) Die("create " + path);
  const uint64_t segment_bytes = uint64_t{32} << 20;
  if (::posix_fallocate(segment, 0, static_cast<off_t>(segment_bytes)) != 0 ||
      ::fsync(segment) != 0) {
    Die("preallocate " + path);
  }
  int log = ::open((dir + "/log-protocol-floor.log").c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (log < 0) Die("open log protocol floor log");
  std::string records(std::max<uint64_t>(record_bytes, 1), 'v');
  std::string commit(200, 'r');
  uint64_t offset = 0;
  auto start = Clock::now();
  for (int n = 0; n < appends; ++n) {
    if (offset + records.size() > segment_bytes) offset = 0;  // stays in the preallocation
    if (::pwrite(segment, records.data(), records.size(), static_cast<off_t>(offset)) !=
            static_cast<ssize_t>(records.size()) ||
        ::fdatasync(segment) != 0) {
      Die("log protocol floor write");
    }
    offset += records.size();
    WriteAll(log, commit, "log protocol floor commit");
    if (::fdatasync(log) != 0) Die("log protocol floor commit sync");
  }
  double s = Seconds(start);
  ::close(segment);
  ::close(log);
  return appends / s;
}

// The cache flushes the disk holding `dir` has completed, or -1 when the
// kernel does not count them (field 16 of the block device's stat file; a
// partition's counts are its disk's, one directory up).
class DiskFlushes {
 public:
  explicit DiskFlushes(const std::string& dir) {
    struct stat st {};
    if (::stat(dir.c_str(), &st) != 0) return;
    std::string base = "/sys/dev/block/" + std::to_string(major(st.st_dev)) + ":" +
                       std::to_string(minor(st.st_dev));
    for (const char* stat_file : {"/stat", "/../stat"}) {
      if (Read(base + stat_file) >= 0) {
        path_ = base + stat_file;
        return;
      }
    }
  }
  long long Now() const { return path_.empty() ? -1 : Read(path_); }

 private:
  static long long Read(const std::string& path) {
    std::ifstream in(path);
    std::string line;
    if (!std::getline(in, line)) return -1;
    std::istringstream fields(line);
    long long value = -1;
    for (int i = 0; i < 16; ++i) {
      if (!(fields >> value)) return -1;
    }
    return value;
  }
  std::string path_;
};

// Prints key=flushes per unit since `before`, if the disk counts flushes.
void PrintFlushesPer(const char* key, const DiskFlushes& disk, long long before, double units) {
  long long now = disk.Now();
  if (before >= 0 && now >= before) std::printf("%s=%.2f\n", key, (now - before) / units);
}

std::string InsertSql(size_t batch) {
  std::string sql = "INSERT INTO bench.rows (name, n, video) VALUES ";
  for (size_t i = 0; i < batch; ++i) sql += i ? ", (?, ?, ?)" : "(?, ?, ?)";
  return sql;
}

// Counts the rows of a lake query (and touches every batch).
uint64_t DrainLake(lake_db* db, const char* sql, const int64_t* param) {
  lake_statement* stmt = nullptr;
  lake_error* err = nullptr;
  Check(lake_db_prepare(db, sql, &stmt, &err), err, "prepare select");
  if (param) Check(lake_statement_bind_int64(stmt, 1, *param, &err), err, "bind");
  ArrowArrayStream stream{};
  Check(lake_statement_query(stmt, &stream, &err), err, "query");
  uint64_t rows = 0;
  for (;;) {
    ArrowArray batch{};
    if (stream.get_next(&stream, &batch) != 0) Die(stream.get_last_error(&stream));
    if (batch.release == nullptr) break;
    rows += static_cast<uint64_t>(batch.length);
    batch.release(&batch);
  }
  stream.release(&stream);
  lake_statement_free(stmt);
  return rows;
}

void Sql(sqlite3* db, const char* sql) {
  char* message = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &message) != SQLITE_OK) {
    Die(std::string("sqlite: ") + sql + ": " + (message ? message : ""));
  }
}

// The insert comparison (a) puts the same rows into lake and SQLite FULL
// by rounds of this many batches, the sides alternating (and which goes
// first alternating too), so that a slow moment of a shared machine slows
// both sides, not one; each side's rows/s is its rows over the sum of its
// rounds' wall time.
constexpr size_t kInsertRoundBatches = 50;

// One side's totals over the rounds of an insert comparison.
struct InsertTotals {
  double seconds = 0;
  double cpu_ms = 0;      // every thread's
  long long flushes = 0;  // -1 where the disk does not count them
};

// Runs `insert` and adds its wall time, CPU time and the disk's flushes to
// `totals`.
template <typename Insert>
void TimeRound(const DiskFlushes& disk, InsertTotals* totals, Insert insert) {
  const long long flushes_before = disk.Now();
  const double cpu_before = ProcessCpuMs();
  const auto start = Clock::now();
  insert();
  totals->seconds += Seconds(start);
  totals->cpu_ms += ProcessCpuMs() - cpu_before;
  const long long flushes_after = disk.Now();
  if (totals->flushes < 0 || flushes_before < 0 || flushes_after < flushes_before) {
    totals->flushes = -1;
  } else {
    totals->flushes += flushes_after - flushes_before;
  }
}

// Prints the CPU ms and (where counted) the flushes per batch of `totals`:
// where the wall time per batch is about the CPU's, an insert is bound by
// its CPU, not by its flushes.
void PrintPerBatch(const InsertTotals& totals, size_t batches, const char* cpu_key,
                   const char* flushes_key) {
  std::printf("%s=%.3f\n", cpu_key, totals.cpu_ms / static_cast<double>(batches));
  if (totals.flushes >= 0) {
    std::printf("%s=%.2f\n", flushes_key,
                static_cast<double>(totals.flushes) / static_cast<double>(batches));
  }
}

// SQLite's side of an insert: the same rows (a DataLocation's four fields
// as columns) into a new database, WAL, one transaction of `batch` rows.
class SqliteInserter {
 public:
  SqliteInserter(const std::string& path, const char* synchronous, size_t batch,
                 const std::vector<LocationFields>& locations)
      : batch_(batch), locations_(locations) {
    if (sqlite3_open(path.c_str(), &db_) != SQLITE_OK) Die("sqlite open");
    Sql(db_, "PRAGMA journal_mode=WAL");
    Sql(db_, (std::string("PRAGMA synchronous=") + synchronous).c_str());
    Sql(db_, "CREATE TABLE rows (name TEXT, n INTEGER, uri TEXT, content_type TEXT, "
             "size INTEGER, sha256 TEXT)");
    if (sqlite3_prepare_v2(db_, "INSERT INTO rows VALUES (?, ?, ?, ?, ?, ?)", -1, &insert_,
                           nullptr) != SQLITE_OK) {
      Die("sqlite prepare");
    }
  }
  ~SqliteInserter() {
    sqlite3_finalize(insert_);
    sqlite3_close(db_);
  }

  // Rows [from, to), a multiple of the batch.
  void Insert(size_t from, size_t to) {
    for (size_t done = from; done < to; done += batch_) {
      Sql(db_, "BEGIN");
      for (size_t i = done; i < done + batch_; ++i) {
        const LocationFields& l = locations_[i % locations_.size()];
        std::string name = "row-" + std::to_string(i);
        sqlite3_bind_text(insert_, 1, name.data(), static_cast<int>(name.size()),
                          SQLITE_TRANSIENT);
        sqlite3_bind_int64(insert_, 2, static_cast<int64_t>(i));
        sqlite3_bind_text(insert_, 3, l.uri.data(), static_cast<int>(l.uri.size()),
                          SQLITE_STATIC);
        sqlite3_bind_text(insert_, 4, l.content_type.data(),
                          static_cast<int>(l.content_type.size()), SQLITE_STATIC);
        sqlite3_bind_int64(insert_, 5, static_cast<int64_t>(l.size));
        sqlite3_bind_text(insert_, 6, l.sha256.data(), 64, SQLITE_STATIC);
        if (sqlite3_step(insert_) != SQLITE_DONE) Die("sqlite insert");
        sqlite3_reset(insert_);
      }
      Sql(db_, "COMMIT");
    }
  }

 private:
  const size_t batch_;
  const std::vector<LocationFields>& locations_;
  sqlite3* db_ = nullptr;
  sqlite3_stmt* insert_ = nullptr;
};

// Lake's side: the same rows through one prepared INSERT of `batch` rows,
// bound again per batch, as the SQLite side does.
class LakeInserter {
 public:
  LakeInserter(lake_db* db, size_t batch, const std::vector<lake_location*>& locations)
      : batch_(batch), locations_(locations) {
    lake_error* err = nullptr;
    Check(lake_db_prepare(db, InsertSql(batch).c_str(), &stmt_, &err), err, "prepare insert");
  }
  ~LakeInserter() { lake_statement_free(stmt_); }

  // Rows [from, to), a multiple of the batch.
  void Insert(size_t from, size_t to) {
    lake_error* err = nullptr;
    for (size_t done = from; done < to; done += batch_) {
      size_t p = 1;
      for (size_t i = done; i < done + batch_; ++i) {
        std::string name = "row-" + std::to_string(i);
        Check(lake_statement_bind_utf8(stmt_, p++, name.data(), name.size(), &err), err, "bind");
        Check(lake_statement_bind_int64(stmt_, p++, static_cast<int64_t>(i), &err), err, "bind");
        Check(lake_statement_bind_location(stmt_, p++, locations_[i % locations_.size()], &err),
              err, "bind");
      }
      uint64_t version = 0;
      Check(lake_statement_insert(stmt_, nullptr, &version, &err), err, "insert");
    }
  }

 private:
  const size_t batch_;
  const std::vector<lake_location*>& locations_;
  lake_statement* stmt_ = nullptr;
};

// SQLite alone, every row at once (its NORMAL side, for information):
// prints its CPU and flushes per batch and returns its rows/s.
double SqliteInsert(const std::string& path, const char* synchronous, size_t rows, size_t batch,
                    const std::vector<LocationFields>& locations, const DiskFlushes& disk,
                    const char* flushes_key, const char* cpu_key) {
  SqliteInserter sqlite(path, synchronous, batch, locations);
  InsertTotals totals;
  TimeRound(disk, &totals, [&] { sqlite.Insert(0, rows); });
  PrintPerBatch(totals, rows / batch, cpu_key, flushes_key);
  return static_cast<double>(rows) / totals.seconds;
}

// Rows/s of a SQLite scan reading every column of every matching row.
double SqliteScan(const std::string& path, const char* sql, const int64_t* param,
                  uint64_t* rows_out) {
  sqlite3* db = nullptr;
  if (sqlite3_open(path.c_str(), &db) != SQLITE_OK) Die("sqlite open");
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr) != SQLITE_OK) Die("sqlite prepare scan");
  if (param) sqlite3_bind_int64(stmt, 1, *param);
  uint64_t rows = 0, bytes = 0;
  auto start = Clock::now();
  while (sqlite3_step(stmt) == SQLITE_ROW) {
    ++rows;
    for (int c = 0; c < 6; ++c) bytes += static_cast<uint64_t>(sqlite3_column_bytes(stmt, c));
  }
  double s = Seconds(start);
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  *rows_out = rows;
  (void)bytes;
  return s;
}


// The median of `samples` (not empty), and every sample beside it.
void PrintMedian(const char* key, std::vector<double> samples, const char* format) {
  std::string all;
  for (double v : samples) {
    if (!all.empty()) all += ',';
    all += std::to_string(v);
  }
  std::sort(samples.begin(), samples.end());
  std::printf("%s=", key);
  std::printf(format, samples[samples.size() / 2]);
  std::printf("\n%s_samples=%s\n", key, all.c_str());
}

// Writes back everything of the file system holding `path`, so that the
// copy just made does not flush during the timing that follows.
void SyncFileSystemOf(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0 || ::syncfs(fd) != 0) Die("syncfs " + path);
  ::close(fd);
}

// Replaces `to` (a file or a directory) with a copy of `from`, durably.
void RestoreCopy(const std::string& from, const std::string& to) {
  std::filesystem::remove_all(to);
  std::filesystem::copy(from, to, std::filesystem::copy_options::recursive);
  SyncFileSystemOf(to);
}

struct DeleteRun {
  double delete_ms = 0;
  double delete_cpu_ms = 0;  // the process's CPU during the DELETE
  double scan_rows_per_s = 0;
  long long flushes = -1;
};

// lake: opens the root `root` and its tables, DELETEs every 100th of its
// `rows` rows (n IN the 1 %; prepare, bind and execute timed), scans what
// is left, closes it.
DeleteRun LakeDeleteOnce(const std::string& root, size_t rows, const DiskFlushes& disk) {
  lake_db* db = nullptr;
  lake_error* err = nullptr;
  Check(lake_db_open(root.c_str(), nullptr, &db, &err), err, "open root");
  {
    // A handle opens its tables (the registry, the writer role) at its
    // first table call; as SQLite's open, that is not the DELETE's time.
    lake_statement* warm = nullptr;
    Check(lake_db_prepare(db, "SELECT * FROM bench.rows WHERE n = ?", &warm, &err), err,
          "prepare warm-up");
    lake_statement_free(warm);
  }
  const size_t deleted = rows / 100;
  std::string delete_sql = "DELETE FROM bench.rows WHERE n IN (?";
  for (size_t i = 1; i < deleted; ++i) delete_sql += ", ?";
  delete_sql += ")";
  DeleteRun run;
  long long flushes_before = disk.Now();
  const double cpu_before = ProcessCpuMs();
  auto start = Clock::now();
  lake_statement* del = nullptr;
  Check(lake_db_prepare(db, delete_sql.c_str(), &del, &err), err, "prepare delete");
  for (size_t i = 0; i < deleted; ++i) {
    Check(lake_statement_bind_int64(del, i + 1, static_cast<int64_t>(i * 100), &err), err, "bind");
  }
  uint64_t version = 0, deleted_rows = 0;
  Check(lake_statement_execute(del, &version, &deleted_rows, &err), err, "delete");
  lake_statement_free(del);
  run.delete_ms = Seconds(start) * 1000;
  run.delete_cpu_ms = ProcessCpuMs() - cpu_before;
  long long flushes_after = disk.Now();
  if (flushes_before >= 0 && flushes_after >= flushes_before) run.flushes = flushes_after - flushes_before;
  if (deleted_rows != deleted) Die("lake delete removed " + std::to_string(deleted_rows));
  start = Clock::now();
  uint64_t left = DrainLake(db, "SELECT * FROM bench.rows", nullptr);
  run.scan_rows_per_s = left / Seconds(start);
  if (left != rows - deleted) Die("lake scan after delete returned " + std::to_string(left));
  lake_db_free(db);
  return run;
}

// SQLite (WAL, synchronous=FULL): the same on the database `path`, with
// n % 100 = 0 in one transaction, then the same full scan.
DeleteRun SqliteDeleteOnce(const std::string& path, size_t rows, const DiskFlushes& disk) {
  const size_t deleted = rows / 100;
  sqlite3* sdb = nullptr;
  if (sqlite3_open(path.c_str(), &sdb) != SQLITE_OK) Die("sqlite open");
  Sql(sdb, "PRAGMA journal_mode=WAL");
  Sql(sdb, "PRAGMA synchronous=FULL");
  DeleteRun run;
  long long flushes_before = disk.Now();
  const double cpu_before = ProcessCpuMs();
  auto start = Clock::now();
  Sql(sdb, "BEGIN");
  Sql(sdb, "DELETE FROM rows WHERE n % 100 = 0");
  Sql(sdb, "COMMIT");
  run.delete_ms = Seconds(start) * 1000;
  run.delete_cpu_ms = ProcessCpuMs() - cpu_before;
  long long flushes_after = disk.Now();
  if (flushes_before >= 0 && flushes_after >= flushes_before) run.flushes = flushes_after - flushes_before;
  if (static_cast<size_t>(sqlite3_changes(sdb)) != deleted) Die("sqlite delete count");
  sqlite3_close(sdb);
  uint64_t left = 0;
  double scan_s = SqliteScan(path, "SELECT * FROM rows", nullptr, &left);
  if (left != rows - deleted) Die("sqlite scan after delete count");
  run.scan_rows_per_s = left / scan_s;
  return run;
}

// The DELETE of every 100th row and the full scan after it, on both sides,
// LAKE_BENCH_DELETE_REPS times (default 5) each: before each, the side's
// data (dir/lake, closed; the SQLite database `sqlite_db`, closed, its WAL
// checkpointed) is put back as it was after the inserts and synced, the
// two sides alternating which goes first. Prints each side's median and
// samples; dir/lake is left as after one DELETE.
void CompareDeletes(const std::string& dir, const std::string& sqlite_db, size_t rows) {
  const char* reps_env = std::getenv("LAKE_BENCH_DELETE_REPS");
  const size_t reps = std::max<size_t>(1, reps_env ? std::strtoull(reps_env, nullptr, 10) : 5);
  const std::string root = dir + "/lake", pristine_root = dir + "/pristine-lake";
  const std::string pristine_db = dir + "/pristine-sqlite.db";
  for (const char* suffix : {"-wal", "-shm"}) {
    if (std::filesystem::exists(sqlite_db + suffix)) Die("sqlite " + sqlite_db + " has a " + suffix);
  }
  std::filesystem::copy(root, pristine_root, std::filesystem::copy_options::recursive);
  std::filesystem::copy_file(sqlite_db, pristine_db);
  const DiskFlushes disk(dir);
  std::vector<double> lake_ms, lake_scan, sqlite_ms, sqlite_scan, lake_flushes, sqlite_flushes;
  std::vector<double> lake_cpu_ms, sqlite_cpu_ms;
  for (size_t r = 0; r < reps; ++r) {
    for (int side = 0; side < 2; ++side) {
      if ((side == 0) == (r % 2 == 0)) {
        RestoreCopy(pristine_root, root);
        DeleteRun run = LakeDeleteOnce(root, rows, disk);
        lake_ms.push_back(run.delete_ms);
        lake_cpu_ms.push_back(run.delete_cpu_ms);
        lake_scan.push_back(run.scan_rows_per_s);
        lake_flushes.push_back(static_cast<double>(run.flushes));
      } else {
        RestoreCopy(pristine_db, sqlite_db);
        DeleteRun run = SqliteDeleteOnce(sqlite_db, rows, disk);
        sqlite_ms.push_back(run.delete_ms);
        sqlite_cpu_ms.push_back(run.delete_cpu_ms);
        sqlite_scan.push_back(run.scan_rows_per_s);
        sqlite_flushes.push_back(static_cast<double>(run.flushes));
      }
    }
  }
  std::printf("delete_reps=%zu\n", reps);
  PrintMedian("lake_delete_1pct_ms", lake_ms, "%.1f");
  PrintMedian("sqlite_full_delete_1pct_ms", sqlite_ms, "%.1f");
  PrintMedian("lake_delete_1pct_cpu_ms", lake_cpu_ms, "%.1f");
  PrintMedian("sqlite_full_delete_1pct_cpu_ms", sqlite_cpu_ms, "%.1f");
  PrintMedian("lake_scan_after_delete_rows_per_s", lake_scan, "%.0f");
  PrintMedian("sqlite_scan_after_delete_rows_per_s", sqlite_scan, "%.0f");
  if (disk.Now() >= 0) {
    PrintMedian("lake_delete_1pct_flushes", lake_flushes, "%.0f");
    PrintMedian("sqlite_full_delete_1pct_flushes", sqlite_flushes, "%.0f");
  }
  if (std::getenv("LAKE_BENCH_KEEP_COPIES") == nullptr) {
    std::filesystem::remove_all(pristine_root);
    std::filesystem::remove(pristine_db);
  }
}

}  // namespace

// One round of bench/tables' interleaved comparison of two builds of the
// library (the same program, run against each in turn): SAMPLES
// single-row INSERTs that upload a 1 MiB FILE, then SAMPLES that bind an
// existing location, on the root DIR/lake (made on the first round).
// Prints each latency: single_insert_1mib_ms=… and location_insert_ms=….
int RunInsertRound(const std::string& dir, size_t samples) {
  lake_db* db = nullptr;
  lake_error* err = nullptr;
  Check(lake_db_open((dir + "/lake").c_str(), nullptr, &db, &err), err, "open root");
  const char* columns[] = {"name:utf8", "n:int64", "video:file"};
  lake_status created = lake_table_create(db, "bench.rows", columns, 3, &err);
  if (created == LAKE_CONFLICT) {
    lake_error_free(err);
    err = nullptr;
  } else {
    Check(created, err, "create table");
  }
  const char* sql = "INSERT INTO bench.rows (name, n, video) VALUES (?, ?, ?)";
  std::vector<lake_location*> uploaded;
  for (size_t i = 0; i < samples; ++i) {
    Bytes bytes{std::string(1 << 20, static_cast<char>(i))};
    lake_statement* stmt = nullptr;
    auto t0 = Clock::now();
    Check(lake_db_prepare(db, sql, &stmt, &err), err, "prepare single");
    Check(lake_statement_bind_utf8(stmt, 1, "single", 6, &err), err, "bind");
    Check(lake_statement_bind_int64(stmt, 2, -1, &err), err, "bind");
    Check(lake_statement_bind_file_reader(stmt, 3, ReadBytes, &bytes, "application/octet-stream",
                                          &err),
          err, "bind");
    uint64_t version = 0;
    Check(lake_statement_insert(stmt, nullptr, &version, &err), err, "single insert");
    std::printf("single_insert_1mib_ms=%.3f\n", Seconds(t0) * 1000);
    lake_statement_free(stmt);
  }
  Bytes small{std::string(1024, 'l')};
  lake_location* loc = nullptr;
  Check(lake_stage_upload_reader(lake_db_stage(db), ReadBytes, &small, nullptr, &loc, &err), err,
        "upload");
  lake_statement* stmt = nullptr;
  Check(lake_db_prepare(db, sql, &stmt, &err), err, "prepare location");
  for (size_t i = 0; i < samples; ++i) {
    auto t0 = Clock::now();
    Check(lake_statement_bind_utf8(stmt, 1, "loc", 3, &err), err, "bind");
    Check(lake_statement_bind_int64(stmt, 2, -3, &err), err, "bind");
    Check(lake_statement_bind_location(stmt, 3, loc, &err), err, "bind");
    uint64_t version = 0;
    Check(lake_statement_insert(stmt, nullptr, &version, &err), err, "location insert");
    std::printf("location_insert_ms=%.3f\n", Seconds(t0) * 1000);
  }
  lake_statement_free(stmt);
  lake_location_free(loc);
  lake_db_free(db);
  return 0;
}

int main(int argc, char** argv) {
  if (argc == 4 && std::string(argv[1]) == "insert-round") {
    return RunInsertRound(argv[2], std::strtoull(argv[3], nullptr, 10));
  }
  if (argc == 4 && std::string(argv[1]) == "delete-once") {
    size_t rows = std::strtoull(argv[3], nullptr, 10);
    DeleteRun run = LakeDeleteOnce(argv[2], rows, DiskFlushes(argv[2]));
    std::printf("lake_delete_1pct_ms=%.1f\nlake_delete_1pct_cpu_ms=%.1f\n"
                "lake_scan_after_delete_rows_per_s=%.0f\n",
                run.delete_ms, run.delete_cpu_ms, run.scan_rows_per_s);
    return 0;
  }
  if (argc < 2) {
    Die("usage: table_bench DIR [ROWS] [BATCH] [LATENCY_SAMPLES]\n"
        "       table_bench insert-round DIR SAMPLES\n"
        "       table_bench delete-once ROOT ROWS");
  }
  std::string dir = argv[1];
  size_t rows = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1000000;
  size_t batch = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 1000;
  size_t samples = argc > 4 ? std::strtoull(argv[4], nullptr, 10) : 100;
  if (rows == 0 || batch == 0 || rows % batch != 0) Die("ROWS must be a multiple of BATCH");
  // Only what the DELETE comparison needs: both sides' inserts, then it.
  const bool only_delete = std::getenv("LAKE_BENCH_ONLY_DELETE") != nullptr &&
                           std::string(std::getenv("LAKE_BENCH_ONLY_DELETE")) == "1";

  std::printf("fsync_floor_per_s=%.0f\n", FsyncFloor(dir));

  lake_db* db = nullptr;
  lake_error* err = nullptr;
  Check(lake_db_open((dir + "/lake").c_str(), nullptr, &db, &err), err, "open root");
  lake_stage* stage = lake_db_stage(db);
  // The DataLocations the file column is bound to, uploaded before timing.
  std::vector<lake_location*> locations;
  std::vector<LocationFields> fields;
  for (int i = 0; i < 1000; ++i) {
    Bytes bytes{std::string(1024, static_cast<char>('a' + i % 26)) + std::to_string(i)};
    lake_location* loc = nullptr;
    Check(lake_stage_upload_reader(stage, ReadBytes, &bytes, nullptr, &loc, &err), err, "upload");
    locations.push_back(loc);
    fields.push_back({lake_location_uri(loc), lake_location_content_type(loc),
                      lake_location_sha256(loc), lake_location_size_bytes(loc)});
  }
  const char* columns[] = {"name:utf8", "n:int64", "video:file"};
  Check(lake_table_create(db, "bench.rows", columns, 3, &err), err, "create table");

  std::printf("file_create_us=%.1f\n", FileCreateMicros(dir));

  // (a): lake and SQLite FULL insert the same rows by rounds, alternating.
  std::string full_db = dir + "/sqlite-full.db", normal_db = dir + "/sqlite-normal.db";
  const DiskFlushes disk(dir);
  InsertTotals lake_totals, full_totals;
  {
    LakeInserter lake_side(db, batch, locations);
    SqliteInserter full_side(full_db, "FULL", batch, fields);
    const size_t round_rows = kInsertRoundBatches * batch;
    for (size_t from = 0, round = 0; from < rows; from += round_rows, ++round) {
      const size_t to = std::min(rows, from + round_rows);
      auto lake_round = [&] { TimeRound(disk, &lake_totals, [&] { lake_side.Insert(from, to); }); };
      auto full_round = [&] { TimeRound(disk, &full_totals, [&] { full_side.Insert(from, to); }); };
      if (round % 2 == 0) {
        lake_round();
        full_round();
      } else {
        full_round();
        lake_round();
      }
    }
  }
  std::printf("lake_insert_rows_per_s=%.0f\n", static_cast<double>(rows) / lake_totals.seconds);
  PrintPerBatch(lake_totals, rows / batch, "lake_insert_cpu_ms_per_batch",
                "lake_insert_flushes_per_batch");
  std::printf("sqlite_full_insert_rows_per_s=%.0f\n",
              static_cast<double>(rows) / full_totals.seconds);
  PrintPerBatch(full_totals, rows / batch, "sqlite_full_insert_cpu_ms_per_batch",
                "sqlite_full_insert_flushes_per_batch");
  PrintLogBytesPerBatch(dir + "/lake/tables/bench/rows/_log", rows / batch);
  if (!only_delete) {
    // Right after the insert, on the same disk moment, with its file sizes.
    std::string table_dir = dir + "/lake/tables/bench/rows";
    uint64_t fragment =
        MeanVersionObjectBytes(table_dir, "data", ".frag", LogRecordKind::kFragment);
    uint64_t manifest =
        MeanVersionObjectBytes(table_dir, "_versions", ".manifest", LogRecordKind::kManifest);
    // The files protocol writes an append's delta whole; the table log's
    // names the fragment instead (a 56-byte delta of format 3).
    uint64_t delta = MeanFileBytes(table_dir + "/_lake/object_refs", ".refs");
    if (delta == 0) delta = ReferenceDeltaBytes(fields);
    // A checkpoint holds the fragment's bytes and a small header.
    double per_s = ProtocolFloor(dir, {fragment + 256, fragment, manifest, delta}, 300);
    std::printf("protocol_floor_file_bytes=%llu,%llu,%llu\n",
                static_cast<unsigned long long>(fragment),
                static_cast<unsigned long long>(manifest), static_cast<unsigned long long>(delta));
    std::printf("protocol_floor_appends_per_s=%.0f\n", per_s);
    std::printf("protocol_floor_rows_per_s=%.0f\n", per_s * batch);
    // What one version wrote to the table log, every record counted.
    uint64_t log_bytes = ReadLogRecordTotals(table_dir + "/_log").MeanVersionBytes();
    std::printf("lake_log_bytes_per_version=%llu\n", static_cast<unsigned long long>(log_bytes));
    double log_per_s =
        LogProtocolFloor(dir, log_bytes != 0 ? log_bytes : 2 * fragment + 256 + manifest + delta, 300);
    std::printf("log_protocol_floor_appends_per_s=%.0f\n", log_per_s);
    std::printf("log_protocol_floor_rows_per_s=%.0f\n", log_per_s * batch);
  }

  if (only_delete) {
    lake_db_free(db);
    CompareDeletes(dir, full_db, rows);
    for (lake_location* loc : locations) lake_location_free(loc);
    return 0;
  }
  auto start = Clock::now();
  uint64_t scanned = DrainLake(db, "SELECT * FROM bench.rows", nullptr);
  double lake_scan_s = Seconds(start);
  if (scanned != rows) Die("lake full scan returned " + std::to_string(scanned) + " rows");
  std::printf("lake_full_scan_rows_per_s=%.0f\n", rows / lake_scan_s);
  int64_t needle = static_cast<int64_t>(rows / 2);
  start = Clock::now();
  uint64_t matched = DrainLake(db, "SELECT * FROM bench.rows WHERE n = ?", &needle);
  double lake_where_s = Seconds(start);
  if (matched != 1) Die("lake selective scan matched " + std::to_string(matched));
  std::printf("lake_where_scan_rows_per_s=%.0f\n", rows / lake_where_s);

  std::printf("sqlite_normal_insert_rows_per_s=%.0f\n",
              SqliteInsert(normal_db, "NORMAL", rows, batch, fields, disk,
                           "sqlite_normal_insert_flushes_per_batch",
                           "sqlite_normal_insert_cpu_ms_per_batch"));
  uint64_t sqlite_rows = 0;
  double sqlite_scan_s = SqliteScan(full_db, "SELECT * FROM rows", nullptr, &sqlite_rows);
  if (sqlite_rows != rows) Die("sqlite full scan count");
  std::printf("sqlite_full_scan_rows_per_s=%.0f\n", rows / sqlite_scan_s);
  double sqlite_where_s = SqliteScan(full_db, "SELECT * FROM rows WHERE n = ?", &needle,
                                     &sqlite_rows);
  if (sqlite_rows != 1) Die("sqlite selective scan count");
  std::printf("sqlite_where_scan_rows_per_s=%.0f\n", rows / sqlite_where_s);

  // DELETE of every 100th row, then a full scan of what is left, on copies
  // of both sides' data (the root is closed meanwhile, then opened again).
  lake_db_free(db);
  db = nullptr;
  CompareDeletes(dir, full_db, rows);
  Check(lake_db_open((dir + "/lake").c_str(), nullptr, &db, &err), err, "open root again");

  // Single-row INSERTs, each uploading a 1 MiB FILE.
  std::vector<double> latencies;
  for (size_t i = 0; i < samples; ++i) {
    Bytes bytes{std::string(1 << 20, static_cast<char>(i))};
    lake_statement* stmt = nullptr;
    auto t0 = Clock::now();
    Check(lake_db_prepare(db, "INSERT INTO bench.rows (name, n, video) VALUES (?, ?, ?)", &stmt,
                          &err),
          err, "prepare single");
    Check(lake_statement_bind_utf8(stmt, 1, "single", 6, &err), err, "bind");
    Check(lake_statement_bind_int64(stmt, 2, -1, &err), err, "bind");
    Check(lake_statement_bind_file_reader(stmt, 3, ReadBytes, &bytes, "application/octet-stream",
                                          &err),
          err, "bind");
    uint64_t version = 0;
    Check(lake_statement_insert(stmt, nullptr, &version, &err), err, "single insert");
    latencies.push_back(Seconds(t0) * 1000);
    lake_statement_free(stmt);
  }
  std::sort(latencies.begin(), latencies.end());
  if (!latencies.empty()) {
    std::printf("lake_single_insert_1mib_p50_ms=%.2f\n", latencies[latencies.size() / 2]);
    std::printf("lake_single_insert_1mib_p99_ms=%.2f\n",
                latencies[std::min(latencies.size() - 1, latencies.size() * 99 / 100)]);
  }
  // The fixed cost of one append, whatever its rows: single-row INSERTs of
  // an existing location (nothing uploaded). batch / this cost bounds the
  // insert rate of (a) even if per-row work were free.
  const size_t floor_appends = 200;
  const long long flushes_before = disk.Now();
  start = Clock::now();
  lake_statement* stmt = nullptr;
  Check(lake_db_prepare(db, "INSERT INTO bench.rows (name, n, video) VALUES (?, ?, ?)", &stmt,
                        &err),
        err, "prepare floor");
  for (size_t i = 0; i < floor_appends; ++i) {
    Check(lake_statement_bind_utf8(stmt, 1, "floor", 5, &err), err, "bind");
    Check(lake_statement_bind_int64(stmt, 2, -2, &err), err, "bind");
    Check(lake_statement_bind_location(stmt, 3, locations[i % locations.size()], &err), err,
          "bind");
    uint64_t version = 0;
    Check(lake_statement_insert(stmt, nullptr, &version, &err), err, "floor insert");
  }
  lake_statement_free(stmt);
  double floor_per_s = floor_appends / Seconds(start);
  PrintFlushesPer("lake_append_floor_flushes_per_append", disk, flushes_before,
                  static_cast<double>(floor_appends));
  std::printf("lake_append_floor_per_s=%.0f\n", floor_per_s);
  std::printf("lake_insert_rows_per_s_ceiling=%.0f\n", floor_per_s * batch);

  for (lake_location* loc : locations) lake_location_free(loc);
  lake_db_free(db);
  return 0;
}
