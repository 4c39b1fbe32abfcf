#include "io/s3http/s3_headers.h"

#include <openssl/evp.h>

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/civil_time.h"

namespace lake::s3http {
namespace {

constexpr std::string_view kHexDigits = "0123456789abcdef";
constexpr std::string_view kWeekdayNames[] = {"Mon", "Tue", "Wed", "Thu",
                                              "Fri", "Sat", "Sun"};
constexpr std::string_view kMonthNames[] = {"Jan", "Feb", "Mar", "Apr",
                                            "May", "Jun", "Jul", "Aug",
                                            "Sep", "Oct", "Nov", "Dec"};

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsLowerHex(char c) { return IsDigit(c) || (c >= 'a' && c <= 'f'); }

absl::Status Refuse(std::string_view what, std::string_view value,
                    std::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat(
      std::string(what), " \"", SanitizedExcerpt(value), "\": ",
      std::string(why)));
}

// ParseDecimal, naming `what` in the refusal.
absl::StatusOr<uint64_t> ParseDecimalAs(std::string_view what,
                                        std::string_view text) {
  if (text.empty()) return Refuse(what, text, "is empty");
  uint64_t value = 0;
  for (char c : text) {
    if (!IsDigit(c)) return Refuse(what, text, "must be decimal digits only");
    uint64_t digit = static_cast<uint64_t>(c - '0');
    if (value > (UINT64_MAX - digit) / 10) {
      return Refuse(what, text, "does not fit in 64 bits");
    }
    value = value * 10 + digit;
  }
  return value;
}

// True when `text` has the length of `shape` and a digit wherever `shape`
// has 'D', any byte where it has '?', and the same byte elsewhere.
bool MatchesShape(std::string_view text, std::string_view shape) {
  if (text.size() != shape.size()) return false;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 'D') {
      if (!IsDigit(text[i])) return false;
    } else if (shape[i] != '?' && shape[i] != text[i]) {
      return false;
    }
  }
  return true;
}

// The value of the digits text[pos, pos + count); the caller has checked
// that they are digits (MatchesShape).
int DigitsAt(std::string_view text, size_t pos, size_t count) {
  int value = 0;
  for (size_t i = pos; i < pos + count; ++i) value = value * 10 + (text[i] - '0');
  return value;
}

// A UTC civil time from fields already known to be digits; refuses fields
// out of range and dates that do not exist (Feb 30), which absl would
// otherwise normalise into the next month.
std::optional<absl::CivilSecond> ExactCivilSecond(int year, int month, int day,
                                                  int hour, int minute,
                                                  int second) {
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 ||
      minute > 59 || second > 59) {
    return std::nullopt;
  }
  absl::CivilSecond civil(year, month, day, hour, minute, second);
  if (civil.year() != year || civil.month() != month || civil.day() != day) {
    return std::nullopt;
  }
  return civil;
}

const EVP_MD* Md5Algorithm() {
  // MD5 is in OpenSSL 3's default provider; fetched once per process.
  static const EVP_MD* md = [] {
    EVP_MD* fetched = EVP_MD_fetch(nullptr, "MD5", nullptr);
    return fetched != nullptr ? fetched : EVP_md5();
  }();
  return md;
}

std::string HexOf(const unsigned char* bytes, size_t size) {
  std::string hex(size * 2, '0');
  for (size_t i = 0; i < size; ++i) {
    hex[2 * i] = kHexDigits[bytes[i] >> 4];
    hex[2 * i + 1] = kHexDigits[bytes[i] & 15];
  }
  return hex;
}

// The first and last instants FormatHttpDate and FormatS3Timestamp can
// write with a four-digit year.
absl::Time EarliestWritable() {
  return absl::FromCivil(absl::CivilSecond(0, 1, 1, 0, 0, 0),
                         absl::UTCTimeZone());
}
absl::Time LatestWritable() {
  return absl::FromCivil(absl::CivilSecond(9999, 12, 31, 23, 59, 59),
                         absl::UTCTimeZone()) +
         absl::Microseconds(999999);
}

}  // namespace

absl::StatusOr<uint64_t> ParseDecimal(std::string_view text) {
  return ParseDecimalAs("number", text);
}

std::string SanitizedExcerpt(std::string_view text, size_t max_bytes) {
  std::string out;
  for (char c : text) {
    unsigned char byte = static_cast<unsigned char>(c);
    std::string piece = byte >= 0x20 && byte < 0x7F && c != '\\'
                            ? std::string(1, c)
                            : absl::StrFormat("\\x%02x", byte);
    if (out.size() + piece.size() > max_bytes) return out + "...";
    out += piece;
  }
  return out;
}

absl::StatusOr<uint64_t> ParseContentLength(std::string_view value) {
  return ParseDecimalAs("Content-Length", value);
}

