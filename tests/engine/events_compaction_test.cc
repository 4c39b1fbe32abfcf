// Compaction of an experiment's event log: shards merged into one without
// changing any fold, tree or lens result; live writers' shards skipped;
// conflicts refused; a crash (SIGKILL or power loss) at any step harmless.
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <set>

#include "base/failpoint.h"
#include "engine/data_location.h"
#include "engine/events/blob_references.h"
#include "engine/events/event_log.h"
#include "engine/events/event_log_compaction.h"
#include "engine/sha256.h"
#include "engine/table/reference_delta_format.h"
#include "io/posix/posix_file_system.h"
#include "tests/support/fault_injection_file_system.h"
#include "tests/support/status_checks.h"
#include "tests/support/test_files.h"

namespace lake::events {
namespace {

// ---- events -------------------------------------------------------------

Event Stamp(Event e, std::string item_id, uint64_t seq, uint32_t attempt, std::string epoch) {
  e.item_id = std::move(item_id);
  e.item_seq = seq;
  e.attempt = attempt;
  e.writer_epoch = std::move(epoch);
  e.checkpoint_id = "ckpt";
  e.run_id = "run-1";
  e.event_ts = 1'700'000'000'000'000 + static_cast<int64_t>(seq) * 10 + attempt;
  REQUIRE(FillDerivedIds(e).ok());
  return e;
}

Event Created(std::string item_id, std::string epoch = "writer-a") {
  Event e;
  e.event_type = EventType::kItemCreated;
  return Stamp(std::move(e), std::move(item_id), 1, 0, std::move(epoch));
}

// The ITEM_CREATED of a fan-out child `parent/step:index`.
Event Child(const std::string& parent, const std::string& step, uint32_t index,
            std::string epoch = "writer-a") {
  Event e;
  e.event_type = EventType::kItemCreated;
  e.step_name = step;
  e.step_index = index;
  e.step_kind = StepKind::kMapReduce;
  e.enclosing_step = "pipeline";
  return Stamp(std::move(e), parent + "/" + step + ":" + std::to_string(index), 1, 0,
               std::move(epoch));
}

Event SetInt(std::string item_id, uint64_t seq, std::string field, int64_t value,
             uint32_t attempt = 0, std::string epoch = "writer-a") {
  Event e;
  e.event_type = EventType::kFieldSet;
  e.step_name = "score";
  e.step_kind = StepKind::kLeaf;
  e.field_name = std::move(field);
  e.value_kind = ValueKind::kInt;
  e.value_i64 = value;
  return Stamp(std::move(e), std::move(item_id), seq, attempt, std::move(epoch));
}

DataLocation Location(const std::string& name) {
  absl::StatusOr<DataLocation> location = MakeDataLocation(
      "file:///srv/lake/blobs/" + name, "image/png", 1000 + name.size(), Sha256Hex(name));
  REQUIRE_MESSAGE(location.ok(), location.status().ToString());
  return *location;
}

Event SetBlob(std::string item_id, uint64_t seq, std::string field, const DataLocation& where,
              uint32_t attempt = 0, std::string epoch = "writer-a") {
  Event e;
  e.event_type = EventType::kFieldSet;
  e.step_name = "render";
  e.step_kind = StepKind::kLeaf;
  e.field_name = std::move(field);
  e.value_kind = ValueKind::kBlob;
  e.blob_location = where;
  e.payload_size = where.size_bytes;
  e.payload_checksum = where.sha256;
  return Stamp(std::move(e), std::move(item_id), seq, attempt, std::move(epoch));
}

Event StepStarted(std::string item_id, uint64_t seq, uint32_t attempt = 0,
                  std::string epoch = "writer-a") {
  Event e;
  e.event_type = EventType::kStepStarted;
  e.step_name = "gen";
  e.step_index = 0;
  e.step_kind = StepKind::kMapReduce;
  return Stamp(std::move(e), std::move(item_id), seq, attempt, std::move(epoch));
}

Event StepDone(std::string item_id, uint64_t seq, uint32_t attempt = 0,
               std::string epoch = "writer-a") {
  Event e;
  e.event_type = EventType::kStepCompleted;
  e.step_name = "score";
  e.step_kind = StepKind::kLeaf;
  return Stamp(std::move(e), std::move(item_id), seq, attempt, std::move(epoch));
}

Event Failed(std::string item_id, uint64_t seq, uint32_t attempt = 0,
             std::string epoch = "writer-a") {
  Event e;
  e.event_type = EventType::kFailed;
  e.step_name = "score";
  e.step_kind = StepKind::kLeaf;
  e.status = ItemStatus::kFailed;
  e.error_type = "TimeoutError";
  e.error_dump = "{\"after_s\": 30}";
  e.traceback = "Traceback (most recent call last):\n";
  return Stamp(std::move(e), std::move(item_id), seq, attempt, std::move(epoch));
}

Event Terminal(std::string item_id, uint64_t seq, ItemStatus status, uint32_t attempt = 0,
               std::string epoch = "writer-a") {
  Event e;
  e.event_type = EventType::kTerminal;
  e.status = status;
  return Stamp(std::move(e), std::move(item_id), seq, attempt, std::move(epoch));
}

// The same batch again, as a retry from another process stamps it.
std::vector<Event> Retried(std::vector<Event> batch) {
  for (Event& e : batch) e.event_ts += 999;
  return batch;
}

// ---- the log --------------------------------------------------------------

std::unique_ptr<EventLog> OpenLog(io::FileSystem& fs, const std::string& dir, bool writable) {
  absl::StatusOr<std::unique_ptr<EventLog>> log = EventLog::Open(fs, dir, writable);
  REQUIRE_MESSAGE(log.ok(), log.status().ToString());
  return std::move(*log);
}

void Append(EventLog& log, std::vector<Event> batch) {
  LAKE_REQUIRE_OK(log.Append(std::move(batch)));
}

// Three writer sessions at once (three shards): fan-out children, an item
// failed in one shard and resumed in another, batches duplicated across
// shards (retries with fresh timestamps), a failed item, an open frame,
// blobs recorded by every shard's journal.
void BuildLog(io::FileSystem& fs, const std::string& dir) {
  std::unique_ptr<EventLog> a = OpenLog(fs, dir, true);
  std::unique_ptr<EventLog> b = OpenLog(fs, dir, true);
  std::unique_ptr<EventLog> c = OpenLog(fs, dir, true);
  std::vector<Event> gen0 = {Child("root", "gen", 0), SetInt("root/gen:0", 2, "score", 5),
                             StepDone("root/gen:0", 3)};
  std::vector<Event> q = {Created("q"), Terminal("q", 2, ItemStatus::kFiltered)};
  Append(*a,
         {Created("root"), StepStarted("root", 2), SetBlob("root", 3, "cover", Location("cover"))});
  Append(*a, gen0);
  Append(*a, {Child("root", "gen", 1), Child("root/gen:1", "judge", 0),
              SetBlob("root/gen:1/judge:0", 2, "image", Location("judge"))});
  Append(*a, {StepDone("root/gen:1/judge:0", 3),
              Terminal("root/gen:1/judge:0", 4, ItemStatus::kCompleted)});
  Append(*a, {Created("p"), SetInt("p", 2, "x", 1), Failed("p", 3)});
  Append(*a, q);
  // b and c have not read a's batches: their retries are written again.
  Append(*b, Retried(gen0));
  Append(*c, Retried(q));
  Append(*c, {Created("f", "writer-c"), SetBlob("f", 2, "trace", Location("trace"), 0, "writer-c"),
              Failed("f", 3, 0, "writer-c")});
  LAKE_REQUIRE_OK(b->Refresh());
  // p resumed by b in attempt 1, and a blob b records again.
  Append(*b, {SetInt("p", 4, "x", 2, 1, "writer-b"), StepDone("p", 5, 1, "writer-b"),
              Terminal("p", 6, ItemStatus::kCompleted, 1, "writer-b")});
  Append(*b, {SetBlob("root/gen:0", 4, "image", Location("judge"))});
  REQUIRE(b->Stats().shards == 3);
}

// ---- results ------------------------------------------------------------

// Everything a reader of the log can derive, to compare before and after.
struct LogResults {
  EventLogStats stats;
  std::map<std::string, absl::StatusOr<std::optional<FoldedItem>>> folds;
  std::map<std::string, absl::StatusOr<ItemTree>> trees;
  std::optional<RootStatuses> roots;
  std::vector<FailureRecord> failures;
  std::map<std::string, std::vector<Event>> events_of_root;
  std::vector<DataLocation> references;  // canonical
};

LogResults ReadResults(io::FileSystem& fs, const std::string& dir) {
  std::unique_ptr<EventLog> log = OpenLog(fs, dir, false);
  LogResults r;
  r.stats = log->Stats();
  absl::StatusOr<RootStatuses> roots = log->Roots();
  LAKE_REQUIRE_OK(roots);
  r.roots = *roots;
  for (const auto& [root, status] : roots->status_by_root) {
    r.trees.emplace(root, log->Tree(root));
    r.events_of_root[root] = log->EventsOfRoot(root);
    for (const Event& e : r.events_of_root[root]) {
      if (!r.folds.contains(e.item_id)) r.folds.emplace(e.item_id, log->Fold(e.item_id));
    }
  }
  REQUIRE(r.folds.size() == r.stats.items);  // every item is under a root
  r.failures = log->AllFailures();
  LAKE_REQUIRE_OK(
      EnumerateEventLogReferences(fs, dir, [&](uint64_t, const std::vector<DataLocation>& chunk) {
        r.references.insert(r.references.end(), chunk.begin(), chunk.end());
        return absl::OkStatus();
      }));
  table::CanonicalizeReferences(&r.references);
  return r;
}

bool SameFields(const std::map<std::string, FoldedField>& a,
                const std::map<std::string, FoldedField>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const auto& x, const auto& y) {
    return x.first == y.first && x.second.mode == y.second.mode &&
           x.second.values == y.second.values;
  });
}

