// The event-log benchmark: lake's EventLog (engine/events/event_log.h,
// linked statically) against SQLite (WAL, one transaction per checkpoint
// batch) on the same events, in one run.
//
//   event_bench DIR [ITEMS] [SYNC_BATCHES] [THREADS] [FOLDS] [TREES]
//
// The workload: ITEMS items, ten per root ("root-N" and its fan-out children
// "root-N/gen:0" .. "root-N/gen:8"), each written as kStepsPerItem checkpoint
// batches of kEventsPerCheckpoint events (the first opens with ITEM_CREATED;
// every one is field events and a STEP_COMPLETED). The checkpoints are
// written in four phases, each on both sides:
//   (a) one checkpoint per durable batch from one thread (at most
//       SYNC_BATCHES of them): lake Append vs SQLite synchronous=FULL
//   (b) the next checkpoints (at most SYNC_BATCHES) from THREADS threads,
//       each its own items: one shared EventLog (group commit) vs one
//       SQLite connection per thread (FULL, serialised by busy_timeout)
//   (c) every remaining checkpoint, in bulk batches of kBulkEvents events:
//       lake Append, relaxed (each batch atomic and written, synced in the
//       background every 4 MiB of them and once at the load's end, inside
//       the timing) vs SQLite synchronous=NORMAL
//       (each transaction atomic, synced at WAL checkpoints): the same
//       guarantee, where one sync per batch would measure the disk, not
//       the append
//   (d) reads of everything (a)-(c) wrote: FOLDS random items folded and
//       TREES random item trees built (lake from a fresh read-only EventLog;
//       SQLite selects the rows and runs the same FoldItem / BuildItemTree).
// Also measured: the fsync floor (4 KiB writes + fdatasync per second, as
// appends and as overwrites of synced zeros, probed at the start of each
// of (a)'s rounds, before lake's and SQLite's shares), the sync floor of
// lake's bulk frames, the writer CPU per event in (a) and (c), lake's
// read-only open time and the bytes each side keeps. Both sides' folds are
// checked to agree. Prints one "key=value" line per figure; bench/events
// makes the summary.
#include <sqlite3.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fcntl.h>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <tuple>
#include <unistd.h>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "engine/events/event.h"
#include "engine/events/event_log.h"
#include "engine/events/fold.h"
#include "io/file_system.h"

namespace {

using Clock = std::chrono::steady_clock;
using lake::events::Event;
using lake::events::EventLog;
using lake::events::EventType;
using lake::events::ItemTreeNode;
using lake::events::StepKind;
using lake::events::ValueKind;

// The shape of the workload.
constexpr size_t kItemsPerRoot = 10;          // a root and its children gen:0..8
constexpr size_t kEventsPerCheckpoint = 10;   // one durable batch in (a) and (b)
constexpr size_t kStepsPerItem = 3;           // checkpoints per item
constexpr size_t kBulkEvents = 1000;          // one batch in (c)
constexpr const char* kStepNames[kStepsPerItem] = {"generate", "judge", "refine"};
constexpr int64_t kBaseTs = 1'717'000'000'000'000;  // event_ts of the first event

double Seconds(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "event_bench: %s\n", what.c_str());
  std::exit(1);
}

void Check(const absl::Status& status, const std::string& what) {
  if (!status.ok()) Die(what + ": " + status.ToString());
}

// The CPU time of the calling thread (user and system), in seconds.
double ThreadCpuSeconds() {
  timespec ts{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// Writes of `block_bytes`, each followed by fdatasync, per second: what a
// design that syncs once per batch of that size can reach at best. Appends
// (`overwrite` false) also make each sync write the file's new size and
// allocate blocks; overwrites of zeros written and synced beforehand (what
// lake's segments and SQLite's reused WAL do) sync the data blocks alone.
double FsyncFloor(const std::string& dir, size_t block_bytes, int ops, bool overwrite) {
  std::string path = dir + "/fsync-probe";
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) Die("open " + path);
  if (overwrite) {
    // In 64 KiB writes, as lake's segments do (ShardWriter::ZeroAhead): one
    // large write leaves large page-cache folios that slow every later
    // small write and sync, which would lower the floor.
    const std::string zeros(64 << 10, '\0');
    for (size_t done = 0; done < block_bytes * ops; done += zeros.size()) {
      if (::write(fd, zeros.data(), zeros.size()) != static_cast<ssize_t>(zeros.size())) {
        Die("fsync probe zeros");
      }
    }
    if (::fsync(fd) != 0) Die("fsync probe zeros");
  }
  std::string block(block_bytes, 'x');
  auto start = Clock::now();
  for (int i = 0; i < ops; ++i) {
    if (::pwrite(fd, block.data(), block.size(), static_cast<off_t>(i * block_bytes)) !=
            static_cast<ssize_t>(block.size()) ||
        ::fdatasync(fd) != 0) {
      Die("fsync probe");
    }
  }
  double s = Seconds(start);
  ::close(fd);
  ::unlink(path.c_str());
  return ops / s;
}

uint64_t DiskBytes(const std::string& path) {
  uint64_t bytes = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(path)) {
    if (entry.is_regular_file()) bytes += entry.file_size();
  }
  return bytes;
}

// ---- The workload -------------------------------------------------------

std::string RootOf(size_t item) { return absl::StrCat("root-", item / kItemsPerRoot); }

