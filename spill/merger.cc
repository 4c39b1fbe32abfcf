#include "spill/merger.h"

#include <cstring>
#include <utility>

namespace lake::spill {

uint64_t Merger::BudgetBytes(size_t inputs, size_t max_record_bytes) {
  return inputs * kInputOverheadBytes + max_record_bytes;
}

absl::StatusOr<std::unique_ptr<Merger>> Merger::Create(
    std::vector<std::unique_ptr<RecordSource>> inputs, SpillBudget& budget,
    size_t max_record_bytes) {
  std::unique_ptr<Merger> merger(new Merger());
  absl::StatusOr<SpillCharge> bookkeeping =
      SpillCharge::Take(budget, inputs.size() * kInputOverheadBytes, "the merge's inputs");
  if (!bookkeeping.ok()) return bookkeeping.status();
  absl::StatusOr<SpillBuffer> emitted =
      SpillBuffer::Allocate(budget, max_record_bytes, "the merge's output record");
  if (!emitted.ok()) return emitted.status();
  merger->bookkeeping_ = *std::move(bookkeeping);
  merger->emitted_ = *std::move(emitted);
  merger->inputs_ = std::move(inputs);
  merger->heap_.reserve(merger->inputs_.size());
  for (const std::unique_ptr<RecordSource>& input : merger->inputs_) {
    absl::StatusOr<bool> more = input->Next();
    if (!more.ok()) return more.status();
    if (*more) merger->heap_.push_back({input->record(), input.get()});
  }
  for (size_t i = merger->heap_.size() / 2; i-- > 0;) merger->SiftDown(i);
  return merger;
}

void Merger::SiftDown(size_t i) {
  const size_t n = heap_.size();
  Entry entry = heap_[i];
  for (;;) {
    size_t child = 2 * i + 1;
    if (child >= n) break;
    if (child + 1 < n && heap_[child + 1].record < heap_[child].record) ++child;
    if (!(heap_[child].record < entry.record)) break;
    heap_[i] = heap_[child];
    i = child;
  }
  heap_[i] = entry;
}

// Moves the source at the top to its next record, or out of the heap.
absl::Status Merger::AdvanceTop() {
  Entry& top = heap_.front();
  absl::StatusOr<bool> more = top.source->Next();
  if (!more.ok()) return more.status();
  if (*more) {
    top.record = top.source->record();
  } else {
    top = heap_.back();
    heap_.pop_back();
  }
  if (!heap_.empty()) SiftDown(0);
  return absl::OkStatus();
}

absl::StatusOr<bool> Merger::Next() {
  // The top source still holds the record returned last: move past it and
  // past every other source's copy of it.
  if (has_emitted_) {
    const std::string_view emitted = record();
    do {
      if (absl::Status s = AdvanceTop(); !s.ok()) return s;
    } while (!heap_.empty() && heap_.front().record == emitted);
  }
  if (heap_.empty()) return false;
  const std::string_view top = heap_.front().record;
  if (top.size() > emitted_.size()) {
    return absl::InternalError("spill merge: a record longer than its sources allow");
  }
  std::memcpy(emitted_.data(), top.data(), top.size());
  emitted_bytes_ = top.size();
  has_emitted_ = true;
  return true;
}

}  // namespace lake::spill
