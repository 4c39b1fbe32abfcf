// IsValidUtf8: the eight-byte ASCII stride and the byte-wise decoder agree
// wherever a bad or multi-byte sequence sits relative to the stride.
#include "base/utf8.h"

#include <doctest/doctest.h>

#include <string>

namespace lake {
namespace {

TEST_CASE("UTF-8: valid text of every length passes, at every offset of the stride") {
  for (size_t prefix = 0; prefix < 20; ++prefix) {
    std::string ascii(prefix, 'a');
    CHECK(IsValidUtf8(ascii));
    CHECK(IsValidUtf8(ascii + "\xC3\xA9"));          // é
    CHECK(IsValidUtf8(ascii + "\xE2\x82\xAC" + ascii));  // €
    CHECK(IsValidUtf8(ascii + "\xF0\x9F\x98\x80"));  // U+1F600
  }
}

TEST_CASE("UTF-8: a bad byte is found wherever it sits relative to the stride") {
  const std::string bad[] = {
      "\xFF",          // never valid
      "\xC3",          // truncated
      "\xC0\xAF",      // overlong '/'
      "\xED\xA0\x80",  // a UTF-16 surrogate
      "\xF4\x90\x80\x80",  // past U+10FFFF
      "\x80",          // a lone continuation byte
  };
  for (const std::string& b : bad) {
    for (size_t prefix = 0; prefix < 20; ++prefix) {
      std::string ascii(prefix, 'x');
      CHECK_FALSE(IsValidUtf8(ascii + b));
      CHECK_FALSE(IsValidUtf8(ascii + b + std::string(9, 'y')));
    }
  }
}

}  // namespace
}  // namespace lake