std::string ItemIdOf(size_t item) {
  size_t child = item % kItemsPerRoot;
  if (child == 0) return RootOf(item);
  return absl::StrCat(RootOf(item), "/gen:", child - 1);
}

// One checkpoint: step `step` of item `item`.
struct Checkpoint {
  size_t item;
  size_t step;
};

using Batch = std::vector<Event>;

// An event of the checkpoint with the columns a stream writer stamps.
Event Stamped(const std::string& item_id, size_t item, size_t step, uint64_t item_seq,
              EventType type) {
  Event e;
  e.item_id = item_id;
  e.item_seq = item_seq;
  e.attempt = 0;
  e.checkpoint_id = absl::StrCat("ckpt-", item, "-", step);
  e.event_type = type;
  e.run_id = "bench-run-1";
  e.writer_epoch = "bench-host:4711";
  e.event_ts = kBaseTs + static_cast<int64_t>(item * 1000 + item_seq);
  return e;
}

void AtStep(Event& e, size_t step) {
  e.step_name = kStepNames[step];
  e.step_kind = StepKind::kLeaf;
  e.enclosing_step = "pipeline";
}

// The field events of a step: small ints, short strings and a small JSON,
// a mix of FIELD_SET (last writer wins) and FIELD_APPEND (list fields).
void AppendFieldEvents(const std::string& item_id, size_t item, size_t step, size_t count,
                       uint64_t* item_seq, Batch* out) {
  const std::string step_name = kStepNames[step];
  for (size_t f = 0; f < count; ++f) {
    bool append = f == 4 || f == 5 || f == 8;
    Event e = Stamped(item_id, item, step, (*item_seq)++,
                      append ? EventType::kFieldAppend : EventType::kFieldSet);
    AtStep(e, step);
    e.field_type = "py:builtin";
    e.codec_version = 1;
    switch (f) {
      case 0:
        e.field_name = step_name + ".prompt";
        e.value_kind = ValueKind::kStr;
        e.value_str = absl::StrCat("Write a short answer for ", item_id, " (variant ", step, ")");
        break;
      case 1:
        e.field_name = step_name + ".tokens";
        e.value_kind = ValueKind::kInt;
        e.value_i64 = static_cast<int64_t>(100 + (item * 7 + step * 13) % 900);
        break;
      case 2:
        e.field_name = step_name + ".model";
        e.value_kind = ValueKind::kStr;
        e.value_str = "small-model-v3";
        break;
      case 3:
        e.field_name = "meta";
        e.value_kind = ValueKind::kJson;
        e.value_json = absl::StrCat("{\"temperature\": 0.7, \"seed\": ", item * 31 + step,
                                    ", \"tags\": [\"bench\", \"", step_name, "\"]}");
        break;
      case 4:
      case 5:
        e.field_name = "samples";
        e.value_kind = ValueKind::kStr;
        e.value_str = absl::StrCat("sample ", f - 4, " of ", step_name, ": the answer is ",
                                   (item * 17 + f) % 1000);
        break;
      case 6:
        e.field_name = step_name + ".latency_ms";
        e.value_kind = ValueKind::kInt;
        e.value_i64 = static_cast<int64_t>(20 + (item * 3 + f) % 400);
        break;
      case 7:
        e.field_name = step_name + ".score";
        e.value_kind = ValueKind::kInt;
        e.value_i64 = static_cast<int64_t>((item + step) % 10);
        break;
      default:
        e.field_name = "log";
        e.value_kind = ValueKind::kStr;
        e.value_str = absl::StrCat(step_name, " ok");
        break;
    }
    out->push_back(std::move(e));
  }
}

// The kEventsPerCheckpoint events of one checkpoint, with derived ids.
void AppendCheckpoint(const Checkpoint& c, Batch* out) {
  const std::string item_id = ItemIdOf(c.item);
  uint64_t item_seq = c.step * kEventsPerCheckpoint + 1;
  size_t first = out->size();
  size_t fields = kEventsPerCheckpoint - 1;
  if (c.step == 0) {
    Event created = Stamped(item_id, c.item, c.step, item_seq++, EventType::kItemCreated);
    if (c.item % kItemsPerRoot != 0) {  // a fan-out child: the step that created it
      created.step_name = "gen";
      created.step_index = static_cast<uint32_t>(c.item % kItemsPerRoot - 1);
      created.step_kind = StepKind::kMapReduce;
      created.enclosing_step = "pipeline";
    }
    out->push_back(std::move(created));
    --fields;
  }
  AppendFieldEvents(item_id, c.item, c.step, fields, &item_seq, out);
  Event done = Stamped(item_id, c.item, c.step, item_seq++, EventType::kStepCompleted);
  AtStep(done, c.step);
  out->push_back(std::move(done));
  for (size_t i = first; i < out->size(); ++i) Check(FillDerivedIds((*out)[i]), "derive ids");
}

Batch BatchOf(const std::vector<Checkpoint>& checkpoints, size_t begin, size_t end) {
  Batch batch;
  batch.reserve((end - begin) * kEventsPerCheckpoint);
  for (size_t i = begin; i < end; ++i) AppendCheckpoint(checkpoints[i], &batch);
  return batch;
}

