#include "engine/sql/sql_statement.h"

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "engine/sql/sql_lexer.h"

namespace lake::sql {
namespace {

// A recursive-descent parser over the token vector; every method that can
// fail returns a Status and leaves `pos_` at the offending token.
class Parser {
 public:
  explicit Parser(std::vector<Token> tokens) : tokens_(std::move(tokens)) {}

  absl::StatusOr<Statement> ParseStatement() {
    const Token& first = Peek();
    if (IsKeyword(first, "INSERT")) return Finish(ParseInsert());
    if (IsKeyword(first, "SELECT")) return Finish(ParseSelect());
    if (first.kind == TokenKind::kEnd) {
      return absl::InvalidArgumentError("SQL: the statement is empty (INSERT or SELECT)");
    }
    if (first.kind == TokenKind::kWord) {
      return absl::InvalidArgumentError(absl::StrCat(
          "SQL: ", absl::AsciiStrToUpper(DescribeWord(first)), " is not supported (INSERT or SELECT)"));
    }
    return Expected("INSERT or SELECT");
  }

 private:
  const Token& Peek() const { return tokens_[pos_]; }
  // Never moves past the kEnd token, so Peek() stays valid.
  const Token& Next() {
    const Token& token = tokens_[pos_];
    if (token.kind != TokenKind::kEnd) ++pos_;
    return token;
  }
  bool Accept(TokenKind kind) {
    if (Peek().kind != kind) return false;
    Next();
    return true;
  }
  bool AcceptKeyword(std::string_view keyword) {
    if (!IsKeyword(Peek(), keyword)) return false;
    Next();
    return true;
  }

  absl::Status Expected(std::string_view what) const {
    return absl::InvalidArgumentError(absl::StrCat("SQL: expected ", std::string(what), ", found ",
                                                   DescribeToken(Peek()), " at offset ",
                                                   Peek().offset));
  }
  absl::Status Expect(TokenKind kind, std::string_view what) {
    if (!Accept(kind)) return Expected(what);
    return absl::OkStatus();
  }
  absl::Status ExpectKeyword(std::string_view keyword) {
    if (!AcceptKeyword(keyword)) return Expected(keyword);
    return absl::OkStatus();
  }

  // A word token's text, bounded for a message (words are ASCII).
  static std::string DescribeWord(const Token& token) {
    std::string quoted = DescribeToken(token);
    return quoted.substr(1, quoted.size() - 2);
  }

  // An identifier: a word that ValidateIdentifier accepts (the lexer already
  // ensured its characters; this checks its length).
  absl::StatusOr<std::string> ParseIdentifier(std::string_view what) {
    if (Peek().kind != TokenKind::kWord) return Expected(absl::StrCat("a ", std::string(what), " name"));
    const Token& token = Next();
    if (absl::Status s = table::ValidateIdentifier(token.text, what); !s.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("SQL: ", std::string(s.message()), " (at offset ", token.offset, ")"));
    }
    return std::string(token.text);
  }

  absl::StatusOr<table::TableName> ParseTableName() {
    if (Peek().kind != TokenKind::kWord) return Expected("a table name (NAMESPACE.TABLE)");
    absl::StatusOr<std::string> ns = ParseIdentifier("namespace");
    if (!ns.ok()) return ns.status();
    if (!Accept(TokenKind::kDot)) return Expected("'.' between namespace and table (NAMESPACE.TABLE)");
    absl::StatusOr<std::string> name = ParseIdentifier("table");
    if (!name.ok()) return name.status();
    return table::TableName{*std::move(ns), *std::move(name)};
  }

  absl::StatusOr<uint64_t> ParseInteger(std::string_view after) {
    if (Peek().kind != TokenKind::kInteger) {
      return Expected(absl::StrCat("an integer after ", std::string(after)));
    }
    return Next().integer;
  }

  // '?' where a value belongs; anything else names the one rule of values.
  absl::Status ExpectPlaceholder(std::string_view clause) {
    if (Accept(TokenKind::kPlaceholder)) return absl::OkStatus();
    const Token& token = Peek();
    if (token.kind == TokenKind::kEnd || token.kind == TokenKind::kRightParen ||
        token.kind == TokenKind::kComma) {
      return Expected("?");
    }
    return absl::InvalidArgumentError(absl::StrCat("SQL: only ? placeholders may appear in ",
                                                   std::string(clause), ", found ",
                                                   DescribeToken(token), " at offset ", token.offset));
  }

  // INSERT INTO table '(' column {',' column} ')' VALUES row {',' row}
  absl::StatusOr<Statement> ParseInsert() {
    Next();  // INSERT
    if (absl::Status s = ExpectKeyword("INTO"); !s.ok()) return s;
    InsertStatement insert;
    absl::StatusOr<table::TableName> name = ParseTableName();
    if (!name.ok()) return name.status();
    insert.table = *std::move(name);
    if (absl::Status s = Expect(TokenKind::kLeftParen, "'(' and the column list"); !s.ok()) return s;
    do {
      absl::StatusOr<std::string> column = ParseIdentifier("column");
      if (!column.ok()) return column.status();
      insert.columns.push_back(*std::move(column));
    } while (Accept(TokenKind::kComma));
    if (absl::Status s = Expect(TokenKind::kRightParen, "',' or ')'"); !s.ok()) return s;
    if (absl::Status s = ExpectKeyword("VALUES"); !s.ok()) return s;
    do {
      if (absl::Status s = ParseRow(insert.columns.size(), insert.row_count + 1); !s.ok()) return s;
      ++insert.row_count;
    } while (Accept(TokenKind::kComma));
    insert.placeholder_count = insert.row_count * insert.columns.size();
    return insert;
  }