bool SameFold(const FoldedItem& a, const FoldedItem& b) {
  return a.item_id == b.item_id && a.root_item_id == b.root_item_id &&
         a.parent_item_id == b.parent_item_id && a.status == b.status &&
         SameFields(a.fields, b.fields) && a.completed_steps == b.completed_steps &&
         a.open_frames == b.open_frames && a.last_attempt == b.last_attempt &&
         a.next_item_seq == b.next_item_seq && a.writer_epoch == b.writer_epoch &&
         a.query_tags_json == b.query_tags_json && a.failure == b.failure &&
         a.created_by == b.created_by;
}

bool SameFold(const absl::StatusOr<std::optional<FoldedItem>>& a,
              const absl::StatusOr<std::optional<FoldedItem>>& b) {
  if (!a.ok() || !b.ok()) return a.status() == b.status();
  if (!a->has_value() || !b->has_value()) return a->has_value() == b->has_value();
  return SameFold(**a, **b);
}

bool SameNode(const ItemTreeNode& a, const ItemTreeNode& b);

bool SameNodes(const std::vector<ItemTreeNode>& a, const std::vector<ItemTreeNode>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [](const ItemTreeNode& x, const ItemTreeNode& y) { return SameNode(x, y); });
}

bool SameNode(const ItemTreeNode& a, const ItemTreeNode& b) {
  return SameFold(a.item, b.item) && a.created_by_step == b.created_by_step &&
         a.selector_step == b.selector_step && SameNodes(a.children, b.children);
}

