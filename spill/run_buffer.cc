#include "spill/run_buffer.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "spill/run_format.h"

namespace lake::spill {
namespace {

using Entry = RunBuffer::Entry;

constexpr size_t kKeyBytes = sizeof(uint64_t);
// Groups this small are finished by comparing records: fewer loads than
// another level of keys.
constexpr size_t kSmallGroup = 16;
// Levels of keys before the rest of a group is compared bytewise; bounds
// the recursion (records sharing 64 bytes past the common prefix are rare).
constexpr int kMaxKeyLevels = 8;
// How far ahead of its use a record is prefetched when entries are walked
// in an order that is not the records' (after a sort, or in a tied group):
// each record is a cache and TLB miss otherwise.
constexpr size_t kPrefetchDistance = 8;

class Sorter {
 public:
  explicit Sorter(const char* bytes) : bytes_(bytes) {}

  std::string_view Record(const Entry& e) const { return {bytes_ + e.offset, e.length}; }
  void Prefetch(const Entry& e, size_t depth = 0) const {
    __builtin_prefetch(bytes_ + e.offset + depth);
  }

  // Sorts [begin, end), whose records all share their first `depth` bytes.
  void SortGroup(Entry* begin, Entry* end, size_t depth, int level) const {
    if (end - begin < 2) return;
    if (static_cast<size_t>(end - begin) <= kSmallGroup || level == kMaxKeyLevels) {
      std::sort(begin, end, [this, depth](const Entry& a, const Entry& b) {
        return Record(a).substr(depth) < Record(b).substr(depth);
      });
      return;
    }
    for (Entry* e = begin; e != end; ++e) {
      if (end - e > static_cast<ptrdiff_t>(kPrefetchDistance)) Prefetch(e[kPrefetchDistance], depth);
      e->key = KeyAt(*e, depth);
    }
    // Equal keys and fewer real bytes: a prefix of the other, so smaller.
    auto less = [depth](const Entry& a, const Entry& b) {
      return a.key != b.key ? a.key < b.key : KeyBytes(a, depth) < KeyBytes(b, depth);
    };
    std::sort(begin, end, less);
    for (Entry* group = begin; group != end;) {
      Entry* next = group + 1;
      while (next != end && !less(*group, *next)) ++next;
      // Tied on all 8 bytes: the next 8 decide. (Tied on fewer: equal.)
      if (KeyBytes(*group, depth) == kKeyBytes) SortGroup(group, next, depth + kKeyBytes, level + 1);
      group = next;
    }
  }

 private:
  // How many of the record's bytes the key at `depth` holds.
  static size_t KeyBytes(const Entry& e, size_t depth) {
    return e.length > depth ? std::min(kKeyBytes, e.length - depth) : 0;
  }
  // The record's bytes at `depth` as a big-endian integer, zero-padded past
  // its end: integer order is the bytes' order.
  uint64_t KeyAt(const Entry& e, size_t depth) const {
    uint64_t key = 0;
    std::memcpy(&key, bytes_ + e.offset + depth, KeyBytes(e, depth));
    return __builtin_bswap64(key);
  }

  const char* const bytes_;
};

class SortedEntries final : public RecordSource {
 public:
  SortedEntries(const char* bytes, const Entry* begin, const Entry* end)
      : sorter_(bytes), next_(begin), end_(end) {}

  absl::StatusOr<bool> Next() override {
    if (started_) {
      // Skip the copies of the current record.
      while (next_ != end_ && sorter_.Record(*next_) == current_) ++next_;
    }
    started_ = true;
    if (next_ == end_) return false;
    if (end_ - next_ > static_cast<ptrdiff_t>(kPrefetchDistance)) {
      sorter_.Prefetch(next_[kPrefetchDistance]);
    }
    current_ = sorter_.Record(*next_++);
    return true;
  }
  std::string_view record() const override { return current_; }

 private:
  const Sorter sorter_;
  const Entry* next_;
  const Entry* const end_;
  std::string_view current_;
  bool started_ = false;
};

}  // namespace

absl::StatusOr<RunBuffer> RunBuffer::Create(SpillBudget& budget, size_t bytes) {
  bytes = std::min(bytes, kMaxBytes);
  absl::StatusOr<SpillBuffer> buffer = SpillBuffer::Allocate(budget, bytes, "the run being built");
  if (!buffer.ok()) return buffer.status();
  RunBuffer run;
  run.buffer_ = *std::move(buffer);
  // new char[] is aligned for any fundamental type, so aligning the end
  // down aligns every entry.
  run.entries_end_ = bytes / alignof(Entry) * alignof(Entry);
  return run;
}

bool RunBuffer::Add(std::string_view record) {
  const size_t entries_begin = entries_end_ - count_ * sizeof(Entry);
  if (bytes_used_ + Cost(record.size()) > entries_begin) return false;
  std::memcpy(buffer_.data() + bytes_used_, record.data(), record.size());
  ++count_;
  new (entries()) Entry{0, static_cast<uint32_t>(bytes_used_), static_cast<uint32_t>(record.size())};
  bytes_used_ += record.size();
  return true;
}

void RunBuffer::Sort() {
  if (count_ < 2) return;
  Sorter sorter(buffer_.data());
  Entry* begin = entries();
  Entry* end = begin + count_;
  // The prefix every record shares (one pass, in the order they were added).
  const std::string_view first = sorter.Record(*begin);
  size_t common = first.size();
  for (Entry* e = begin + 1; e != end && common > 0; ++e) {
    common = std::min(common, SharedPrefixBytes(first.substr(0, common), sorter.Record(*e)));
  }
  sorter.SortGroup(begin, end, common, 0);
}

std::unique_ptr<RecordSource> RunBuffer::SortedRecords() const {
  return std::make_unique<SortedEntries>(buffer_.data(), entries(), entries() + count_);
}

void RunBuffer::Clear() {
  bytes_used_ = 0;
  count_ = 0;
}

}  // namespace lake::spill
