// The S3 stage through a fault-injecting proxy in front of a real S3 server
// (Ceph RGW on loopback): 5xx answers, resets and truncations mid-body,
// Range ignored, wrong Content-Range and Content-Length, stalls, and a lost
// CompleteMultipartUpload answer. Each ends in success after a retry or a
// resume, or in a typed error — and never in a DataLocation for an object
// that is not complete and verified: every DataLocation made here is read
// back verified, directly from the server.
#include <curl/curl.h>
#include <doctest/doctest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "base/buffer_budget.h"
#include "engine/location_uri.h"
#include "engine/s3/s3_object_stream.h"
#include "tests/support/budget_limit.h"
#include "tests/support/fault_http_proxy.h"
#include "tests/support/s3_fixture.h"
#include "tests/support/stage_fixture.h"
#include "tests/support/status_checks.h"

namespace lake {
namespace {

using testing::Fault;
using testing::FaultHttpProxy;
using testing::ProxiedRequest;
using testing::RequestMatcher;
using testing::S3Fixture;
using testing::S3FixtureOptions;

constexpr size_t kPart = 256 * 1024;  // the fixture's part size

// CHECKs that a status (or a StatusOr's) satisfies `is`; prints it if not.
#define CHECK_STATUS(is, expr)                                   \
  do {                                                           \
    absl::Status check_status_ = ::lake::testing::StatusOf(expr); \
    CHECK_MESSAGE(is(check_status_), check_status_.ToString());  \
  } while (0)

// A stage whose every request goes through a fault proxy, and a second
// handle on the same bucket and prefix that talks to the server directly
// (to judge what really got stored, whatever the proxy does).
class ProxiedStage {
 public:
  explicit ProxiedStage(S3FixtureOptions options = {})
      : proxy_({testing::TestEndpoint(), testing::TestCredentials()}),
        fixture_(WithEndpoint(options, proxy_.url())),
        direct_(fixture_.OpenAnother(Direct(options))) {}

  FaultHttpProxy& proxy() { return proxy_; }
  ManagedStage& stage() { return fixture_.stage(); }
  ManagedStage& direct() { return *direct_; }
  s3http::S3Client& direct_client() {
    return static_cast<S3ObjectStore&>(direct_->store()).client();
  }
  const std::string& bucket() const { return fixture_.bucket(); }

  absl::StatusOr<DataLocation> Upload(const std::vector<uint8_t>& bytes) {
    return fixture_.UploadBytes(bytes);
  }
  // An object stored without the proxy, for the read tests.
  DataLocation Stored(const std::vector<uint8_t>& bytes) {
    testing::MemorySource source(bytes);
    absl::StatusOr<DataLocation> location = direct_->Upload(source, {});
    REQUIRE_MESSAGE(location.ok(), location.status().ToString());
    ExpectReadsBackVerified(*location, bytes);
    return *location;
  }

  // The promise every DataLocation keeps: read back from the server itself,
  // the whole object verifies and holds exactly `bytes`.
  void ExpectReadsBackVerified(const DataLocation& location, const std::vector<uint8_t>& bytes) {
    CHECK(location.size_bytes == bytes.size());
    CHECK(location.sha256 == testing::Sha256Hex(bytes));
    absl::StatusOr<std::unique_ptr<ObjectReader>> reader = direct_->OpenVerified(location);
    REQUIRE_MESSAGE(reader.ok(), reader.status().ToString());
    std::vector<uint8_t> out;
    LAKE_REQUIRE_OK(testing::ReadAll(**reader, &out));
    CHECK((*reader)->verified());
    CHECK(out == bytes);
  }

 private:
  static S3FixtureOptions WithEndpoint(S3FixtureOptions options, std::string endpoint) {
    options.endpoint = std::move(endpoint);
    return options;
  }
  // The same objects, with the default transport and retries.
  static S3FixtureOptions Direct(const S3FixtureOptions& options) {
    S3FixtureOptions direct;
    direct.prefix = options.prefix;
    direct.tenant = options.tenant;
    direct.endpoint = testing::TestEndpoint();
    return direct;
  }

