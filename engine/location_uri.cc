#include "engine/location_uri.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "absl/strings/cord.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/utf8.h"
#include "engine/integrity_error.h"
#include "io/s3http/sigv4_signer.h"

namespace lake {
namespace {

constexpr char kFileScheme[] = "file://";
constexpr char kS3Scheme[] = "s3://";
int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

// The bytes PercentEncodePath leaves as they are (SigV4's unreserved set
// and '/'), as a table: URIs are checked for every row a table appends, and
// one load a byte is several times cheaper than the comparisons.
constexpr std::array<bool, 256> kLiteralPathBytes = [] {
  std::array<bool, 256> literal{};
  for (int c = 0; c < 256; ++c) {
    literal[c] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '-' || c == '.' || c == '_' || c == '~' || c == '/';
  }
  return literal;
}();

bool IsLiteralPathByte(char c) { return kLiteralPathBytes[static_cast<unsigned char>(c)]; }

// A segment ValidatePathSegments accepts: not empty, ".", or "..".
bool IsPlainSegment(const char* begin, const char* end) {
  const size_t n = static_cast<size_t>(end - begin);
  return n > 2 || (n == 1 && *begin != '.') || (n == 2 && (begin[0] != '.' || begin[1] != '.'));
}

#if defined(__SSE2__)
// The lanes of `x` (16 bytes) that hold a literal path byte, as a 16-bit
// mask: the same set as kLiteralPathBytes. Letters fold to lowercase with
// 0x20 (exactly 'A'..'Z' and 'a'..'z' land in 'a'..'z'); '-', '.', '/' and
// the digits are the one range 0x2D..0x39; '_' and '~' are single bytes.
// Each range check is unsigned: (x - lo) saturating-minus (hi - lo) is 0.
uint32_t LiteralLanes(__m128i x) {
  auto in_range = [](__m128i v, char lo, char hi) {
    __m128i above = _mm_subs_epu8(_mm_sub_epi8(v, _mm_set1_epi8(lo)),
                                  _mm_set1_epi8(static_cast<char>(hi - lo)));
    return _mm_cmpeq_epi8(above, _mm_setzero_si128());
  };
  __m128i literal = _mm_or_si128(in_range(_mm_or_si128(x, _mm_set1_epi8(0x20)), 'a', 'z'),
                                 in_range(x, '-', '9'));
  literal = _mm_or_si128(literal, _mm_cmpeq_epi8(x, _mm_set1_epi8('_')));
  literal = _mm_or_si128(literal, _mm_cmpeq_epi8(x, _mm_set1_epi8('~')));
  return static_cast<uint32_t>(_mm_movemask_epi8(literal));
}
#endif

// Every byte of `path` is literal and its '/'-separated segments pass
// ValidatePathSegments: the same answer as
// all_of(IsLiteralPathByte) && ValidatePathSegments(path).ok(), since
// literal bytes are ASCII without NUL. Sixteen bytes a step where SSE2 is
// there (every FILE cell of every append is checked here, twice), then
// byte by byte.
bool IsLiteralSegmentPath(std::string_view path) {
  const char* const begin = path.data();
  const size_t n = path.size();
  size_t segment = 0;  // where the current segment starts
  size_t i = 0;
#if defined(__SSE2__)
  for (; n - i >= 16; i += 16) {
    __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(begin + i));
    if (LiteralLanes(x) != 0xFFFF) return false;
    uint32_t slashes =
        static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_set1_epi8('/'))));
    for (; slashes != 0; slashes &= slashes - 1) {
      const size_t at = i + static_cast<size_t>(std::countr_zero(slashes));
      if (!IsPlainSegment(begin + segment, begin + at)) return false;
      segment = at + 1;
    }
  }
#endif
  for (; i < n; ++i) {
    if (!IsLiteralPathByte(begin[i])) return false;
    if (begin[i] == '/') {
      if (!IsPlainSegment(begin + segment, begin + i)) return false;
      segment = i + 1;
    }
  }
  return IsPlainSegment(begin + segment, begin + n);
}

// Decodes once, then insists that re-encoding gives back the input.
absl::StatusOr<std::string> DecodeCanonical(std::string_view encoded) {
  // The common case: nothing escaped, and nothing that needs escaping.
  if (std::all_of(encoded.begin(), encoded.end(), IsLiteralPathByte)) {
    return std::string(encoded);
  }
  std::string decoded;
  decoded.reserve(encoded.size());
  for (size_t i = 0; i < encoded.size(); ++i) {
    if (encoded[i] != '%') {
      decoded.push_back(encoded[i]);
      continue;
    }
    if (i + 2 >= encoded.size()) {
      return InvalidLocationError("truncated percent-escape in URI");
    }
    int hi = HexValue(encoded[i + 1]);
    int lo = HexValue(encoded[i + 2]);
    if (hi < 0 || lo < 0) {
      return InvalidLocationError("malformed percent-escape in URI");
    }
    decoded.push_back(static_cast<char>(hi * 16 + lo));
    i += 2;
  }
  if (PercentEncodePath(decoded) != encoded) {
    return InvalidLocationError(
        "URI is not in canonical percent-encoding (unreserved characters and "
        "'/' literal, every other byte %XX in uppercase hex)");
  }
  return decoded;
}

}  // namespace

std::string PercentEncodePath(std::string_view decoded) {
  // The same rule S3 signs keys with: one encoding, so one spelling.
  return s3http::EncodeCanonicalUri(decoded);
}

std::string FormatFileUri(std::string_view absolute_path) {
  return absl::StrCat(kFileScheme, PercentEncodePath(absolute_path));
}

