// Fuzzes the URI rules of DATALOCATION.md (engine/location_uri.h).
//
// The input is used four ways; properties checked (a violation traps):
//   1. As a URI, ParseLocationUri(input); CheckLocationUri(input) gives the
//      same verdict with the same message, and LiteralFileUriPath(input),
//      when it gives a path, gives the path ParseLocationUri decodes (of an
//      accepted file:// URI). If accepted:
//      - re-formatting reproduces the input byte for byte
//        (FormatFileUri(path) for file://, FormatS3Uri(bucket, path) for
//        s3://), so the canonical encoding is the only accepted spelling and
//        one object has exactly one URI;
//      - a file path starts with '/'; an s3 bucket is a valid bucket name;
//      - the decoded path (after the leading '/' of a file path) has no
//        empty, "." or ".." segment, no NUL byte, and is valid UTF-8 — by
//        IsValidUtf8 and by an independent reference (Unicode Table 3-7).
//   2. As a decoded key: ValidatePathSegments(input) agrees with a reference
//      checker, and the canonical URIs built from the key,
//      FormatS3Uri("bucket-x", key) and FormatFileUri("/" + key), parse back
//      to exactly that bucket and key (path) when the key is valid, and are
//      refused when it is not.
//   3. IsValidUtf8(input) agrees with the reference UTF-8 validator.
//   4. IsStrictlyBeneath agrees with a reference: on strings (parent + '/' is
//      a proper prefix of child; an empty parent holds every non-empty
//      child), and, when both are valid paths, on segments (the parent's
//      segments are a proper prefix of the child's). Pairs tested: the two
//      halves around the first '\n', the input against "" and itself, and
//      the input against its own prefixes that end just before a '/' (the
//      first 16 of them).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/location_uri.h"
#include "fuzz/property_check.h"

namespace {

using lake::fuzz::Check;

// Well-formed UTF-8 byte sequences, Unicode 15 Table 3-7: every lead byte
// with the exact range of its second byte; later bytes are 80..BF.
bool ReferenceUtf8(std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    unsigned char b = static_cast<unsigned char>(text[i]);
    size_t length;
    unsigned char second_lo = 0x80, second_hi = 0xBF;
    if (b <= 0x7F) {
      length = 1;
    } else if (b >= 0xC2 && b <= 0xDF) {
      length = 2;
    } else if (b == 0xE0) {
      length = 3, second_lo = 0xA0;
    } else if ((b >= 0xE1 && b <= 0xEC) || b == 0xEE || b == 0xEF) {
      length = 3;
    } else if (b == 0xED) {
      length = 3, second_hi = 0x9F;
    } else if (b == 0xF0) {
      length = 4, second_lo = 0x90;
    } else if (b >= 0xF1 && b <= 0xF3) {
      length = 4;
    } else if (b == 0xF4) {
      length = 4, second_hi = 0x8F;
    } else {
      return false;
    }
    if (i + length > text.size()) return false;
    for (size_t k = 1; k < length; ++k) {
      unsigned char c = static_cast<unsigned char>(text[i + k]);
      unsigned char lo = k == 1 ? second_lo : 0x80;
      unsigned char hi = k == 1 ? second_hi : 0xBF;
      if (c < lo || c > hi) return false;
    }
    i += length;
  }
  return true;
}

std::vector<std::string_view> Segments(std::string_view path) {
  std::vector<std::string_view> segments;
  size_t start = 0;
  while (true) {
    size_t slash = path.find('/', start);
    if (slash == std::string_view::npos) {
      segments.push_back(path.substr(start));
      return segments;
    }
    segments.push_back(path.substr(start, slash - start));
    start = slash + 1;
  }
}

bool ReferenceSegmentsOk(std::string_view path) {
  if (!ReferenceUtf8(path)) return false;
  for (char c : path) {
    if (c == '\0') return false;
  }
  for (std::string_view segment : Segments(path)) {
    if (segment.empty() || segment == "." || segment == "..") return false;
  }
  return true;
}

