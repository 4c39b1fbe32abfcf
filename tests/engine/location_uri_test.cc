// URI parsing, canonical percent-encoding and containment helpers.
#include <doctest/doctest.h>

#include <algorithm>

#include <string>
#include <utility>
#include <vector>

#include "engine/data_location.h"
#include "engine/location_uri.h"
#include "tests/support/status_checks.h"

namespace lake {
namespace {

void CheckRefused(const std::string& uri) {
  absl::StatusOr<ParsedUri> parsed = ParseLocationUri(uri);
  CHECK_MESSAGE(!parsed.ok(), uri);
  CHECK(testing::KindOf(parsed.status()) == IntegrityKind::kInvalidLocation);
  // The validity-only check gives the same verdict and the same message.
  CHECK_MESSAGE(CheckLocationUri(uri) == parsed.status(), uri);
  CHECK_FALSE(LiteralFileUriPath(uri).has_value());
}

TEST_CASE("file URIs have an empty authority and an absolute path") {
  absl::StatusOr<ParsedUri> parsed = ParseLocationUri("file:///srv/lake/x");
  LAKE_REQUIRE_OK(parsed);
  CHECK(parsed->scheme == UriScheme::kFile);
  CHECK(parsed->path == "/srv/lake/x");
  CheckRefused("file://localhost/srv/x");
  CheckRefused("file://x/srv");
  CheckRefused("file:relative");
  CheckRefused("file://");
}

TEST_CASE("every refusal names the URI it refused: C-escaped, its first 256 bytes") {
  for (const auto& [uri, shown] : std::vector<std::pair<std::string, std::string>>{
           {"file://host/x", "file://host/x"},
           {"http://example.com/x", "http://example.com/x"},
           {"file:///a/../b", "file:///a/../b"},
           {"s3://No_Bucket/key", "s3://No_Bucket/key"},
           {"file:///a%zzb", "file:///a%zzb"},
           {"file:///a\nb\xff", "file:///a\\nb\\xff"},
       }) {
    CAPTURE(uri);
    absl::StatusOr<ParsedUri> parsed = ParseLocationUri(uri);
    REQUIRE_FALSE(parsed.ok());
    CHECK(testing::KindOf(parsed.status()) == IntegrityKind::kInvalidLocation);
    std::string message(parsed.status().message());
    bool ends_with_uri = message.size() >= shown.size() &&
                         message.compare(message.size() - shown.size(), shown.size(), shown) == 0;
    CHECK_MESSAGE(ends_with_uri, message);
  }
  const std::string longer = "http://" + std::string(300, 'x');
  std::string message(ParseLocationUri(longer).status().message());
  CHECK(message.find(longer.substr(0, 256) + "...") != std::string::npos);
  CHECK(message.find(longer) == std::string::npos);
}

TEST_CASE("an all-literal file URI is its own decoded path; anything else is parsed") {
  CHECK(LiteralFileUriPath("file:///srv/lake/objects/3f/x") == "/srv/lake/objects/3f/x");
  for (std::string uri : {"file:///srv/a%20b", "s3://bucket/key", "file://host/x",
                          "file:///srv/../x", "file:///srv//x", "file:///"}) {
    CAPTURE(uri);
    CHECK_FALSE(LiteralFileUriPath(uri).has_value());
  }
  // Segments of dots: "." and ".." are refused wherever they stand, longer
  // runs and dotted names are ordinary segments.
  for (std::string uri : {"file:///.", "file:///..", "file:///srv/.", "file:///srv/..",
                          "file:///./srv", "file:///srv/x/", "s3://bucket/.", "s3://bucket/a/../b",
                          "s3://bucket/", "s3://bucket/a//b", "s3://bucket/a/"}) {
    CheckRefused(uri);
  }
  for (std::string uri : {"file:///...", "file:///.a", "file:///a.", "file:///srv/.x/..y/z..",
                          "file:///a/b.c/~d_e-f"}) {
    CAPTURE(uri);
    CHECK(LiteralFileUriPath(uri) == uri.substr(7));
    CHECK(CheckLocationUri(uri).ok());
  }
  for (std::string uri : {"s3://bucket/...", "s3://bucket/.a/b.", "s3://bucket/x"}) {
    CAPTURE(uri);
    CHECK(CheckLocationUri(uri).ok());
    CHECK(ParseLocationUri(uri).ok());
  }
  // An escaped path still parses, just not on the literal path.
  absl::StatusOr<ParsedUri> escaped = ParseLocationUri("file:///srv/a%20b");
  LAKE_REQUIRE_OK(escaped);
  CHECK(escaped->path == "/srv/a b");
}

// The literal path's check, against the plain rule: every byte literal,
// no empty, "." or ".." segment.
bool LiteralPathByRule(std::string_view path) {
  auto literal = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '-' || c == '.' || c == '_' || c == '~' || c == '/';
  };
  return std::all_of(path.begin(), path.end(), literal) && ValidatePathSegments(path).ok();
}

TEST_CASE("the literal path check agrees with the rule for every byte at every position") {
  // Paths of 1 to 40 bytes (past two 16-byte steps and into the tail),
  // each byte value put at each position of an otherwise valid path.
  for (size_t length = 1; length <= 40; ++length) {
    std::string base(length, 'a');
    for (size_t at = 0; at < length; ++at) {
      for (int value = 0; value < 256; ++value) {
        std::string path = base;
        path[at] = static_cast<char>(value);
        std::string uri = "file:///" + path;
        bool want = LiteralPathByRule(path);
        if (want != LiteralFileUriPath(uri).has_value()) {
          FAIL("length " << length << ", byte " << value << " at " << at);
        }
      }
    }
  }
  // Segment boundaries on each side of a 16-byte step: "", "." and ".."
  // segments are refused wherever they fall.
  for (size_t pad = 0; pad < 20; ++pad) {
    for (std::string_view segment : {"", ".", "..", "...", "x", ".x"}) {
      for (std::string_view tail : {"", "/b", "/bbbbbbbbbbbbbbbbbbbb"}) {
        std::string path = std::string(pad + 1, 'a') + "/" + std::string(segment) + std::string(tail);
        CAPTURE(path);
        CHECK(LiteralFileUriPath("file:///" + path).has_value() == LiteralPathByRule(path));
      }
    }
  }
}

TEST_CASE("s3 URIs name a valid bucket and a key") {
  absl::StatusOr<ParsedUri> parsed = ParseLocationUri("s3://my-bucket/data/k%20ey");
  LAKE_REQUIRE_OK(parsed);
  CHECK(parsed->scheme == UriScheme::kS3);
  CHECK(parsed->bucket == "my-bucket");
  CHECK(parsed->path == "data/k ey");
  CheckRefused("s3://my-bucket");
  CheckRefused("s3://my-bucket/");
  CheckRefused("s3://My_Bucket/x");
  CheckRefused("s3://ab/x");
}

TEST_CASE("other schemes are refused") {
  CheckRefused("http://x/y");
  CheckRefused("FILE:///x");
  CheckRefused("/srv/x");
}

TEST_CASE("dot segments, empty segments and NUL are refused after decoding") {
  CheckRefused("file:///a/./b");
  CheckRefused("file:///a/../b");
  CheckRefused("file:///a//b");
  CheckRefused("file:///a/b/");
  CheckRefused("file:///a/%00b");
  CheckRefused("s3://bucket/a/../b");
}

TEST_CASE("percent-encoded tricks are refused: only the canonical spelling parses") {
  CheckRefused("file:///a/%2E%2E/b");  // ".." spelled with escapes
  CheckRefused("file:///a/%2Fetc");    // an encoded slash
  CheckRefused("file:///a/%41");       // 'A' need not be escaped
  CheckRefused("file:///a/%c3%a9");    // lowercase hex
  CheckRefused("file:///a/b c");       // a space must be escaped
  CheckRefused("file:///a/%2");        // truncated escape
  CheckRefused("file:///a/%zz");
  CheckRefused("file:///a/%25%32%65"); // decoded once only: "%2e", non-canonical
  LAKE_CHECK_OK(ParseLocationUri("file:///a/%C3%A9"));
}

TEST_CASE("invalid UTF-8 is refused") {
  CheckRefused("file:///a/%C3");
  CheckRefused("file:///a/%C0%AF");     // overlong '/'
  CheckRefused("file:///a/%ED%A0%80");  // a surrogate
  CheckRefused("file:///a/%F4%90%80%80");  // past U+10FFFF
}

TEST_CASE("the validity-only check accepts exactly what parses") {
  for (const char* uri : {"file:///srv/lake/x", "s3://my-bucket/data/k%20ey", "file:///a/%C3%A9",
                          "file:///x", "s3://b.c-d/a/b/c~d_e.f"}) {
    LAKE_CHECK_OK(ParseLocationUri(uri));
    CHECK_MESSAGE(CheckLocationUri(uri).ok(), uri);
  }
}

TEST_CASE("a canonical location is checked without building one") {
  const std::string sha(64, 'a');
  LAKE_CHECK_OK(CheckCanonicalLocation("file:///srv/x", "text/plain", 3, sha));
  // MakeDataLocation would lowercase this digest: not canonical as stored.
  CHECK(testing::KindOf(CheckCanonicalLocation("file:///srv/x", "text/plain", 3,
                                               std::string(64, 'A'))) ==
        IntegrityKind::kInvalidLocation);
  CHECK(testing::KindOf(CheckCanonicalLocation("file:///srv/x", "text/plain", 3,
                                               std::string(63, 'a'))) ==
        IntegrityKind::kInvalidLocation);
  CHECK(testing::KindOf(CheckCanonicalLocation("file:///srv/x", "", 3, sha)) ==
        IntegrityKind::kInvalidLocation);
  CHECK(testing::KindOf(CheckCanonicalLocation("file:///srv/x", "text/plain",
                                               kMaxObjectSizeBytes + 1, sha)) ==
        IntegrityKind::kInvalidLocation);
  CHECK(testing::KindOf(CheckCanonicalLocation("file:///srv/../x", "text/plain", 3, sha)) ==
        IntegrityKind::kInvalidLocation);
}

TEST_CASE("encoding keeps unreserved characters and slash literal") {
  CHECK(PercentEncodePath("a-b_c.d~e/F0") == "a-b_c.d~e/F0");
  CHECK(PercentEncodePath("a b%") == "a%20b%25");
  CHECK(PercentEncodePath("\xC3\xA9") == "%C3%A9");
  CHECK(FormatFileUri("/x y") == "file:///x%20y");
  CHECK(FormatS3Uri("bkt", "p/k") == "s3://bkt/p/k");
}

TEST_CASE("beneath means below on a segment boundary") {
  CHECK(IsStrictlyBeneath("data/x", "data"));
  CHECK_FALSE(IsStrictlyBeneath("data-evil/x", "data"));
  CHECK_FALSE(IsStrictlyBeneath("data", "data"));
  CHECK_FALSE(IsStrictlyBeneath("data/", "data"));
  CHECK(IsStrictlyBeneath("x", ""));
}

}  // namespace
}  // namespace lake
