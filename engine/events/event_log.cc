#include "engine/events/event_log.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <future>
#include <iterator>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "engine/events/event_content.h"
#include "engine/events/event_record_format.h"
#include "engine/events/item_id.h"
#include "engine/table/byte_codec.h"

namespace lake::events {
namespace {

// A batch of at least this many events is validated and encoded by two
// threads at once (this one and the log's helper), chunk by chunk: a bulk
// batch's CPU work then takes about half as long, while handing work over
// (a few microseconds) stays small beside it. Smaller batches stay on one
// thread.
constexpr size_t kParallelEvents = 256;
// Events per chunk: each thread takes the next chunk when done with one, so
// the work balances whatever either thread's speed (the helper wakes late,
// and reads events another core wrote).
constexpr size_t kChunkEvents = 32;

// Validates every event of a batch and encodes each into the records of
// the thread that took its chunk (*outs[0] the caller's, *outs[1] the
// helper's). The helper starts on its chunks at once (for a batch of
// kParallelEvents or more) and the caller takes its share in Finish, so the
// caller can admit the batch in between. The batch must not change until
// Finish returns.
class BatchEncoder {
 public:
  BatchEncoder(TaskPool& helper, const std::vector<Event>& batch, std::string* outs[2])
      : batch_(batch),
        outs_{outs[0], outs[1]},
        chunks_((batch.size() + kChunkEvents - 1) / kChunkEvents),
        done_(chunks_) {
    if (batch.size() >= kParallelEvents) helped_ = helper.Run([this] { Work(1); });
  }
  ~BatchEncoder() {
    if (helped_.valid()) helped_.wait();  // the helper's task uses *this
  }
  BatchEncoder(const BatchEncoder&) = delete;
  BatchEncoder& operator=(const BatchEncoder&) = delete;

  // The records as `pieces`, one per chunk, in order, viewing the buffers;
  // or the error of the first invalid event (the chunks after an invalid one
  // are still done, so which is first does not depend on timing).
  absl::Status Finish(std::vector<RecordBatch>* pieces) {
    Work(0);
    if (helped_.valid()) helped_.get();
    pieces->clear();
    const size_t n = batch_.size();
    for (size_t c = 0; c < chunks_; ++c) {
      if (!done_[c].status.ok()) return done_[c].status;
      const uint32_t records =
          static_cast<uint32_t>(std::min(n, (c + 1) * kChunkEvents) - c * kChunkEvents);
      pieces->push_back(RecordBatch{records, std::string_view(*outs_[done_[c].thread])
                                                 .substr(done_[c].offset, done_[c].bytes)});
    }
    return absl::OkStatus();
  }

 private:
  struct ChunkDone {
    int thread = 0;
    size_t offset = 0, bytes = 0;
    absl::Status status;
  };

  void Work(int thread) {
    std::string& out = *outs_[thread];
    const size_t n = batch_.size();
    for (size_t c; (c = next_chunk_.fetch_add(1, std::memory_order_relaxed)) < chunks_;) {
      ChunkDone& d = done_[c];
      d.thread = thread;
      d.offset = out.size();
      const Event* previous = nullptr;  // valid, so its item ids need no parse again
      for (size_t i = c * kChunkEvents; i < std::min(n, (c + 1) * kChunkEvents); ++i) {
        if (absl::Status s = ValidateEventRecord(batch_[i], previous); !s.ok()) {
          d.status = s;
          break;
        }
        AppendEventRecord(batch_[i], &out);
        previous = &batch_[i];
      }
      d.bytes = out.size() - d.offset;
    }
  }