bool SameTree(const absl::StatusOr<ItemTree>& a, const absl::StatusOr<ItemTree>& b) {
  if (!a.ok() || !b.ok()) return a.status() == b.status();
  if (a->root.has_value() != b->root.has_value()) return false;
  return (!a->root || SameNode(*a->root, *b->root)) && SameNodes(a->orphans, b->orphans);
}

void CheckSameResults(const LogResults& before, const LogResults& after) {
  CHECK(before.stats.items == after.stats.items);
  CHECK(before.stats.events == after.stats.events);
  REQUIRE(before.folds.size() == after.folds.size());
  for (const auto& [item, fold] : before.folds) {
    CAPTURE(item);
    REQUIRE(after.folds.contains(item));
    CHECK(SameFold(fold, after.folds.at(item)));
  }
  REQUIRE(before.trees.size() == after.trees.size());
  for (const auto& [root, tree] : before.trees) {
    CAPTURE(root);
    REQUIRE(after.trees.contains(root));
    CHECK(SameTree(tree, after.trees.at(root)));
  }
  REQUIRE(before.roots.has_value());
  REQUIRE(after.roots.has_value());
  CHECK(before.roots->status_by_root == after.roots->status_by_root);
  CHECK(before.roots->running == after.roots->running);
  CHECK(before.roots->completed == after.roots->completed);
  CHECK(before.roots->filtered == after.roots->filtered);
  CHECK(before.roots->failed == after.roots->failed);
  CHECK(before.failures == after.failures);
  CHECK(before.events_of_root == after.events_of_root);
  CHECK(before.references == after.references);
}

