#include "engine/sql/sql_lexer.h"

#include <charconv>
#include <utility>

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

// An operator starting at `i`: its kind and length (0: none). The longest
// match wins, so "<=" is one token and "< =" two.
std::pair<TokenKind, size_t> OperatorAt(std::string_view sql, size_t i) {
  char next = i + 1 < sql.size() ? sql[i + 1] : '\0';
  switch (sql[i]) {
    case '=': return {TokenKind::kEquals, 1};
    case '!': return next == '=' ? std::pair{TokenKind::kNotEquals, size_t{2}} : std::pair{TokenKind::kEnd, size_t{0}};
    case '<':
      if (next == '=') return {TokenKind::kLessOrEqual, 2};
      if (next == '>') return {TokenKind::kNotEquals, 2};
      return {TokenKind::kLess, 1};
    case '>':
      if (next == '=') return {TokenKind::kGreaterOrEqual, 2};
      return {TokenKind::kGreater, 1};
    default: return {TokenKind::kEnd, 0};
  }
}

// The one-character tokens; kEnd for anything else.
TokenKind PunctuationKind(char c) {
  switch (c) {
    case '?': return TokenKind::kPlaceholder;
    case '(': return TokenKind::kLeftParen;
    case ')': return TokenKind::kRightParen;
    case ',': return TokenKind::kComma;
    case '.': return TokenKind::kDot;
    case '*': return TokenKind::kStar;
    case ';': return TokenKind::kSemicolon;
    default: return TokenKind::kEnd;
  }
}

// The run of text an error names when no token starts at `begin`: up to the
// next whitespace or punctuation, so "-5" or "<>" is named whole.
std::string_view UnexpectedRun(std::string_view sql, size_t begin) {
  size_t end = begin + 1;
  while (end < sql.size() && !IsWhitespace(sql[end]) && PunctuationKind(sql[end]) == TokenKind::kEnd &&
         OperatorAt(sql, end).second == 0 && !IsQuote(sql[end])) {
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

// A double-quoted name starting at `begin`: the text between the quotes,
// which must be word characters (ValidateIdentifier, in the parser, checks
// the rest). Anything else is named by its offset only.
absl::StatusOr<Token> LexQuotedName(std::string_view sql, size_t begin) {
  size_t close = sql.find('"', begin + 1);
  if (close == std::string_view::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("SQL: the quoted name at offset ", begin, " has no closing '\"'"));
  }
  std::string_view text = sql.substr(begin + 1, close - begin - 1);
  for (char c : text) {
    if (!IsWordPart(c)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "SQL: quoted text at offset ", begin,
          " is not a name ([A-Za-z_][A-Za-z0-9_]* between double quotes): bind values with ? "
          "placeholders"));
    }
  }
  return Token{TokenKind::kQuotedName, text, begin, 0};
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
    } else if (auto [op, length] = OperatorAt(sql, i); length != 0) {
      tokens.push_back(Token{op, sql.substr(i, length), i, 0});
      i += length;
    } else if (c == '"') {
      absl::StatusOr<Token> name = LexQuotedName(sql, i);
      if (!name.ok()) return name.status();
      tokens.push_back(*name);
      i += name->text.size() + 2;
    } else if (IsQuote(c)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "SQL: quoted text at offset ", i,
          " is not supported: bind values with ? placeholders, quote names with \"...\""));
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
  if (token.kind == TokenKind::kQuotedName) return absl::StrCat("'\"", Printable(token.text), "\"'");
  return absl::StrCat("'", Printable(token.text), "'");
}

}  // namespace lake::sql