// Which checkpoints each phase writes. Checkpoints are taken step by step
// (every item's step 0 before any step 1), so an item's events are always
// appended in item_seq order.
struct Plan {
  std::vector<Checkpoint> sync_one;                  // (a)
  std::vector<std::vector<Checkpoint>> sync_threads;  // (b), one list per thread
  std::vector<Checkpoint> bulk;                      // (c)
  bool capped = false;  // (a) or (b) stopped at SYNC_BATCHES
};

Plan MakePlan(size_t items, size_t sync_batches, size_t threads) {
  Plan plan;
  size_t a = std::min(sync_batches, items);
  size_t b = std::min(sync_batches, items - a);
  plan.capped = a < items && items - a > b;
  for (size_t i = 0; i < a; ++i) plan.sync_one.push_back({i, 0});
  plan.sync_threads.resize(threads);
  for (size_t i = 0; i < b; ++i) plan.sync_threads[i % threads].push_back({a + i, 0});
  for (size_t i = a + b; i < items; ++i) plan.bulk.push_back({i, 0});
  for (size_t step = 1; step < kStepsPerItem; ++step) {
    for (size_t i = 0; i < items; ++i) plan.bulk.push_back({i, step});
  }
  return plan;
}

// ---- SQLite -------------------------------------------------------------

constexpr const char* kCreateTable =
    "CREATE TABLE IF NOT EXISTS events ("
    "event_id TEXT NOT NULL, item_id TEXT NOT NULL, root_item_id TEXT NOT NULL, "
    "parent_item_id TEXT, item_seq INTEGER NOT NULL, attempt INTEGER NOT NULL, "
    "checkpoint_id TEXT, event_type TEXT NOT NULL, step_name TEXT, step_index INTEGER, "
    "step_kind TEXT, enclosing_step TEXT, selector_step TEXT, run_id TEXT, writer_epoch TEXT, "
    "field_name TEXT, field_type TEXT, codec_version INTEGER, value_kind TEXT, "
    "value_i64 INTEGER, value_f64 REAL, value_bool INTEGER, value_str TEXT, value_json TEXT, "
    "blob_inline BLOB, blob_location TEXT, payload_size INTEGER, payload_checksum TEXT, "
    "query_tags_json TEXT, status TEXT, error_type TEXT, error_dump TEXT, traceback TEXT, "
    "event_ts INTEGER NOT NULL, schema_version INTEGER NOT NULL)";
// The unique index is SQLite's counterpart of lake's fencing check: one
// event per (item_id, item_seq).
constexpr const char* kCreateIndex =
    "CREATE UNIQUE INDEX IF NOT EXISTS events_by_item ON events (item_id, item_seq)";
constexpr const char* kColumns =
    "event_id, item_id, root_item_id, parent_item_id, item_seq, attempt, checkpoint_id, "
    "event_type, step_name, step_index, step_kind, enclosing_step, selector_step, run_id, "
    "writer_epoch, field_name, field_type, codec_version, value_kind, value_i64, value_f64, "
    "value_bool, value_str, value_json, blob_inline, blob_location, payload_size, "
    "payload_checksum, query_tags_json, status, error_type, error_dump, traceback, event_ts, "
    "schema_version";
constexpr int kColumnCount = 35;

void Sql(sqlite3* db, const char* sql) {
  char* message = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &message) != SQLITE_OK) {
    Die(std::string("sqlite: ") + sql + ": " + (message ? message : ""));
  }
}

sqlite3_stmt* Prepare(sqlite3* db, const std::string& sql) {
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK) {
    Die("sqlite prepare " + sql + ": " + sqlite3_errmsg(db));
  }
  return stmt;
}

void Step(sqlite3* db, sqlite3_stmt* stmt, int want) {
  if (int rc = sqlite3_step(stmt); rc != want) {
    Die(std::string("sqlite step: ") + sqlite3_errmsg(db));
  }
  sqlite3_reset(stmt);
}

void CreateSqliteSchema(const std::string& path) {
  sqlite3* db = nullptr;
  if (sqlite3_open(path.c_str(), &db) != SQLITE_OK) Die("sqlite open " + path);
  Sql(db, "PRAGMA journal_mode=WAL");
  Sql(db, kCreateTable);
  Sql(db, kCreateIndex);
  sqlite3_close(db);
}

// One connection with the statements of the write path.
struct SqliteWriter {
  sqlite3* db = nullptr;
  sqlite3_stmt* begin = nullptr;
  sqlite3_stmt* commit = nullptr;
  sqlite3_stmt* insert = nullptr;

  SqliteWriter(const std::string& path, const char* synchronous) {
    if (sqlite3_open(path.c_str(), &db) != SQLITE_OK) Die("sqlite open " + path);
    sqlite3_busy_timeout(db, 60000);
    Sql(db, "PRAGMA journal_mode=WAL");
    Sql(db, (std::string("PRAGMA synchronous=") + synchronous).c_str());
    // IMMEDIATE takes the write lock up front, so a writer waits in the busy
    // handler instead of failing when another holds it.
    begin = Prepare(db, "BEGIN IMMEDIATE");
    commit = Prepare(db, "COMMIT");
    std::string params = "?";
    for (int i = 1; i < kColumnCount; ++i) params += ", ?";
    insert = Prepare(db, absl::StrCat("INSERT INTO events (", kColumns, ") VALUES (", params, ")"));
  }
  ~SqliteWriter() {
    sqlite3_finalize(begin);
    sqlite3_finalize(commit);
    sqlite3_finalize(insert);
    sqlite3_close(db);
  }
  SqliteWriter(const SqliteWriter&) = delete;
  SqliteWriter& operator=(const SqliteWriter&) = delete;

