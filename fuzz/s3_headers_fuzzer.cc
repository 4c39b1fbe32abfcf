// Fuzzes the header parsers of io/s3http/s3_headers.h: Content-Length,
// Content-Range (and the exact range check), ETag (and the multipart ETag),
// HTTP-date, Retry-After, S3 XML timestamps, and the outgoing header checks.
// The whole input is given to every parser.
//
// Properties checked (a violation traps):
//   1. Any input: no crash, leak, ASan or UBSan finding.
//   2. Content-Length and the numbers of Content-Range: accepted exactly when
//      the input is in the documented grammar (checked against independent
//      references), and the canonical form equals the input with the leading
//      zeros of every number stripped.
//   3. Every accepted value re-serialises to a canonical form that parses
//      back equal, and the canonical form is a fixed point. An accepted
//      HTTP-date is its own canonical form (IMF-fixdate is fixed-width).
//   4. An accepted Content-Range satisfies FIRST <= LAST < COMPLETE, and
//      CheckRangeResponse accepts a 206 declaring exactly it (and refuses a
//      200 with DataLoss).
//   5. An accepted ETag is 32 lowercase hex digits with an optional part
//      count 1..10000, and the input is its canonical form with or without
//      the quotes. The multipart ETag of the input's 16-byte chunks equals an
//      independent OpenSSL MD5 over their concatenation.
//   6. ValidateHeaderName/Value accept exactly RFC 9110 tokens / values
//      without control characters other than HTAB.
//   7. The formatters write, for any time (the input's first 8 bytes),
//      something the parsers accept, equal to the value after clamping and
//      truncation.
#include <openssl/evp.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "absl/time/time.h"
#include "fuzz/property_check.h"
#include "io/s3http/s3_headers.h"

namespace {

using namespace lake::s3http;

using lake::fuzz::Check;

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

bool AllDigits(std::string_view text) {
  if (text.empty()) return false;
  for (char c : text) {
    if (!IsDigit(c)) return false;
  }
  return true;
}

// Non-empty digits whose value is below 2^64.
bool FitsUint64(std::string_view digits) {
  constexpr std::string_view kMax = "18446744073709551615";
  size_t first = digits.find_first_not_of('0');
  std::string_view stripped =
      first == std::string_view::npos ? digits.substr(digits.size() - 1)
                                      : digits.substr(first);
  if (stripped.size() != kMax.size()) return stripped.size() < kMax.size();
  return stripped <= kMax;
}

// `text` with the leading zeros of every run of digits removed (keeping
// one digit).
std::string StripLeadingZeros(std::string_view text) {
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    if (!IsDigit(text[i])) {
      out.push_back(text[i++]);
      continue;
    }
    size_t end = i;
    while (end < text.size() && IsDigit(text[end])) ++end;
    while (i + 1 < end && text[i] == '0') ++i;
    out.append(text.substr(i, end - i));
    i = end;
  }
  return out;
}

void CheckContentLength(std::string_view text) {
  absl::StatusOr<uint64_t> parsed = ParseContentLength(text);
  Check(parsed.ok() == (AllDigits(text) && FitsUint64(text)));
  if (!parsed.ok()) return;
  std::string canonical = std::to_string(*parsed);
  Check(canonical == StripLeadingZeros(text));
  Check(*ParseContentLength(canonical) == *parsed);
  Check(*ParseDecimal(text) == *parsed);
}

// The reference grammar: "bytes " D "-" D "/" (D | "*"), each D fitting.
bool ReferenceContentRangeShape(std::string_view text) {
  if (text.substr(0, 6) != "bytes ") return false;
  text.remove_prefix(6);
  size_t dash = text.find('-');
  size_t slash = text.find('/');
  if (dash == std::string_view::npos || slash == std::string_view::npos ||
      slash < dash) {
    return false;
  }
  std::string_view first = text.substr(0, dash);
  std::string_view last = text.substr(dash + 1, slash - dash - 1);
  std::string_view complete = text.substr(slash + 1);
  return AllDigits(first) && FitsUint64(first) && AllDigits(last) &&
         FitsUint64(last) &&
         (complete == "*" || (AllDigits(complete) && FitsUint64(complete)));
}

void CheckContentRange(std::string_view text) {
  absl::StatusOr<ContentRange> parsed = ParseContentRange(text);
  if (!ReferenceContentRangeShape(text)) Check(!parsed.ok());
  if (!parsed.ok()) return;
  Check(parsed->first <= parsed->last);
  if (parsed->complete_length.has_value()) {
    Check(parsed->last < *parsed->complete_length);
  }
  std::string canonical = FormatContentRange(*parsed);
  Check(canonical == StripLeadingZeros(text));
  absl::StatusOr<ContentRange> reparsed = ParseContentRange(canonical);
  Check(reparsed.ok() && *reparsed == *parsed);
  Check(FormatContentRange(*reparsed) == canonical);

  if (parsed->last == UINT64_MAX) return;  // end = last + 1 is not writable
  RangeRequest request{parsed->first, parsed->last + 1, parsed->complete_length};
  std::string length = std::to_string(parsed->last - parsed->first + 1);
  Check(CheckRangeResponse(206, text, length, request).ok());
  Check(absl::IsDataLoss(CheckRangeResponse(200, text, length, request)));
  request.object_size = std::nullopt;
  Check(CheckRangeResponse(206, text, length, request).ok());
}