std::string FormatS3Uri(std::string_view bucket, std::string_view key) {
  return absl::StrCat(kS3Scheme, std::string(bucket), "/",
                      PercentEncodePath(key));
}

absl::Status ValidatePathSegments(std::string_view path) {
  if (!IsValidUtf8(path)) {
    return InvalidLocationError("path is not valid UTF-8");
  }
  if (path.find('\0') != std::string_view::npos) {
    return InvalidLocationError("path contains a NUL byte");
  }
  size_t start = 0;
  for (;;) {
    size_t slash = path.find('/', start);
    std::string_view segment =
        path.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start);
    if (segment.empty()) {
      return InvalidLocationError("path has an empty segment");
    }
    if (segment == "." || segment == "..") {
      return InvalidLocationError(absl::StrCat("path has a '", std::string(segment), "' segment"));
    }
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  return absl::OkStatus();
}

bool IsValidBucketName(std::string_view bucket) {
  if (bucket.size() < 3 || bucket.size() > 63) return false;
  for (char c : bucket) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
          c == '-')) {
      return false;
    }
  }
  auto alnum = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
  };
  return alnum(bucket.front()) && alnum(bucket.back());
}

namespace {

absl::StatusOr<ParsedUri> ParseUri(std::string_view uri) {
  ParsedUri parsed;
  std::string_view encoded;
  if (uri.substr(0, sizeof kFileScheme - 1) == kFileScheme) {
    parsed.scheme = UriScheme::kFile;
    std::string_view rest = uri.substr(sizeof kFileScheme - 1);
    if (rest.empty() || rest.front() != '/') {
      return InvalidLocationError(
          "a file:// URI must have an empty authority (file:///path); a host "
          "is not allowed");
    }
    encoded = rest;
  } else if (uri.substr(0, sizeof kS3Scheme - 1) == kS3Scheme) {
    parsed.scheme = UriScheme::kS3;
    std::string_view rest = uri.substr(sizeof kS3Scheme - 1);
    size_t slash = rest.find('/');
    if (slash == std::string_view::npos) {
      return InvalidLocationError("an s3:// URI needs a key: s3://bucket/key");
    }
    parsed.bucket = std::string(rest.substr(0, slash));
    if (!IsValidBucketName(parsed.bucket)) {
      return InvalidLocationError("invalid S3 bucket name in URI");
    }
    encoded = rest.substr(slash + 1);
  } else {
    return InvalidLocationError(
        "location URI must start with file:// or s3://");
  }
  absl::StatusOr<std::string> decoded = DecodeCanonical(encoded);
  if (!decoded.ok()) return decoded.status();
  // A file path is absolute: validate the segments after the leading '/'.
  std::string_view segments = *decoded;
  if (parsed.scheme == UriScheme::kFile) segments.remove_prefix(1);
  if (absl::Status s = ValidatePathSegments(segments); !s.ok()) return s;
  parsed.path = std::move(*decoded);
  return parsed;
}

// A URI in a message: escaped, and cut after kShownUriBytes.
constexpr size_t kShownUriBytes = 256;

std::string ShownUri(std::string_view uri) {
  std::string_view head = uri.substr(0, kShownUriBytes);
  return absl::StrCat(absl::CHexEscape(absl::string_view(head.data(), head.size())),
                      uri.size() > kShownUriBytes ? "..." : "");
}

}  // namespace

absl::StatusOr<ParsedUri> ParseLocationUri(std::string_view uri) {
  absl::StatusOr<ParsedUri> parsed = ParseUri(uri);
  if (parsed.ok()) return parsed;
  // Every refusal names the URI it refused (its kind and payload kept).
  absl::Status named(parsed.status().code(),
                     absl::StrCat(parsed.status().message(), ": ", ShownUri(uri)));
  parsed.status().ForEachPayload(
      [&](absl::string_view url, const absl::Cord& payload) { named.SetPayload(url, payload); });
  return named;
}

std::optional<std::string_view> LiteralFileUriPath(std::string_view uri) {
  if (uri.substr(0, sizeof kFileScheme - 1) != kFileScheme) return std::nullopt;
  std::string_view path = uri.substr(sizeof kFileScheme - 1);
  if (path.empty() || path.front() != '/') return std::nullopt;
  if (!IsLiteralSegmentPath(path.substr(1))) return std::nullopt;
  return path;
}

absl::Status CheckLocationUri(std::string_view uri) {
  // An all-literal path decodes to itself: valid UTF-8 (ASCII) without NUL,
  // so only the segments are left to check, in place.
  std::string_view encoded;
  if (uri.substr(0, sizeof kFileScheme - 1) == kFileScheme) {
    if (LiteralFileUriPath(uri)) return absl::OkStatus();
    return ParseLocationUri(uri).status();
  } else if (uri.substr(0, sizeof kS3Scheme - 1) == kS3Scheme) {
    std::string_view rest = uri.substr(sizeof kS3Scheme - 1);
    size_t slash = rest.find('/');
    if (slash == std::string_view::npos || !IsValidBucketName(rest.substr(0, slash))) {
      return ParseLocationUri(uri).status();
    }
    encoded = rest.substr(slash + 1);
  } else {
    return ParseLocationUri(uri).status();
  }
  if (!IsLiteralSegmentPath(encoded)) return ParseLocationUri(uri).status();
  return absl::OkStatus();
}

bool IsStrictlyBeneath(std::string_view child, std::string_view parent) {
  if (parent.empty()) return !child.empty();
  return child.size() > parent.size() + 1 &&
         child.substr(0, parent.size()) == parent &&
         child[parent.size()] == '/';
}

}  // namespace lake