absl::StatusOr<ContentRange> ParseContentRange(std::string_view value) {
  constexpr std::string_view kUnit = "bytes ";
  if (!value.starts_with(kUnit)) {
    return Refuse("Content-Range", value, "must start with \"bytes \"");
  }
  std::string_view spec = value.substr(kUnit.size());
  size_t dash = spec.find('-');
  size_t slash = spec.find('/');
  if (dash == std::string_view::npos || slash == std::string_view::npos ||
      slash < dash) {
    return Refuse("Content-Range", value, "must be bytes FIRST-LAST/COMPLETE");
  }
  absl::StatusOr<uint64_t> first = ParseDecimal(spec.substr(0, dash));
  absl::StatusOr<uint64_t> last =
      ParseDecimal(spec.substr(dash + 1, slash - dash - 1));
  if (!first.ok() || !last.ok()) {
    return Refuse("Content-Range", value,
                  "FIRST and LAST must be decimal numbers below 2^64");
  }
  if (*first > *last) {
    return Refuse("Content-Range", value, "FIRST is after LAST");
  }
  ContentRange range{*first, *last, std::nullopt};
  std::string_view complete = spec.substr(slash + 1);
  if (complete != "*") {
    absl::StatusOr<uint64_t> length = ParseDecimal(complete);
    if (!length.ok()) {
      return Refuse("Content-Range", value,
                    "COMPLETE must be '*' or a decimal number below 2^64");
    }
    if (*length <= *last) {
      return Refuse("Content-Range", value, "LAST is past the complete length");
    }
    range.complete_length = *length;
  }
  return range;
}

std::string FormatContentRange(const ContentRange& range) {
  return absl::StrCat("bytes ", range.first, "-", range.last, "/",
                      range.complete_length.has_value()
                          ? std::to_string(*range.complete_length)
                          : std::string("*"));
}

absl::Status CheckRangeResponse(int http_status,
                                std::optional<std::string_view> content_range,
                                std::optional<std::string_view> content_length,
                                const RangeRequest& request) {
  if (request.end <= request.start ||
      (request.object_size.has_value() && request.end > *request.object_size)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "range request [", request.start, ", ", request.end,
        ") is empty or past the object"));
  }
  std::string asked = absl::StrCat("bytes ", request.start, "-", request.end - 1);
  if (http_status != 206) {
    return absl::DataLossError(absl::StrCat(
        "range response: HTTP ", http_status, " instead of 206 for ", asked,
        http_status == 200 ? " (the server or a proxy ignored Range)" : ""));
  }
  if (!content_range.has_value()) {
    return absl::DataLossError(
        absl::StrCat("range response: no Content-Range for ", asked));
  }
  absl::StatusOr<ContentRange> range = ParseContentRange(*content_range);
  if (!range.ok()) {
    return absl::DataLossError(
        absl::StrCat("range response: ", range.status().message()));
  }
  if (range->first != request.start || range->last != request.end - 1) {
    return absl::DataLossError(absl::StrCat(
        "range response declares bytes ", range->first, "-", range->last,
        " instead of ", asked.substr(6)));
  }
  if (request.object_size.has_value() &&
      range->complete_length != request.object_size) {
    return absl::DataLossError(absl::StrCat(
        "range response declares an object of ",
        range->complete_length.has_value()
            ? absl::StrCat(*range->complete_length, " bytes")
            : std::string("unknown size ('*')"),
        ", expected ", *request.object_size, " bytes"));
  }
  if (!content_length.has_value()) {
    return absl::DataLossError(
        absl::StrCat("range response: no Content-Length for ", asked));
  }
  absl::StatusOr<uint64_t> length = ParseContentLength(*content_length);
  if (!length.ok()) {
    return absl::DataLossError(
        absl::StrCat("range response: ", length.status().message()));
  }
  if (*length != request.end - request.start) {
    return absl::DataLossError(absl::StrCat(
        "range response: Content-Length ", *length, " instead of ",
        request.end - request.start));
  }
  return absl::OkStatus();
}

absl::StatusOr<ETag> ParseETag(std::string_view value) {
  if (value.starts_with("W/")) {
    return Refuse("ETag", value, "weak entity tags are refused");
  }
  std::string_view tag = value;
  if (tag.size() >= 2 && tag.front() == '"' && tag.back() == '"') {
    tag = tag.substr(1, tag.size() - 2);
  }
  constexpr size_t kHexSize = 32;
  if (tag.size() < kHexSize) {
    return Refuse("ETag", value, "must be 32 lowercase hex digits [-N]");
  }
  for (char c : tag.substr(0, kHexSize)) {
    if (!IsLowerHex(c)) {
      return Refuse("ETag", value, "must be 32 lowercase hex digits [-N]");
    }
  }
  ETag etag{std::string(tag.substr(0, kHexSize)), std::nullopt};
  if (tag.size() == kHexSize) return etag;
  std::string_view count = tag.substr(kHexSize);
  if (count.size() < 2 || count[0] != '-' || count[1] == '0' ||
      count.size() > 6) {
    return Refuse("ETag", value, "the part count must be -1 to -10000");
  }
  absl::StatusOr<uint64_t> parts = ParseDecimal(count.substr(1));
  if (!parts.ok() || *parts > static_cast<uint64_t>(kMaxPartNumber)) {
    return Refuse("ETag", value, "the part count must be -1 to -10000");
  }
  etag.part_count = static_cast<int>(*parts);
  return etag;
}

