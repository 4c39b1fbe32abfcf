#include "engine/local/local_range_batch.h"

#include <algorithm>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "engine/range_reader.h"
#include "io/errno_status.h"

namespace lake {
namespace {

class RangeBatch {
 public:
  RangeBatch(absl::Span<RangeRead> ranges, const OpenLocalObjectFn& open)
      : ranges_(ranges), open_(open), file_of_(ranges.size(), nullptr) {}

  // Opens each distinct location once. Every range whose object cannot be
  // opened fails with that open's status, and only those ranges: Run reads
  // exactly the ranges that have a file, so a range left OK without one
  // would claim bytes it never read.
  void OpenFiles() {
    const DataLocation* last = nullptr;
    absl::StatusOr<io::File*> last_file = nullptr;
    for (size_t i = 0; i < ranges_.size(); ++i) {
      RangeRead& range = ranges_[i];
      if (!range.status.ok()) continue;
      range.bytes_read = 0;
      if (range.location != last) {
        last = range.location;
        last_file = FileFor(*range.location);
      }
      if (last_file.ok()) {
        file_of_[i] = *last_file;
      } else {
        range.status = last_file.status();
      }
    }
  }

  void Run(io::IoQueue& queue) {
    size_t next = 0;
    std::vector<io::IoCompletion> completions;
    completions.reserve(queue.depth());
    for (;;) {
      while (queue.in_flight() < queue.depth() && next < ranges_.size()) {
        if (file_of_[next] != nullptr) Prepare(queue, next);
        ++next;
      }
      if (queue.in_flight() == 0) return;
      completions.clear();
      if (absl::Status s = queue.SubmitAndReap(1, &completions); !s.ok()) {
        FailUnfinished(s, next);
        return;
      }
      for (const io::IoCompletion& c : completions) Complete(queue, c);
    }
  }

 private:
  absl::StatusOr<io::File*> FileFor(const DataLocation& location) {
    auto it = open_files_.find(location.uri);
    if (it != open_files_.end()) return it->second.get();
    absl::StatusOr<std::unique_ptr<io::File>> file = open_(location);
    if (!file.ok()) return file.status();
    io::File* raw = file->get();
    open_files_.emplace(location.uri, std::move(*file));
    return raw;
  }

  void Prepare(io::IoQueue& queue, size_t i) {
    RangeRead& range = ranges_[i];
    queue.PrepareRead(*file_of_[i], range.buffer + range.bytes_read,
                      range.end - range.start - range.bytes_read,
                      range.start + range.bytes_read, i);
  }

  void Complete(io::IoQueue& queue, const io::IoCompletion& c) {
    RangeRead& range = ranges_[c.tag];
    uint64_t length = range.end - range.start;
    if (c.result < 0) {
      range.status = io::ErrnoStatus(static_cast<int>(-c.result), "read",
                                     file_of_[c.tag]->path());
    } else if (c.result == 0) {
      range.status = PrematureEofError(length, range.bytes_read,
                                       ByteRange{range.start, range.end},
                                       range.location->uri);
    } else {
      range.bytes_read += static_cast<uint64_t>(c.result);
      if (range.bytes_read < length) Prepare(queue, c.tag);  // continue it
    }
  }

  void FailUnfinished(const absl::Status& status, size_t next) {
    for (size_t i = 0; i < ranges_.size(); ++i) {
      RangeRead& range = ranges_[i];
      bool unfinished = range.status.ok() &&
                        (i >= next || range.bytes_read < range.end - range.start);
      if (unfinished) range.status = status;
    }
  }

  absl::Span<RangeRead> ranges_;
  const OpenLocalObjectFn& open_;
  std::vector<io::File*> file_of_;
  absl::flat_hash_map<std::string, std::unique_ptr<io::File>> open_files_;
};

}  // namespace

void ReadLocalRanges(io::FileSystem& fs, absl::Span<RangeRead> ranges,
                     const OpenLocalObjectFn& open) {
  RangeBatch batch(ranges, open);
  batch.OpenFiles();
  unsigned depth = static_cast<unsigned>(
      std::min<size_t>(kRangeBatchQueueDepth, std::max<size_t>(1, ranges.size())));
  absl::StatusOr<std::unique_ptr<io::IoQueue>> queue = fs.NewIoQueue(depth);
  if (!queue.ok()) {
    for (RangeRead& range : ranges) {
      if (range.status.ok()) range.status = queue.status();
    }
    return;
  }
  batch.Run(**queue);
}

}  // namespace lake