  // One transaction: every event of the batch.
  void Write(const Batch& batch) {
    Step(db, begin, SQLITE_DONE);
    for (const Event& e : batch) {
      Bind(e);
      Step(db, insert, SQLITE_DONE);
    }
    Step(db, commit, SQLITE_DONE);
  }

 private:
  // Empty strings and unset optionals are NULL, as a nullable schema holds them.
  void Text(int i, const std::string& s) {
    if (s.empty()) {
      sqlite3_bind_null(insert, i);
    } else {
      sqlite3_bind_text(insert, i, s.data(), static_cast<int>(s.size()), SQLITE_STATIC);
    }
  }
  void Name(int i, std::string_view s) {
    sqlite3_bind_text(insert, i, s.data(), static_cast<int>(s.size()), SQLITE_STATIC);
  }
  void Int(int i, int64_t v) { sqlite3_bind_int64(insert, i, v); }

  void Bind(const Event& e) {
    if (e.blob_location) Die("the workload holds no blob locations");
    sqlite3_clear_bindings(insert);
    const bool has_value = e.value_kind.has_value();
    Text(1, e.event_id);
    Text(2, e.item_id);
    Text(3, e.root_item_id);
    Text(4, e.parent_item_id);
    Int(5, static_cast<int64_t>(e.item_seq));
    Int(6, e.attempt);
    Text(7, e.checkpoint_id);
    Name(8, lake::events::EventTypeName(e.event_type));
    Text(9, e.step_name);
    if (e.step_index) Int(10, *e.step_index);
    if (e.step_kind) Name(11, lake::events::StepKindName(*e.step_kind));
    Text(12, e.enclosing_step);
    Text(13, e.selector_step);
    Text(14, e.run_id);
    Text(15, e.writer_epoch);
    Text(16, e.field_name);
    Text(17, e.field_type);
    if (e.codec_version != 0) Int(18, e.codec_version);
    if (has_value) {
      Name(19, lake::events::ValueKindName(*e.value_kind));
      if (*e.value_kind == ValueKind::kInt) Int(20, e.value_i64);
      if (*e.value_kind == ValueKind::kFloat) sqlite3_bind_double(insert, 21, e.value_f64);
      if (*e.value_kind == ValueKind::kBool) Int(22, e.value_bool ? 1 : 0);
    }
    Text(23, e.value_str);
    Text(24, e.value_json);
    if (!e.blob_inline.empty()) {
      sqlite3_bind_blob(insert, 25, e.blob_inline.data(), static_cast<int>(e.blob_inline.size()),
                        SQLITE_STATIC);
    }
    if (e.payload_size != 0) Int(27, static_cast<int64_t>(e.payload_size));
    Text(28, e.payload_checksum);
    Text(29, e.query_tags_json);
    if (e.status) Name(30, lake::events::ItemStatusName(*e.status));
    Text(31, e.error_type);
    Text(32, e.error_dump);
    Text(33, e.traceback);
    Int(34, e.event_ts);
    Int(35, e.schema_version);
  }
};

std::string ColumnText(sqlite3_stmt* stmt, int i) {
  const unsigned char* text = sqlite3_column_text(stmt, i);
  if (text == nullptr) return {};
  return std::string(reinterpret_cast<const char*>(text),
                     static_cast<size_t>(sqlite3_column_bytes(stmt, i)));
}

bool IsNull(sqlite3_stmt* stmt, int i) { return sqlite3_column_type(stmt, i) == SQLITE_NULL; }

template <typename T>
T ParsedName(std::optional<T> parsed, const char* column) {
  if (!parsed) Die(std::string("sqlite returned an unknown ") + column);
  return *parsed;
}

// The event of the current row of a SELECT of kColumns.
Event EventOfRow(sqlite3_stmt* s) {
  Event e;
  e.event_id = ColumnText(s, 0);
  e.item_id = ColumnText(s, 1);
  e.root_item_id = ColumnText(s, 2);
  e.parent_item_id = ColumnText(s, 3);
  e.item_seq = static_cast<uint64_t>(sqlite3_column_int64(s, 4));
  e.attempt = static_cast<uint32_t>(sqlite3_column_int64(s, 5));
  e.checkpoint_id = ColumnText(s, 6);
  e.event_type = ParsedName(lake::events::ParseEventType(ColumnText(s, 7)), "event_type");
  e.step_name = ColumnText(s, 8);
  if (!IsNull(s, 9)) e.step_index = static_cast<uint32_t>(sqlite3_column_int64(s, 9));
  if (!IsNull(s, 10)) {
    e.step_kind = ParsedName(lake::events::ParseStepKind(ColumnText(s, 10)), "step_kind");
  }
  e.enclosing_step = ColumnText(s, 11);
  e.selector_step = ColumnText(s, 12);
  e.run_id = ColumnText(s, 13);
  e.writer_epoch = ColumnText(s, 14);
  e.field_name = ColumnText(s, 15);
  e.field_type = ColumnText(s, 16);
  e.codec_version = static_cast<uint32_t>(sqlite3_column_int64(s, 17));
  if (!IsNull(s, 18)) {
    e.value_kind = ParsedName(lake::events::ParseValueKind(ColumnText(s, 18)), "value_kind");
  }
  e.value_i64 = sqlite3_column_int64(s, 19);
  e.value_f64 = sqlite3_column_double(s, 20);
  e.value_bool = sqlite3_column_int64(s, 21) != 0;
  e.value_str = ColumnText(s, 22);
  e.value_json = ColumnText(s, 23);
  if (!IsNull(s, 24)) {
    const void* blob = sqlite3_column_blob(s, 24);
    e.blob_inline.assign(static_cast<const char*>(blob),
                         static_cast<size_t>(sqlite3_column_bytes(s, 24)));
  }
  // Column 25 (blob_location) is always NULL: the workload has no blob locations.
  e.payload_size = static_cast<uint64_t>(sqlite3_column_int64(s, 26));
  e.payload_checksum = ColumnText(s, 27);
  e.query_tags_json = ColumnText(s, 28);
  if (!IsNull(s, 29)) {
    e.status = ParsedName(lake::events::ParseItemStatus(ColumnText(s, 29)), "status");
  }
  e.error_type = ColumnText(s, 30);
  e.error_dump = ColumnText(s, 31);
  e.traceback = ColumnText(s, 32);
  e.event_ts = sqlite3_column_int64(s, 33);
  e.schema_version = static_cast<uint32_t>(sqlite3_column_int64(s, 34));
  return e;
}

