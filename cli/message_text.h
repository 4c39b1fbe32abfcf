// How `lake` shows outside text — names, values, paths, and liblake's
// messages quoting them — in a message on stderr (CLI.md, "Messages"):
// every message is one line, whatever bytes the text holds.
#ifndef LAKE_CLI_MESSAGE_TEXT_H_
#define LAKE_CLI_MESSAGE_TEXT_H_

#include <string>
#include <string_view>

namespace lake::cli {

// `text` with every control character (C0, DEL and the C1 range) written as
// \n, \r, \t or \xNN, and every byte that is not part of valid UTF-8
// (RFC 3629) as \xNN; everything else, non-ASCII letters too, as is. The
// result holds no line break and nothing a terminal acts on.
std::string OneLineText(std::string_view text);

}  // namespace lake::cli

#endif  // LAKE_CLI_MESSAGE_TEXT_H_
