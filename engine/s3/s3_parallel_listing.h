// Listing the keys beneath a prefix on several concurrent ListObjectsV2
// streams, each over a key range of its own (issue 20, item 6: an S3
// inventory of 100,000s of keys is one request per 1,000 keys; serially,
// the round trips add up).
//
// Ranges. Boundary keys b1 < b2 < ... < bn split the key space into n + 1
// ranges (-inf, b1], (b1, b2], ..., (bn, +inf): disjoint, and together
// every key. A stream lists its range with start-after = its lower bound
// (none for the first) and stops at the first key past its upper bound,
// dropping the rest of that page (another stream lists it). So every key
// beneath the prefix is listed exactly once, whatever it looks like — a
// key equal to a boundary, or outside the shards the boundaries expect,
// still lies in exactly one range. Keys compare as S3 orders them: by
// their UTF-8 bytes, unsigned.
//
// `emit` runs on the calling thread, in key order within a range but in
// no order across ranges: the streams hand their pages to it through a
// queue of at most `streams` pages, so at most 2 x `streams` pages (of at
// most 1,000 keys) are held, whatever the listing's size. `emit`
// returning false stops every stream after its current request; the
// first failure does too, and is returned.
#ifndef LAKE_ENGINE_S3_S3_PARALLEL_LISTING_H_
#define LAKE_ENGINE_S3_S3_PARALLEL_LISTING_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "io/s3http/s3_client.h"

namespace lake {

// More streams than this gain nothing on one server and risk its limits.
inline constexpr size_t kS3MaxListStreams = 64;

// The keys k with after < k <= through; "" for no bound on that side.
struct S3KeyRange {
  std::string after;
  std::string through;
};

// The ranges that strictly ascending `boundaries` split the key space into.
std::vector<S3KeyRange> SplitKeySpace(const std::vector<std::string>& boundaries);

// The boundaries that split the keys beneath `objects_prefix` ("…/objects/")
// by the first hex digit of their shard: objects_prefix + "0" … + "f".
std::vector<std::string> HexShardBoundaries(const std::string& objects_prefix);

struct S3ParallelListing {
  std::string bucket;
  std::string prefix;
  std::vector<S3KeyRange> ranges;
  size_t streams = 1;  // 1..kS3MaxListStreams
  int page_keys = 1000;                    // smaller only to test paging
};

absl::Status ListKeysInParallel(s3http::S3Client& client, const S3ParallelListing& listing,
                                const std::function<bool(const s3http::ListedObject&)>& emit);

}  // namespace lake

#endif  // LAKE_ENGINE_S3_S3_PARALLEL_LISTING_H_