// ---- Results both sides must agree on -------------------------------------

// A digest of a fold's outcome, so the two sides are checked to have folded
// the same events.
uint64_t FoldDigest(const std::optional<lake::events::FoldedItem>& item) {
  if (!item) Die("a folded item does not exist");
  uint64_t values = 0;
  for (const auto& [name, field] : item->fields) values += field.values.size();
  return item->next_item_seq * 1000003 + item->fields.size() * 1009 + values * 31 +
         item->completed_steps.size();
}

uint64_t TreeDigest(const ItemTreeNode& node) {
  uint64_t digest = FoldDigest(node.item);
  for (const ItemTreeNode& child : node.children) digest += 7 * TreeDigest(child) + 1;
  return digest;
}

uint64_t TreeDigest(const lake::events::ItemTree& tree) {
  if (!tree.root || !tree.orphans.empty()) Die("an item tree lost its root or has orphans");
  return TreeDigest(*tree.root);
}

// ---- The phases -----------------------------------------------------------

struct Rates {
  double lake = 0;
  double sqlite = 0;
  // CPU (user + system) per event of the writing thread; single writer only.
  double lake_cpu_us = 0;
  double sqlite_cpu_us = 0;
};

// (a) and (c): one thread, one batch after another. Batches are built
// outside the timed region (the same events for both sides). With relaxed
// lake appends, the timing ends with the Sync that makes them all durable.
// The batches are written in `rounds` rounds, each lake's share and then
// SQLite's same share, with `before_round` (if any) run before each: (a)
// probes the fsync floor there, so that lake, SQLite and the floor are
// measured at the same moments of a disk whose sync rate drifts.
Rates SingleWriter(EventLog& log, const std::string& sqlite_path, const char* synchronous,
                   const std::vector<Checkpoint>& checkpoints, size_t per_batch,
                   lake::events::Durability durability, size_t rounds = 1,
                   const std::function<void()>& before_round = {}) {
  // Every batch is built before the clock starts, so the appends run back
  // to back as the fsync floor's probe does: a pause between syncs (the
  // harness building the next batch) makes this virtual disk's next sync
  // slower, for reasons of the harness, not of either side.
  auto build_all = [&] {
    std::vector<Batch> batches;
    for (size_t i = 0; i < checkpoints.size(); i += per_batch) {
      batches.push_back(BatchOf(checkpoints, i, std::min(checkpoints.size(), i + per_batch)));
    }
    return batches;
  };
  size_t events = 0;
  std::vector<Batch> lake_batches = build_all();
  const std::vector<Batch> sqlite_batches = build_all();
  for (const Batch& batch : lake_batches) events += batch.size();
  if (events == 0) return {};
  SqliteWriter writer(sqlite_path, synchronous);
  double lake_s = 0, sqlite_s = 0, lake_cpu = 0, sqlite_cpu = 0;
  const size_t n = lake_batches.size();
  for (size_t round = 0; round < rounds; ++round) {
    const size_t begin = n * round / rounds, end = n * (round + 1) / rounds;
    if (before_round) before_round();
    auto start = Clock::now();
    double cpu = ThreadCpuSeconds();
    for (size_t b = begin; b < end; ++b) {
      absl::StatusOr<lake::events::AppendResult> appended =
          log.Append(std::move(lake_batches[b]), durability);
      Check(appended.status(), "lake append");
    }
    if (round + 1 == rounds) Check(log.Sync(), "lake sync");
    lake_cpu += ThreadCpuSeconds() - cpu;
    lake_s += Seconds(start);
    start = Clock::now();
    cpu = ThreadCpuSeconds();
    for (size_t b = begin; b < end; ++b) writer.Write(sqlite_batches[b]);
    sqlite_cpu += ThreadCpuSeconds() - cpu;
    sqlite_s += Seconds(start);
  }
  return {events / lake_s, events / sqlite_s, lake_cpu / events * 1e6,
          sqlite_cpu / events * 1e6};
}