// The names in `dir` that are not shards (hidden leftovers), without the
// compaction lock's directory.
std::vector<std::string> HiddenLeftovers(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::string name = entry.path().filename().string();
    if (name[0] == '.' && name != ".compaction") out.push_back(name);
  }
  return out;
}

// Every file of the log but the compaction lock, with its bytes.
std::map<std::string, std::vector<uint8_t>> FilesOfLog(const std::string& dir) {
  std::map<std::string, std::vector<uint8_t>> out;
  for (const std::string& file : testing::FilesUnder(dir)) {
    if (file.rfind(".compaction/", 0) == 0) continue;
    out[file] = testing::ReadFile(dir + "/" + file);
  }
  return out;
}

CompactionResult Compact(io::FileSystem& fs, const std::string& dir) {
  absl::StatusOr<CompactionResult> result = CompactEventLog(fs, dir);
  REQUIRE_MESSAGE(result.ok(), result.status().ToString());
  return *result;
}

// ---- tests --------------------------------------------------------------

TEST_CASE("compaction preserves every fold, tree and lens result and leaves one shard") {
  testing::TempDir dir;
  io::PosixFileSystem fs;
  BuildLog(fs, dir.path());
  LogResults before = ReadResults(fs, dir.path());
  // The log is what the test means it to be.
  REQUIRE(before.stats.shards == 3);
  REQUIRE(before.folds.size() == 7);
  REQUIRE(before.trees.at("root")->root.has_value());
  CHECK(before.trees.at("root")->root->children.size() == 2);
  CHECK(before.trees.at("root")->root->children[1].children.size() == 1);
  CHECK((*before.folds.at("p"))->status == ItemStatus::kCompleted);
  CHECK((*before.folds.at("p"))->last_attempt == 1);
  CHECK((*before.folds.at("root"))->open_frames.size() == 1);
  CHECK(before.failures.size() == 2);
  CHECK(before.references.size() == 3);

  CompactionResult result = Compact(fs, dir.path());
  CHECK(result.compacted);
  CHECK(result.compacted_shards.size() == 3);
  CHECK(result.skipped_shards.empty());
  CHECK(result.events_read == before.stats.events + 5);  // the two retried batches
  CHECK(result.events_written == before.stats.events);
  CHECK(result.blob_locations == 3);

  LogResults after = ReadResults(fs, dir.path());
  CheckSameResults(before, after);
  CHECK(after.stats.shards == 1);
  absl::StatusOr<std::vector<std::string>> shards = ListShards(fs, dir.path());
  LAKE_REQUIRE_OK(shards);
  CHECK(*shards == std::vector<std::string>{result.shard_id});
  CHECK(HiddenLeftovers(dir.path()).empty());
}

TEST_CASE("a writer appends to the compacted log as to any other") {
  testing::TempDir dir;
  io::PosixFileSystem fs;
  BuildLog(fs, dir.path());
  Compact(fs, dir.path());
  std::unique_ptr<EventLog> writer = OpenLog(fs, dir.path(), true);
  // A stale retry is absorbed; a fencing violation is still refused.
  absl::StatusOr<AppendResult> retry = writer->Append(Retried({Created("q")}));
  LAKE_REQUIRE_OK(retry);
  CHECK(retry->duplicates == 1);
  CHECK(absl::IsAborted(writer->Append({SetInt("p", 2, "x", 99)}).status()));
  Append(*writer, {SetInt("root", 4, "n", 3)});
  std::unique_ptr<EventLog> reader = OpenLog(fs, dir.path(), false);
  absl::StatusOr<std::optional<FoldedItem>> root = reader->Fold("root");
  LAKE_REQUIRE_OK(root);
  CHECK((*root)->fields.at("n").values.back().value_i64 == 3);
  CHECK(reader->Stats().shards == 1);  // the writer took the compacted shard
}