void CheckParsedUri(std::string_view uri) {
  absl::StatusOr<lake::ParsedUri> parsed = lake::ParseLocationUri(uri);
  Check(lake::CheckLocationUri(uri) == parsed.status());
  if (std::optional<std::string_view> literal = lake::LiteralFileUriPath(uri)) {
    Check(parsed.ok() && parsed->scheme == lake::UriScheme::kFile && parsed->path == *literal);
  }
  if (!parsed.ok()) return;
  std::string_view segments = parsed->path;
  if (parsed->scheme == lake::UriScheme::kFile) {
    Check(parsed->bucket.empty());
    Check(!parsed->path.empty() && parsed->path.front() == '/');
    Check(lake::FormatFileUri(parsed->path) == uri);
    segments.remove_prefix(1);
  } else {
    Check(parsed->scheme == lake::UriScheme::kS3);
    Check(lake::IsValidBucketName(parsed->bucket));
    Check(lake::FormatS3Uri(parsed->bucket, parsed->path) == uri);
  }
  Check(ReferenceSegmentsOk(segments));
  Check(lake::IsValidUtf8(parsed->path));
  Check(parsed->path.find('\0') == std::string::npos);
}

void CheckKeyRoundTrip(std::string_view key) {
  bool valid = lake::ValidatePathSegments(key).ok();
  Check(valid == ReferenceSegmentsOk(key));

  absl::StatusOr<lake::ParsedUri> s3 =
      lake::ParseLocationUri(lake::FormatS3Uri("bucket-x", key));
  Check(s3.ok() == valid);
  if (valid) {
    Check(s3->scheme == lake::UriScheme::kS3);
    Check(s3->bucket == "bucket-x");
    Check(s3->path == key);
  }

  std::string absolute = "/" + std::string(key);
  absl::StatusOr<lake::ParsedUri> file =
      lake::ParseLocationUri(lake::FormatFileUri(absolute));
  Check(file.ok() == valid);
  if (valid) {
    Check(file->scheme == lake::UriScheme::kFile);
    Check(file->bucket.empty());
    Check(file->path == absolute);
  }
}

bool ReferenceBeneathOnStrings(std::string_view child,
                               std::string_view parent) {
  if (parent.empty()) return !child.empty();
  std::string boundary = std::string(parent) + "/";
  return child.size() > boundary.size() &&
         child.compare(0, boundary.size(), boundary) == 0;
}

// For valid paths only: containment as a proper prefix of segment lists.
bool ReferenceBeneathOnSegments(std::string_view child,
                                std::string_view parent) {
  std::vector<std::string_view> c = Segments(child);
  if (parent.empty()) return true;  // a valid child is non-empty
  std::vector<std::string_view> p = Segments(parent);
  if (p.size() >= c.size()) return false;
  for (size_t i = 0; i < p.size(); ++i) {
    if (p[i] != c[i]) return false;
  }
  return true;
}

void CheckBeneath(std::string_view child, std::string_view parent) {
  bool beneath = lake::IsStrictlyBeneath(child, parent);
  Check(beneath == ReferenceBeneathOnStrings(child, parent));
  if (ReferenceSegmentsOk(child) &&
      (parent.empty() || ReferenceSegmentsOk(parent))) {
    Check(beneath == ReferenceBeneathOnSegments(child, parent));
  }
}

void CheckBeneathPairs(std::string_view input) {
  size_t newline = input.find('\n');
  if (newline != std::string_view::npos) {
    CheckBeneath(input.substr(0, newline), input.substr(newline + 1));
  }
  CheckBeneath(input, "");
  CheckBeneath(input, input);
  // Bounded, so a slash-heavy input does not cost quadratic time.
  constexpr int kMaxPrefixes = 16;
  int prefixes = 0;
  for (size_t i = 0; i < input.size() && prefixes < kMaxPrefixes; ++i) {
    if (input[i] != '/') continue;
    CheckBeneath(input, input.substr(0, i));
    ++prefixes;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  CheckParsedUri(input);
  CheckKeyRoundTrip(input);
  Check(lake::IsValidUtf8(input) == ReferenceUtf8(input));
  CheckBeneathPairs(input);
  return 0;
}
