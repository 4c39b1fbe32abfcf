#include "base/hex.h"

#include <string>

#include <doctest/doctest.h>

namespace lake {
namespace {

TEST_CASE("IsLowerHexSha256 takes exactly 64 lowercase hex digits") {
  const std::string digest =
      "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
  CHECK(IsLowerHexSha256(digest));
  CHECK(IsLowerHexSha256(std::string(64, 'f')));
  CHECK_FALSE(IsLowerHexSha256(""));
  CHECK_FALSE(IsLowerHexSha256(digest.substr(0, 63)));
  CHECK_FALSE(IsLowerHexSha256(digest + "0"));
  // Every byte value at every position: only [0-9a-f] passes.
  for (size_t position : {size_t{0}, size_t{31}, size_t{63}}) {
    for (int value = 0; value < 256; ++value) {
      std::string text = digest;
      text[position] = static_cast<char>(value);
      bool hex = (value >= '0' && value <= '9') || (value >= 'a' && value <= 'f');
      CAPTURE(position);
      CAPTURE(value);
      CHECK(IsLowerHexSha256(text) == hex);
    }
  }
}

}  // namespace
}  // namespace lake
