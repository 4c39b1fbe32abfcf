// The strict header parsers of the S3 layer: Content-Range and the exact
// range check, Content-Length, ETag and the multipart ETag, HTTP-date,
// Retry-After, S3's XML timestamps, and outgoing header validation.
#include <doctest/doctest.h>
#include <openssl/evp.h>

#include <string>
#include <vector>

#include "io/s3http/s3_headers.h"
#include "tests/support/status_checks.h"

namespace lake::s3http {
namespace {

using namespace std::string_literals;

void CheckContentRangeRefused(std::string_view value) {
  absl::StatusOr<ContentRange> parsed = ParseContentRange(value);
  CHECK_MESSAGE(!parsed.ok(), std::string(value));
  CHECK(absl::IsInvalidArgument(parsed.status()));
}

void CheckETagRefused(std::string_view value) {
  absl::StatusOr<ETag> parsed = ParseETag(value);
  CHECK_MESSAGE(!parsed.ok(), std::string(value));
  CHECK(absl::IsInvalidArgument(parsed.status()));
}

Md5Digest Md5Of(std::string_view data) {
  Md5Digest digest{};
  unsigned int size = 0;
  REQUIRE(EVP_Digest(data.data(), data.size(), digest.data(), &size, EVP_md5(),
                     nullptr) == 1);
  REQUIRE(size == digest.size());
  return digest;
}

std::string HexOf(const Md5Digest& digest) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  for (uint8_t byte : digest) {
    hex.push_back(kHex[byte >> 4]);
    hex.push_back(kHex[byte & 15]);
  }
  return hex;
}

// A 206 response's headers for the range [start, end) of an object.
struct Response {
  int http_status = 206;
  std::optional<std::string> content_range;
  std::optional<std::string> content_length;
};

absl::Status Check(const Response& response, const RangeRequest& request) {
  std::optional<std::string_view> range, length;
  if (response.content_range) range = *response.content_range;
  if (response.content_length) length = *response.content_length;
  return CheckRangeResponse(response.http_status, range, length, request);
}

// --- Content-Length -----------------------------------------------------------

TEST_CASE("Content-MD5 is the base64 of the body's binary MD5") {
  CHECK(ContentMd5("") == "1B2M2Y8AsgTpgAmY7PhCfg==");
  CHECK(ContentMd5("The quick brown fox jumps over the lazy dog") == "nhB9nTcrtoJr2B01QqQZ1g==");
}

TEST_CASE("Content-Length is decimal digits up to 2^64 - 1") {
  CHECK(*ParseContentLength("0") == 0);
  CHECK(*ParseContentLength("67108864") == 67108864);
  CHECK(*ParseContentLength("007") == 7);
  CHECK(*ParseContentLength("18446744073709551615") == UINT64_MAX);
}

TEST_CASE("Content-Length refuses signs, spaces, other bytes and overflow") {
  for (std::string_view value :
       {"", "+1", "-1", " 1", "1 ", "1.0", "0x10", "1e3", "18446744073709551616",
        "99999999999999999999999"}) {
    absl::StatusOr<uint64_t> parsed = ParseContentLength(value);
    CHECK_MESSAGE(!parsed.ok(), std::string(value));
  }
}

// --- Content-Range --------------------------------------------------------------

TEST_CASE("Content-Range gives the first and last byte and the complete length") {
  absl::StatusOr<ContentRange> parsed = ParseContentRange("bytes 0-99/1000");
  LAKE_REQUIRE_OK(parsed);
  CHECK(parsed->first == 0);
  CHECK(parsed->last == 99);
  CHECK(parsed->complete_length == 1000);
  CHECK(*ParseContentRange("bytes 5-5/6") == ContentRange{5, 5, 6});
}

TEST_CASE("Content-Range accepts '*' as an unknown complete length") {
  absl::StatusOr<ContentRange> parsed = ParseContentRange("bytes 10-19/*");
  LAKE_REQUIRE_OK(parsed);
  CHECK(parsed->first == 10);
  CHECK(parsed->last == 19);
  CHECK(!parsed->complete_length.has_value());
}

TEST_CASE("Content-Range accepts the largest 64-bit values") {
  absl::StatusOr<ContentRange> parsed =
      ParseContentRange("bytes 0-18446744073709551614/18446744073709551615");
  LAKE_REQUIRE_OK(parsed);
  CHECK(parsed->last == UINT64_MAX - 1);
  CHECK(parsed->complete_length == UINT64_MAX);
}

TEST_CASE("Content-Range refuses another unit, spacing, signs and missing parts") {
  CheckContentRangeRefused("");
  CheckContentRangeRefused("bytes=0-1/2");
  CheckContentRangeRefused("Bytes 0-1/2");
  CheckContentRangeRefused("items 0-1/2");
  CheckContentRangeRefused("bytes  0-1/2");
  CheckContentRangeRefused(" bytes 0-1/2");
  CheckContentRangeRefused("bytes 0-1/2 ");
  CheckContentRangeRefused("bytes 0 -1/2");
  CheckContentRangeRefused("bytes 0- 1/2");
  CheckContentRangeRefused("bytes 0-1 /2");
  CheckContentRangeRefused("bytes +0-1/2");
  CheckContentRangeRefused("bytes 0-+1/2");
  CheckContentRangeRefused("bytes 0-1/+2");
  CheckContentRangeRefused("bytes -0-1/2");
  CheckContentRangeRefused("bytes 0-1-2/3");
  CheckContentRangeRefused("bytes 0-1/2/3");
  CheckContentRangeRefused("bytes 0-/2");
  CheckContentRangeRefused("bytes -1/2");
  CheckContentRangeRefused("bytes 0-1/");
  CheckContentRangeRefused("bytes 0-1");
  CheckContentRangeRefused("bytes 0/1-2");
  CheckContentRangeRefused("bytes 0x0-1/2");
  CheckContentRangeRefused("bytes 0-1/**");
}

TEST_CASE("Content-Range refuses the unsatisfied form of a 416") {
  CheckContentRangeRefused("bytes */1000");
}

TEST_CASE("Content-Range refuses FIRST after LAST and LAST at or past the length") {
  CheckContentRangeRefused("bytes 5-4/10");
  CheckContentRangeRefused("bytes 0-10/10");
  CheckContentRangeRefused("bytes 0-11/10");
  CheckContentRangeRefused("bytes 0-0/0");
}

TEST_CASE("Content-Range refuses numbers past 2^64 - 1") {
  CheckContentRangeRefused("bytes 18446744073709551616-18446744073709551617/*");
  CheckContentRangeRefused("bytes 0-1/18446744073709551616");
}

TEST_CASE("Content-Range formats canonically and parses back") {
  CHECK(FormatContentRange({0, 99, 1000}) == "bytes 0-99/1000");
  CHECK(FormatContentRange({3, 4, std::nullopt}) == "bytes 3-4/*");
  absl::StatusOr<ContentRange> parsed = ParseContentRange("bytes 007-0010/00020");
  LAKE_REQUIRE_OK(parsed);
  CHECK(FormatContentRange(*parsed) == "bytes 7-10/20");
  CHECK(*ParseContentRange(FormatContentRange(*parsed)) == *parsed);
}

// --- The exact range check ------------------------------------------------------

TEST_CASE("range check accepts exactly the requested bytes of an object of the expected size") {
  LAKE_CHECK_OK(Check({206, "bytes 100-199/1000", "100"}, {100, 200, 1000}));
  LAKE_CHECK_OK(Check({206, "bytes 0-999/1000", "1000"}, {0, 1000, 1000}));
  LAKE_CHECK_OK(Check({206, "bytes 999-999/1000", "1"}, {999, 1000, 1000}));
}

TEST_CASE("range check refuses a 200 with the whole object from a proxy that ignored Range") {
  absl::Status status = Check({200, std::nullopt, "1000"}, {100, 200, 1000});
  CHECK(absl::IsDataLoss(status));
  CHECK(std::string(status.message()).find("ignored Range") != std::string::npos);
  // Even when the range asked for is the whole object.
  CHECK(absl::IsDataLoss(Check({200, std::nullopt, "1000"}, {0, 1000, 1000})));
}

TEST_CASE("range check refuses another complete length than the object's size") {
  CHECK(absl::IsDataLoss(Check({206, "bytes 100-199/999", "100"}, {100, 200, 1000})));
  CHECK(absl::IsDataLoss(Check({206, "bytes 100-199/1001", "100"}, {100, 200, 1000})));
}

TEST_CASE("range check refuses '*' when the object's size is known") {
  CHECK(absl::IsDataLoss(Check({206, "bytes 100-199/*", "100"}, {100, 200, 1000})));
}

TEST_CASE("range check accepts any complete length or '*' when the size is not known") {
  LAKE_CHECK_OK(Check({206, "bytes 100-199/*", "100"}, {100, 200, std::nullopt}));
  LAKE_CHECK_OK(Check({206, "bytes 100-199/5000", "100"}, {100, 200, std::nullopt}));
}

TEST_CASE("range check refuses a wrong Content-Length") {
  CHECK(absl::IsDataLoss(Check({206, "bytes 100-199/1000", "99"}, {100, 200, 1000})));
  CHECK(absl::IsDataLoss(Check({206, "bytes 100-199/1000", "101"}, {100, 200, 1000})));
  CHECK(absl::IsDataLoss(Check({206, "bytes 100-199/1000", "1000"}, {100, 200, 1000})));
  CHECK(absl::IsDataLoss(Check({206, "bytes 100-199/1000", "+100"}, {100, 200, 1000})));
}

TEST_CASE("range check refuses another range than the one requested") {
  CHECK(absl::IsDataLoss(Check({206, "bytes 100-198/1000", "99"}, {100, 200, 1000})));
  CHECK(absl::IsDataLoss(Check({206, "bytes 101-199/1000", "99"}, {100, 200, 1000})));
  CHECK(absl::IsDataLoss(Check({206, "bytes 0-999/1000", "1000"}, {100, 200, 1000})));
}

TEST_CASE("range check refuses missing or malformed headers") {
  CHECK(absl::IsDataLoss(Check({206, std::nullopt, "100"}, {100, 200, 1000})));
  CHECK(absl::IsDataLoss(Check({206, "bytes 100-199/1000", std::nullopt}, {100, 200, 1000})));
  CHECK(absl::IsDataLoss(Check({206, "bytes=100-199/1000", "100"}, {100, 200, 1000})));
}

TEST_CASE("range check refuses other statuses, including a 416") {
  CHECK(absl::IsDataLoss(Check({416, "bytes 100-199/1000", "100"}, {100, 200, 1000})));
  CHECK(absl::IsDataLoss(Check({204, "bytes 100-199/1000", "100"}, {100, 200, 1000})));
}

TEST_CASE("range check refuses an empty request or one past the object as a caller error") {
  CHECK(absl::IsInvalidArgument(Check({206, "bytes 0-0/10", "1"}, {5, 5, 10})));
  CHECK(absl::IsInvalidArgument(Check({206, "bytes 0-0/10", "1"}, {6, 5, 10})));
  CHECK(absl::IsInvalidArgument(Check({206, "bytes 5-10/11", "6"}, {5, 11, 10})));
}

// --- ETag -----------------------------------------------------------------------

TEST_CASE("ETag strips the quotes of a single-part tag") {
  absl::StatusOr<ETag> parsed = ParseETag("\"5d41402abc4b2a76b9719d911017c592\"");
  LAKE_REQUIRE_OK(parsed);
  CHECK(parsed->hex == "5d41402abc4b2a76b9719d911017c592");
  CHECK(!parsed->part_count.has_value());
}

TEST_CASE("ETag accepts an unquoted tag") {
  absl::StatusOr<ETag> parsed = ParseETag("5d41402abc4b2a76b9719d911017c592");
  LAKE_REQUIRE_OK(parsed);
  CHECK(parsed->hex == "5d41402abc4b2a76b9719d911017c592");
}

TEST_CASE("ETag parses a multipart tag into digest and part count") {
  absl::StatusOr<ETag> parsed = ParseETag("\"065947336a2f2a95ba8899f3675c3be6-2\"");
  LAKE_REQUIRE_OK(parsed);
  CHECK(parsed->hex == "065947336a2f2a95ba8899f3675c3be6");
  CHECK(parsed->part_count == 2);
  CHECK(ParseETag("\"065947336a2f2a95ba8899f3675c3be6-10000\"")->part_count == 10000);
}

TEST_CASE("ETag refuses weak tags") {
  CheckETagRefused("W/\"5d41402abc4b2a76b9719d911017c592\"");
  CheckETagRefused("w/\"5d41402abc4b2a76b9719d911017c592\"");
}

TEST_CASE("ETag refuses anything but 32 lowercase hex digits") {
  CheckETagRefused("");
  CheckETagRefused("\"\"");
  CheckETagRefused("\"");
  CheckETagRefused("\"5D41402ABC4B2A76B9719D911017C592\"");
  CheckETagRefused("\"5d41402abc4b2a76b9719d911017c59\"");
  CheckETagRefused("\"5d41402abc4b2a76b9719d911017c5922\"");
  CheckETagRefused("\"5d41402abc4b2a76b9719d911017c59g\"");
  CheckETagRefused("\"5d41402abc4b2a76b9719d911017c592");
  CheckETagRefused("5d41402abc4b2a76b9719d911017c592\"");
  CheckETagRefused("\" 5d41402abc4b2a76b9719d911017c592\"");
  CheckETagRefused("\"5d41402abc4b2a76b9719d911017c592\" ");
  CheckETagRefused("\"\"5d41402abc4b2a76b9719d911017c592\"\"");
}

TEST_CASE("ETag refuses part counts outside 1..10000 and non-canonical counts") {
  CheckETagRefused("\"065947336a2f2a95ba8899f3675c3be6-0\"");
  CheckETagRefused("\"065947336a2f2a95ba8899f3675c3be6-10001\"");
  CheckETagRefused("\"065947336a2f2a95ba8899f3675c3be6-02\"");
  CheckETagRefused("\"065947336a2f2a95ba8899f3675c3be6-\"");
  CheckETagRefused("\"065947336a2f2a95ba8899f3675c3be6--2\"");
  CheckETagRefused("\"065947336a2f2a95ba8899f3675c3be6-+2\"");
  CheckETagRefused("\"065947336a2f2a95ba8899f3675c3be6-2a\"");
  CheckETagRefused("\"065947336a2f2a95ba8899f3675c3be6-99999999999999999999\"");
  CheckETagRefused("\"065947336a2f2a95ba8899f3675c3be6_2\"");
}

TEST_CASE("ETag formats with quotes and parses back") {
  ETag single{"5d41402abc4b2a76b9719d911017c592", std::nullopt};
  ETag multi{"065947336a2f2a95ba8899f3675c3be6", 2};
  CHECK(FormatETag(single) == "\"5d41402abc4b2a76b9719d911017c592\"");
  CHECK(FormatETag(multi) == "\"065947336a2f2a95ba8899f3675c3be6-2\"");
  CHECK(*ParseETag(FormatETag(single)) == single);
  CHECK(*ParseETag(FormatETag(multi)) == multi);
}

TEST_CASE("the MD5 of a single-part ETag is its hex digits as bytes") {
  absl::StatusOr<Md5Digest> digest =
      Md5DigestOfETag(*ParseETag("\"5d41402abc4b2a76b9719d911017c592\""));
  LAKE_REQUIRE_OK(digest);
  CHECK(*digest == Md5Of("hello"));
  CHECK(!Md5DigestOfETag(*ParseETag("\"065947336a2f2a95ba8899f3675c3be6-2\"")).ok());
}

TEST_CASE("multipart ETag is the MD5 of the concatenated part MD5s and the part count") {
  // By hand: MD5("hello") = 5d41402abc4b2a76b9719d911017c592 and
  // MD5("world") = 7d793037a0760186574b0282f2f435e7; the MD5 of those 32
  // bytes is 065947336a2f2a95ba8899f3675c3be6, so two parts give "...-2".
  std::vector<Md5Digest> parts = {Md5Of("hello"), Md5Of("world")};
  CHECK(HexOf(parts[0]) == "5d41402abc4b2a76b9719d911017c592");
  CHECK(HexOf(parts[1]) == "7d793037a0760186574b0282f2f435e7");
  absl::StatusOr<ETag> etag = ComputeMultipartETag(parts);
  LAKE_REQUIRE_OK(etag);
  CHECK(FormatETag(*etag) == "\"065947336a2f2a95ba8899f3675c3be6-2\"");

  // Independently, with OpenSSL over the concatenated binary digests.
  std::string concatenated(reinterpret_cast<const char*>(parts[0].data()), 16);
  concatenated.append(reinterpret_cast<const char*>(parts[1].data()), 16);
  CHECK(etag->hex == HexOf(Md5Of(concatenated)));
  CHECK(etag->part_count == 2);
}

TEST_CASE("multipart ETag of one part is the MD5 of that part's MD5") {
  std::vector<Md5Digest> parts = {Md5Of("")};
  absl::StatusOr<ETag> etag = ComputeMultipartETag(parts);
  LAKE_REQUIRE_OK(etag);
  std::string digest(reinterpret_cast<const char*>(parts[0].data()), 16);
  CHECK(etag->hex == HexOf(Md5Of(digest)));
  CHECK(etag->part_count == 1);
}

TEST_CASE("multipart ETag refuses no parts and more than 10000 parts") {
  CHECK(absl::IsInvalidArgument(ComputeMultipartETag({}).status()));
  std::vector<Md5Digest> too_many(10001);
  CHECK(absl::IsInvalidArgument(ComputeMultipartETag(too_many).status()));
  std::vector<Md5Digest> most(10000);
  CHECK(ComputeMultipartETag(most)->part_count == 10000);
}

// --- Dates ----------------------------------------------------------------------

TEST_CASE("HTTP-date parses IMF-fixdate") {
  absl::StatusOr<absl::Time> parsed = ParseHttpDate("Sun, 06 Nov 1994 08:49:37 GMT");
  LAKE_REQUIRE_OK(parsed);
  CHECK(*parsed == absl::FromUnixSeconds(784111777));
  CHECK(*ParseHttpDate("Thu, 29 Feb 2024 12:00:00 GMT") ==
        absl::FromUnixSeconds(1709208000));
}

TEST_CASE("HTTP-date refuses a day name that is not the date's weekday") {
  CHECK(!ParseHttpDate("Mon, 06 Nov 1994 08:49:37 GMT").ok());
}

TEST_CASE("HTTP-date refuses the obsolete forms, other zones and other spellings") {
  for (std::string_view value : {
           "Sunday, 06-Nov-94 08:49:37 GMT",  // RFC 850
           "Sun Nov  6 08:49:37 1994",        // asctime
           "Sun, 06 Nov 1994 08:49:37 UTC",
           "Sun, 06 Nov 1994 08:49:37 +0000",
           "Sun, 6 Nov 1994 08:49:37 GMT",
           "sun, 06 Nov 1994 08:49:37 GMT",
           "Sun, 06 nov 1994 08:49:37 GMT",
           "Sun, 06 Nov 1994 08:49:37 GMT ",
           "Sun,  06 Nov 1994 08:49:37 GMT",
           "Sun, 06 Nov 1994 8:49:37 GMT",
           "",
       }) {
    CHECK_MESSAGE(!ParseHttpDate(value).ok(), std::string(value));
  }
}

TEST_CASE("HTTP-date refuses dates and times that do not exist") {
  CHECK(!ParseHttpDate("Thu, 29 Feb 2023 12:00:00 GMT").ok());
  CHECK(!ParseHttpDate("Fri, 31 Nov 1994 08:49:37 GMT").ok());
  CHECK(!ParseHttpDate("Sun, 00 Nov 1994 08:49:37 GMT").ok());
  CHECK(!ParseHttpDate("Sun, 06 Nov 1994 24:00:00 GMT").ok());
  CHECK(!ParseHttpDate("Sun, 06 Nov 1994 08:60:00 GMT").ok());
  CHECK(!ParseHttpDate("Sat, 31 Dec 2016 23:59:60 GMT").ok());  // a leap second
}

TEST_CASE("HTTP-date formats IMF-fixdate and parses back") {
  CHECK(FormatHttpDate(absl::FromUnixSeconds(784111777)) ==
        "Sun, 06 Nov 1994 08:49:37 GMT");
  CHECK(FormatHttpDate(absl::FromUnixMillis(784111777999)) ==
        "Sun, 06 Nov 1994 08:49:37 GMT");
  absl::Time time = *ParseHttpDate("Thu, 29 Feb 2024 12:00:00 GMT");
  CHECK(*ParseHttpDate(FormatHttpDate(time)) == time);
}

TEST_CASE("Retry-After in seconds is a delay from now") {
  absl::Time now = absl::FromUnixSeconds(1700000000);
  CHECK(*ParseRetryAfter("0", now) == now);
  CHECK(*ParseRetryAfter("120", now) == now + absl::Seconds(120));
  CHECK(*ParseRetryAfter("86400", now) == now + absl::Hours(24));
}

TEST_CASE("Retry-After as an HTTP-date is that time") {
  absl::Time now = absl::FromUnixSeconds(1700000000);
  CHECK(*ParseRetryAfter("Sun, 06 Nov 1994 08:49:37 GMT", now) ==
        absl::FromUnixSeconds(784111777));
}

TEST_CASE("Retry-After refuses delays over a day, signs, fractions and junk") {
  absl::Time now = absl::FromUnixSeconds(1700000000);
  for (std::string_view value :
       {"86401", "99999999999999999999999", "-1", "+5", "1.5", " 5", "5 ", "", "soon"}) {
    CHECK_MESSAGE(!ParseRetryAfter(value, now).ok(), std::string(value));
  }
}

TEST_CASE("S3 timestamps are Unix microseconds") {
  CHECK(*ParseS3Timestamp("2009-10-12T17:50:30.000Z") == 1255369830000000);
  CHECK(*ParseS3Timestamp("2009-10-12T17:50:30Z") == 1255369830000000);
  CHECK(*ParseS3Timestamp("2009-10-12T17:50:30.5Z") == 1255369830500000);
  CHECK(*ParseS3Timestamp("2009-10-12T17:50:30.123456Z") == 1255369830123456);
  CHECK(*ParseS3Timestamp("1970-01-01T00:00:00.000Z") == 0);
  CHECK(*ParseS3Timestamp("1969-12-31T23:59:59.000Z") == -1000000);
}

TEST_CASE("S3 timestamps truncate fractions finer than a microsecond") {
  CHECK(*ParseS3Timestamp("2009-10-12T17:50:30.123456789Z") == 1255369830123456);
}

TEST_CASE("S3 timestamps refuse other zones, shapes and impossible dates") {
  for (std::string_view value : {
           "", "2009-10-12T17:50:30.000", "2009-10-12T17:50:30.000+00:00",
           "2009-10-12 17:50:30.000Z", "2009-10-12t17:50:30.000Z",
           "2009-10-12T17:50:30.000z", "2009-10-12T17:50:30.Z",
           "2009-10-12T17:50:30.1234567890Z", "2009-10-12T17:50:30,000Z",
           "09-10-12T17:50:30.000Z", "2009-1-12T17:50:30.000Z",
           "+2009-10-12T17:50:30Z", "2009-10-12T17:50:30.000ZZ",
           "2009-13-12T17:50:30.000Z", "2023-02-29T00:00:00.000Z",
           "2009-10-12T24:00:00.000Z", "2009-10-12T17:50:60.000Z",
           " 2009-10-12T17:50:30.000Z",
       }) {
    CHECK_MESSAGE(!ParseS3Timestamp(value).ok(), std::string(value));
  }
}

TEST_CASE("S3 timestamps format with milliseconds, or microseconds when needed") {
  CHECK(FormatS3Timestamp(1255369830000000) == "2009-10-12T17:50:30.000Z");
  CHECK(FormatS3Timestamp(1255369830500000) == "2009-10-12T17:50:30.500Z");
  CHECK(FormatS3Timestamp(1255369830123456) == "2009-10-12T17:50:30.123456Z");
  CHECK(FormatS3Timestamp(-1) == "1969-12-31T23:59:59.999999Z");
  CHECK(*ParseS3Timestamp(FormatS3Timestamp(-1)) == -1);
}

// --- Outgoing headers -------------------------------------------------------------

TEST_CASE("header names are RFC 9110 tokens") {
  LAKE_CHECK_OK(ValidateHeaderName("x-amz-meta-lake_sha256"));
  LAKE_CHECK_OK(ValidateHeaderName("Content-Type"));
  for (std::string_view name : {""s, "a b"s, "a:b"s, "a\rb"s, "a\nb"s, "a\0b"s,
                                "\xC3\xA9"s, "a(b)"s}) {
    CHECK_MESSAGE(!ValidateHeaderName(name).ok(), std::string(name));
  }
}

TEST_CASE("header values refuse CR, LF, NUL and other control characters") {
  LAKE_CHECK_OK(ValidateHeaderValue("video/mp4; codecs=\"avc1\""));
  LAKE_CHECK_OK(ValidateHeaderValue("caf\xC3\xA9 \tbar"));
  LAKE_CHECK_OK(ValidateHeaderValue(""));
  for (std::string_view value :
       {"a\r\nX-Evil: 1"s, "a\rb"s, "a\nb"s, "a\0b"s, "a\x01"s, "a\x7F"s}) {
    CHECK_MESSAGE(!ValidateHeaderValue(value).ok(), SanitizedExcerpt(value));
  }
}

TEST_CASE("refusal messages show a bounded, printable excerpt") {
  absl::Status status =
      ParseContentLength(std::string(1000, '1') + "\r\nX").status();
  CHECK(!status.ok());
  std::string message(status.message());
  CHECK(message.size() < 200);
  CHECK(message.find('\r') == std::string::npos);
  CHECK(SanitizedExcerpt("a\r\n\\b", 20) == "a\\x0d\\x0a\\x5cb");
  CHECK(SanitizedExcerpt("a\r\n", 6) == "a\\x0d...");
  CHECK(SanitizedExcerpt("abcdef", 3) == "abc...");
}

}  // namespace
}  // namespace lake::s3http
