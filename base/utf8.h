// UTF-8 validation (RFC 3629): no overlong forms, no UTF-16 surrogates, no
// code points past U+10FFFF. Used by every parser of outside text.
#ifndef LAKE_BASE_UTF8_H_
#define LAKE_BASE_UTF8_H_

#include <string_view>

namespace lake {

bool IsValidUtf8(std::string_view text);

}  // namespace lake

#endif  // LAKE_BASE_UTF8_H_
