// The event log of an experiment: durable checkpoint batches, admission
// (duplicates absorbed; fencing, stale attempts and split brain refused),
// several writers, crashes mid-batch, and damage.
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <thread>

#include "base/failpoint.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "engine/events/event_content.h"
#include "engine/events/event_log.h"
#include "engine/events/event_log_compaction.h"
#include "io/posix/posix_file_system.h"
#include "tests/support/fault_injection_file_system.h"
#include "tests/support/status_checks.h"
#include "tests/support/test_files.h"

namespace lake::events {
namespace {

Event Stamp(Event e, std::string item_id, uint64_t seq, uint32_t attempt = 0,
            std::string epoch = "writer-a") {
  e.item_id = std::move(item_id);
  e.item_seq = seq;
  e.attempt = attempt;
  e.writer_epoch = std::move(epoch);
  e.checkpoint_id = "ckpt";
  e.event_ts = 1'700'000'000'000'000 + static_cast<int64_t>(seq);
  REQUIRE(FillDerivedIds(e).ok());
  return e;
}

Event Created(std::string item_id, uint64_t seq = 1, uint32_t attempt = 0,
              std::string epoch = "writer-a") {
  Event e;
  e.event_type = EventType::kItemCreated;
  return Stamp(std::move(e), std::move(item_id), seq, attempt, std::move(epoch));
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

Event StepDone(std::string item_id, uint64_t seq, uint32_t attempt = 0,
               std::string epoch = "writer-a") {
  Event e;
  e.event_type = EventType::kStepCompleted;
  e.step_name = "score";
  e.step_kind = StepKind::kLeaf;
  return Stamp(std::move(e), std::move(item_id), seq, attempt, std::move(epoch));
}

int64_t IntField(EventLog& log, const std::string& item, const std::string& field) {
  absl::StatusOr<std::optional<FoldedItem>> folded = log.Fold(item);
  REQUIRE_MESSAGE(folded.ok(), folded.status().ToString());
  REQUIRE(folded->has_value());
  auto it = (*folded)->fields.find(field);
  REQUIRE(it != (*folded)->fields.end());
  REQUIRE(!it->second.values.empty());
  return it->second.values.back().value_i64;
}

std::unique_ptr<EventLog> OpenLog(io::FileSystem& fs, const std::string& dir, bool writable) {
  absl::StatusOr<std::unique_ptr<EventLog>> log = EventLog::Open(fs, dir, writable);
  REQUIRE_MESSAGE(log.ok(), log.status().ToString());
  return std::move(*log);
}

TEST_CASE("event log: an acknowledged checkpoint batch is read back whole by a new reader") {
  testing::TempDir dir;
  io::PosixFileSystem fs;
  {
    std::unique_ptr<EventLog> log = OpenLog(fs, dir.path(), true);
    absl::StatusOr<AppendResult> r =
        log->Append({Created("a"), SetInt("a", 2, "score", 7), StepDone("a", 3)});
    LAKE_REQUIRE_OK(r);
    CHECK(r->appended == 3);
    CHECK(IntField(*log, "a", "score") == 7);  // the writer sees its own batch
  }
  std::unique_ptr<EventLog> reader = OpenLog(fs, dir.path(), false);
  CHECK(IntField(*reader, "a", "score") == 7);
  CHECK(reader->Stats().events == 3);
  CHECK(absl::IsFailedPrecondition(reader->Append({Created("b")}).status()));
}

TEST_CASE("event log: relaxed batches are visible at once, to other readers too, and synced once") {
  testing::TempDir dir;
  io::PosixFileSystem fs;
  std::unique_ptr<EventLog> log = OpenLog(fs, dir.path(), true);
  std::unique_ptr<EventLog> reader = OpenLog(fs, dir.path(), false);
  for (int i = 0; i < 5; ++i) {
    std::string item = "bulk-" + std::to_string(i);
    absl::StatusOr<AppendResult> r =
        log->Append({Created(item), SetInt(item, 2, "score", i), StepDone(item, 3)},
                    Durability::kRelaxed);
    LAKE_REQUIRE_OK(r);
    CHECK(r->appended == 3);
    CHECK(IntField(*log, item, "score") == i);
  }
  EventLogStats stats = log->Stats();
  CHECK(stats.batches_written == 5);
  CHECK(stats.syncs == 0);
  // Another process's reader sees them before any sync.
  LAKE_REQUIRE_OK(reader->Refresh());
  CHECK(reader->Stats().events == 15);
  LAKE_REQUIRE_OK(log->Sync());
  CHECK(log->Stats().syncs == 1);
  // A retried relaxed batch is absorbed like a durable one.
  absl::StatusOr<AppendResult> again =
      log->Append({Created("bulk-0"), SetInt("bulk-0", 2, "score", 0), StepDone("bulk-0", 3)},
                  Durability::kRelaxed);
  LAKE_REQUIRE_OK(again);
  CHECK(again->duplicates == 3);
  CHECK(absl::IsFailedPrecondition(reader->Sync()));
}

TEST_CASE("event log: a retried batch is absorbed, not written twice") {
  testing::TempDir dir;
  io::PosixFileSystem fs;
  std::unique_ptr<EventLog> log = OpenLog(fs, dir.path(), true);
  std::vector<Event> batch = {Created("a"), SetInt("a", 2, "score", 1)};
  LAKE_REQUIRE_OK(log->Append(batch));
  for (Event& e : batch) e.event_ts += 999;  // a retry stamps a new time
  absl::StatusOr<AppendResult> again = log->Append(batch);
  LAKE_REQUIRE_OK(again);
  CHECK(again->appended == 0);
  CHECK(again->duplicates == 2);
  std::unique_ptr<EventLog> reader = OpenLog(fs, dir.path(), false);
  CHECK(reader->Stats().events == 2);
}

TEST_CASE("event log: a different event at an existing item_seq is a fencing violation") {
  testing::TempDir dir;
  io::PosixFileSystem fs;
  std::unique_ptr<EventLog> log = OpenLog(fs, dir.path(), true);
  LAKE_REQUIRE_OK(log->Append({Created("a"), SetInt("a", 2, "score", 1)}));
  absl::StatusOr<AppendResult> fenced = log->Append({SetInt("a", 2, "score", 99)});
  REQUIRE_FALSE(fenced.ok());
  CHECK(absl::IsAborted(fenced.status()));
  CHECK(std::string(fenced.status().message()).find("fencing violation") != std::string::npos);
  // A lower item_seq that was never written is out of order: fenced too.
  LAKE_REQUIRE_OK(log->Append({SetInt("a", 5, "score", 5)}));
  CHECK(absl::IsAborted(log->Append({SetInt("a", 4, "score", 4)}).status()));
  // Nothing of a refused batch is written, not even its valid events.
  CHECK(absl::IsAborted(log->Append({Created("b"), SetInt("a", 2, "score", 3)}).status()));
  std::unique_ptr<EventLog> reader = OpenLog(fs, dir.path(), false);
  CHECK(IntField(*reader, "a", "score") == 5);
  absl::StatusOr<std::optional<FoldedItem>> b = reader->Fold("b");
  LAKE_REQUIRE_OK(b);
  CHECK_FALSE(b->has_value());
}

TEST_CASE("event log: a stale attempt and a split brain are refused") {
  testing::TempDir dir;
  io::PosixFileSystem fs;
  std::unique_ptr<EventLog> log = OpenLog(fs, dir.path(), true);
  LAKE_REQUIRE_OK(log->Append({Created("a"), SetInt("a", 2, "score", 1)}));
  LAKE_REQUIRE_OK(log->Append({SetInt("a", 3, "score", 2, 1, "writer-b")}));  // resumed
  absl::StatusOr<AppendResult> stale = log->Append({SetInt("a", 4, "score", 3, 0, "writer-a")});
  CHECK(absl::IsAborted(stale.status()));
  CHECK(std::string(stale.status().message()).find("stale attempt") != std::string::npos);
  absl::StatusOr<AppendResult> brain = log->Append({SetInt("a", 4, "score", 3, 1, "writer-c")});
  CHECK(absl::IsAborted(brain.status()));
  CHECK(std::string(brain.status().message()).find("split brain") != std::string::npos);
  LAKE_REQUIRE_OK(log->Append({SetInt("a", 4, "score", 4, 1, "writer-b")}));
  CHECK(IntField(*log, "a", "score") == 4);
}

// Admission as a plain scan, the rules in the order of EVENT-LOG.md: every
// known event of the item in item_seq order, then the batch's earlier events
// of the item. True for a duplicate, false for a new event, or the refusal.
// The log finds the same verdict by search; this is what it must agree with.
absl::StatusOr<bool> ScanAdmission(const Event& e, const std::vector<Event>& known,
                                   const std::vector<Event>& earlier) {
  auto refused = [&](const std::string& what, const std::string& why) {
    return absl::AbortedError(absl::StrCat(what, ": item \"", e.item_id, "\" item_seq ",
                                           e.item_seq, ": ", why));
  };
  uint64_t last_seq = 0;
  uint32_t last_attempt = 0;
  std::vector<const Event*> all;
  for (const Event& k : known) all.push_back(&k);
  for (const Event& k : earlier) all.push_back(&k);
  for (const Event* k : all) {
    if (k->item_seq == e.item_seq) {
      if (SameEventContent(*k, e)) return true;
      return refused("fencing violation", "the log holds a different event at this item_seq");
    }
    last_seq = std::max(last_seq, k->item_seq);
    last_attempt = std::max(last_attempt, k->attempt);
    if (k->attempt == e.attempt && !k->writer_epoch.empty() && !e.writer_epoch.empty() &&
        k->writer_epoch != e.writer_epoch) {
      return refused("split brain", absl::StrCat("attempt ", e.attempt,
                                                 " is owned by writer_epoch \"", k->writer_epoch,
                                                 "\", not \"", e.writer_epoch, "\""));
    }
  }
  if (e.attempt < last_attempt) {
    return refused("stale attempt", absl::StrCat("attempt ", e.attempt,
                                                 " is below the item's attempt ", last_attempt));
  }
  if (e.item_seq < last_seq) {
    return refused("fencing violation",
                   absl::StrCat("item_seq is not above the item's last, ", last_seq));
  }
  return false;
}

TEST_CASE("event log: admission by search agrees with a scan of every event, before and after reopening") {
  testing::TempDir dir;
  io::PosixFileSystem fs;
  std::mt19937 random(20261201);
  auto pick = [&](uint32_t n) { return static_cast<uint32_t>(random() % n); };
  // What the log holds, per item in item_seq order.
  std::map<std::string, std::vector<Event>> known;
  size_t refusals = 0, duplicates = 0, appended = 0;
  for (int session = 0; session < 2; ++session) {
    // The second session reads everything back: its admission state is
    // rebuilt from the shard, not kept from the appends.
    std::unique_ptr<EventLog> log = OpenLog(fs, dir.path(), true);
    for (int step = 0; step < 400; ++step) {
      // Mostly what a writer would send next; sometimes a retry, a
      // different event at a taken item_seq, an older or newer attempt, or
      // another writer_epoch.
      std::vector<Event> batch;
      size_t size = 1 + pick(3);
      for (size_t i = 0; i < size; ++i) {
        std::string item = pick(2) == 0 ? "x" : "y";
        const std::vector<Event>& of_item = known[item];
        uint64_t last = of_item.empty() ? 0 : of_item.back().item_seq;
        uint32_t attempt = 0;
        for (const Event& k : of_item) attempt = std::max(attempt, k.attempt);
        if (!of_item.empty() && pick(6) == 0) {
          batch.push_back(of_item[pick(static_cast<uint32_t>(of_item.size()))]);  // a retry
          continue;
        }
        uint64_t seq = last + 1 + i;
        uint32_t turn = pick(8);
        if (turn == 0) ++attempt;
        if (turn == 1 && attempt > 0) --attempt;
        uint32_t who = pick(10);
        if (!of_item.empty() && pick(5) == 0) {
          // A late writer at a taken item_seq, of that event's attempt.
          const Event& taken = of_item[pick(static_cast<uint32_t>(of_item.size()))];
          seq = taken.item_seq;
          attempt = taken.attempt;
          who = pick(3);
        }
        std::string epoch = absl::StrCat("writer-", attempt);
        if (who == 0) epoch = "rogue";
        if (who == 1) epoch = "";
        batch.push_back(SetInt(item, seq, "f", pick(2), attempt, epoch));
      }
      // The verdict the rules give, event by event.
      absl::Status expected_refusal;
      AppendResult expected;
      std::map<std::string, std::vector<Event>> fresh;
      for (const Event& e : batch) {
        absl::StatusOr<bool> verdict = ScanAdmission(e, known[e.item_id], fresh[e.item_id]);
        if (!verdict.ok()) {
          expected_refusal = verdict.status();
          break;
        }
        if (*verdict) {
          ++expected.duplicates;
        } else {
          ++expected.appended;
          fresh[e.item_id].push_back(e);
        }
      }
      absl::StatusOr<AppendResult> got = log->Append(batch);
      CAPTURE(session);
      CAPTURE(step);
      if (!expected_refusal.ok()) {
        CHECK(got.status() == expected_refusal);
        ++refusals;
        continue;
      }
      LAKE_REQUIRE_OK(got);
      CHECK(got->appended == expected.appended);
      CHECK(got->duplicates == expected.duplicates);
      duplicates += expected.duplicates;
      appended += expected.appended;
      for (auto& [item, events] : fresh) {
        std::vector<Event>& of_item = known[item];
        for (Event& e : events) {
          of_item.insert(std::upper_bound(of_item.begin(), of_item.end(), e,
                                          [](const Event& a, const Event& b) {
                                            return a.item_seq < b.item_seq;
                                          }),
                         std::move(e));
        }
      }
    }
  }
  // The stream exercised every verdict.
  MESSAGE("refusals ", refusals, ", duplicates ", duplicates, ", appended ", appended);
  CHECK(refusals > 50);
  CHECK(duplicates > 50);
  CHECK(appended > 200);
}

TEST_CASE("event log: admission counts the events of batches still being written") {
  REQUIRE(failpoint::Enabled());
  testing::TempDir dir;
  io::PosixFileSystem fs;
  std::unique_ptr<EventLog> log = OpenLog(fs, dir.path(), true);
  LAKE_REQUIRE_OK(log->Append({Created("a"), Created("b")}));
  // The next batch stops after its frame is written, before the sync.
  absl::Notification writing, release;
  failpoint::Set(kShardAppendWritten, failpoint::Action::kCallback, [&] {
    if (!writing.HasBeenNotified()) {
      writing.Notify();
      release.WaitForNotification();
    }
    return absl::OkStatus();
  });
  std::vector<Event> in_flight = {SetInt("a", 2, "score", 2), SetInt("a", 4, "score", 4),
                                  Created("d", 1, 1)};
  absl::StatusOr<AppendResult> first;
  std::thread writer([&] { first = log->Append(in_flight); });
  writing.WaitForNotification();
  auto refusal = [&](std::vector<Event> batch) {
    absl::StatusOr<AppendResult> r = log->Append(std::move(batch));
    REQUIRE_FALSE(r.ok());
    CHECK(absl::IsAborted(r.status()));
    return std::string(r.status().message());
  };
  // The same event, or another one, at an item_seq in flight: refused
  // until that batch's fate is known, not taken for a duplicate.
  CHECK(refusal({SetInt("a", 2, "score", 2)}).find("in flight") != std::string::npos);
  CHECK(refusal({SetInt("a", 4, "score", 9)}).find("in flight") != std::string::npos);
  // Below the highest item_seq in flight: out of order.
  CHECK(refusal({SetInt("a", 3, "score", 3)}).find("not above the item's last, 4") !=
        std::string::npos);
  // Another writer_epoch in the attempt of events in flight: split brain;
  // a lower attempt than theirs: stale (item d is only in flight).
  CHECK(refusal({SetInt("d", 9, "score", 9, 1, "writer-z")}).find("split brain") !=
        std::string::npos);
  CHECK(refusal({SetInt("d", 5, "score", 5, 0)}).find("stale attempt") != std::string::npos);
  // Nothing of a refused batch is written.
  CHECK(refusal({Created("c"), SetInt("a", 3, "score", 3)}).find("not above") !=
        std::string::npos);
  release.Notify();
  writer.join();
  failpoint::ClearAll();
  LAKE_REQUIRE_OK(first);
  CHECK(first->appended == 3);
  // Now written, the same batch is absorbed, and an event above it is new.
  absl::StatusOr<AppendResult> again = log->Append(in_flight);
  LAKE_REQUIRE_OK(again);
  CHECK(again->duplicates == 3);
  LAKE_REQUIRE_OK(log->Append({SetInt("a", 5, "score", 5)}));
  std::unique_ptr<EventLog> reader = OpenLog(fs, dir.path(), false);
  CHECK(reader->Stats().events == 6);
  CHECK(IntField(*reader, "a", "score") == 5);
  absl::StatusOr<std::optional<FoldedItem>> c = reader->Fold("c");
  LAKE_REQUIRE_OK(c);
  CHECK_FALSE(c->has_value());
}

TEST_CASE("event log: an invalid event is refused before anything is written") {
  testing::TempDir dir;
  io::PosixFileSystem fs;
  std::unique_ptr<EventLog> log = OpenLog(fs, dir.path(), true);
  Event bad = Created("a");
  bad.event_id = std::string(64, '0');
  CHECK(absl::IsInvalidArgument(log->Append({Created("b"), bad}).status()));
  CHECK(log->Stats().events == 0);
}

TEST_CASE("event log: a bulk batch (validated and encoded in two halves) is all or nothing") {
  testing::TempDir dir;
  io::PosixFileSystem fs;
  // 200 items of 3 events: 600, past the size split across two threads.
  std::vector<Event> bulk;
  for (int item = 0; item < 200; ++item) {
    std::string id = absl::StrCat("bulk-", item);
    bulk.push_back(Created(id));
    bulk.push_back(SetInt(id, 2, "score", item));
    bulk.push_back(StepDone(id, 3));
  }
  std::unique_ptr<EventLog> log = OpenLog(fs, dir.path(), true);
  // An invalid event in either half refuses the whole batch, naming it.
  for (size_t at : {size_t{10}, size_t{451}, bulk.size() - 1}) {
    CAPTURE(at);
    std::vector<Event> damaged = bulk;
    damaged[at].event_id = std::string(64, '0');
    absl::Status refused = log->Append(damaged).status();
    CHECK(absl::IsInvalidArgument(refused));
    CHECK(absl::StrContains(refused.message(), damaged[at].item_id + "\""));
    CHECK(log->Stats().events == 0);
  }
  absl::StatusOr<AppendResult> r = log->Append(bulk);
  LAKE_REQUIRE_OK(r);
  CHECK(r->appended == 600);
  log.reset();
  // Every record, in order, from a new reader.
  std::unique_ptr<EventLog> reader = OpenLog(fs, dir.path(), false);
  CHECK(reader->Stats().events == 600);
  for (int item : {0, 99, 100, 199}) {
    CHECK(IntField(*reader, absl::StrCat("bulk-", item), "score") == item);
  }
}

TEST_CASE("event log: a bulk batch admitted while validated: invalid first, duplicates absorbed") {
  testing::TempDir dir;
  io::PosixFileSystem fs;
  auto items = [](const char* prefix, int n) {
    std::vector<Event> events;
    for (int item = 0; item < n; ++item) {
      std::string id = absl::StrCat(prefix, item);
      events.push_back(Created(id));
      events.push_back(SetInt(id, 2, "score", item));
      events.push_back(StepDone(id, 3));
    }
    return events;
  };
  const std::vector<Event> first = items("bulk-", 200);
  std::unique_ptr<EventLog> log = OpenLog(fs, dir.path(), true);
  LAKE_REQUIRE_OK(log->Append(first));
  std::vector<Event> more = items("more-", 100);
  // A fencing violation (another score at bulk-5's item_seq 2) and an
  // invalid event in one bulk batch: refused as invalid, nothing written.
  std::vector<Event> both = more;
  both.push_back(SetInt("bulk-5", 2, "score", 999));
  both[7].event_id = std::string(64, '0');
  CHECK(absl::IsInvalidArgument(log->Append(both).status()));
  both[7] = more[7];
  CHECK(absl::IsAborted(log->Append(both).status()));
  CHECK(log->Stats().events == 600);
  // A retried bulk batch with new events after it: the old absorbed, the
  // new appended (the refusals above left nothing in flight).
  std::vector<Event> retried = first;
  retried.insert(retried.end(), more.begin(), more.end());
  absl::StatusOr<AppendResult> r = log->Append(retried);
  LAKE_REQUIRE_OK(r);
  CHECK(r->duplicates == 600);
  CHECK(r->appended == 300);
  log.reset();
  std::unique_ptr<EventLog> reader = OpenLog(fs, dir.path(), false);
  CHECK(reader->Stats().events == 900);
  CHECK(IntField(*reader, "bulk-5", "score") == 5);
  CHECK(IntField(*reader, "more-99", "score") == 99);
}

TEST_CASE("event log: two writer processes at once; every reader sees the union") {
  testing::TempDir dir;
  io::PosixFileSystem fs;
  std::vector<pid_t> children;
  for (int w = 0; w < 2; ++w) {
    pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      absl::StatusOr<std::unique_ptr<EventLog>> log = EventLog::Open(fs, dir.path(), true);
      if (!log.ok()) ::_exit(10);
      for (int i = 0; i < 40; ++i) {
        std::string item = "w" + std::to_string(w) + "-" + std::to_string(i);
        if (!(*log)->Append({Created(item), SetInt(item, 2, "i", i)}).ok()) ::_exit(11);
      }
      ::_exit(0);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
  }
  std::unique_ptr<EventLog> reader = OpenLog(fs, dir.path(), false);
  EventLogStats stats = reader->Stats();
  CHECK(stats.shards == 2);
  CHECK(stats.items == 80);
  CHECK(stats.events == 160);
  CHECK(IntField(*reader, "w1-39", "i") == 39);
}

TEST_CASE("event log: threads of one writer share syncs and lose nothing") {
  testing::TempDir dir;
  io::PosixFileSystem fs;
  std::unique_ptr<EventLog> log = OpenLog(fs, dir.path(), true);
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 25; ++i) {
        std::string item = "t" + std::to_string(t) + "-" + std::to_string(i);
        if (!log->Append({Created(item), SetInt(item, 2, "i", i), StepDone(item, 3)}).ok()) {
          ++failures;
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  CHECK(failures == 0);
  EventLogStats written = log->Stats();
  CHECK(written.batches_written == 100);
  // Batches share syncs (about four per sync on an idle machine; fewer when
  // the threads' CPU work outlasts the group-commit window, as under a
  // sanitizer on a busy machine; events_shard_log_test bounds the grouping
  // itself).
  CAPTURE(written.syncs);
  CHECK(written.syncs * 5 <= written.batches_written * 4);
  std::unique_ptr<EventLog> reader = OpenLog(fs, dir.path(), false);
  CHECK(reader->Stats().events == 300);
  CHECK(reader->Stats().syncs == 0);
}

// Every event a log holds, as (item, item_seq, event_id), for comparing a
// refreshed log with a freshly opened one.
std::vector<std::string> AllEvents(EventLog& log) {
  std::vector<std::string> all;
  for (std::string item : {"a", "b", "c", "r"}) {
    absl::StatusOr<std::optional<FoldedItem>> folded = log.Fold(item);
    REQUIRE(folded.ok());
    if (!folded->has_value()) continue;
    for (const auto& [field, value] : (*folded)->fields) {
      for (const auto& v : value.values) {
        all.push_back(item + "." + field + "=" + std::to_string(v.value_i64));
      }
    }
  }
  all.push_back("events=" + std::to_string(log.Stats().events));
  return all;
}

TEST_CASE("event log: Refresh reads what other writers appended since, across their sessions") {
  testing::TempDir dir;
  io::PosixFileSystem fs;
  std::unique_ptr<EventLog> reader = OpenLog(fs, dir.path(), true);
  LAKE_REQUIRE_OK(reader->Append({Created("r"), SetInt("r", 2, "x", 1)}));
  {
    std::unique_ptr<EventLog> w = OpenLog(fs, dir.path(), true);
    LAKE_REQUIRE_OK(w->Append({Created("a"), SetInt("a", 2, "x", 1)}));
    LAKE_REQUIRE_OK(reader->Refresh());
    CHECK(IntField(*reader, "a", "x") == 1);
    CHECK(reader->Stats().events == 4);
    LAKE_REQUIRE_OK(w->Append({SetInt("a", 3, "x", 2)}));
    LAKE_REQUIRE_OK(w->Append({Created("b"), SetInt("b", 2, "y", 7)}));
    LAKE_REQUIRE_OK(reader->Refresh());
    CHECK(IntField(*reader, "a", "x") == 2);
    CHECK(IntField(*reader, "b", "y") == 7);
    LAKE_REQUIRE_OK(reader->Refresh());  // nothing new: nothing changes
    CHECK(reader->Stats().events == 7);
  }
  // A new session of that writer takes the same shard and a new segment.
  {
    std::unique_ptr<EventLog> w = OpenLog(fs, dir.path(), true);
    LAKE_REQUIRE_OK(w->Append({SetInt("a", 4, "x", 3), Created("c")}));
  }
  LAKE_REQUIRE_OK(reader->Append({SetInt("r", 3, "x", 2)}));
  LAKE_REQUIRE_OK(reader->Refresh());
  CHECK(IntField(*reader, "a", "x") == 3);
  CHECK(IntField(*reader, "r", "x") == 2);
  CHECK(reader->Stats().shards == 2);
  std::unique_ptr<EventLog> fresh = OpenLog(fs, dir.path(), false);
  CHECK(AllEvents(*reader) == AllEvents(*fresh));
  CHECK(reader->Stats().events == 10);

  // A compaction replaces the shards: the next Refresh reads everything.
  absl::StatusOr<CompactionResult> compacted = CompactEventLog(fs, dir.path());
  LAKE_REQUIRE_OK(compacted);
  {
    std::unique_ptr<EventLog> w = OpenLog(fs, dir.path(), true);
    LAKE_REQUIRE_OK(w->Append({SetInt("b", 3, "y", 8)}));
  }
  LAKE_REQUIRE_OK(reader->Refresh());
  CHECK(IntField(*reader, "b", "y") == 8);
  std::unique_ptr<EventLog> after = OpenLog(fs, dir.path(), false);
  CHECK(AllEvents(*reader) == AllEvents(*after));
}

TEST_CASE("event log: Refresh refuses damage in the frames another writer appended since") {
  testing::TempDir dir;
  io::PosixFileSystem fs;
  std::unique_ptr<EventLog> reader = OpenLog(fs, dir.path(), false);
  std::unique_ptr<EventLog> w = OpenLog(fs, dir.path(), true);
  LAKE_REQUIRE_OK(w->Append({Created("a")}));
  LAKE_REQUIRE_OK(reader->Refresh());
  std::string segment = dir.path() + "/" + w->shard_id() + "/" + SegmentFileName(1);
  absl::StatusOr<ShardContents> before = ReadShard(fs, dir.path() + "/" + w->shard_id());
  LAKE_REQUIRE_OK(before);
  const uint64_t read_up_to = before->last_valid_bytes;
  LAKE_REQUIRE_OK(w->Append({SetInt("a", 2, "x", 1)}));
  LAKE_REQUIRE_OK(w->Append({SetInt("a", 3, "x", 2)}));
  {
    // A byte inside the first new frame's payload: a valid frame follows.
    std::fstream file(segment, std::ios::in | std::ios::out | std::ios::binary);
    file.seekg(static_cast<std::streamoff>(read_up_to + kFrameHeaderBytes + 4));
    char byte = 0;
    file.read(&byte, 1);
    file.seekp(static_cast<std::streamoff>(read_up_to + kFrameHeaderBytes + 4));
    byte = static_cast<char>(byte ^ 0x5a);
    file.write(&byte, 1);
  }
  absl::Status refreshed = reader->Refresh();
  CHECK(absl::IsDataLoss(refreshed));
  CHECK(std::string(refreshed.message()).find(w->shard_id()) != std::string::npos);
  // What the reader held stays.
  CHECK(reader->Stats().events == 1);
}

TEST_CASE("event log: a writer SIGKILLed mid-batch leaves the batch all or nothing") {
  REQUIRE(failpoint::Enabled());
  for (std::string_view step : {kShardAppendWritten, kShardAppendSynced}) {
    CAPTURE(std::string(step));
    testing::TempDir dir;
    io::PosixFileSystem fs;
    pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      absl::StatusOr<std::unique_ptr<EventLog>> log = EventLog::Open(fs, dir.path(), true);
      if (!log.ok() || !(*log)->Append({Created("a"), SetInt("a", 2, "x", 1)}).ok()) ::_exit(10);
      failpoint::Set(step, failpoint::Action::kKill);
      (void)(*log)->Append({SetInt("a", 3, "x", 2), SetInt("a", 4, "y", 3), StepDone("a", 5)});
      ::_exit(13);
    }
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    REQUIRE(WIFSIGNALED(status));
    std::unique_ptr<EventLog> log = OpenLog(fs, dir.path(), true);
    size_t events = log->Stats().events;
    CHECK((events == 2 || events == 5));
    // A resumed writer continues either way.
    LAKE_REQUIRE_OK(log->Append({SetInt("a", 6, "x", 9)}));
    CHECK(IntField(*log, "a", "x") == 9);
  }
}

TEST_CASE("event log: a power loss mid-batch leaves the batch all or nothing") {
  REQUIRE(failpoint::Enabled());
  for (std::string_view step : {kShardAppendWritten, kShardAppendSynced}) {
    CAPTURE(std::string(step));
    testing::TempDir dir;
    std::filesystem::create_directory(dir.Join("backups"));
    std::string shards = dir.Join("shards");
    io::PosixFileSystem base;
    {
      testing::FaultInjectionFileSystem fs(base, dir.Join("backups"));
      std::unique_ptr<EventLog> log = OpenLog(fs, shards, true);
      LAKE_REQUIRE_OK(log->Append({Created("a"), SetInt("a", 2, "x", 1)}));
      failpoint::Set(step, failpoint::Action::kCallback, [&] {
        fs.Crash();
        return absl::UnavailableError("power lost");
      });
      CHECK_FALSE(log->Append({SetInt("a", 3, "x", 2), StepDone("a", 4)}).ok());
      failpoint::ClearAll();
    }
    std::unique_ptr<EventLog> log = OpenLog(base, shards, false);
    CHECK(log->Stats().events == (step == kShardAppendSynced ? 4u : 2u));
    CHECK(IntField(*log, "a", "x") == (step == kShardAppendSynced ? 2 : 1));
  }
}

TEST_CASE("event log: a corrupted record is a typed error naming the shard; other shards stay") {
  testing::TempDir dir;
  io::PosixFileSystem fs;
  std::string damaged_shard;
  {
    std::unique_ptr<EventLog> first = OpenLog(fs, dir.path(), true);
    std::unique_ptr<EventLog> second = OpenLog(fs, dir.path(), true);
    LAKE_REQUIRE_OK(first->Append({Created("a")}));
    LAKE_REQUIRE_OK(first->Append({Created("b")}));
    LAKE_REQUIRE_OK(second->Append({Created("c")}));
    damaged_shard = first->shard_id();
  }
  std::string segment = dir.path() + "/" + damaged_shard + "/" + SegmentFileName(1);
  {
    std::fstream f(segment, std::ios::in | std::ios::out | std::ios::binary);
    // Inside the first record of the first events frame, after the seal.
    f.seekp(static_cast<std::streamoff>(EncodeSegmentSeal({}).size() + kFrameHeaderBytes + 10));
    f.put('\x7f');
  }
  absl::StatusOr<std::unique_ptr<EventLog>> log = EventLog::Open(fs, dir.path(), false);
  REQUIRE_FALSE(log.ok());
  CHECK(absl::IsDataLoss(log.status()));
  CHECK(std::string(log.status().message()).find(damaged_shard) != std::string::npos);
  // The undamaged shard still reads.
  std::filesystem::rename(dir.path() + "/" + damaged_shard, dir.path() + "/.quarantined");
  std::unique_ptr<EventLog> rest = OpenLog(fs, dir.path(), false);
  absl::StatusOr<std::optional<FoldedItem>> c = rest->Fold("c");
  LAKE_REQUIRE_OK(c);
  CHECK(c->has_value());
}

TEST_CASE("event log: a frame claiming more records than its payload holds is data loss") {
  testing::TempDir dir;
  io::PosixFileSystem fs;
  const std::string shard = dir.path() + "/hand-built";
  std::filesystem::create_directories(shard);
  {
    constexpr uint64_t kSeed = 12345;
    std::string segment = EncodeSegmentSeal(SegmentSeal{0, 0, kSeed});
    AppendFrame(FrameKind::kEvents, UINT32_MAX, "a few bytes", kSeed, &segment);
    std::ofstream(shard + "/" + SegmentFileName(1), std::ios::binary) << segment;
  }
  absl::StatusOr<std::unique_ptr<EventLog>> log = EventLog::Open(fs, dir.path(), false);
  REQUIRE_FALSE(log.ok());
  CHECK(absl::IsDataLoss(log.status()));
  CHECK(std::string(log.status().message()).find("hand-built") != std::string::npos);
}

}  // namespace
}  // namespace lake::events
