// Strict, pure parsers and formatters of the HTTP header values lake's S3
// layer reads or writes: Content-Range, Content-Length, ETag, Retry-After,
// Date, the timestamps S3 writes in XML, and the validation of outgoing
// header names and values. Everything here is a function of its arguments
// (no clock, no I/O, thread-safe) and is fuzzed (fuzz/s3_headers_fuzzer.cc).
//
// Values are given without the surrounding optional whitespace of HTTP
// (the transport strips it); a space, tab or any byte outside the grammar
// written beside each function is refused. Every parser that accepts a
// value has a formatter giving its canonical spelling, and parsing that
// spelling gives back the same value.
//
// Refusals are InvalidArgument statuses, except where a function says
// otherwise; messages never echo more than a short, sanitised prefix of the
// refused value.
#ifndef LAKE_IO_S3HTTP_S3_HEADERS_H_
#define LAKE_IO_S3HTTP_S3_HEADERS_H_

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace lake::s3http {

// S3 multipart limits (S3 API reference, "Amazon S3 multipart upload
// limits"): part numbers are 1..10,000, so an upload has at most 10,000
// parts and a multipart ETag's "-N" suffix is at most 10,000.
inline constexpr int kMinPartNumber = 1;
inline constexpr int kMaxPartNumber = 10000;

// A decimal number of digits only: one or more ASCII digits (leading zeros
// allowed), no sign, no space, value below 2^64. The grammar of every
// number lake reads from S3, in headers and in XML.
absl::StatusOr<uint64_t> ParseDecimal(std::string_view text);

// A short excerpt of outside text that is safe to put in an error message
// or a log line: printable ASCII kept, every other byte (and '\') written
// as \xNN, cut to at most `max_bytes` bytes with "..." appended when cut.
std::string SanitizedExcerpt(std::string_view text, size_t max_bytes = 64);

// ---------------------------------------------------------------------------
// Content-Length: a decimal number (ParseDecimal). Canonical form: the
// number without leading zeros (std::to_string).
absl::StatusOr<uint64_t> ParseContentLength(std::string_view value);

// ---------------------------------------------------------------------------
// Content-Range of a 206 response (RFC 9110 §14.4), exactly
//   "bytes" SP FIRST "-" LAST "/" ( COMPLETE | "*" )
// with decimal numbers (ParseDecimal), FIRST <= LAST and, when the complete
// length is known, LAST < COMPLETE. The unit is the lowercase "bytes"; the
// unsatisfied form "bytes */N" of a 416 is refused (it names no range).
struct ContentRange {
  uint64_t first = 0;                       // first byte, inclusive
  uint64_t last = 0;                        // last byte, inclusive
  std::optional<uint64_t> complete_length;  // absent when sent as "*"

  friend bool operator==(const ContentRange&, const ContentRange&) = default;
};

absl::StatusOr<ContentRange> ParseContentRange(std::string_view value);

// "bytes FIRST-LAST/COMPLETE" (or "/*"), numbers without leading zeros.
std::string FormatContentRange(const ContentRange& range);

// A ranged GET as lake sends it: "Range: bytes=start-(end-1)", half-open
// [start, end). `object_size`, when known (it is, for a DataLocation), is
// the size the object must have.
struct RangeRequest {
  uint64_t start = 0;
  uint64_t end = 0;
  std::optional<uint64_t> object_size;
};

// OK exactly when a response answers `request` with nothing but the bytes
// asked for: HTTP 206, Content-Range "bytes start-(end-1)/object_size"
// (any complete length, or "*", when object_size is absent) and
// Content-Length end - start. A header that is absent is passed as
// nullopt. Everything else is refused with DataLoss, naming what differs:
// a 200 carrying the whole object (a proxy or server that ignored Range),
// another range, another complete length or "*" where the size is known,
// another length, or a malformed or missing header. The body of such a
// response is not the requested range and must not be read as one.
// An invalid request (end <= start, or end past object_size) is an
// InvalidArgument: HTTP cannot ask for an empty range.
absl::Status CheckRangeResponse(int http_status,
                                std::optional<std::string_view> content_range,
                                std::optional<std::string_view> content_length,
                                const RangeRequest& request);

// ---------------------------------------------------------------------------
// ETag, as S3 sends it in headers and XML: a strong entity tag, `"` HEX `"`
// or `"` HEX "-" N `"`, where HEX is 32 lowercase hex digits and N a part
// count 1..10,000 without leading zeros. The quotes may be absent (some
// S3-compatible servers omit them in XML); a weak tag (W/"…") is refused,
// since S3 never sends one and a weak tag promises no byte equality.
//
// For a single-part upload HEX is the object's MD5 (for SSE-KMS/SSE-C
// objects it is some other digest of the same shape); for a multipart
// upload it is the MD5 of the concatenated binary MD5s of the parts and N
// is the number of parts (ComputeMultipartETag).
struct ETag {
  std::string hex;                // 32 lowercase hex digits
  std::optional<int> part_count;  // N of a multipart ETag, 1..10,000

  friend bool operator==(const ETag&, const ETag&) = default;
};

absl::StatusOr<ETag> ParseETag(std::string_view value);

// The quoted form: "\"" hex ["-" N] "\"".
std::string FormatETag(const ETag& etag);

using Md5Digest = std::array<uint8_t, 16>;

// The binary digest of a single-part ETag; refuses a multipart ETag (its
// hex is not the MD5 of any one part).
absl::StatusOr<Md5Digest> Md5DigestOfETag(const ETag& etag);

// The ETag S3 gives a completed multipart upload whose parts, in part
// number order, have the binary MD5s `part_md5s`: the MD5 (OpenSSL EVP) of
// their concatenation, with part_count = part_md5s.size(). Refuses an
// empty list and more than kMaxPartNumber parts.
absl::StatusOr<ETag> ComputeMultipartETag(std::span<const Md5Digest> part_md5s);

// The Content-MD5 header value for `body` (RFC 1864): the base64 of its
// binary MD5 (24 characters). S3 requires it on DeleteObjects.
std::string ContentMd5(std::string_view body);

// ---------------------------------------------------------------------------
// HTTP-date in the IMF-fixdate form of RFC 7231 §7.1.1.1 (the only form S3
// and RGW send), exactly 29 bytes: "Sun, 06 Nov 1994 08:49:37 GMT". Day and
// month names are case-sensitive, the day name must be the date's weekday,
// the date must exist and the second is 00..59 (no leap second). The
// obsolete RFC 850 and asctime forms are refused. Used for the Date header
// (clock-skew reports) and Retry-After.
absl::StatusOr<absl::Time> ParseHttpDate(std::string_view value);

// IMF-fixdate of `time` in UTC, truncated to the second. Years outside
// 0..9999 cannot be written and are clamped to those bounds.
std::string FormatHttpDate(absl::Time time);

// Retry-After (RFC 9110 §10.2.3): either delay-seconds (ParseDecimal, at
// most kMaxRetryAfter) or an HTTP-date. Returns the time after which to
// retry: `now` + the delay, or the date (possibly in the past). A larger
// delay is refused rather than obeyed: the caller falls back to its own
// backoff instead of stalling for a hostile or broken server.
inline constexpr absl::Duration kMaxRetryAfter = absl::Hours(24);
absl::StatusOr<absl::Time> ParseRetryAfter(std::string_view value,
                                           absl::Time now);

// ---------------------------------------------------------------------------
// The ISO-8601 UTC timestamps of S3 XML (LastModified, Initiated):
//   YYYY-MM-DD "T" hh:mm:ss [ "." 1*9 DIGIT ] "Z"
// e.g. "2009-10-12T17:50:30.000Z". Only "Z" is accepted as the zone; the
// date must exist; the second is 00..59. Returns Unix microseconds
// (fractions finer than a microsecond are truncated; years before 1970 give
// negative values).
absl::StatusOr<int64_t> ParseS3Timestamp(std::string_view text);

// The canonical spelling: milliseconds (".000Z") when the value is a whole
// number of milliseconds, else microseconds (".000000Z"). Values outside
// years 0000..9999 cannot be written and are clamped to those bounds.
std::string FormatS3Timestamp(int64_t unix_micros);

// ---------------------------------------------------------------------------
// Outgoing headers. A header built from a user-controlled string (a key in
// x-amz-copy-source, user metadata, a content type) must pass these checks,
// so that no input can end a header line or a request early.
//
// A name is an RFC 9110 token: one or more of A-Z a-z 0-9 and
// !#$%&'*+-.^_`|~ (so no CR, LF, NUL, space or colon).
absl::Status ValidateHeaderName(std::string_view name);

// A value holds no control character other than HTAB: CR, LF, NUL, the
// other C0 controls and DEL are refused. Bytes 0x80..0xFF (obs-text,
// UTF-8) and interior spaces are allowed.
absl::Status ValidateHeaderValue(std::string_view value);

}  // namespace lake::s3http

#endif  // LAKE_IO_S3HTTP_S3_HEADERS_H_
