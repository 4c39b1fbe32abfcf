// The canonical JSON of a DataLocation (DATALOCATION.md).
#include <doctest/doctest.h>

#include <string>

#include "engine/data_location_json.h"
#include "tests/support/status_checks.h"

namespace lake {
namespace {

const std::string kSha(64, 'a');
const std::string kUri = "file:///srv/lake/stage/objects/01/0193";

std::string Json(const std::string& body) { return "{" + body + "}"; }

void CheckRefused(const std::string& text) {
  absl::StatusOr<DataLocation> parsed = DataLocationFromJson(text);
  CHECK_MESSAGE(!parsed.ok(), text);
  CHECK(absl::IsInvalidArgument(parsed.status()));
  CHECK(testing::KindOf(parsed.status()) == IntegrityKind::kInvalidLocation);
}

TEST_CASE("output is the four keys in fixed order without whitespace") {
  DataLocation location = *MakeDataLocation(kUri, "video/mp4", 3145728, kSha);
  CHECK(DataLocationToJson(location) ==
        "{\"uri\":\"" + kUri + "\",\"content_type\":\"video/mp4\","
        "\"size_bytes\":3145728,\"sha256\":\"" + kSha + "\"}");
}

TEST_CASE("input accepts any key order and whitespace and round-trips") {
  std::string text = " { \"sha256\" : \"" + kSha + "\", \"size_bytes\": 7,\n"
                     "\"content_type\":\"a/b\", \"uri\":\"" + kUri + "\" } ";
  absl::StatusOr<DataLocation> parsed = DataLocationFromJson(text);
  LAKE_REQUIRE_OK(parsed);
  CHECK(parsed->size_bytes == 7);
  CHECK(parsed->content_type == "a/b");
  CHECK(*DataLocationFromJson(DataLocationToJson(*parsed)) == *parsed);
}

TEST_CASE("uppercase digests are accepted and printed lowercase") {
  std::string upper(64, 'A');
  absl::StatusOr<DataLocation> parsed = DataLocationFromJson(
      Json("\"uri\":\"" + kUri + "\",\"content_type\":\"a/b\",\"size_bytes\":1,"
           "\"sha256\":\"" + upper + "\""));
  LAKE_REQUIRE_OK(parsed);
  CHECK(parsed->sha256 == std::string(64, 'a'));
}

TEST_CASE("a missing, duplicate or unknown key is refused") {
  std::string uri = "\"uri\":\"" + kUri + "\"";
  std::string type = "\"content_type\":\"a/b\"";
  std::string size = "\"size_bytes\":1";
  std::string sha = "\"sha256\":\"" + kSha + "\"";
  CheckRefused(Json(uri + "," + type + "," + size));
  CheckRefused(Json(uri + "," + type + "," + size + "," + sha + "," + sha));
  CheckRefused(Json(uri + "," + uri + "," + type + "," + size + "," + sha));
  CheckRefused(Json(uri + "," + type + "," + size + "," + sha + ",\"extra\":1"));
}

TEST_CASE("size_bytes must be a non-negative integer below 2^63") {
  auto with_size = [](const std::string& size) {
    return Json("\"uri\":\"" + kUri + "\",\"content_type\":\"a/b\",\"size_bytes\":" +
                size + ",\"sha256\":\"" + kSha + "\"");
  };
  CheckRefused(with_size("1.0"));
  CheckRefused(with_size("1e3"));
  CheckRefused(with_size("-1"));
  CheckRefused(with_size("\"12\""));
  CheckRefused(with_size("9223372036854775808"));   // 2^63
  CheckRefused(with_size("18446744073709551616"));  // 2^64
  LAKE_CHECK_OK(DataLocationFromJson(with_size("9223372036854775807")));
  LAKE_CHECK_OK(DataLocationFromJson(with_size("0")));
}

TEST_CASE("malformed digests are refused: 63 and 65 characters, non-hex") {
  auto with_sha = [](const std::string& sha) {
    return Json("\"uri\":\"" + kUri + "\",\"content_type\":\"a/b\",\"size_bytes\":1,"
                "\"sha256\":\"" + sha + "\"");
  };
  CheckRefused(with_sha(std::string(63, 'a')));
  CheckRefused(with_sha(std::string(65, 'a')));
  CheckRefused(with_sha(std::string(63, 'a') + "g"));
  CheckRefused(with_sha(""));
}

TEST_CASE("content_type must be 1..255 printable ASCII bytes") {
  auto with_type = [](const std::string& type) {
    return Json("\"uri\":\"" + kUri + "\",\"content_type\":\"" + type +
                "\",\"size_bytes\":1,\"sha256\":\"" + kSha + "\"");
  };
  CheckRefused(with_type(""));
  CheckRefused(with_type(std::string(256, 'x')));
  CheckRefused(with_type("a\\u0001b"));
  CheckRefused(with_type("vid\\u00e9o"));
  LAKE_CHECK_OK(DataLocationFromJson(with_type(std::string(255, 'x'))));
}

TEST_CASE("not JSON, not an object, or too long is refused") {
  CheckRefused("");
  CheckRefused("[]");
  CheckRefused("{\"uri\":");
  CheckRefused(Json("\"uri\":1,\"content_type\":\"a/b\",\"size_bytes\":1,\"sha256\":\"" +
                    kSha + "\""));
  CheckRefused(std::string(kMaxLocationJsonBytes + 1, ' '));
}

TEST_CASE("the uri is held to the URI rules") {
  auto with_uri = [](const std::string& uri) {
    return Json("\"uri\":\"" + uri + "\",\"content_type\":\"a/b\",\"size_bytes\":1,"
                "\"sha256\":\"" + kSha + "\"");
  };
  CheckRefused(with_uri("https://example.com/x"));
  CheckRefused(with_uri("file://host/x"));
  CheckRefused(with_uri("file:///a/../b"));
}

}  // namespace
}  // namespace lake
