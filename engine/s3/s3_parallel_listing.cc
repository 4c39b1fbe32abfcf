#include "engine/s3/s3_parallel_listing.h"

#include <algorithm>
#include <atomic>
#include <deque>
#include <optional>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"

namespace lake {
namespace {

using Page = std::vector<s3http::ListedObject>;

// The streams (producers) and the calling thread (the consumer, which
// runs `emit`) meet at a queue of at most `streams` pages.
class PageQueue {
 public:
  explicit PageQueue(size_t capacity, size_t producers)
      : capacity_(capacity), producers_(producers) {}

  // Waits for room; false when the listing stopped (the page is dropped).
  bool Push(Page page) {
    absl::MutexLock lock(&mu_);
    mu_.Await(absl::Condition(this, &PageQueue::HasRoomOrStopped));
    if (stopped_) return false;
    pages_.push_back(std::move(page));
    return true;
  }
  // The next page; nullopt once every producer is done or the listing
  // stopped.
  std::optional<Page> Pop() {
    absl::MutexLock lock(&mu_);
    mu_.Await(absl::Condition(this, &PageQueue::HasPageOrEnded));
    if (stopped_ || pages_.empty()) return std::nullopt;
    Page page = std::move(pages_.front());
    pages_.pop_front();
    return page;
  }
  void ProducerDone() {
    absl::MutexLock lock(&mu_);
    --producers_;
  }
  // Stops the listing with `status` (OK: the consumer is done); the first
  // stop decides the outcome.
  void Stop(const absl::Status& status) {
    absl::MutexLock lock(&mu_);
    if (stopped_) return;
    stopped_ = true;
    failure_ = status;
  }
  bool stopped() {
    absl::MutexLock lock(&mu_);
    return stopped_;
  }
  absl::Status failure() {
    absl::MutexLock lock(&mu_);
    return failure_;
  }

 private:
  bool HasRoomOrStopped() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return stopped_ || pages_.size() < capacity_;
  }
  bool HasPageOrEnded() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return stopped_ || !pages_.empty() || producers_ == 0;
  }

  const size_t capacity_;
  absl::Mutex mu_;
  size_t producers_ ABSL_GUARDED_BY(mu_);
  bool stopped_ ABSL_GUARDED_BY(mu_) = false;
  absl::Status failure_ ABSL_GUARDED_BY(mu_);
  std::deque<Page> pages_ ABSL_GUARDED_BY(mu_);
};

// Lists one range page by page into the queue, each page cut at the
// range's upper bound.
absl::Status ListRange(s3http::S3Client& client, const S3ParallelListing& listing,
                       const S3KeyRange& range, PageQueue& queue) {
  std::string token;
  for (;;) {
    absl::StatusOr<s3http::ListObjectsV2Result> page = client.ListObjectsV2(
        listing.bucket, listing.prefix, token, range.after, listing.page_keys);
    if (!page.ok()) return page.status();
    Page keys = std::move(page->contents);
    bool past_range = false;
    if (!range.through.empty()) {
      auto beyond = std::find_if(keys.begin(), keys.end(), [&](const s3http::ListedObject& o) {
        return o.key > range.through;
      });
      past_range = beyond != keys.end();
      keys.erase(beyond, keys.end());
    }
    if (!keys.empty() && !queue.Push(std::move(keys))) return absl::OkStatus();
    if (past_range || !page->is_truncated) return absl::OkStatus();
    if (page->next_continuation_token.empty() || page->next_continuation_token == token) {
      return absl::UnknownError("ListObjectsV2 is truncated without a new continuation token");
    }
    token = page->next_continuation_token;
  }
}

}  // namespace

std::vector<S3KeyRange> SplitKeySpace(const std::vector<std::string>& boundaries) {
  std::vector<S3KeyRange> ranges;
  std::string after;
  for (const std::string& boundary : boundaries) {
    ranges.push_back(S3KeyRange{after, boundary});
    after = boundary;
  }
  ranges.push_back(S3KeyRange{after, ""});
  return ranges;
}

std::vector<std::string> HexShardBoundaries(const std::string& objects_prefix) {
  std::vector<std::string> boundaries;
  for (char digit : std::string_view("0123456789abcdef")) {
    boundaries.push_back(absl::StrCat(objects_prefix, std::string(1, digit)));
  }
  return boundaries;
}

absl::Status ListKeysInParallel(s3http::S3Client& client, const S3ParallelListing& listing,
                                const std::function<bool(const s3http::ListedObject&)>& emit) {
  if (listing.streams < 1 || listing.streams > kS3MaxListStreams) {
    return absl::InvalidArgumentError(absl::StrCat("S3 listing streams must be 1..",
                                                   kS3MaxListStreams, ", not ", listing.streams));
  }
  for (size_t i = 0; i < listing.ranges.size(); ++i) {
    const S3KeyRange& range = listing.ranges[i];
    bool empty = !range.after.empty() && !range.through.empty() && range.through <= range.after;
    bool detached = i > 0 && (listing.ranges[i - 1].through.empty() ||
                              range.after != listing.ranges[i - 1].through);
    if (empty || detached) {
      return absl::InvalidArgumentError("S3 listing ranges must adjoin, in ascending order");
    }
  }
  size_t workers = std::min(listing.streams, listing.ranges.size());
  PageQueue queue(listing.streams, workers);
  std::atomic<size_t> next_range{0};
  auto stream = [&] {
    for (size_t i = next_range++; i < listing.ranges.size() && !queue.stopped();
         i = next_range++) {
      if (absl::Status s = ListRange(client, listing, listing.ranges[i], queue); !s.ok()) {
        queue.Stop(s);
      }
    }
    queue.ProducerDone();
  };
  std::vector<std::thread> threads;
  for (size_t i = 0; i < workers; ++i) threads.emplace_back(stream);
  // emit runs here, on the caller's thread.
  while (std::optional<Page> page = queue.Pop()) {
    bool go_on = true;
    for (const s3http::ListedObject& object : *page) {
      if (!(go_on = emit(object))) break;
    }
    if (!go_on) break;
  }
  queue.Stop(absl::OkStatus());  // lets a stream waiting for room end
  for (std::thread& thread : threads) thread.join();
  return queue.failure();
}

}  // namespace lake