  FaultHttpProxy proxy_;
  S3Fixture fixture_;
  std::unique_ptr<ManagedStage> direct_;
};

RequestMatcher UploadPart() { return {.method = "PUT", .query_contains = "partNumber="}; }
RequestMatcher Complete() { return {.method = "POST", .query_contains = "uploadId="}; }
RequestMatcher ObjectGet() { return {.method = "GET", .path_contains = "/objects/"}; }
RequestMatcher WholeGet() {
  return {.method = "GET", .path_contains = "/objects/", .with_range = false};
}
RequestMatcher RangedGet() {
  return {.method = "GET", .path_contains = "/objects/", .with_range = true};
}

std::vector<ProxiedRequest> RequestsOf(const FaultHttpProxy& proxy, const std::string& method) {
  std::vector<ProxiedRequest> out;
  for (const ProxiedRequest& request : proxy.Requests()) {
    if (request.method == method) out.push_back(request);
  }
  return out;
}

std::string KeyOf(const DataLocation& location) { return ParseLocationUri(location.uri)->path; }

// A verified full read through `stage`: the bytes, or the failure.
struct FullRead {
  absl::Status status;
  std::vector<uint8_t> bytes;
  bool verified = false;
};

FullRead ReadWhole(ManagedStage& stage, const DataLocation& location) {
  FullRead read;
  absl::StatusOr<std::unique_ptr<ObjectReader>> reader = stage.OpenVerified(location);
  if (!reader.ok()) {
    read.status = reader.status();
    return read;
  }
  read.status = testing::ReadAll(**reader, &read.bytes);
  read.verified = (*reader)->verified();
  return read;
}

absl::StatusOr<std::vector<uint8_t>> ReadRange(ManagedStage& stage, const DataLocation& location,
                                               ByteRange range) {
  absl::StatusOr<std::unique_ptr<ObjectReader>> reader = stage.OpenRange(location, range);
  if (!reader.ok()) return reader.status();
  std::vector<uint8_t> out;
  if (absl::Status s = testing::ReadAll(**reader, &out); !s.ok()) return s;
  return out;
}

std::vector<uint8_t> Slice(const std::vector<uint8_t>& bytes, ByteRange range) {
  return std::vector<uint8_t>(bytes.begin() + static_cast<long>(range.start),
                              bytes.begin() + static_cast<long>(range.end));
}

int Listed(ManagedStage& stage) {
  int listed = 0;
  LAKE_REQUIRE_OK(stage.List([&](const ListedObject&) {
    ++listed;
    return true;
  }));
  return listed;
}

// The multipart upload the proxy saw aborted (DELETE ?uploadId=) is gone
// on the server: ListParts answers NotFound.
void ExpectUploadAborted(ProxiedStage& s) {
  std::vector<ProxiedRequest> deletes = RequestsOf(s.proxy(), "DELETE");
  REQUIRE(deletes.size() >= 1);
  const ProxiedRequest& abort = deletes.back();
  absl::string_view query = abort.query;
  REQUIRE(absl::ConsumePrefix(&query, "uploadId="));
  std::string key = abort.path.substr(s.bucket().size() + 2);  // "/bucket/key"
  int length = 0;
  char* decoded = curl_easy_unescape(nullptr, query.data(), static_cast<int>(query.size()), &length);
  std::string upload_id(decoded, static_cast<size_t>(length));
  curl_free(decoded);
  CHECK_STATUS(absl::IsNotFound, s.direct_client().ListParts(s.bucket(), key, upload_id, 0).status());
}

// The first byte a resumed GET asked for ("bytes=N-" or "bytes=N-M").
uint64_t RangeStart(const ProxiedRequest& request) {
  const std::string* range = request.Header("range");
  REQUIRE(range != nullptr);
  absl::string_view spec = *range;
  REQUIRE(absl::ConsumePrefix(&spec, "bytes="));
  uint64_t start = 0;
  REQUIRE(absl::SimpleAtoi(spec.substr(0, spec.find('-')), &start));
  return start;
}

// ---------------------------------------------------------------------------
// The proxy itself.

TEST_CASE("S3 faults: without rules the proxy is transparent to every call a stage makes") {
  ProxiedStage s;
  std::vector<uint8_t> bytes = testing::RandomBytes(kPart + 1000, 10);
  absl::StatusOr<DataLocation> location = s.Upload(bytes);
  LAKE_REQUIRE_OK(location);
  s.ExpectReadsBackVerified(*location, bytes);
  FullRead read = ReadWhole(s.stage(), *location);
  LAKE_REQUIRE_OK(read.status);
  CHECK(read.verified);
  CHECK(read.bytes == bytes);
  absl::StatusOr<std::vector<uint8_t>> range = ReadRange(s.stage(), *location, {5, 70000});
  LAKE_REQUIRE_OK(range);
  CHECK(*range == Slice(bytes, {5, 70000}));
  CHECK(Listed(s.stage()) == 1);  // RGW sends this answer chunked
  LAKE_REQUIRE_OK(s.stage().Delete(*location));
  CHECK(Listed(s.direct()) == 0);

  std::vector<ProxiedRequest> requests = s.proxy().Requests();
  CHECK(requests.size() >= 10);  // bucket, create, 2 parts, complete, HEAD, GETs, list, delete
  CHECK(s.proxy().forwarded() >= static_cast<int>(requests.size()));
  for (const ProxiedRequest& request : requests) CHECK(request.rule == -1);
}

// ---------------------------------------------------------------------------
// 5xx answers.

TEST_CASE("S3 faults: an UploadPart answered 500 or 503 once is retried and the object verifies") {
  ProxiedStage s;
  for (const Fault& fault : {Fault::Respond(500), Fault::Respond(503),
                             Fault::RespondWithoutBody(503)}) {
    CAPTURE(fault.status);
    std::vector<uint8_t> bytes = testing::RandomBytes(kPart + 1000, fault.status);
    int rule = s.proxy().AddRule(UploadPart(), fault, 1);
    absl::StatusOr<DataLocation> location = s.Upload(bytes);
    LAKE_REQUIRE_OK(location);
    CHECK(s.proxy().fired(rule) == 1);
    CHECK(s.proxy().matched(rule) == 3);  // two parts, one of them twice
    s.ExpectReadsBackVerified(*location, bytes);
  }
}

TEST_CASE("S3 faults: a GET answered 500 or 503 once is retried; full and range reads are exact") {
  ProxiedStage s;
  std::vector<uint8_t> bytes = testing::RandomBytes(300000, 20);
  DataLocation location = s.Stored(bytes);
  for (const Fault& fault : {Fault::Respond(500), Fault::Respond(503),
                             Fault::RespondWithoutBody(503)}) {
    CAPTURE(fault.status);
    int whole = s.proxy().AddRule(WholeGet(), fault, 1);
    FullRead read = ReadWhole(s.stage(), location);
    LAKE_REQUIRE_OK(read.status);
    CHECK(read.verified);
    CHECK(read.bytes == bytes);
    CHECK(s.proxy().fired(whole) == 1);

    int ranged = s.proxy().AddRule(RangedGet(), fault, 1);
    absl::StatusOr<std::vector<uint8_t>> range = ReadRange(s.stage(), location, {1000, 200000});
    LAKE_REQUIRE_OK(range);
    CHECK(*range == Slice(bytes, {1000, 200000}));
    CHECK(s.proxy().fired(ranged) == 1);
  }
}

TEST_CASE("S3 faults: a CompleteMultipartUpload answered 500 or 503 once is retried and the object verifies") {
  ProxiedStage s;
  for (const Fault& fault : {Fault::Respond(500), Fault::Respond(503),
                             Fault::RespondWithoutBody(503)}) {
    CAPTURE(fault.status);
    std::vector<uint8_t> bytes = testing::RandomBytes(kPart + 1000, 30 + fault.status);
    int rule = s.proxy().AddRule(Complete(), fault, 1);
    absl::StatusOr<DataLocation> location = s.Upload(bytes);
    LAKE_REQUIRE_OK(location);
    CHECK(s.proxy().fired(rule) == 1);
    CHECK(s.proxy().matched(rule) == 2);
    s.ExpectReadsBackVerified(*location, bytes);
  }
}

TEST_CASE("S3 faults: UploadPart answered 503 every time is Unavailable; nothing is listed and the upload is aborted") {
  ProxiedStage s;
  int rule = s.proxy().AddRule(UploadPart(), Fault::Respond(503), testing::kEveryRequest);
  absl::StatusOr<DataLocation> location = s.Upload(testing::RandomBytes(kPart + 1000, 40));
  CHECK_STATUS(absl::IsUnavailable, location.status());
  CHECK(s.proxy().fired(rule) >= S3FixtureOptions{}.retry.max_attempts);
  CHECK(Listed(s.direct()) == 0);
  ExpectUploadAborted(s);
}

TEST_CASE("S3 faults: a GET answered 503 every time is Unavailable after the policy's attempts") {
  ProxiedStage s;
  DataLocation location = s.Stored(testing::RandomBytes(1000, 41));
  int rule = s.proxy().AddRule(ObjectGet(), Fault::Respond(503), testing::kEveryRequest);
  FullRead read = ReadWhole(s.stage(), location);
  CHECK_STATUS(absl::IsUnavailable, read.status);
  CHECK_FALSE(read.verified);
  CHECK(s.proxy().fired(rule) == S3FixtureOptions{}.retry.max_attempts);
  CHECK_STATUS(absl::IsUnavailable, s.stage().OpenRange(location, {0, 10}).status());
}

TEST_CASE("S3 faults: CompleteMultipartUpload failing every time is Unavailable; no object exists and the upload is aborted") {
  ProxiedStage s;
  int rule = s.proxy().AddRule(Complete(), Fault::Respond(503), testing::kEveryRequest);
  absl::StatusOr<DataLocation> location = s.Upload(testing::RandomBytes(kPart + 1000, 42));
  CHECK_STATUS(absl::IsUnavailable, location.status());
  CHECK(s.proxy().fired(rule) == S3FixtureOptions{}.retry.max_attempts);
  // The failure was settled by what the key is: nothing.
  CHECK(RequestsOf(s.proxy(), "HEAD").size() == 1);
  CHECK(Listed(s.direct()) == 0);
  ExpectUploadAborted(s);
}

// ---------------------------------------------------------------------------
// Broken bodies.

TEST_CASE("S3 faults: a verified GET reset mid-body resumes with Range and If-Match and verifies") {
  ProxiedStage s;
  std::vector<uint8_t> bytes = testing::RandomBytes(600000, 50);
  DataLocation location = s.Stored(bytes);
  int rule = s.proxy().AddRule(WholeGet(), Fault::ResetAfterBodyBytes(200000), 1);
  FullRead read = ReadWhole(s.stage(), location);
  LAKE_REQUIRE_OK(read.status);
  CHECK(read.verified);
  CHECK(read.bytes == bytes);
  CHECK(s.proxy().fired(rule) == 1);

  std::vector<ProxiedRequest> gets = RequestsOf(s.proxy(), "GET");
  REQUIRE(gets.size() == 2);
  CHECK(gets[0].Header("range") == nullptr);
  uint64_t resumed_at = RangeStart(gets[1]);
  CHECK(resumed_at > 0);
  CHECK(resumed_at <= 200000);
  CHECK(*gets[1].Header("range") == absl::StrCat("bytes=", resumed_at, "-"));
  const std::string* if_match = gets[1].Header("if-match");
  REQUIRE(if_match != nullptr);
  absl::StatusOr<s3http::ObjectInfo> info = s.direct_client().HeadObject(s.bucket(), KeyOf(location));
  LAKE_REQUIRE_OK(info);
  CHECK(*s3http::ParseETag(*if_match) == info->etag);
}

TEST_CASE("S3 faults: a truncated GET body is resumed, or ends in a typed error, never in a short read") {
  ProxiedStage s;
  std::vector<uint8_t> bytes = testing::RandomBytes(600000, 51);
  DataLocation location = s.Stored(bytes);

  SUBCASE("a whole read cut once resumes and verifies") {
    int rule = s.proxy().AddRule(WholeGet(), Fault::TruncateAfterBodyBytes(100000), 1);
    FullRead read = ReadWhole(s.stage(), location);
    LAKE_REQUIRE_OK(read.status);
    CHECK(read.verified);
    CHECK(read.bytes == bytes);
    CHECK(s.proxy().fired(rule) == 1);
    std::vector<ProxiedRequest> gets = RequestsOf(s.proxy(), "GET");
    REQUIRE(gets.size() == 2);
    CHECK(RangeStart(gets[1]) == 100000);
    CHECK(gets[1].Header("if-match") != nullptr);
  }
  SUBCASE("a range cut once resumes for the rest of the interval only") {
    int rule = s.proxy().AddRule(RangedGet(), Fault::TruncateAfterBodyBytes(100000), 1);
    absl::StatusOr<std::vector<uint8_t>> range = ReadRange(s.stage(), location, {1000, 500000});
    LAKE_REQUIRE_OK(range);
    CHECK(*range == Slice(bytes, {1000, 500000}));
    CHECK(s.proxy().fired(rule) == 1);
    std::vector<ProxiedRequest> gets = RequestsOf(s.proxy(), "GET");
    REQUIRE(gets.size() == 2);
    CHECK(*gets[1].Header("range") == "bytes=101000-499999");
  }
  SUBCASE("a body cut every time fails typed after the resumes, unverified") {
    int rule = s.proxy().AddRule(ObjectGet(), Fault::TruncateAfterBodyBytes(30000),
                                 testing::kEveryRequest);
    FullRead read = ReadWhole(s.stage(), location);
    CHECK_STATUS(absl::IsUnavailable, read.status);
    CHECK_FALSE(read.verified);
    CHECK(read.bytes.size() < bytes.size());
    CHECK(s.proxy().fired(rule) == 1 + kS3MaxResumes);
  }
}

// ---------------------------------------------------------------------------
// Answers that do not match the range asked for.

TEST_CASE("S3 faults: a range answered 200 with the whole object is refused before its body, without a HEAD") {
  ProxiedStage s;
  std::vector<uint8_t> bytes = testing::RandomBytes(300000, 60);
  DataLocation location = s.Stored(bytes);

  int rule = s.proxy().AddRule(RangedGet(), Fault::IgnoreRange(), 1);
  absl::Status status = s.stage().OpenRange(location, {1000, 2000}).status();
  CHECK_STATUS(absl::IsDataLoss, status);
  CHECK(absl::StrContains(status.message(), "ignored Range"));
  CHECK(s.proxy().fired(rule) == 1);
  CHECK(RequestsOf(s.proxy(), "GET").size() == 1);  // refused, not retried
  CHECK(RequestsOf(s.proxy(), "HEAD").empty());

  // In a batch, only the range whose answer ignored Range fails.
  s.proxy().ClearLog();
  int batch_rule = s.proxy().AddRule(RangedGet(), Fault::IgnoreRange(), 1);
  std::vector<RangeRead> ranges(3);
  std::vector<std::vector<uint8_t>> buffers(3, std::vector<uint8_t>(1000));
  for (size_t i = 0; i < ranges.size(); ++i) {
    ranges[i] = RangeRead{&location, i * 50000, i * 50000 + 1000, buffers[i].data()};
  }
  s.stage().ReadRanges(absl::MakeSpan(ranges));
  CHECK(s.proxy().fired(batch_rule) == 1);
  int refused = 0;
  for (size_t i = 0; i < ranges.size(); ++i) {
    CAPTURE(i);
    if (!ranges[i].status.ok()) {
      CHECK_STATUS(absl::IsDataLoss, ranges[i].status);
      ++refused;
      continue;
    }
    CHECK(buffers[i] == Slice(bytes, {ranges[i].start, ranges[i].end}));
  }
  CHECK(refused == 1);
  CHECK(RequestsOf(s.proxy(), "HEAD").empty());
}

TEST_CASE("S3 faults: a range whose Content-Range names another interval or another total is refused") {
  ProxiedStage s;
  std::vector<uint8_t> bytes = testing::RandomBytes(300000, 61);
  DataLocation location = s.Stored(bytes);
  const uint64_t n = bytes.size();
  for (const std::string& wrong :
       {std::string("bytes 1001-2000/") + std::to_string(n),   // shifted by one
        std::string("bytes 0-999/") + std::to_string(n),       // another interval
        std::string("bytes 1000-1999/") + std::to_string(n + 1),  // another total
        std::string("bytes 1000-1999/*")}) {                   // an unknown total
    CAPTURE(wrong);
    int rule = s.proxy().AddRule(RangedGet(), Fault::RewriteContentRange(wrong), 1);
    absl::Status status = s.stage().OpenRange(location, {1000, 2000}).status();
    CHECK_STATUS(absl::IsDataLoss, status);
    CHECK(s.proxy().fired(rule) == 1);
  }
  CHECK(RequestsOf(s.proxy(), "HEAD").empty());
}

TEST_CASE("S3 faults: a resumed GET whose Content-Range does not continue where the body broke is refused") {
  ProxiedStage s;
  std::vector<uint8_t> bytes = testing::RandomBytes(600000, 62);
  DataLocation location = s.Stored(bytes);
  const uint64_t n = bytes.size();

  SUBCASE("a whole read resumed from the start of the object") {
    s.proxy().AddRule(WholeGet(), Fault::TruncateAfterBodyBytes(100000), 1);
    int rule = s.proxy().AddRule(
        RangedGet(), Fault::RewriteContentRange(absl::StrCat("bytes 0-", n - 1, "/", n)), 1);
    FullRead read = ReadWhole(s.stage(), location);
    CHECK_STATUS(absl::IsDataLoss, read.status);
    CHECK_FALSE(read.verified);
    CHECK(s.proxy().fired(rule) == 1);
  }
  SUBCASE("a range resumed with the right interval of an object of another size") {
    // [1000, 500000) cut after 100000 bytes resumes with bytes=101000-499999.
    s.proxy().AddRule(RangedGet(), Fault::TruncateAfterBodyBytes(100000), 1);
    int rule = s.proxy().AddRule(
        RangedGet(), Fault::RewriteContentRange(absl::StrCat("bytes 101000-499999/", n + 1)), 1);
    absl::StatusOr<std::vector<uint8_t>> range = ReadRange(s.stage(), location, {1000, 500000});
    CHECK_STATUS(absl::IsDataLoss, range.status());
    CHECK(s.proxy().fired(rule) == 1);
  }
}

TEST_CASE("S3 faults: a range whose Content-Length differs from its interval is refused") {
  ProxiedStage s;
  std::vector<uint8_t> bytes = testing::RandomBytes(300000, 63);
  DataLocation location = s.Stored(bytes);
  for (uint64_t wrong : {uint64_t{999}, uint64_t{1001}, uint64_t{0}}) {
    CAPTURE(wrong);
    int rule = s.proxy().AddRule(RangedGet(), Fault::RewriteContentLength(wrong), 1);
    absl::Status status = s.stage().OpenRange(location, {1000, 2000}).status();
    CHECK_STATUS(absl::IsDataLoss, status);
    CHECK(s.proxy().fired(rule) == 1);
  }
}

TEST_CASE("S3 faults: a whole GET with a wrong Content-Length is a size failure or resumes; it verifies only when every byte came") {
  ProxiedStage s;
  std::vector<uint8_t> bytes = testing::RandomBytes(300000, 64);
  DataLocation location = s.Stored(bytes);

  SUBCASE("understated: a clean body one byte short is SizeShort") {
    int rule = s.proxy().AddRule(WholeGet(), Fault::RewriteContentLength(bytes.size() - 1), 1);
    FullRead read = ReadWhole(s.stage(), location);
    CHECK(testing::KindOf(read.status) == IntegrityKind::kSizeShort);
    CHECK_FALSE(read.verified);
    CHECK(s.proxy().fired(rule) == 1);
  }
  SUBCASE("overstated: the body ends early, the read resumes past the end and verifies") {
    int rule = s.proxy().AddRule(WholeGet(), Fault::RewriteContentLength(bytes.size() + 1), 1);
    FullRead read = ReadWhole(s.stage(), location);
    LAKE_REQUIRE_OK(read.status);
    CHECK(read.verified);
    CHECK(read.bytes == bytes);
    CHECK(s.proxy().fired(rule) == 1);
    std::vector<ProxiedRequest> gets = RequestsOf(s.proxy(), "GET");
    REQUIRE(gets.size() == 2);
    CHECK(RangeStart(gets[1]) == bytes.size());  // answered 416: nothing is left
  }
}

// ---------------------------------------------------------------------------
// Stalls. The transport gives up on an exchange that moves under 1 byte/s
// for idle_timeout (whole seconds). libcurl averages that speed over the
// last 5 s, so a stall that follows a burst of bytes (a part sent, a body
// begun) is noticed about 5 s later than one with nothing sent: those
// cases take ~7 s each here.

S3FixtureOptions StallOptions(int attempts) {
  S3FixtureOptions options;
  options.transport.idle_timeout = absl::Seconds(1);
  options.retry = s3http::RetryPolicy{attempts, absl::Milliseconds(10), absl::Milliseconds(50)};
  return options;
}

constexpr absl::Duration kStall = absl::Seconds(20);  // ends when the client hangs up

TEST_CASE("S3 faults: a GET that stalls every time is DeadlineExceeded after the policy's attempts") {
  ProxiedStage s(StallOptions(2));
  DataLocation location = s.Stored(testing::RandomBytes(1000, 70));
  int rule = s.proxy().AddRule(ObjectGet(), Fault::Stall(kStall), testing::kEveryRequest);
  absl::Time start = absl::Now();
  FullRead read = ReadWhole(s.stage(), location);
  CHECK_MESSAGE((absl::IsDeadlineExceeded(read.status) || absl::IsUnavailable(read.status)),
                read.status.ToString());
  CHECK_FALSE(read.verified);
  CHECK(s.proxy().fired(rule) == 2);
  CHECK(absl::Now() - start < absl::Seconds(15));
}

TEST_CASE("S3 faults: a stall on the first attempt only is retried or resumed, and succeeds") {
  ProxiedStage s(StallOptions(3));
  std::vector<uint8_t> bytes = testing::RandomBytes(kPart + 1000, 71);

  SUBCASE("an UploadPart whose answer stalls") {
    int rule = s.proxy().AddRule(UploadPart(), Fault::Stall(kStall), 1);
    absl::StatusOr<DataLocation> location = s.Upload(bytes);
    LAKE_REQUIRE_OK(location);
    CHECK(s.proxy().fired(rule) == 1);
    s.ExpectReadsBackVerified(*location, bytes);
  }
  SUBCASE("a verified GET whose body stalls mid-way") {
    DataLocation location = s.Stored(bytes);
    int rule = s.proxy().AddRule(WholeGet(), Fault::Stall(kStall, 100000), 1);
    FullRead read = ReadWhole(s.stage(), location);
    LAKE_REQUIRE_OK(read.status);
    CHECK(read.verified);
    CHECK(read.bytes == bytes);
    CHECK(s.proxy().fired(rule) == 1);
    std::vector<ProxiedRequest> gets = RequestsOf(s.proxy(), "GET");
    REQUIRE(gets.size() == 2);
    CHECK(RangeStart(gets[1]) == 100000);
  }
}

// ---------------------------------------------------------------------------
// CompleteMultipartUpload answers that never arrive.

TEST_CASE("S3 faults: a lost CompleteMultipartUpload answer is settled by HEAD; the object verifies") {
  ProxiedStage s;
  std::vector<uint8_t> bytes = testing::RandomBytes(2 * kPart + 1000, 80);

  SUBCASE("lost once") {
    int rule = s.proxy().AddRule(Complete(), Fault::LoseResponse(), 1);
    absl::StatusOr<DataLocation> location = s.Upload(bytes);
    LAKE_REQUIRE_OK(location);
    CHECK(s.proxy().fired(rule) == 1);
    CHECK(RequestsOf(s.proxy(), "HEAD").size() == 1);
    CHECK(Listed(s.direct()) == 1);
    s.ExpectReadsBackVerified(*location, bytes);
  }
  SUBCASE("lost every time: the first one completed the object") {
    int rule = s.proxy().AddRule(Complete(), Fault::LoseResponse(), testing::kEveryRequest);
    absl::StatusOr<DataLocation> location = s.Upload(bytes);
    LAKE_REQUIRE_OK(location);
    CHECK(s.proxy().fired(rule) >= S3FixtureOptions{}.retry.max_attempts);
    CHECK(RequestsOf(s.proxy(), "HEAD").size() == 1);
    CHECK(Listed(s.direct()) == 1);
    s.ExpectReadsBackVerified(*location, bytes);
  }
}

// ---------------------------------------------------------------------------
// Verified full reads of large objects: consecutive ranges fetched in
// parallel, each pinned with If-Match to the ETag of one HEAD.

constexpr uint64_t kRange = 64 * 1024;  // the smallest download range size

S3FixtureOptions ParallelReads(int streams, S3FixtureOptions options = {}) {
  options.download = S3DownloadTuning{streams, kRange};
  return options;
}

// The GETs of the range [k * kRange, ...) of an object of `size` bytes,
// resumed ones included ("bytes=a-b" with a inside the range).
RequestMatcher GetOfRange(uint64_t k, uint64_t size) {
  return {.method = "GET",
          .path_contains = "/objects/",
          .with_range = true,
          .predicate = [k, size](const ProxiedRequest& request) {
            const std::string* range = request.Header("range");
            if (range == nullptr) return false;
            absl::string_view spec = *range;
            uint64_t first = 0;
            if (!absl::ConsumePrefix(&spec, "bytes=") ||
                !absl::SimpleAtoi(spec.substr(0, spec.find('-')), &first)) {
              return false;
            }
            return first >= k * kRange && first < std::min(size, (k + 1) * kRange);
          }};
}

std::string RangeHeaderOf(uint64_t first, uint64_t end) {
  return absl::StrCat("bytes=", first, "-", end - 1);
}

// A failed read delivered at most `at_most` bytes, all of them the object's
// own, in order, and claims no verification.
void ExpectOnlyAPrefix(const FullRead& read, const std::vector<uint8_t>& bytes, uint64_t at_most) {
  CHECK_FALSE(read.status.ok());
  CHECK_FALSE(read.verified);
  CHECK(read.bytes.size() <= at_most);
  CHECK(std::equal(read.bytes.begin(), read.bytes.end(), bytes.begin()));
}

TEST_CASE("S3 faults: a parallel full read is one HEAD, then one GET per range, each pinned to its ETag") {
  ProxiedStage s(ParallelReads(3));
  std::vector<uint8_t> bytes = testing::RandomBytes(5 * kRange + 100, 90);
  DataLocation location = s.Stored(bytes);
  s.proxy().ClearLog();  // the bucket's creation
  FullRead read = ReadWhole(s.stage(), location);
  LAKE_REQUIRE_OK(read.status);
  CHECK(read.verified);
  CHECK(read.bytes == bytes);

  std::vector<ProxiedRequest> requests = s.proxy().Requests();
  REQUIRE(!requests.empty());
  CHECK(requests[0].method == "HEAD");
  CHECK(RequestsOf(s.proxy(), "HEAD").size() == 1);
  absl::StatusOr<s3http::ObjectInfo> info =
      s.direct_client().HeadObject(s.bucket(), KeyOf(location));
  LAKE_REQUIRE_OK(info);
  std::vector<std::string> asked;
  for (const ProxiedRequest& get : RequestsOf(s.proxy(), "GET")) {
    REQUIRE(get.Header("range") != nullptr);
    asked.push_back(*get.Header("range"));
    REQUIRE(get.Header("if-match") != nullptr);
    CHECK(*s3http::ParseETag(*get.Header("if-match")) == info->etag);
  }
  std::sort(asked.begin(), asked.end());
  std::vector<std::string> expected;
  for (uint64_t first = 0; first < bytes.size(); first += kRange) {
    expected.push_back(RangeHeaderOf(first, std::min<uint64_t>(bytes.size(), first + kRange)));
  }
  std::sort(expected.begin(), expected.end());
  CHECK(asked == expected);
}

TEST_CASE("S3 faults: an object smaller than two ranges is read with one plain GET and no HEAD") {
  ProxiedStage s(ParallelReads(4));
  std::vector<uint8_t> bytes = testing::RandomBytes(2 * kRange - 1, 91);
  DataLocation location = s.Stored(bytes);
  FullRead read = ReadWhole(s.stage(), location);
  LAKE_REQUIRE_OK(read.status);
  CHECK(read.verified);
  CHECK(read.bytes == bytes);
  CHECK(RequestsOf(s.proxy(), "HEAD").empty());
  std::vector<ProxiedRequest> gets = RequestsOf(s.proxy(), "GET");
  REQUIRE(gets.size() == 1);
  CHECK(gets[0].Header("range") == nullptr);
}

TEST_CASE("S3 faults: a range of a parallel read whose body breaks is resumed alone, from its first missing byte") {
  ProxiedStage s(ParallelReads(3));
  std::vector<uint8_t> bytes = testing::RandomBytes(6 * kRange + 10, 92);
  DataLocation location = s.Stored(bytes);
  const uint64_t ranges = 7;
  const uint64_t cut = 20000;

  SUBCASE("cut short (FIN)") {
    int rule = s.proxy().AddRule(GetOfRange(2, bytes.size()), Fault::TruncateAfterBodyBytes(cut), 1);
    FullRead read = ReadWhole(s.stage(), location);
    LAKE_REQUIRE_OK(read.status);
    CHECK(read.verified);
    CHECK(read.bytes == bytes);
    CHECK(s.proxy().fired(rule) == 1);
    CHECK(s.proxy().matched(rule) == 2);  // the range, then its rest
    std::vector<ProxiedRequest> gets = RequestsOf(s.proxy(), "GET");
    CHECK(gets.size() == ranges + 1);
    int resumed = 0;
    for (const ProxiedRequest& get : gets) {
      const std::string* range = get.Header("range");
      if (range == nullptr || *range != RangeHeaderOf(2 * kRange + cut, 3 * kRange)) continue;
      ++resumed;
      CHECK(get.Header("if-match") != nullptr);
    }
    CHECK(resumed == 1);
  }
  SUBCASE("reset (RST)") {
    int rule = s.proxy().AddRule(GetOfRange(4, bytes.size()), Fault::ResetAfterBodyBytes(cut), 1);
    FullRead read = ReadWhole(s.stage(), location);
    LAKE_REQUIRE_OK(read.status);
    CHECK(read.verified);
    CHECK(read.bytes == bytes);
    CHECK(s.proxy().fired(rule) == 1);
    CHECK(s.proxy().matched(rule) == 2);
    CHECK(RequestsOf(s.proxy(), "GET").size() == ranges + 1);
  }
}

TEST_CASE("S3 faults: a range of a parallel read that stalls is resumed alone and the read verifies") {
  S3FixtureOptions options = ParallelReads(3, StallOptions(3));
  ProxiedStage s(options);
  std::vector<uint8_t> bytes = testing::RandomBytes(6 * kRange + 10, 93);
  DataLocation location = s.Stored(bytes);
  int rule = s.proxy().AddRule(GetOfRange(1, bytes.size()), Fault::Stall(kStall, 1000), 1);
  absl::Time start = absl::Now();
  FullRead read = ReadWhole(s.stage(), location);
  LAKE_REQUIRE_OK(read.status);
  CHECK(read.verified);
  CHECK(read.bytes == bytes);
  CHECK(s.proxy().fired(rule) == 1);
  CHECK(s.proxy().matched(rule) == 2);
  CHECK(RequestsOf(s.proxy(), "GET").size() == 8);
  CHECK(absl::Now() - start < absl::Seconds(15));
}

TEST_CASE("S3 faults: a parallel read closed early stops its GETs at once, a stalled one included") {
  ProxiedStage s(ParallelReads(3));  // the default 30 s idle timeout
  std::vector<uint8_t> bytes = testing::RandomBytes(6 * kRange + 10, 98);
  DataLocation location = s.Stored(bytes);
  int rule = s.proxy().AddRule(GetOfRange(2, bytes.size()), Fault::Stall(kStall), 1);
  absl::StatusOr<std::unique_ptr<ObjectReader>> reader = s.stage().OpenVerified(location);
  LAKE_REQUIRE_OK(reader);
  std::vector<uint8_t> out(1000);
  LAKE_REQUIRE_OK((*reader)->Read(out.data(), out.size()));
  // Range 2 was asked for at open; wait until its GET is held up.
  for (int i = 0; i < 500 && s.proxy().fired(rule) == 0; ++i) absl::SleepFor(absl::Milliseconds(10));
  REQUIRE(s.proxy().fired(rule) == 1);
  absl::Time start = absl::Now();
  LAKE_CHECK_OK((*reader)->Close());
  reader->reset();
  CHECK(absl::Now() - start < absl::Seconds(3));
}

TEST_CASE("S3 faults: a range of a parallel read answered for another interval fails the read; none of its bytes is delivered") {
  ProxiedStage s(ParallelReads(3));
  std::vector<uint8_t> bytes = testing::RandomBytes(6 * kRange + 10, 94);
  DataLocation location = s.Stored(bytes);
  const uint64_t n = bytes.size();
  for (const std::string& wrong :
       {absl::StrCat("bytes ", 3 * kRange, "-", 4 * kRange - 1, "/", n),  // the next range
        absl::StrCat("bytes ", 2 * kRange, "-", 3 * kRange - 1, "/", n + 1)}) {  // another size
    CAPTURE(wrong);
    int rule = s.proxy().AddRule(GetOfRange(2, n), Fault::RewriteContentRange(wrong), 1);
    FullRead read = ReadWhole(s.stage(), location);
    CHECK_STATUS(absl::IsDataLoss, read.status);
    CHECK(s.proxy().fired(rule) == 1);
    ExpectOnlyAPrefix(read, bytes, 2 * kRange);
  }
}

TEST_CASE("S3 faults: a range of a parallel read refused by its If-Match (412) is ObjectChanged") {
  ProxiedStage s(ParallelReads(3));
  std::vector<uint8_t> bytes = testing::RandomBytes(6 * kRange + 10, 95);
  DataLocation location = s.Stored(bytes);
  int rule = s.proxy().AddRule(GetOfRange(3, bytes.size()), Fault::Respond(412, "PreconditionFailed"), 1);
  FullRead read = ReadWhole(s.stage(), location);
  CHECK(testing::KindOf(read.status) == IntegrityKind::kObjectChanged);
  CHECK_STATUS(absl::IsDataLoss, read.status);
  CHECK(s.proxy().fired(rule) == 1);
  ExpectOnlyAPrefix(read, bytes, 3 * kRange);
}

TEST_CASE("S3 faults: a whole GET resumed after its object changed (412) is ObjectChanged") {
  ProxiedStage s;
  std::vector<uint8_t> bytes = testing::RandomBytes(600000, 96);
  DataLocation location = s.Stored(bytes);
  s.proxy().AddRule(WholeGet(), Fault::TruncateAfterBodyBytes(100000), 1);
  int rule = s.proxy().AddRule(RangedGet(), Fault::Respond(412, "PreconditionFailed"), 1);
  FullRead read = ReadWhole(s.stage(), location);
  CHECK(testing::KindOf(read.status) == IntegrityKind::kObjectChanged);
  CHECK(s.proxy().fired(rule) == 1);
  ExpectOnlyAPrefix(read, bytes, 100000);
}

TEST_CASE("S3 faults: a large object is read with one plain GET when the budget cannot lend two ranges") {
  ProxiedStage s(ParallelReads(4));
  std::vector<uint8_t> bytes = testing::RandomBytes(8 * kRange, 97);
  DataLocation location = s.Stored(bytes);
  BufferBudget& budget = BufferBudget::Process();
  {
    testing::ScopedBudgetLimit limit(BufferBudget::kMinimumLimitBytes);
    // Everything but one range's worth is lent elsewhere.
    const uint64_t free_bytes = budget.limit() - budget.in_use();
    REQUIRE(free_bytes > kRange);
    const size_t pages = static_cast<size_t>((free_bytes - kRange) / BufferBudget::kAlignment);
    absl::StatusOr<BufferLease> held = budget.Acquire(BufferBudget::kAlignment, pages, pages, nullptr);
    LAKE_REQUIRE_OK(held);
    absl::Time start = absl::Now();
    FullRead read = ReadWhole(s.stage(), location);
    LAKE_CHECK_OK(read.status);
    CHECK(read.verified);
    CHECK(read.bytes == bytes);
    CHECK(absl::Now() - start < absl::Seconds(5));  // it did not wait for memory
  }
  CHECK(RequestsOf(s.proxy(), "HEAD").empty());
  std::vector<ProxiedRequest> gets = RequestsOf(s.proxy(), "GET");
  REQUIRE(gets.size() == 1);
  CHECK(gets[0].Header("range") == nullptr);
}

}  // namespace
}  // namespace lake
