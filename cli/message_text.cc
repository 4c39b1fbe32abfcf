#include "cli/message_text.h"

#include <cstdint>
#include <cstdio>

namespace lake::cli {
namespace {

// The length of the valid UTF-8 sequence at the start of `text` (1..4), or
// 0 when it does not start with one: no overlong form, no UTF-16
// surrogate, nothing past U+10FFFF. *code is its code point.
size_t Utf8SequenceAt(std::string_view text, uint32_t* code) {
  unsigned char lead = static_cast<unsigned char>(text[0]);
  size_t extra;
  uint32_t min_code;
  if (lead < 0x80) {
    *code = lead;
    return 1;
  } else if ((lead & 0xE0) == 0xC0) {
    extra = 1, min_code = 0x80, *code = lead & 0x1F;
  } else if ((lead & 0xF0) == 0xE0) {
    extra = 2, min_code = 0x800, *code = lead & 0x0F;
  } else if ((lead & 0xF8) == 0xF0) {
    extra = 3, min_code = 0x10000, *code = lead & 0x07;
  } else {
    return 0;
  }
  if (text.size() <= extra) return 0;
  for (size_t k = 1; k <= extra; ++k) {
    unsigned char next = static_cast<unsigned char>(text[k]);
    if ((next & 0xC0) != 0x80) return 0;
    *code = (*code << 6) | (next & 0x3F);
  }
  if (*code < min_code || *code > 0x10FFFF || (*code >= 0xD800 && *code <= 0xDFFF)) return 0;
  return extra + 1;
}

void AppendEscaped(unsigned char byte, std::string* out) {
  switch (byte) {
    case '\n': *out += "\\n"; return;
    case '\r': *out += "\\r"; return;
    case '\t': *out += "\\t"; return;
    default: {
      char hex[5];
      std::snprintf(hex, sizeof hex, "\\x%02x", byte);
      *out += hex;
    }
  }
}

bool IsControl(uint32_t code) { return code < 0x20 || (code >= 0x7F && code <= 0x9F); }

}  // namespace

std::string OneLineText(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    uint32_t code = 0;
    size_t length = Utf8SequenceAt(text.substr(i), &code);
    if (length == 0 || IsControl(code)) {
      // An invalid byte alone; a control character byte by byte.
      size_t bytes = length == 0 ? 1 : length;
      for (size_t k = 0; k < bytes; ++k) {
        AppendEscaped(static_cast<unsigned char>(text[i + k]), &out);
      }
      i += bytes;
      continue;
    }
    out.append(text.substr(i, length));
    i += length;
  }
  return out;
}

}  // namespace lake::cli
