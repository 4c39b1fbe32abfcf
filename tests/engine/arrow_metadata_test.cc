// Arrow's binary key/value metadata: exact encoding, strict decoding.
#include "engine/arrow/arrow_metadata.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "tests/support/status_checks.h"

namespace lake::arrow {
namespace {

std::string Int32Bytes(int32_t value) {
  std::string bytes(4, '\0');
  std::memcpy(bytes.data(), &value, 4);
  return bytes;
}

TEST_CASE("metadata encodes as counted, length-prefixed pairs in native order") {
  std::string bytes = EncodeArrowMetadata({{"ab", "xyz"}, {"k", ""}});
  std::string expected = Int32Bytes(2) + Int32Bytes(2) + "ab" + Int32Bytes(3) + "xyz" +
                         Int32Bytes(1) + "k" + Int32Bytes(0);
  CHECK(bytes == expected);
  absl::StatusOr<ArrowMetadata> decoded = DecodeArrowMetadata(bytes);
  LAKE_REQUIRE_OK(decoded);
  CHECK(*decoded == ArrowMetadata{{"ab", "xyz"}, {"k", ""}});
  absl::StatusOr<size_t> extent = ArrowMetadataExtent(bytes.data());
  LAKE_REQUIRE_OK(extent);
  CHECK(*extent == bytes.size());
  CHECK(FindArrowMetadata(*decoded, "k") == std::string());
  CHECK(FindArrowMetadata(*decoded, "missing") == std::nullopt);
}

TEST_CASE("no metadata has extent zero and zero pairs decode") {
  absl::StatusOr<size_t> extent = ArrowMetadataExtent(nullptr);
  LAKE_REQUIRE_OK(extent);
  CHECK(*extent == 0);
  absl::StatusOr<ArrowMetadata> none = DecodeArrowMetadata(Int32Bytes(0));
  LAKE_REQUIRE_OK(none);
  CHECK(none->empty());
}

TEST_CASE("metadata decoding refuses short, negative and trailing bytes") {
  std::string good = EncodeArrowMetadata({{"key", "value"}});
  for (size_t cut = 0; cut < good.size(); ++cut) {
    CAPTURE(cut);
    CHECK(DecodeArrowMetadata(good.substr(0, cut)).status().code() ==
          absl::StatusCode::kInvalidArgument);
  }
  CHECK(DecodeArrowMetadata(good + "x").status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(DecodeArrowMetadata(Int32Bytes(-1)).status().code() ==
        absl::StatusCode::kInvalidArgument);
  std::string negative_key = Int32Bytes(1) + Int32Bytes(-3);
  CHECK(DecodeArrowMetadata(negative_key).status().code() ==
        absl::StatusCode::kInvalidArgument);
  CHECK(ArrowMetadataExtent(negative_key.data()).status().code() ==
        absl::StatusCode::kInvalidArgument);
  // A huge count over a few bytes fails on the bytes, not on memory.
  CHECK(DecodeArrowMetadata(Int32Bytes(INT32_MAX)).status().code() ==
        absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace lake::arrow