std::string FormatETag(const ETag& etag) {
  if (etag.part_count.has_value()) {
    return absl::StrCat("\"", etag.hex, "-", *etag.part_count, "\"");
  }
  return absl::StrCat("\"", etag.hex, "\"");
}

absl::StatusOr<Md5Digest> Md5DigestOfETag(const ETag& etag) {
  if (etag.part_count.has_value()) {
    return absl::InvalidArgumentError(
        "a multipart ETag is not the MD5 of the object");
  }
  if (etag.hex.size() != 32) {
    return absl::InvalidArgumentError("ETag digest must be 32 hex digits");
  }
  Md5Digest digest{};
  for (size_t i = 0; i < digest.size(); ++i) {
    size_t high = kHexDigits.find(etag.hex[2 * i]);
    size_t low = kHexDigits.find(etag.hex[2 * i + 1]);
    if (high == std::string_view::npos || low == std::string_view::npos) {
      return absl::InvalidArgumentError("ETag digest must be lowercase hex");
    }
    digest[i] = static_cast<uint8_t>(high << 4 | low);
  }
  return digest;
}

absl::StatusOr<ETag> ComputeMultipartETag(std::span<const Md5Digest> part_md5s) {
  if (part_md5s.empty() ||
      part_md5s.size() > static_cast<size_t>(kMaxPartNumber)) {
    return absl::InvalidArgumentError(
        absl::StrCat("a multipart upload has 1 to ", kMaxPartNumber,
                     " parts, not ", part_md5s.size()));
  }
  std::vector<uint8_t> concatenated;
  concatenated.reserve(part_md5s.size() * sizeof(Md5Digest));
  for (const Md5Digest& digest : part_md5s) {
    concatenated.insert(concatenated.end(), digest.begin(), digest.end());
  }
  unsigned char md5[EVP_MAX_MD_SIZE];
  unsigned int md5_size = 0;
  if (EVP_Digest(concatenated.data(), concatenated.size(), md5, &md5_size,
                 Md5Algorithm(), nullptr) != 1 ||
      md5_size != sizeof(Md5Digest)) {
    return absl::InternalError("OpenSSL MD5 failed");
  }
  return ETag{HexOf(md5, md5_size), static_cast<int>(part_md5s.size())};
}

std::string ContentMd5(std::string_view body) {
  unsigned char md5[EVP_MAX_MD_SIZE];
  unsigned int md5_size = 0;
  if (EVP_Digest(body.data(), body.size(), md5, &md5_size, Md5Algorithm(), nullptr) != 1 ||
      md5_size != sizeof(Md5Digest)) {
    return std::string();  // never with OpenSSL's MD5; the server then refuses the request
  }
  unsigned char base64[4 * ((sizeof(Md5Digest) + 2) / 3) + 1];
  int n = EVP_EncodeBlock(base64, md5, static_cast<int>(md5_size));
  return std::string(reinterpret_cast<const char*>(base64), static_cast<size_t>(n));
}

absl::StatusOr<absl::Time> ParseHttpDate(std::string_view value) {
  if (!MatchesShape(value, "???, DD ??? DDDD DD:DD:DD GMT")) {
    return Refuse("HTTP-date", value,
                  "must be IMF-fixdate, like \"Sun, 06 Nov 1994 08:49:37 GMT\"");
  }
  int month = 0;
  while (month < 12 && kMonthNames[month] != value.substr(8, 3)) ++month;
  if (month == 12) return Refuse("HTTP-date", value, "unknown month name");
  std::optional<absl::CivilSecond> civil = ExactCivilSecond(
      DigitsAt(value, 12, 4), month + 1, DigitsAt(value, 5, 2),
      DigitsAt(value, 17, 2), DigitsAt(value, 20, 2), DigitsAt(value, 23, 2));
  if (!civil.has_value()) {
    return Refuse("HTTP-date", value, "no such date or time");
  }
  int weekday = static_cast<int>(absl::GetWeekday(absl::CivilDay(*civil)));
  if (kWeekdayNames[weekday] != value.substr(0, 3)) {
    return Refuse("HTTP-date", value, "the day name is not the date's weekday");
  }
  return absl::FromCivil(*civil, absl::UTCTimeZone());
}