  const std::vector<Event>& batch_;
  std::string* const outs_[2];
  const size_t chunks_;
  std::vector<ChunkDone> done_;
  std::atomic<size_t> next_chunk_{0};
  std::future<void> helped_;
};

absl::Status Refused(const Event& e, std::string_view what, std::string_view why) {
  return absl::AbortedError(absl::StrCat(std::string(what), ": item \"", e.item_id.substr(0, 200),
                                         "\" item_seq ", e.item_seq, ": ", std::string(why)));
}

// Decodes the records of one events frame into `decoded`.
absl::Status DecodeFrame(const std::string& shard_id, const Frame& frame,
                         std::vector<Event>* decoded) {
  table::ByteReader reader(frame.payload);
  // For the records the payload can hold, not the count the header claims.
  static const size_t kMinRecordBytes = EventRecordBytes(Event{});
  decoded->reserve(std::min<size_t>(frame.records, frame.payload.size() / kMinRecordBytes));
  for (uint32_t i = 0; i < frame.records; ++i) {
    absl::StatusOr<Event> event = ReadEventRecord(reader);
    if (!event.ok()) {
      return absl::DataLossError(absl::StrCat("event log shard ", shard_id, ": the frame at offset ",
                                              frame.offset, ": ", event.status().message()));
    }
    decoded->push_back(std::move(*event));
  }
  if (reader.remaining() != 0) {
    return absl::DataLossError(absl::StrCat("event log shard ", shard_id, ": the frame at offset ",
                                            frame.offset, " has bytes after its ", frame.records,
                                            " records"));
  }
  return absl::OkStatus();
}

// Orders an item's events by item_seq and keeps one copy of each event:
// the one with the earliest event_ts, as the fold does, so what a reader
// sees does not depend on which shard it read first.
void Canonicalize(std::vector<const Event*>& events) {
  // Usually so already: one shard, appended in item_seq order.
  if (std::adjacent_find(events.begin(), events.end(), [](const Event* a, const Event* b) {
        return a->item_seq >= b->item_seq;
      }) == events.end()) {
    return;
  }
  std::stable_sort(events.begin(), events.end(), [](const Event* a, const Event* b) {
    return a->item_seq != b->item_seq ? a->item_seq < b->item_seq : a->event_ts < b->event_ts;
  });
  std::vector<const Event*> kept;
  kept.reserve(events.size());
  for (const Event* e : events) {
    bool seen = false;
    for (auto it = kept.rbegin(); it != kept.rend() && (*it)->item_seq == e->item_seq; ++it) {
      seen = seen || SameEventContent(**it, *e);
    }
    if (!seen) kept.push_back(e);
  }
  events = std::move(kept);
}

// Where each run of events of one item ends, in order (the last run ends
// at events.size()): found once, where an append walks its runs four times.
std::vector<uint32_t> RunEnds(const std::vector<Event>& events) {
  std::vector<uint32_t> ends;
  for (size_t i = 1; i < events.size(); ++i) {
    if (events[i].item_id != events[i - 1].item_id) ends.push_back(static_cast<uint32_t>(i));
  }
  if (!events.empty()) ends.push_back(static_cast<uint32_t>(events.size()));
  return ends;
}

// Adds the events of `batch` to `index`, each at the end of its item's.
void IndexBatch(const std::vector<Event>& batch, EventRefsByItem* index) {
  for (const Event& e : batch) (*index)[e.item_id].push_back(&e);
}

}  // namespace

EventLog::EventLog(io::FileSystem& fs, std::string shards_dir, std::unique_ptr<ShardWriter> writer,
                   std::unique_ptr<ShardBlobJournal> blob_journal)
    : fs_(fs),
      shards_dir_(std::move(shards_dir)),
      writer_(std::move(writer)),
      blob_journal_(std::move(blob_journal)) {
  if (writer_) helper_ = std::make_unique<TaskPool>(1);
}

absl::StatusOr<std::unique_ptr<EventLog>> EventLog::Open(io::FileSystem& fs,
                                                         std::string shards_dir, bool writable) {
  std::unique_ptr<ShardWriter> writer;
  std::unique_ptr<ShardBlobJournal> journal;
  if (writable) {
    absl::StatusOr<std::unique_ptr<ShardWriter>> opened = ShardWriter::Open(fs, shards_dir);
    if (!opened.ok()) return opened.status();
    writer = std::move(*opened);
    absl::StatusOr<std::unique_ptr<ShardBlobJournal>> journal_opened =
        ShardBlobJournal::Open(fs, writer->shard_dir(), writer->shard_id());
    if (!journal_opened.ok()) return journal_opened.status();
    journal = std::move(*journal_opened);
  }
  std::unique_ptr<EventLog> log(
      new EventLog(fs, std::move(shards_dir), std::move(writer), std::move(journal)));
  if (absl::Status s = log->Refresh(); !s.ok()) return s;
  return log;
}

std::string EventLog::shard_id() const { return writer_ ? writer_->shard_id() : std::string(); }

absl::Status EventLog::Refresh() {
  absl::MutexLock refreshing(&refresh_mu_);
  absl::StatusOr<std::vector<std::string>> shards = ListShards(fs_, shards_dir_);
  if (!shards.ok()) return shards.status();
  std::map<std::string, ShardCursor> cursors;
  {
    absl::MutexLock lock(&mu_);
    cursors = cursors_;
  }
  // Only the frames past each shard's cursor, unless a shard read before is
  // gone (a compaction replaced it): then everything again.
  bool incremental = !cursors.empty();
  for (const auto& [id, cursor] : cursors) {
    incremental = incremental && std::binary_search(shards->begin(), shards->end(), id);
  }
  if (!incremental) {
    cursors.clear();
    absl::MutexLock lock(&mu_);
    rereading_all_ = true;
  }
  absl::Cleanup reread_done = [&] {
    absl::MutexLock lock(&mu_);
    rereading_all_ = false;
    appended_while_rereading_.clear();
  };
  std::deque<std::vector<Event>> stored;
  EventRefsByItem read;
  for (const std::string& id : *shards) {
    // This log's own appends are in the index already.
    if (incremental && writer_ && id == writer_->shard_id()) continue;
    ShardCursor& cursor = cursors[id];
    absl::StatusOr<ShardContents> contents =
        ReadShardFrom(fs_, absl::StrCat(shards_dir_, "/", id), cursor);
    if (!contents.ok()) return contents.status();
    for (const Frame& frame : contents->event_frames) {
      std::vector<Event>& decoded = stored.emplace_back();
      if (absl::Status s = DecodeFrame(id, frame, &decoded); !s.ok()) return s;
      IndexBatch(decoded, &read);
    }
    cursor = CursorOf(*contents);
  }
  absl::MutexLock lock(&mu_);
  if (incremental) {
    for (auto& [item, item_events] : read) {
      IndexedItem& indexed = IndexedItemOf(item);
      std::vector<const Event*>& known = *indexed.events;
      known.insert(known.end(), item_events.begin(), item_events.end());
      Canonicalize(known);
      indexed.summary = SummarizeItem(known);
    }
    // Moving a batch keeps its events where they are.
    for (std::vector<Event>& batch : stored) stored_.push_back(std::move(batch));
  } else {
    IndexBatch(stored.emplace_back(std::move(appended_while_rereading_)), &read);
    appended_while_rereading_.clear();
    for (auto& [item, item_events] : read) Canonicalize(item_events);
    indexed_.clear();  // before its keys go with the old index_
    index_ = std::move(read);
    stored_ = std::move(stored);
    indexed_.reserve(index_.size());
    for (auto& [item, item_events] : index_) {
      indexed_.try_emplace(item, IndexedItem{&item_events, SummarizeItem(item_events)});
    }
  }
  cursors_ = std::move(cursors);
  shard_count_ = shards->size();
  return absl::OkStatus();
}

EventLog::IndexedItem& EventLog::IndexedItemOf(const std::string& item) {
  if (auto found = indexed_.find(item); found != indexed_.end()) return found->second;
  auto node = index_.try_emplace(item).first;
  return indexed_.try_emplace(node->first, IndexedItem{&node->second, {}}).first->second;
}

void EventLog::ItemAdmission::Add(const Event& event) {
  max_attempt = std::max(max_attempt, event.attempt);
  if (event.writer_epoch.empty()) return;
  auto [first, inserted] =
      first_seq_of_epoch[event.attempt].try_emplace(event.writer_epoch, event.item_seq);
  if (!inserted) first->second = std::min(first->second, event.item_seq);
}

EventLog::ItemAdmission EventLog::SummarizeItem(const std::vector<const Event*>& events) {
  ItemAdmission summary;
  for (const Event* e : events) summary.Add(*e);
  return summary;
}

absl::StatusOr<bool> EventLog::IsDuplicate(const Event& e, const ItemKnown& item) {
  // Everything known of the item: the index, batches in flight, and the
  // events of this batch before `e`, each checked against `e` in turn.
  uint64_t last_seq = 0;
  uint32_t last_attempt = 0;
  // 1: the same event (a duplicate); 0: no conflict; an error otherwise.
  auto check = [&](const Event& k) -> absl::StatusOr<bool> {
    if (k.item_seq == e.item_seq) {
      if (SameEventContent(k, e)) return true;
      return Refused(e, "fencing violation", "the log holds a different event at this item_seq");
    }
    last_seq = std::max(last_seq, k.item_seq);
    last_attempt = std::max(last_attempt, k.attempt);
    if (k.attempt == e.attempt && !k.writer_epoch.empty() && !e.writer_epoch.empty() &&
        k.writer_epoch != e.writer_epoch) {
      return Refused(e, "split brain",
                     absl::StrCat("attempt ", e.attempt, " is owned by writer_epoch \"",
                                  k.writer_epoch, "\", not \"", e.writer_epoch, "\""));
    }
    return false;
  };
  if (std::any_of(item.in_flight.begin(), item.in_flight.end(),
                  [&](const Event* k) { return k->item_seq == e.item_seq; })) {
    return Refused(e, "fencing violation", "another append of this item_seq is in flight");
  }
  if (item.indexed != nullptr && !item.indexed->empty()) {
    // The same verdict as checking every indexed event in order, found by
    // search: the first event at e's item_seq, or the first event of e's
    // attempt under another writer_epoch, whichever comes first.
    const std::vector<const Event*>& known = *item.indexed;
    const ItemAdmission& summary = *item.summary;
    auto by_seq = [](const Event* k, uint64_t seq) { return k->item_seq < seq; };
    auto same = std::lower_bound(known.begin(), known.end(), e.item_seq, by_seq);
    if (same != known.end() && (*same)->item_seq != e.item_seq) same = known.end();
    std::optional<uint64_t> split_seq;
    if (!e.writer_epoch.empty()) {
      if (auto of = summary.first_seq_of_epoch.find(e.attempt);
          of != summary.first_seq_of_epoch.end()) {
        for (const auto& [epoch, first] : of->second) {
          if (epoch != e.writer_epoch && first != e.item_seq && (!split_seq || first < *split_seq)) {
            split_seq = first;
          }
        }
      }
    }
    if (split_seq && (same == known.end() || *split_seq < (*same)->item_seq)) {
      for (auto k = std::lower_bound(known.begin(), known.end(), *split_seq, by_seq);
           k != known.end() && (*k)->item_seq == *split_seq; ++k) {
        absl::StatusOr<bool> verdict = check(**k);
        if (!verdict.ok()) return verdict;
      }
    }
    if (same != known.end()) return check(**same);
    last_seq = known.back()->item_seq;
    last_attempt = summary.max_attempt;
  }
  for (const Event* k : item.in_flight) {
    absl::StatusOr<bool> same = check(*k);
    if (!same.ok() || *same) return same;
  }
  if (const BatchKnown* earlier = item.earlier_in_batch; earlier != nullptr) {
    // Above every earlier event of the batch and of its one writer_epoch
    // (or none), `e` passes each check: only the maxima matter then.
    if (e.item_seq > earlier->max_seq && earlier->one_epoch &&
        (e.writer_epoch.empty() || earlier->epoch.empty() || earlier->epoch == e.writer_epoch)) {
      last_seq = std::max(last_seq, earlier->max_seq);
      last_attempt = std::max(last_attempt, earlier->max_attempt);
    } else {
      for (const Event* k : earlier->events) {
        absl::StatusOr<bool> same = check(*k);
        if (!same.ok() || *same) return same;
      }
    }
  }
  if (e.attempt < last_attempt) {
    return Refused(e, "stale attempt",
                   absl::StrCat("attempt ", e.attempt, " is below the item's attempt ",
                                last_attempt));
  }
  if (e.item_seq < last_seq) {
    return Refused(e, "fencing violation",
                   absl::StrCat("item_seq is not above the item's last, ", last_seq));
  }
  return false;
}

absl::Status EventLog::Sync() {
  if (!writer_) {
    return absl::FailedPreconditionError("this event log is open read-only: nothing to sync");
  }
  return writer_->Sync();
}

std::string EventLog::TakeSparePayload() {
  if (spare_payloads_.empty()) return std::string();
  std::string spare = std::move(spare_payloads_.back());
  spare_payloads_.pop_back();
  spare.clear();
  return spare;
}

void EventLog::KeepSparePayloads(std::string& mine, std::string& helper) {
  for (std::string* payload : {&mine, &helper}) {
    // An unused buffer (the helper's of a small batch) is no spare.
    if (!payload->empty() && spare_payloads_.size() < kSparePayloads &&
        payload->capacity() <= kSparePayloadBytes) {
      spare_payloads_.push_back(std::move(*payload));
    }
  }
}

void EventLog::BatchKnown::Add(const Event& e) {
  events.push_back(&e);
  max_seq = std::max(max_seq, e.item_seq);
  max_attempt = std::max(max_attempt, e.attempt);
  if (e.writer_epoch.empty()) return;
  if (epoch.empty()) {
    epoch = e.writer_epoch;
  } else if (epoch != e.writer_epoch) {
    one_epoch = false;
  }
}

absl::Status EventLog::Admit(const std::vector<Event>& batch, const std::vector<uint32_t>& runs,
                             std::vector<bool>* duplicate) {
  // The batch's events by item, so admission is linear in the batch. The
  // tables are the log's, kept between appends (emptied as each ends), so
  // their memory is warm and never allocated again.
  batch_known_.clear();
  // Emptied entry by entry: clear() would free a table of over 127 slots.
  absl::Cleanup forget_items = [this] {
    for (auto it = batch_items_.begin(); it != batch_items_.end();) batch_items_.erase(it++);
  };
  for (size_t run = 0, begin = 0, end; run < runs.size(); ++run, begin = end) {
    end = runs[run];
    const std::string& item_id = batch[begin].item_id;
    auto [item_known, first_run] =
        batch_items_.try_emplace(item_id, static_cast<uint32_t>(batch_known_.size()));
    if (first_run) batch_known_.emplace_back();
    ItemKnown known;
    if (auto it = indexed_.find(item_id); it != indexed_.end()) {
      known.indexed = it->second.events;
      known.summary = &it->second.summary;
    }
    if (auto it = in_flight_.find(item_id); it != in_flight_.end()) {
      known.in_flight = absl::MakeConstSpan(it->second);
    }
    BatchKnown& of_item = batch_known_[item_known->second];
    known.earlier_in_batch = &of_item;
    for (size_t i = begin; i < end; ++i) {
      absl::StatusOr<bool> dup = IsDuplicate(batch[i], known);
      if (!dup.ok()) return dup.status();
      (*duplicate)[i] = *dup;
      if (!*dup) of_item.Add(batch[i]);
    }
  }
  return absl::OkStatus();
}

void EventLog::AddInFlight(const std::vector<Event>& fresh, const std::vector<uint32_t>& runs) {
  for (size_t run = 0, begin = 0, end; run < runs.size(); ++run, begin = end) {
    end = runs[run];
    EventPtrs& of_item = in_flight_[fresh[begin].item_id];
    for (size_t i = begin; i < end; ++i) of_item.push_back(&fresh[i]);
  }
}

void EventLog::ForgetInFlight(const std::vector<Event>& fresh, const std::vector<uint32_t>& runs) {
  for (size_t run = 0, begin = 0, end; run < runs.size(); ++run, begin = end) {
    end = runs[run];
    auto it = in_flight_.find(fresh[begin].item_id);
    EventPtrs& of_item = it->second;
    of_item.erase(std::remove_if(of_item.begin(), of_item.end(),
                                 [&](const Event* k) {
                                   return k >= &fresh[begin] && k < &fresh[0] + end;
                                 }),
                  of_item.end());
    if (of_item.empty()) in_flight_.erase(it);
  }
}

absl::StatusOr<AppendResult> EventLog::Append(std::vector<Event> batch, Durability durability) {
  if (!writer_) {
    return absl::FailedPreconditionError("this event log is open read-only: appends need a writer");
  }
  // Concurrent appenders share a sync: the writer's leader waits for this
  // batch while it is validated, admitted and encoded.
  ShardWriter::AppenderScope appender(*writer_);
  // The records each thread encodes (a bulk batch's helper encodes some),
  // in spare buffers when there are some.
  std::string first_records, second_records;
  {
    absl::MutexLock lock(&mu_);
    first_records = TakeSparePayload();
    if (batch.size() >= kParallelEvents) second_records = TakeSparePayload();
  }
  // Each event is validated and encoded in one pass, as if the whole batch
  // were new: a batch holding events the log has is encoded again after
  // admission (rare: a retried batch). The helper starts on a bulk batch's
  // chunks while this thread admits the batch, then both finish them.
  std::string* outs[2] = {&first_records, &second_records};
  BatchEncoder encoder(*helper_, batch, outs);
  AppendResult result;
  // A batch is usually one item's events (a checkpoint), or runs of them
  // (bulk): the index, summary and in-flight events of an item are looked
  // up once per run of its events (`runs`: the ends of the runs of `fresh`),
  // not per event.
  std::vector<uint32_t> runs = RunEnds(batch);
  std::vector<bool> duplicate(batch.size());
  absl::Status admitted;
  bool in_flight = false;  // the batch's events are in in_flight_
  {
    absl::MutexLock lock(&mu_);
    admitted = Admit(batch, runs, &duplicate);
    if (admitted.ok() && std::find(duplicate.begin(), duplicate.end(), true) == duplicate.end()) {
      AddInFlight(batch, runs);
      in_flight = true;
    }
  }
  std::vector<RecordBatch> pieces;
  absl::Status valid = encoder.Finish(&pieces);
  if (!valid.ok() || !admitted.ok()) {
    absl::MutexLock lock(&mu_);
    if (in_flight) ForgetInFlight(batch, runs);
    KeepSparePayloads(first_records, second_records);
    return !valid.ok() ? valid : admitted;  // an invalid batch is refused as such
  }
  // The events to write: the batch, compacted in place past its duplicates.
  std::vector<Event>& fresh = batch;
  if (!in_flight) {
    // Some are duplicates: admitted again, as what the log holds may have
    // changed since, with their compaction in the same critical section.
    absl::MutexLock lock(&mu_);
    if (absl::Status again = Admit(batch, runs, &duplicate); !again.ok()) {
      KeepSparePayloads(first_records, second_records);
      return again;
    }
    size_t kept = 0;
    for (size_t i = 0; i < batch.size(); ++i) {
      if (duplicate[i]) {
        ++result.duplicates;
        continue;
      }
      if (kept != i) batch[kept] = std::move(batch[i]);
      ++kept;
    }
    batch.erase(batch.begin() + static_cast<ptrdiff_t>(kept), batch.end());
    if (fresh.empty()) {
      KeepSparePayloads(first_records, second_records);
      return result;
    }
    if (result.duplicates != 0) runs = RunEnds(fresh);
    AddInFlight(fresh, runs);
  }
  // The records to write: the pieces encoded above, or the events left
  // after the duplicates encoded again.
  if (result.duplicates != 0) {
    first_records.clear();
    for (const Event& e : fresh) AppendEventRecord(e, &first_records);
    pieces.assign(1, RecordBatch{static_cast<uint32_t>(fresh.size()), first_records});
  }
  std::vector<DataLocation> blobs;
  for (const Event& e : fresh) {
    if (e.blob_location) blobs.push_back(*e.blob_location);
  }
  size_t payload_bytes = 0;
  for (const RecordBatch& piece : pieces) payload_bytes += piece.payload.size();
  absl::Status appended = absl::OkStatus();
  if (payload_bytes > kMaxFramePayloadBytes) {
    appended = absl::InvalidArgumentError(
        absl::StrCat("a checkpoint batch of ", payload_bytes, " bytes is over the ",
                     kMaxFramePayloadBytes, "-byte limit (offload large values as blobs)"));
  } else {
    // The journal first: an acknowledged event never names an unrecorded blob.
    appended = blob_journal_->Record(std::move(blobs));
    if (appended.ok()) appended = writer_->Append(pieces, durability);
  }
  pieces.clear();
  absl::MutexLock lock(&mu_);
  KeepSparePayloads(first_records, second_records);
  ForgetInFlight(fresh, runs);
  if (!appended.ok()) return appended;
  // The batch is kept whole; moving it keeps its events where they are.
  const std::vector<Event>& kept = stored_.emplace_back(std::move(fresh));
  for (size_t run = 0, begin = 0, end; run < runs.size(); ++run, begin = end) {
    end = runs[run];
    IndexedItem& indexed = IndexedItemOf(kept[begin].item_id);
    std::vector<const Event*>& item = *indexed.events;
    ItemAdmission& summary = indexed.summary;
    if (item.capacity() < item.size() + (end - begin)) {
      item.reserve(std::max(item.size() + (end - begin), 2 * item.capacity()));
    }
    for (size_t i = begin; i < end; ++i) {
      const Event& e = kept[i];
      // A Refresh reading every shard into a new index may have read this
      // shard before this batch: it adds what was appended meanwhile.
      if (rereading_all_) appended_while_rereading_.push_back(e);
      // A Refresh during the write may have read this batch already: only
      // an event not above the item's last can be one it read.
      if (!item.empty() && item.back()->item_seq >= e.item_seq) {
        auto at_seq = std::lower_bound(
            item.begin(), item.end(), e.item_seq,
            [](const Event* k, uint64_t seq) { return k->item_seq < seq; });
        bool known = false;
        for (auto k = at_seq; k != item.end() && (*k)->item_seq == e.item_seq; ++k) {
          known = known || SameEventContent(**k, e);
        }
        if (known) continue;
      }
      summary.Add(e);
      item.push_back(&e);
      // Admission put it above the item's last event; keep the order anyway
      // should a concurrent batch of the same item have landed first.
      for (size_t k = item.size() - 1; k > 0 && item[k - 1]->item_seq > item[k]->item_seq; --k) {
        std::swap(item[k - 1], item[k]);
      }
    }
  }
  result.appended = kept.size();
  return result;
}

absl::StatusOr<std::optional<FoldedItem>> EventLog::Fold(std::string_view item_id) {
  // A text that is no item id is refused, not folded to "no such item".
  if (absl::Status valid = ValidateItemIdText(item_id); !valid.ok()) return valid;
  absl::MutexLock lock(&mu_);
  auto it = index_.find(item_id);
  if (it == index_.end()) return FoldItem(item_id, {}, EventChecks::kValidated);
  return FoldItem(item_id, it->second, EventChecks::kValidated);
}

absl::StatusOr<ItemTree> EventLog::Tree(std::string_view root_item_id) {
  absl::MutexLock lock(&mu_);
  return BuildItemTree(root_item_id, index_, EventChecks::kValidated);
}

absl::StatusOr<RootStatuses> EventLog::Roots() {
  absl::MutexLock lock(&mu_);
  return RootItemStatuses(index_, EventChecks::kValidated);
}

std::vector<FailureRecord> EventLog::AllFailures() {
  absl::MutexLock lock(&mu_);
  std::vector<const Event*> all;
  for (const auto& [item, events] : index_) {
    for (const Event* e : events) {
      if (e->event_type == EventType::kFailed) all.push_back(e);
    }
  }
  return Failures(all);
}

std::vector<Event> EventLog::EventsOfRoot(std::string_view root_item_id) {
  absl::MutexLock lock(&mu_);
  return EventsForRoot(root_item_id, index_);
}

EventLogStats EventLog::Stats() {
  absl::MutexLock lock(&mu_);
  EventLogStats stats;
  stats.shards = shard_count_;
  stats.items = index_.size();
  for (const auto& [item, events] : index_) stats.events += events.size();
  if (writer_) {
    ShardWriter::SyncStats synced = writer_->sync_stats();
    stats.batches_written = synced.frames;
    stats.syncs = synced.syncs;
  }
  return stats;
}

}  // namespace lake::events