TEST_CASE(
    "a shard held by a live writer is skipped and stays readable; a second compaction is a no-op") {
  testing::TempDir dir;
  io::PosixFileSystem fs;
  std::unique_ptr<EventLog> live;
  {
    std::unique_ptr<EventLog> a = OpenLog(fs, dir.path(), true);
    std::unique_ptr<EventLog> b = OpenLog(fs, dir.path(), true);
    live = OpenLog(fs, dir.path(), true);
    Append(*a, {Created("a"), SetInt("a", 2, "x", 1)});
    Append(*b, {Created("b"), SetInt("b", 2, "x", 2)});
    Append(*live, {Created("w"), SetInt("w", 2, "x", 3)});
  }
  LogResults before = ReadResults(fs, dir.path());
  CompactionResult first = Compact(fs, dir.path());
  CHECK(first.compacted);
  CHECK(first.compacted_shards.size() == 2);
  CHECK(first.skipped_shards == std::vector<std::string>{live->shard_id()});
  LogResults after = ReadResults(fs, dir.path());
  CheckSameResults(before, after);
  CHECK(after.stats.shards == 2);

  // The live writer goes on in its shard, and readers see it.
  Append(*live, {SetInt("w", 3, "x", 4)});
  std::unique_ptr<EventLog> reader = OpenLog(fs, dir.path(), false);
  absl::StatusOr<std::optional<FoldedItem>> w = reader->Fold("w");
  LAKE_REQUIRE_OK(w);
  CHECK((*w)->fields.at("x").values.back().value_i64 == 4);

  std::map<std::string, std::vector<uint8_t>> files = FilesOfLog(dir.path());
  CompactionResult second = Compact(fs, dir.path());
  CHECK_FALSE(second.compacted);
  CHECK(second.compacted_shards.empty());
  CHECK(second.skipped_shards == std::vector<std::string>{live->shard_id()});
  CHECK(FilesOfLog(dir.path()) == files);
}

TEST_CASE("a split brain across two shards refuses compaction and changes nothing") {
  testing::TempDir dir;
  io::PosixFileSystem fs;
  {
    std::unique_ptr<EventLog> a = OpenLog(fs, dir.path(), true);
    std::unique_ptr<EventLog> b = OpenLog(fs, dir.path(), true);
    Append(*a, {Created("ok"), Created("x"), SetInt("x", 2, "score", 1)});
    // b has not seen a's batch: its attempt 0 of x is a second owner.
    Append(*b, {SetInt("x", 3, "score", 2, 0, "writer-b")});
  }
  std::map<std::string, std::vector<uint8_t>> files = FilesOfLog(dir.path());
  absl::StatusOr<CompactionResult> result = CompactEventLog(fs, dir.path());
  REQUIRE_FALSE(result.ok());
  CHECK(absl::IsAborted(result.status()));
  std::string message(result.status().message());
  CHECK(message.find("split brain") != std::string::npos);
  CHECK(message.find("\"x\"") != std::string::npos);
  CHECK(FilesOfLog(dir.path()) == files);
  CHECK(HiddenLeftovers(dir.path()).empty());
}

TEST_CASE("a fencing violation across two shards refuses compaction and changes nothing") {
  testing::TempDir dir;
  io::PosixFileSystem fs;
  {
    std::unique_ptr<EventLog> a = OpenLog(fs, dir.path(), true);
    std::unique_ptr<EventLog> b = OpenLog(fs, dir.path(), true);
    Append(*a, {Created("x"), SetInt("x", 2, "score", 1)});
    Append(*b, {SetInt("x", 2, "score", 99)});
  }
  std::map<std::string, std::vector<uint8_t>> files = FilesOfLog(dir.path());
  absl::StatusOr<CompactionResult> result = CompactEventLog(fs, dir.path());
  REQUIRE_FALSE(result.ok());
  CHECK(absl::IsAborted(result.status()));
  std::string message(result.status().message());
  CHECK(message.find("fencing violation") != std::string::npos);
  CHECK(message.find("\"x\"") != std::string::npos);
  CHECK(FilesOfLog(dir.path()) == files);
}