// On `threads` threads at once, runs work.Run(t, prepared[t]) where
// prepared[t] = work.Prepare(t). Returns the wall time of the runs only:
// from the moment every thread is prepared until the last run returns
// (what was prepared is torn down after the clock stops).
template <typename Work>
double TimedThreads(size_t threads, Work work) {
  std::vector<decltype(work.Prepare(0))> prepared(threads);
  std::atomic<size_t> ready{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> pool;
  for (size_t t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      prepared[t] = work.Prepare(t);
      ready.fetch_add(1);
      while (!go.load()) std::this_thread::yield();
      work.Run(t, prepared[t]);
    });
  }
  while (ready.load() < threads) std::this_thread::yield();
  auto start = Clock::now();
  go.store(true);
  for (std::thread& thread : pool) thread.join();
  return Seconds(start);
}

// (b): each thread writes its own items' checkpoints, one batch each.
Rates ConcurrentWriters(EventLog& log, const std::string& sqlite_path,
                        const std::vector<std::vector<Checkpoint>>& per_thread) {
  size_t events = 0;
  for (const auto& list : per_thread) events += list.size() * kEventsPerCheckpoint;
  if (events == 0) return {};
  auto batches_of = [&](size_t t) {
    std::vector<Batch> batches;
    for (size_t i = 0; i < per_thread[t].size(); ++i) {
      batches.push_back(BatchOf(per_thread[t], i, i + 1));
    }
    return batches;
  };

  struct LakeWork {
    EventLog& log;
    decltype(batches_of)& make;
    std::vector<Batch> Prepare(size_t t) { return make(t); }
    void Run(size_t, std::vector<Batch>& batches) {
      for (Batch& batch : batches) Check(log.Append(std::move(batch)).status(), "lake append");
    }
  };
  double lake_s = TimedThreads(per_thread.size(), LakeWork{log, batches_of});

  struct SqliteWork {
    const std::string& path;
    decltype(batches_of)& make;
    struct Prepared {
      std::unique_ptr<SqliteWriter> writer;
      std::vector<Batch> batches;
    };
    Prepared Prepare(size_t t) {
      return {std::make_unique<SqliteWriter>(path, "FULL"), make(t)};
    }
    void Run(size_t, Prepared& p) {
      for (const Batch& batch : p.batches) p.writer->Write(batch);
    }
  };
  double sqlite_s = TimedThreads(per_thread.size(), SqliteWork{sqlite_path, batches_of});
  return {events / lake_s, events / sqlite_s};
}

struct ReadRates {
  double lake_folds = 0, sqlite_folds = 0;
  double lake_trees = 0, sqlite_trees = 0;
};

// (d) on the lake side: folds and trees from an already open log.
std::pair<double, double> LakeReads(EventLog& log, const std::vector<std::string>& items,
                                    const std::vector<std::string>& roots,
                                    std::vector<uint64_t>* digests) {
  auto start = Clock::now();
  for (const std::string& id : items) {
    absl::StatusOr<std::optional<lake::events::FoldedItem>> folded = log.Fold(id);
    Check(folded.status(), "lake fold " + id);
    digests->push_back(FoldDigest(*folded));
  }
  double fold_s = Seconds(start);
  start = Clock::now();
  for (const std::string& root : roots) {
    absl::StatusOr<lake::events::ItemTree> tree = log.Tree(root);
    Check(tree.status(), "lake tree " + root);
    digests->push_back(TreeDigest(*tree));
  }
  double tree_s = Seconds(start);
  return {items.size() / fold_s, roots.size() / tree_s};
}

// (d) on the SQLite side: the same folds and trees over selected rows.
std::pair<double, double> SqliteReads(const std::string& path,
                                      const std::vector<std::string>& items,
                                      const std::vector<std::string>& roots,
                                      std::vector<uint64_t>* digests) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    Die("sqlite open read-only");
  }
  sqlite3_stmt* of_item = Prepare(
      db, absl::StrCat("SELECT ", kColumns, " FROM events WHERE item_id = ?1 ORDER BY item_seq"));
  // The root, then its descendants: ids from "root/" up to "root0" ('0' is
  // the byte after '/'), a range of the (item_id, item_seq) index. No ORDER
  // BY: BuildItemTree groups by item and orders by item_seq itself, so
  // SQLite is spared a sort it does not need.
  sqlite3_stmt* of_tree = Prepare(
      db, absl::StrCat("SELECT ", kColumns, " FROM events WHERE item_id = ?1 OR "
                       "(item_id >= ?2 AND item_id < ?3)"));

  auto start = Clock::now();
  for (const std::string& id : items) {
    sqlite3_bind_text(of_item, 1, id.data(), static_cast<int>(id.size()), SQLITE_STATIC);
    std::vector<Event> events;
    while (sqlite3_step(of_item) == SQLITE_ROW) events.push_back(EventOfRow(of_item));
    sqlite3_reset(of_item);
    absl::StatusOr<std::optional<lake::events::FoldedItem>> folded =
        lake::events::FoldItem(id, events);
    Check(folded.status(), "sqlite-side fold " + id);
    digests->push_back(FoldDigest(*folded));
  }
  double fold_s = Seconds(start);

  start = Clock::now();
  for (const std::string& root : roots) {
    std::string low = root + "/", high = root + "0";
    sqlite3_bind_text(of_tree, 1, root.data(), static_cast<int>(root.size()), SQLITE_STATIC);
    sqlite3_bind_text(of_tree, 2, low.data(), static_cast<int>(low.size()), SQLITE_STATIC);
    sqlite3_bind_text(of_tree, 3, high.data(), static_cast<int>(high.size()), SQLITE_STATIC);
    lake::events::EventsByItem by_item;
    while (sqlite3_step(of_tree) == SQLITE_ROW) {
      Event e = EventOfRow(of_tree);
      std::string item_id = e.item_id;
      by_item[std::move(item_id)].push_back(std::move(e));
    }
    sqlite3_reset(of_tree);
    absl::StatusOr<lake::events::ItemTree> tree = lake::events::BuildItemTree(root, by_item);
    Check(tree.status(), "sqlite-side tree " + root);
    digests->push_back(TreeDigest(*tree));
  }
  double tree_s = Seconds(start);
  sqlite3_finalize(of_item);
  sqlite3_finalize(of_tree);
  sqlite3_close(db);
  return {items.size() / fold_s, roots.size() / tree_s};
}

