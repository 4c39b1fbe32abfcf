// The tokens of lake's SQL subset (sql_statement.h has the grammar).
//
// Token kinds:
//   word         [A-Za-z_][A-Za-z0-9_]* — an identifier or a keyword; the
//                parser decides by position and compares keywords ignoring
//                case (keywords are not reserved, so every column name a
//                schema allows can be written)
//   quoted name  "[A-Za-z0-9_]*" — always an identifier, never a keyword
//                (its text is what is between the quotes): how a column
//                named like a keyword is written where the keyword could
//                stand (WHERE "not" IS NULL, SELECT "count" ...)
//   integer      [0-9]+ fitting in uint64 (LIMIT and AS OF VERSION take them)
//   placeholder  ?
//   punctuation  ( ) , . * ;
//   operators    = != <> < <= > >=   (<> is read as !=)
//   end          one past the last token, at offset sql.size()
// Whitespace (space, \t, \n, \r, \f, \v) separates tokens. Nothing else is a
// token: string literals ('...', `...`), comments, other operators,
// negative or decimal numbers and non-ASCII bytes are InvalidArgument
// naming the offending text and its byte offset. A string literal, and a
// double-quoted text that is not a name, is named only by its offset, never
// echoed: it is the one place a user could paste a credential or a URI,
// and neither belongs in SQL text (values are bound).
//
// Bounds: the statement is at most kMaxStatementBytes (checked before
// lexing) and holds at most kMaxPlaceholders placeholders (checked as they
// are lexed), so the token vector and every count derived from it stay
// small.
#ifndef LAKE_ENGINE_SQL_SQL_LEXER_H_
#define LAKE_ENGINE_SQL_SQL_LEXER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace lake::sql {

// A statement is one command line argument or one C ABI string: 1 MiB is
// far above any hand-written statement and bounds the parser's memory.
inline constexpr size_t kMaxStatementBytes = size_t{1} << 20;
// 65,536 placeholders bounds a multi-row INSERT's parameter vector (and
// matches the most a 16-bit placeholder index could name).
inline constexpr size_t kMaxPlaceholders = 65536;

enum class TokenKind : uint8_t {
  kWord,
  kInteger,
  kPlaceholder,
  kLeftParen,
  kRightParen,
  kComma,
  kDot,
  kStar,
  kEquals,
  kNotEquals,
  kLess,
  kLessOrEqual,
  kGreater,
  kGreaterOrEqual,
  kQuotedName,
  kSemicolon,
  kEnd,
};

// A view into the statement text: valid while that text lives.
struct Token {
  TokenKind kind = TokenKind::kEnd;
  std::string_view text;  // empty for kEnd; a kQuotedName's is between its quotes
  size_t offset = 0;      // byte offset of text in the statement
  uint64_t integer = 0;   // the value of a kInteger token
};

// The tokens of `sql`, always ending with one kEnd token.
absl::StatusOr<std::vector<Token>> TokenizeSql(std::string_view sql);

// True when `token` is a word equal to `keyword` ignoring ASCII case.
// `keyword` is written in upper case.
bool IsKeyword(const Token& token, std::string_view keyword);

// How an error message names a token: 'text' (its first 64 bytes, C-escaped
// by absl::CHexEscape), '"text"' for a quoted name, or "end of statement"
// for kEnd.
std::string DescribeToken(const Token& token);

}  // namespace lake::sql

#endif  // LAKE_ENGINE_SQL_SQL_LEXER_H_