TEST_CASE("a second compaction while one runs is refused as unavailable") {
  testing::TempDir dir;
  io::PosixFileSystem fs;
  BuildLog(fs, dir.path());
  LogResults before = ReadResults(fs, dir.path());
  failpoint::Set(kCompactionFailpoints[2], failpoint::Action::kCallback, [&] {
    absl::StatusOr<CompactionResult> nested = CompactEventLog(fs, dir.path());
    CHECK(absl::IsUnavailable(nested.status()));
    return absl::OkStatus();
  });
  CompactionResult result = Compact(fs, dir.path());
  failpoint::ClearAll();
  CHECK(result.compacted);
  CheckSameResults(before, ReadResults(fs, dir.path()));
}

// After a crash: the results are the ones before, and a new compaction
// cleans up and completes.
void CheckRecovers(io::FileSystem& fs, const std::string& dir, const LogResults& before) {
  LogResults crashed = ReadResults(fs, dir);
  CheckSameResults(before, crashed);
  CompactionResult result = Compact(fs, dir);
  // Nothing is left to merge once every old shard was retired.
  CHECK(result.compacted == (crashed.stats.shards > 1));
  LogResults after = ReadResults(fs, dir);
  CheckSameResults(before, after);
  CHECK(after.stats.shards == 1);
  CHECK(HiddenLeftovers(dir).empty());
}

TEST_CASE("a compaction SIGKILLed at any step leaves every result as it was") {
  REQUIRE(failpoint::Enabled());
  for (std::string_view step : kCompactionFailpoints) {
    CAPTURE(std::string(step));
    testing::TempDir dir;
    io::PosixFileSystem fs;
    BuildLog(fs, dir.path());
    LogResults before = ReadResults(fs, dir.path());
    pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      failpoint::Set(step, failpoint::Action::kKill);
      (void)CompactEventLog(fs, dir.path());
      ::_exit(13);
    }
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    REQUIRE(WIFSIGNALED(status));
    CHECK(WTERMSIG(status) == SIGKILL);
    CheckRecovers(fs, dir.path(), before);
  }
}

TEST_CASE("a power loss at any step of a compaction leaves every result as it was") {
  REQUIRE(failpoint::Enabled());
  for (std::string_view step : kCompactionFailpoints) {
    CAPTURE(std::string(step));
    testing::TempDir dir;
    std::filesystem::create_directory(dir.Join("backups"));
    std::string shards = dir.Join("shards");
    io::PosixFileSystem base;
    BuildLog(base, shards);
    LogResults before = ReadResults(base, shards);
    {
      testing::FaultInjectionFileSystem fs(base, dir.Join("backups"));
      failpoint::Set(step, failpoint::Action::kCallback, [&] {
        fs.Crash();
        return absl::UnavailableError("power lost");
      });
      CHECK_FALSE(CompactEventLog(fs, shards).ok());
      failpoint::ClearAll();
    }
    CheckRecovers(base, shards, before);
  }
}

TEST_CASE("a power loss while the new shard is written leaves every result as it was") {
  REQUIRE(failpoint::Enabled());
  for (std::string_view step : {kShardAppendWritten, kShardAppendSynced}) {
    CAPTURE(std::string(step));
    testing::TempDir dir;
    std::filesystem::create_directory(dir.Join("backups"));
    std::string shards = dir.Join("shards");
    io::PosixFileSystem base;
    BuildLog(base, shards);
    LogResults before = ReadResults(base, shards);
    {
      testing::FaultInjectionFileSystem fs(base, dir.Join("backups"));
      failpoint::Set(step, failpoint::Action::kCallback, [&] {
        fs.Crash();
        return absl::UnavailableError("power lost");
      });
      CHECK_FALSE(CompactEventLog(fs, shards).ok());
      failpoint::ClearAll();
    }
    CheckRecovers(base, shards, before);
  }
}

}  // namespace
}  // namespace lake::events