uint64_t SqliteCount(const std::string& path) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    Die("sqlite open read-only");
  }
  sqlite3_stmt* count = Prepare(db, "SELECT count(*) FROM events");
  if (sqlite3_step(count) != SQLITE_ROW) Die("sqlite count");
  uint64_t n = static_cast<uint64_t>(sqlite3_column_int64(count, 0));
  sqlite3_finalize(count);
  sqlite3_close(db);
  return n;
}

size_t Arg(int argc, char** argv, int i, size_t fallback) {
  return argc > i ? std::strtoull(argv[i], nullptr, 10) : fallback;
}

// (a)-(c): every checkpoint of the plan, written by both sides.
void WritePhases(lake::io::FileSystem& fs, const std::string& dir, const std::string& shards_dir,
                 const std::string& sqlite_path, const Plan& plan) {
  size_t b_batches = 0;
  for (const auto& list : plan.sync_threads) b_batches += list.size();
  std::printf("a_batches=%zu\nb_batches=%zu\nb_threads=%zu\n", plan.sync_one.size(), b_batches,
              plan.sync_threads.size());
  CreateSqliteSchema(sqlite_path);
  absl::StatusOr<std::unique_ptr<EventLog>> log = EventLog::Open(fs, shards_dir, true);
  Check(log.status(), "open event log");

  // The fsync floor is probed before each of (a)'s rounds (SingleWriter), in
  // both ways to sync; the floor is the faster of the two over all rounds
  // (overwrites, in practice): a virtual disk's sync rate drifts by 10-50%
  // over seconds, so one probe before and one after may both miss (a).
  constexpr size_t kRounds = 8;
  constexpr int kProbeOps = 50;
  double append_s = 0, overwrite_s = 0;
  double slowest_round = 0, fastest_round = 0;  // the faster way, per round
  auto probe = [&] {
    double append = FsyncFloor(dir, 4096, kProbeOps, false);
    double overwrite = FsyncFloor(dir, 4096, kProbeOps, true);
    append_s += kProbeOps / append;
    overwrite_s += kProbeOps / overwrite;
    double faster = std::max(append, overwrite);
    slowest_round = slowest_round == 0 ? faster : std::min(slowest_round, faster);
    fastest_round = std::max(fastest_round, faster);
  };
  Rates a = SingleWriter(**log, sqlite_path, "FULL", plan.sync_one, 1,
                         lake::events::Durability::kDurable, kRounds, probe);
  const double append_floor = kRounds * kProbeOps / append_s;
  const double overwrite_floor = kRounds * kProbeOps / overwrite_s;
  double floor = std::max(append_floor, overwrite_floor);
  std::printf("fsync_floor_rounds=%zu\n", kRounds);
  std::printf("fsync_floor_append_per_s=%.0f\nfsync_floor_overwrite_per_s=%.0f\n", append_floor,
              overwrite_floor);
  std::printf("fsync_floor_round_range_per_s=%.0f-%.0f\n", slowest_round, fastest_round);
  std::printf("fsync_floor_per_s=%.0f\n", floor);
  std::printf("fsync_floor_events_per_s=%.0f\n", floor * kEventsPerCheckpoint);
  std::printf("a_events=%zu\n", plan.sync_one.size() * kEventsPerCheckpoint);
  std::printf("lake_a_events_per_s=%.0f\nsqlite_a_events_per_s=%.0f\n", a.lake, a.sqlite);
  std::printf("lake_a_cpu_us_per_event=%.1f\nsqlite_a_cpu_us_per_event=%.1f\n", a.lake_cpu_us,
              a.sqlite_cpu_us);

  lake::events::EventLogStats before_b = (*log)->Stats();
  Rates b = ConcurrentWriters(**log, sqlite_path, plan.sync_threads);
  lake::events::EventLogStats after_b = (*log)->Stats();
  std::printf("b_events=%zu\n", b_batches * kEventsPerCheckpoint);
  std::printf("lake_b_batches_per_sync=%.2f\n",
              static_cast<double>(after_b.batches_written - before_b.batches_written) /
                  static_cast<double>(std::max<uint64_t>(1, after_b.syncs - before_b.syncs)));
  std::printf("lake_b_events_per_s=%.0f\nsqlite_b_events_per_s=%.0f\n", b.lake, b.sqlite);

  const size_t c_events = plan.bulk.size() * kEventsPerCheckpoint;
  const size_t c_batches = (c_events + kBulkEvents - 1) / kBulkEvents;
  uint64_t bytes_before = DiskBytes(shards_dir);
  Rates c = SingleWriter(**log, sqlite_path, "NORMAL", plan.bulk,
                         kBulkEvents / kEventsPerCheckpoint, lake::events::Durability::kRelaxed);
  std::printf("c_events=%zu\nc_batches=%zu\n", c_events, c_batches);
  std::printf("lake_c_events_per_s=%.0f\nsqlite_c_events_per_s=%.0f\n", c.lake, c.sqlite);
  std::printf("lake_c_cpu_us_per_event=%.1f\nsqlite_c_cpu_us_per_event=%.1f\n", c.lake_cpu_us,
              c.sqlite_cpu_us);
  // Were every bulk batch durable on its own (one fdatasync each), this
  // would bound (c) whatever the per-event cost: the rate of appends of
  // lake's mean bulk frame, each synced, times the events of a mean batch.
  if (c_batches > 0) {
    size_t frame_bytes = (DiskBytes(shards_dir) - bytes_before) / c_batches;
    std::printf("c_frame_bytes=%zu\n", frame_bytes);
    std::printf("c_sync_floor_events_per_s=%.0f\n",
                FsyncFloor(dir, frame_bytes, 50, false) * static_cast<double>(c_events) / c_batches);
  }
}