std::string FormatHttpDate(absl::Time time) {
  time = std::clamp(time, EarliestWritable(), LatestWritable());
  absl::CivilSecond civil = absl::ToCivilSecond(time, absl::UTCTimeZone());
  int weekday = static_cast<int>(absl::GetWeekday(absl::CivilDay(civil)));
  return absl::StrFormat("%s, %02d %s %04d %02d:%02d:%02d GMT",
                         std::string(kWeekdayNames[weekday]), civil.day(),
                         std::string(kMonthNames[civil.month() - 1]),
                         civil.year(), civil.hour(), civil.minute(),
                         civil.second());
}

absl::StatusOr<absl::Time> ParseRetryAfter(std::string_view value,
                                           absl::Time now) {
  if (!value.empty() && IsDigit(value[0])) {
    absl::StatusOr<uint64_t> seconds = ParseDecimalAs("Retry-After", value);
    if (!seconds.ok()) return seconds.status();
    if (*seconds > static_cast<uint64_t>(absl::ToInt64Seconds(kMaxRetryAfter))) {
      return Refuse("Retry-After", value, "delay is longer than 24 hours");
    }
    return now + absl::Seconds(static_cast<int64_t>(*seconds));
  }
  absl::StatusOr<absl::Time> date = ParseHttpDate(value);
  if (!date.ok()) {
    return Refuse("Retry-After", value,
                  "must be delay-seconds or an IMF-fixdate");
  }
  return *date;
}

absl::StatusOr<int64_t> ParseS3Timestamp(std::string_view text) {
  constexpr std::string_view kShape = "DDDD-DD-DDTDD:DD:DD";
  std::string_view why = "must look like 2009-10-12T17:50:30.000Z";
  if (text.size() < kShape.size() + 1 || text.back() != 'Z' ||
      !MatchesShape(text.substr(0, kShape.size()), kShape)) {
    return Refuse("timestamp", text, why);
  }
  std::string_view fraction =
      text.substr(kShape.size(), text.size() - kShape.size() - 1);
  // Microseconds from the first six fraction digits; finer ones truncated.
  int64_t micros = 0;
  if (!fraction.empty()) {
    std::string_view digits = fraction.substr(1);
    if (fraction[0] != '.' || digits.empty() || digits.size() > 9 ||
        !MatchesShape(digits, std::string(digits.size(), 'D'))) {
      return Refuse("timestamp", text, why);
    }
    for (size_t i = 0; i < 6; ++i) {
      micros = micros * 10 + (i < digits.size() ? digits[i] - '0' : 0);
    }
  }
  std::optional<absl::CivilSecond> civil = ExactCivilSecond(
      DigitsAt(text, 0, 4), DigitsAt(text, 5, 2), DigitsAt(text, 8, 2),
      DigitsAt(text, 11, 2), DigitsAt(text, 14, 2), DigitsAt(text, 17, 2));
  if (!civil.has_value()) {
    return Refuse("timestamp", text, "no such date or time");
  }
  return absl::ToUnixMicros(absl::FromCivil(*civil, absl::UTCTimeZone())) +
         micros;
}

std::string FormatS3Timestamp(int64_t unix_micros) {
  absl::Time time = std::clamp(absl::FromUnixMicros(unix_micros),
                               EarliestWritable(), LatestWritable());
  absl::CivilSecond civil = absl::ToCivilSecond(time, absl::UTCTimeZone());
  int64_t micros = absl::ToUnixMicros(time) -
                   absl::ToUnixMicros(absl::FromCivil(civil, absl::UTCTimeZone()));
  std::string fraction = micros % 1000 == 0
                             ? absl::StrFormat(".%03d", micros / 1000)
                             : absl::StrFormat(".%06d", micros);
  return absl::StrFormat("%04d-%02d-%02dT%02d:%02d:%02d%sZ", civil.year(),
                         civil.month(), civil.day(), civil.hour(),
                         civil.minute(), civil.second(), fraction);
}

absl::Status ValidateHeaderName(std::string_view name) {
  constexpr std::string_view kTokenPunctuation = "!#$%&'*+-.^_`|~";
  if (name.empty()) return absl::InvalidArgumentError("header name is empty");
  for (char c : name) {
    bool alnum = IsDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    if (!alnum && kTokenPunctuation.find(c) == std::string_view::npos) {
      return Refuse("header name", name,
                    "may hold only RFC 9110 token characters");
    }
  }
  return absl::OkStatus();
}

absl::Status ValidateHeaderValue(std::string_view value) {
  for (char c : value) {
    unsigned char byte = static_cast<unsigned char>(c);
    if ((byte < 0x20 && byte != '\t') || byte == 0x7F) {
      return Refuse("header value", value,
                    "holds a control character (CR, LF, NUL, ...)");
    }
  }
  return absl::OkStatus();
}

}  // namespace lake::s3http
