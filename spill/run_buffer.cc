#include "spill/run_buffer.h"

#include <algorithm>
#include <cstring>
#include <utility>

namespace lake::spill {
namespace {

class SortedViews final : public RecordSource {
 public:
  SortedViews(const std::string_view* begin, const std::string_view* end)
      : next_(begin), end_(end) {}

  absl::StatusOr<bool> Next() override {
    if (started_) {
      // Skip the copies of the current record.
      while (next_ != end_ && *next_ == current_) ++next_;
    }
    started_ = true;
    if (next_ == end_) return false;
    current_ = *next_++;
    return true;
  }
  std::string_view record() const override { return current_; }

 private:
  const std::string_view* next_;
  const std::string_view* const end_;
  std::string_view current_;
  bool started_ = false;
};

}  // namespace

absl::StatusOr<RunBuffer> RunBuffer::Create(SpillBudget& budget, size_t bytes) {
  absl::StatusOr<SpillBuffer> buffer = SpillBuffer::Allocate(budget, bytes, "the run being built");
  if (!buffer.ok()) return buffer.status();
  RunBuffer run;
  run.buffer_ = *std::move(buffer);
  // new char[] is aligned for any fundamental type, so aligning the end
  // down aligns every view.
  run.views_end_ = bytes / alignof(std::string_view) * alignof(std::string_view);
  return run;
}

bool RunBuffer::Add(std::string_view record) {
  const size_t views_begin = views_end_ - count_ * sizeof(std::string_view);
  if (bytes_used_ + Cost(record.size()) > views_begin) return false;
  char* bytes = buffer_.data() + bytes_used_;
  std::memcpy(bytes, record.data(), record.size());
  bytes_used_ += record.size();
  ++count_;
  new (views()) std::string_view(bytes, record.size());
  return true;
}

void RunBuffer::Sort() { std::sort(views(), views() + count_); }

std::unique_ptr<RecordSource> RunBuffer::SortedRecords() const {
  return std::make_unique<SortedViews>(views(), views() + count_);
}

void RunBuffer::Clear() {
  bytes_used_ = 0;
  count_ = 0;
}

}  // namespace lake::spill