  // '(' '?' {',' '?'} ')' with exactly `width` placeholders.
  absl::Status ParseRow(size_t width, size_t row_number) {
    if (absl::Status s = Expect(TokenKind::kLeftParen, "'(' and a row of VALUES"); !s.ok()) return s;
    size_t values = 0;
    do {
      if (absl::Status s = ExpectPlaceholder("VALUES"); !s.ok()) return s;
      ++values;
    } while (Accept(TokenKind::kComma));
    if (Peek().kind != TokenKind::kRightParen) return Expected("',' or ')'");
    if (values != width) {
      return absl::InvalidArgumentError(absl::StrCat("SQL: row ", row_number, " of VALUES has ", values,
                                                     values == 1 ? " value" : " values", " for ", width,
                                                     width == 1 ? " column" : " columns",
                                                     " (the row ends at offset ", Peek().offset, ")"));
    }
    Next();
    return absl::OkStatus();
  }

  // SELECT ('*' | column {',' column}) FROM table [clauses]
  absl::StatusOr<Statement> ParseSelect() {
    Next();  // SELECT
    SelectStatement select;
    if (Accept(TokenKind::kStar)) {
      select.all_columns = true;
      if (absl::Status s = ExpectKeyword("FROM"); !s.ok()) return s;
    } else {
      if (Peek().kind != TokenKind::kWord) return Expected("'*' or a column name");
      do {
        absl::StatusOr<std::string> column = ParseIdentifier("column");
        if (!column.ok()) return column.status();
        select.columns.push_back(*std::move(column));
      } while (Accept(TokenKind::kComma));
      if (!AcceptKeyword("FROM")) return Expected("',' or FROM");
    }
    absl::StatusOr<table::TableName> name = ParseTableName();
    if (!name.ok()) return name.status();
    select.table = *std::move(name);
    if (absl::Status s = ParseSelectClauses(select); !s.ok()) return s;
    select.placeholder_count = select.where_columns.size();
    return select;
  }

  // [AS OF VERSION n] [WHERE c = ? {AND c = ?}] [LIMIT n], in this order.
  absl::Status ParseSelectClauses(SelectStatement& select) {
    if (AcceptKeyword("AS")) {
      if (absl::Status s = ExpectKeyword("OF"); !s.ok()) return s;
      if (absl::Status s = ExpectKeyword("VERSION"); !s.ok()) return s;
      absl::StatusOr<uint64_t> version = ParseInteger("AS OF VERSION");
      if (!version.ok()) return version.status();
      select.as_of_version = *version;
    }
    if (AcceptKeyword("WHERE")) {
      do {
        if (absl::Status s = ParseCondition(select); !s.ok()) return s;
      } while (AcceptKeyword("AND"));
    }
    if (AcceptKeyword("LIMIT")) {
      absl::StatusOr<uint64_t> limit = ParseInteger("LIMIT");
      if (!limit.ok()) return limit.status();
      select.limit = *limit;
    }
    return absl::OkStatus();
  }

  // column '=' '?'
  absl::Status ParseCondition(SelectStatement& select) {
    absl::StatusOr<std::string> column = ParseIdentifier("column");
    if (!column.ok()) return column.status();
    if (!Accept(TokenKind::kEquals)) {
      return Expected(absl::StrCat("'=' after column '", *column, "' (conditions are column = ?)"));
    }
    if (absl::Status s = ExpectPlaceholder("WHERE"); !s.ok()) return s;
    select.where_columns.push_back(*std::move(column));
    return absl::OkStatus();
  }

  // What may follow the statement proper: ';' then the end. The message
  // lists what the statement could still have taken at this point.
  absl::StatusOr<Statement> Finish(absl::StatusOr<Statement> statement) {
    if (!statement.ok()) return statement;
    if (Accept(TokenKind::kSemicolon)) {
      if (Peek().kind != TokenKind::kEnd) {
        return absl::InvalidArgumentError(absl::StrCat("SQL: one statement only, found ",
                                                       DescribeToken(Peek()), " at offset ",
                                                       Peek().offset, " after ';'"));
      }
      return statement;
    }
    if (Peek().kind == TokenKind::kEnd) return statement;
    return Expected(StillAllowed(*statement));
  }

  static std::string StillAllowed(const Statement& statement) {
    std::vector<std::string> allowed;
    if (const auto* select = std::get_if<SelectStatement>(&statement)) {
      bool has_where = !select->where_columns.empty();
      if (!select->limit) {
        if (!select->as_of_version && !has_where) allowed.push_back("AS OF VERSION");
        if (!has_where) allowed.push_back("WHERE");
        if (has_where) allowed.push_back("AND");
        allowed.push_back("LIMIT");
      }
    } else {
      allowed.push_back("','");
    }
    allowed.push_back("';'");
    allowed.push_back("end of statement");
    std::string last = allowed.back();
    allowed.pop_back();
    return absl::StrCat(absl::StrJoin(allowed, ", "), " or ", last);
  }

  std::vector<Token> tokens_;
  size_t pos_ = 0;
};

}  // namespace

absl::StatusOr<Statement> ParseStatement(std::string_view sql) {
  absl::StatusOr<std::vector<Token>> tokens = TokenizeSql(sql);
  if (!tokens.ok()) return tokens.status();
  return Parser(*std::move(tokens)).ParseStatement();
}

}  // namespace lake::sql