void CheckETag(std::string_view text) {
  absl::StatusOr<ETag> parsed = ParseETag(text);
  if (!parsed.ok()) return;
  Check(parsed->hex.size() == 32);
  for (char c : parsed->hex) Check(IsDigit(c) || (c >= 'a' && c <= 'f'));
  if (parsed->part_count.has_value()) {
    Check(*parsed->part_count >= 1 && *parsed->part_count <= 10000);
  }
  std::string canonical = FormatETag(*parsed);
  Check(text == canonical || text == canonical.substr(1, canonical.size() - 2));
  absl::StatusOr<ETag> reparsed = ParseETag(canonical);
  Check(reparsed.ok() && *reparsed == *parsed);
  absl::StatusOr<Md5Digest> digest = Md5DigestOfETag(*parsed);
  Check(digest.ok() != parsed->part_count.has_value());
}

void CheckMultipartETag(std::string_view data) {
  std::vector<Md5Digest> parts(data.size() / 16);
  for (size_t i = 0; i < parts.size(); ++i) {
    std::memcpy(parts[i].data(), data.data() + 16 * i, 16);
  }
  absl::StatusOr<ETag> etag = ComputeMultipartETag(parts);
  Check(etag.ok() == (!parts.empty() && parts.size() <= 10000));
  if (!etag.ok()) return;
  unsigned char md5[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  Check(EVP_Digest(data.data(), parts.size() * 16, md5, &size, EVP_md5(),
                   nullptr) == 1);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned int i = 0; i < size; ++i) {
    hex.push_back(kHex[md5[i] >> 4]);
    hex.push_back(kHex[md5[i] & 15]);
  }
  Check(etag->hex == hex);
  Check(etag->part_count == static_cast<int>(parts.size()));
  Check(*ParseETag(FormatETag(*etag)) == *etag);
}

void CheckDates(std::string_view text) {
  absl::StatusOr<absl::Time> date = ParseHttpDate(text);
  if (date.ok()) Check(FormatHttpDate(*date) == text);

  const absl::Time now = absl::FromUnixSeconds(1700000000);
  absl::StatusOr<absl::Time> retry = ParseRetryAfter(text, now);
  if (retry.ok()) {
    if (date.ok()) {
      Check(*retry == *date);
    } else {
      Check(AllDigits(text));
      Check(*retry >= now && *retry - now <= kMaxRetryAfter);
      Check(*retry - now == absl::Seconds(static_cast<int64_t>(*ParseDecimal(text))));
    }
  }

  absl::StatusOr<int64_t> micros = ParseS3Timestamp(text);
  if (micros.ok()) {
    std::string canonical = FormatS3Timestamp(*micros);
    absl::StatusOr<int64_t> reparsed = ParseS3Timestamp(canonical);
    Check(reparsed.ok() && *reparsed == *micros);
    Check(FormatS3Timestamp(*reparsed) == canonical);
  }
}

// Any 64-bit number of seconds or microseconds formats to something the
// parsers accept, equal to the value clamped to years 0000..9999.
void CheckFormatters(std::string_view data) {
  if (data.size() < 8) return;
  int64_t raw = 0;
  std::memcpy(&raw, data.data(), 8);
  const absl::Time earliest = absl::FromCivil(absl::CivilSecond(0, 1, 1, 0, 0, 0),
                                              absl::UTCTimeZone());
  const absl::Time latest = absl::FromCivil(
      absl::CivilSecond(9999, 12, 31, 23, 59, 59), absl::UTCTimeZone());

  absl::Time seconds = absl::FromUnixSeconds(raw % (int64_t{1} << 40));
  absl::StatusOr<absl::Time> date = ParseHttpDate(FormatHttpDate(seconds));
  Check(date.ok());
  Check(*date == std::clamp(seconds, earliest, latest));

  absl::StatusOr<int64_t> micros = ParseS3Timestamp(FormatS3Timestamp(raw));
  Check(micros.ok());
  int64_t low = absl::ToUnixMicros(earliest);
  int64_t high = absl::ToUnixMicros(latest) + 999999;
  Check(*micros == std::clamp(raw, low, high));
}

void CheckHeaderChecks(std::string_view text) {
  constexpr std::string_view kTokenPunctuation = "!#$%&'*+-.^_`|~";
  bool token = !text.empty();
  bool value = true;
  for (char c : text) {
    unsigned char byte = static_cast<unsigned char>(c);
    bool alnum = IsDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    token = token && (alnum || kTokenPunctuation.find(c) != std::string_view::npos);
    value = value && !((byte < 0x20 && c != '\t') || byte == 0x7F);
  }
  Check(ValidateHeaderName(text).ok() == token);
  Check(ValidateHeaderValue(text).ok() == value);
  std::string excerpt = SanitizedExcerpt(text);
  for (char c : excerpt) Check(c >= 0x20 && c < 0x7F);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  CheckContentLength(text);
  CheckContentRange(text);
  CheckETag(text);
  CheckMultipartETag(text);
  CheckDates(text);
  CheckFormatters(text);
  CheckHeaderChecks(text);
  return 0;
}
