// Listing an S3 stage on several concurrent ListObjectsV2 streams, each
// over a key range of its own (engine/s3/s3_parallel_listing.h), against
// the project's RGW server: every key exactly once, as the serial listing
// has it, whatever the key looks like and however the pages fall.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "engine/s3/s3_parallel_listing.h"
#include "io/s3http/s3_endpoint.h"
#include "tests/support/s3_fixture.h"
#include "tests/support/status_checks.h"

namespace lake {
namespace {

using testing::S3Fixture;
using testing::S3FixtureOptions;

TEST_CASE("key ranges split at boundaries adjoin and leave no key out") {
  std::vector<S3KeyRange> ranges = SplitKeySpace({"b", "d"});
  REQUIRE(ranges.size() == 3);
  CHECK(ranges[0].after.empty());
  CHECK(ranges[0].through == "b");
  CHECK(ranges[1].after == "b");
  CHECK(ranges[1].through == "d");
  CHECK(ranges[2].after == "d");
  CHECK(ranges[2].through.empty());
  std::vector<std::string> hex = HexShardBoundaries("p/objects/");
  REQUIRE(hex.size() == 16);
  CHECK(hex.front() == "p/objects/0");
  CHECK(hex.back() == "p/objects/f");
  CHECK(std::is_sorted(hex.begin(), hex.end()));
}

// Keys of every shape beneath the prefix "lake-data", and some beside it.
const std::vector<std::string>& StrangeKeys() {
  static const std::vector<std::string> keys = {
      "lake-data/_lake/owner",                     // beneath the prefix, not an object
      "lake-data/objects/0",                       // equal to a boundary
      "lake-data/objects/00/018f0000-aaaa",
      "lake-data/objects/0f/018f0000-bbbb",
      "lake-data/objects/1",                       // equal to a boundary
      "lake-data/objects/10/018f0000-cccc",
      "lake-data/objects/7/short-shard",
      "lake-data/objects/9a/018f0000-dddd",
      "lake-data/objects/f",
      "lake-data/objects/ff/018f0000-eeee",
      "lake-data/objects/g/not-hex",               // past every hex boundary
      "lake-data/objects/~tilde",
      "lake-data/objects/\xc3\xa9/utf8",           // a byte above 0x7f
      "lake-data/tenants/acme/objects/3c/018f0000-ffff",
      "lake-data/tenants/b/objects/ff/018f0000-0000",
      "lake-data-evil/objects/00/outside",         // beside the prefix
      "other/objects/00/outside",
  };
  return keys;
}

// A fixture whose bucket holds StrangeKeys and `bulk` keys in shard 5c,
// listed `page_keys` at a time; the bucket goes with it.
struct ListingBucket {
  S3Fixture fixture;
  explicit ListingBucket(int page_keys, int bulk)
      : fixture([&] {
          S3FixtureOptions options;
          options.list_page_keys = page_keys;
          return options;
        }()) {
    std::vector<std::string> keys = StrangeKeys();
    for (int i = 0; i < bulk; ++i) {
      keys.push_back("lake-data/objects/5c/bulk-" + std::to_string(1000 + i));
    }
    std::vector<std::thread> threads;
    std::atomic<size_t> next{0};
    std::atomic<bool> failed{false};
    for (int t = 0; t < 8; ++t) {
      threads.emplace_back([&] {
        for (size_t i = next++; i < keys.size(); i = next++) {
          if (!fixture.client()
                   .PutObject(fixture.bucket(), keys[i], {},
                              std::string(s3http::kEmptyPayloadSha256), "application/octet-stream")
                   .ok()) {
            failed = true;
          }
        }
      });
    }
    for (std::thread& t : threads) t.join();
    REQUIRE_FALSE(failed);
  }
  ~ListingBucket() {
    absl::Status removed = testing::RemoveBucket(fixture.client(), fixture.bucket());
    CHECK_MESSAGE(removed.ok(), removed.ToString());
  }

  std::vector<std::string> Serial() {
    std::vector<std::string> uris;
    LAKE_REQUIRE_OK(fixture.stage().List([&](const ListedObject& o) {
      uris.push_back(o.uri);
      return true;
    }));
    return uris;
  }
  std::vector<std::string> Parallel(size_t streams) {
    std::vector<std::string> uris;
    std::thread::id caller = std::this_thread::get_id();
    bool on_caller = true;
    LAKE_REQUIRE_OK(fixture.stage().ListUnordered(streams, [&](const ListedObject& o) {
      on_caller = on_caller && std::this_thread::get_id() == caller;
      uris.push_back(o.uri);
      return true;
    }));
    CHECK(on_caller);
    std::sort(uris.begin(), uris.end());
    return uris;
  }
};

TEST_CASE("an S3 stage listed on parallel streams lists every object once, as the serial "
          "listing does") {
  ListingBucket bucket(/*page_keys=*/3, /*bulk=*/40);
  std::vector<std::string> serial = bucket.Serial();
  // 14 objects of StrangeKeys (not _lake/owner, nor the two beside the
  // prefix), and the bulk.
  CHECK(serial.size() == 14 + 40);
  std::sort(serial.begin(), serial.end());
  for (size_t streams : {2, 8, 17, 64}) {
    CAPTURE(streams);
    CHECK(bucket.Parallel(streams) == serial);
  }
}

TEST_CASE("a parallel S3 listing stops when told; a missing bucket is its error") {
  ListingBucket bucket(/*page_keys=*/2, /*bulk=*/20);
  size_t seen = 0;
  LAKE_REQUIRE_OK(bucket.fixture.stage().ListUnordered(8, [&](const ListedObject&) {
    return ++seen < 5;
  }));
  CHECK(seen == 5);
  S3ParallelListing listing;
  listing.bucket = testing::UniqueBucketName();
  listing.prefix = "lake-data/";
  listing.ranges = SplitKeySpace(HexShardBoundaries("lake-data/objects/"));
  listing.streams = 8;
  absl::Status failed = ListKeysInParallel(bucket.fixture.client(), listing,
                                           [](const s3http::ListedObject&) { return true; });
  CHECK(absl::IsNotFound(failed));
  listing.streams = 0;
  CHECK(absl::IsInvalidArgument(ListKeysInParallel(
      bucket.fixture.client(), listing, [](const s3http::ListedObject&) { return true; })));
  listing.streams = 8;
  std::swap(listing.ranges[1], listing.ranges[2]);
  CHECK(absl::IsInvalidArgument(ListKeysInParallel(
      bucket.fixture.client(), listing, [](const s3http::ListedObject&) { return true; })));
}

}  // namespace
}  // namespace lake