// (d): folds and trees over everything (a)-(c) wrote, the lake side from a
// fresh read-only log.
void ReadPhase(lake::io::FileSystem& fs, const std::string& shards_dir,
               const std::string& sqlite_path, size_t items, size_t folds, size_t trees) {
  const size_t total_events = items * kStepsPerItem * kEventsPerCheckpoint;
  std::mt19937_64 rng(20240601);
  std::vector<std::string> fold_ids, tree_roots;
  for (size_t i = 0; i < folds; ++i) fold_ids.push_back(ItemIdOf(rng() % items));
  for (size_t i = 0; i < trees; ++i) {
    tree_roots.push_back(RootOf((rng() % (items / kItemsPerRoot)) * kItemsPerRoot));
  }
  std::vector<uint64_t> lake_digests, sqlite_digests;
  ReadRates d;
  {
    auto start = Clock::now();
    absl::StatusOr<std::unique_ptr<EventLog>> log = EventLog::Open(fs, shards_dir, false);
    double open_s = Seconds(start);
    Check(log.status(), "open event log read-only");
    lake::events::EventLogStats stats = (*log)->Stats();
    if (stats.events != total_events) {
      Die(absl::StrCat("the lake reader sees ", stats.events, " events, not ", total_events));
    }
    std::printf("lake_open_ms=%.1f\nlake_open_events=%zu\nlake_shards=%zu\n", open_s * 1000,
                stats.events, stats.shards);
    std::tie(d.lake_folds, d.lake_trees) = LakeReads(**log, fold_ids, tree_roots, &lake_digests);
  }
  if (uint64_t n = SqliteCount(sqlite_path); n != total_events) {
    Die(absl::StrCat("sqlite holds ", n, " events, not ", total_events));
  }
  std::tie(d.sqlite_folds, d.sqlite_trees) =
      SqliteReads(sqlite_path, fold_ids, tree_roots, &sqlite_digests);
  if (lake_digests != sqlite_digests) Die("lake and SQLite folded different items");
  std::printf("d_folds=%zu\nd_trees=%zu\n", folds, trees);
  std::printf("lake_folds_per_s=%.0f\nsqlite_folds_per_s=%.0f\n", d.lake_folds, d.sqlite_folds);
  std::printf("lake_trees_per_s=%.0f\nsqlite_trees_per_s=%.0f\n", d.lake_trees, d.sqlite_trees);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) Die("usage: event_bench DIR [ITEMS] [SYNC_BATCHES] [THREADS] [FOLDS] [TREES]");
  const std::string dir = argv[1];
  const size_t items = Arg(argc, argv, 2, 10000);
  const size_t sync_batches = Arg(argc, argv, 3, 2000);
  const size_t threads = Arg(argc, argv, 4, 4);
  const size_t folds = Arg(argc, argv, 5, 1000);
  const size_t trees = Arg(argc, argv, 6, 100);
  if (items < kItemsPerRoot || items % kItemsPerRoot != 0) {
    Die("ITEMS must be a positive multiple of 10");
  }
  if (threads == 0) Die("THREADS must be at least 1");

  const std::string shards_dir = dir + "/lake-events";
  const std::string sqlite_path = dir + "/sqlite-events.db";
  absl::StatusOr<lake::io::FileSystem*> fs = lake::io::DefaultFileSystem();
  Check(fs.status(), "file system");

  Plan plan = MakePlan(items, sync_batches, threads);
  std::printf("items=%zu\nroots=%zu\nevents_per_item=%zu\n", items, items / kItemsPerRoot,
              kStepsPerItem * kEventsPerCheckpoint);
  std::printf("sync_batch_cap=%zu\nsync_capped=%d\n", sync_batches, plan.capped ? 1 : 0);
  WritePhases(**fs, dir, shards_dir, sqlite_path, plan);
  ReadPhase(**fs, shards_dir, sqlite_path, items, folds, trees);
  std::printf("lake_bytes=%llu\nsqlite_bytes=%llu\n",
              static_cast<unsigned long long>(DiskBytes(shards_dir)),
              static_cast<unsigned long long>(std::filesystem::file_size(sqlite_path)));
  return 0;
}
