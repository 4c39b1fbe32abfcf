#include "engine/sql/sql_lexer.h"

#include <charconv>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace lake::sql {
namespace {

constexpr size_t kMaxDescribedBytes = 64;

bool IsWhitespace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsWordStart(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
bool IsWordPart(char c) { return IsWordStart(c) || IsDigit(c); }
bool IsQuote(char c) { return c == '\'' || c == '"' || c == '`'; }

// The one-character tokens; kEnd for anything else.
TokenKind PunctuationKind(char c) {
  switch (c) {
    case '?': return TokenKind::kPlaceholder;
    case '(': return TokenKind::kLeftParen;
    case ')': return TokenKind::kRightParen;
    case ',': return TokenKind::kComma;
    case '.': return TokenKind::kDot;
    case '*': return TokenKind::kStar;
    case '=': return TokenKind::kEquals;
    case ';': return TokenKind::kSemicolon;
    default: return TokenKind::kEnd;
  }
}

// The run of text an error names when no token starts at `begin`: up to the
// next whitespace or punctuation, so "-5" or "<>" is named whole.
std::string_view UnexpectedRun(std::string_view sql, size_t begin) {
  size_t end = begin + 1;
  while (end < sql.size() && !IsWhitespace(sql[end]) && PunctuationKind(sql[end]) == TokenKind::kEnd &&
         !IsQuote(sql[end])) {
    ++end;
  }
  return sql.substr(begin, end - begin);
}

// At most kMaxDescribedBytes of `text`, C-escaped so a message stays one
// printable line whatever the statement held.
std::string Printable(std::string_view text) {
  std::string out = absl::CHexEscape(std::string(text.substr(0, kMaxDescribedBytes)));
  if (text.size() > kMaxDescribedBytes) out += "...";
  return out;
}

absl::Status UnexpectedToken(std::string_view text, size_t offset) {
  return absl::InvalidArgumentError(
      absl::StrCat("SQL: unexpected token '", Printable(text), "' at offset ", offset));
}

// A run that starts with a digit: an integer when it is all digits.
absl::StatusOr<Token> LexNumber(std::string_view sql, size_t begin) {
  size_t end = begin;
  while (end < sql.size() && (IsWordPart(sql[end]) || sql[end] == '.')) ++end;
  std::string_view text = sql.substr(begin, end - begin);
  for (char c : text) {
    if (!IsDigit(c)) return UnexpectedToken(text, begin);
  }
  Token token{TokenKind::kInteger, text, begin, 0};
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), token.integer);
  if (ec != std::errc() || ptr != text.data() + text.size()) {
    return absl::InvalidArgumentError(absl::StrCat("SQL: integer '", Printable(text), "' at offset ",
                                                   begin, " is out of range"));
  }
  return token;
}

}  // namespace

absl::StatusOr<std::vector<Token>> TokenizeSql(std::string_view sql) {
  if (sql.size() > kMaxStatementBytes) {
    return absl::InvalidArgumentError(absl::StrCat("SQL: the statement is ", sql.size(),
                                                   " bytes, more than ", kMaxStatementBytes));
  }
  std::vector<Token> tokens;
  size_t placeholders = 0;
  size_t i = 0;
  while (i < sql.size()) {
    char c = sql[i];
    if (IsWhitespace(c)) {
      ++i;
    } else if (IsWordStart(c)) {
      size_t end = i;
      while (end < sql.size() && IsWordPart(sql[end])) ++end;
      tokens.push_back(Token{TokenKind::kWord, sql.substr(i, end - i), i, 0});
      i = end;
    } else if (IsDigit(c)) {
      absl::StatusOr<Token> number = LexNumber(sql, i);
      if (!number.ok()) return number.status();
      tokens.push_back(*number);
      i += number->text.size();
    } else if (TokenKind kind = PunctuationKind(c); kind != TokenKind::kEnd) {
      if (kind == TokenKind::kPlaceholder && ++placeholders > kMaxPlaceholders) {
        return absl::InvalidArgumentError(absl::StrCat(
            "SQL: more than ", kMaxPlaceholders, " placeholders (the next is at offset ", i, ")"));
      }
      tokens.push_back(Token{kind, sql.substr(i, 1), i, 0});
      ++i;
    } else if (IsQuote(c)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "SQL: quoted text at offset ", i,
          " is not supported: bind values with ? placeholders, name columns unquoted"));
    } else {
      return UnexpectedToken(UnexpectedRun(sql, i), i);
    }
  }
  tokens.push_back(Token{TokenKind::kEnd, std::string_view(), sql.size(), 0});
  return tokens;
}

bool IsKeyword(const Token& token, std::string_view keyword) {
  return token.kind == TokenKind::kWord && absl::EqualsIgnoreCase(absl::string_view(token.text.data(), token.text.size()),
                                                                absl::string_view(keyword.data(), keyword.size()));
}

std::string DescribeToken(const Token& token) {
  if (token.kind == TokenKind::kEnd) return "end of statement";
  return absl::StrCat("'", Printable(token.text), "'");
}

}  // namespace lake::sql
