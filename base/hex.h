// Checks of lowercase hexadecimal text, the canonical form of every SHA-256
// lake stores or compares (DataLocation, fragments, registry records).
#ifndef LAKE_BASE_HEX_H_
#define LAKE_BASE_HEX_H_

#include <cstddef>
#include <string_view>

namespace lake {

// True when `text` is exactly 64 characters of [0-9a-f] (a SHA-256 digest).
// Every byte is tested without a branch per byte, so the compiler
// vectorizes it: scans run it on every FILE cell of every fragment.
inline bool IsLowerHexSha256(std::string_view text) {
  if (text.size() != 64) return false;
  unsigned bad = 0;
  for (size_t i = 0; i < 64; ++i) {
    unsigned c = static_cast<unsigned char>(text[i]);
    bad |= static_cast<unsigned>(c - '0' > 9u) & static_cast<unsigned>(c - 'a' > 5u);
  }
  return bad == 0;
}

}  // namespace lake

#endif  // LAKE_BASE_HEX_H_
