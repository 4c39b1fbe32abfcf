#include "engine/sql/sql_statement.h"

#include <optional>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "engine/sql/sql_lexer.h"

namespace lake::sql {
namespace {

// The statements there are, for messages.
constexpr char kStatements[] = "INSERT, SELECT, DELETE, DROP TABLE or ALTER TABLE";

// A recursive-descent parser over the token vector; every method that can
// fail returns a Status and leaves `pos_` at the offending token.
class Parser {
 public:
  explicit Parser(std::vector<Token> tokens) : tokens_(std::move(tokens)) {}

  absl::StatusOr<Statement> ParseStatement() {
    const Token& first = Peek();
    if (IsKeyword(first, "INSERT")) return Finish(ParseInsert());
    if (IsKeyword(first, "SELECT")) return Finish(ParseSelect());
    if (IsKeyword(first, "DELETE")) return Finish(ParseDelete());
    if (IsKeyword(first, "DROP")) return Finish(ParseDropTable());
    if (IsKeyword(first, "ALTER")) return Finish(ParseAlter());
    if (first.kind == TokenKind::kEnd) {
      return absl::InvalidArgumentError(absl::StrCat("SQL: the statement is empty (", kStatements, ")"));
    }
    if (first.kind == TokenKind::kWord) {
      return absl::InvalidArgumentError(absl::StrCat("SQL: ", absl::AsciiStrToUpper(DescribeWord(first)),
                                                     " is not supported (", kStatements, ")"));
    }
    return Expected(kStatements);
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

  // An identifier: a word or a quoted name that ValidateIdentifier accepts
  // (the lexer already ensured its characters; this checks the rest).
  static bool IsName(const Token& token) {
    return token.kind == TokenKind::kWord || token.kind == TokenKind::kQuotedName;
  }
  absl::StatusOr<std::string> ParseIdentifier(std::string_view what) {
    if (!IsName(Peek())) return Expected(absl::StrCat("a ", std::string(what), " name"));
    const Token& token = Next();
    if (absl::Status s = table::ValidateIdentifier(token.text, what); !s.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("SQL: ", std::string(s.message()), " (at offset ", token.offset, ")"));
    }
    return std::string(token.text);
  }

  absl::StatusOr<table::TableName> ParseTableName() {
    if (!IsName(Peek())) return Expected("a table name (NAMESPACE.TABLE)");
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
    if (Accept(TokenKind::kPlaceholder)) {
      ++placeholders_;
      return absl::OkStatus();
    }
    const Token& token = Peek();
    if (token.kind == TokenKind::kEnd || token.kind == TokenKind::kRightParen ||
        token.kind == TokenKind::kComma) {
      return Expected("?");
    }
    if (token.kind == TokenKind::kQuotedName) {
      // Perhaps a value in double quotes: named by its offset only.
      return absl::InvalidArgumentError(absl::StrCat("SQL: only ? placeholders may appear in ",
                                                     std::string(clause), ", found a quoted name at offset ",
                                                     token.offset));
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
    if (IsKeyword(Peek(), "REPLACE")) return ParseReplace(std::move(insert));
    if (absl::Status s = Expect(TokenKind::kLeftParen, "'(' and the column list, or REPLACE WHERE"); !s.ok()) return s;
    if (absl::Status s = ParseInsertRows(insert); !s.ok()) return s;
    return insert;
  }

  // REPLACE WHERE predicate, then an INSERT's columns and rows: after
  // INSERT INTO table.
  absl::StatusOr<Statement> ParseReplace(InsertStatement insert) {
    Next();  // REPLACE
    if (absl::Status s = ExpectKeyword("WHERE"); !s.ok()) return s;
    ReplaceStatement replace;
    replace.table = insert.table;
    replace.removed.table = insert.table;
    absl::StatusOr<Predicate> where = ParsePredicate(0);
    if (!where.ok()) return where.status();
    replace.removed.where = *std::move(where);
    replace.removed.placeholder_count = placeholders_;
    if (absl::Status s = Expect(TokenKind::kLeftParen, "AND, OR or '(' and the column list"); !s.ok()) return s;
    if (absl::Status s = ParseInsertRows(insert); !s.ok()) return s;
    replace.added = std::move(insert);
    replace.placeholder_count = replace.removed.placeholder_count + replace.added.placeholder_count;
    return replace;
  }

  // column {',' column} ')' VALUES row {',' row}: after the '('.
  absl::Status ParseInsertRows(InsertStatement& insert) {
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
    return absl::OkStatus();
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

  // SELECT ('*' | column {',' column} | COUNT '(' '*' ')') FROM table [clauses]
  absl::StatusOr<Statement> ParseSelect() {
    Next();  // SELECT
    SelectStatement select;
    if (Accept(TokenKind::kStar)) {
      select.all_columns = true;
      if (absl::Status s = ExpectKeyword("FROM"); !s.ok()) return s;
    } else if (IsKeyword(Peek(), "COUNT") && tokens_[pos_ + 1].kind == TokenKind::kLeftParen) {
      Next();  // COUNT
      Next();  // (
      if (absl::Status s = Expect(TokenKind::kStar, "'*' (count(*) counts rows)"); !s.ok()) return s;
      if (absl::Status s = Expect(TokenKind::kRightParen, "')'"); !s.ok()) return s;
      select.count_rows = true;
      if (absl::Status s = ExpectKeyword("FROM"); !s.ok()) return s;
    } else {
      if (!IsName(Peek())) return Expected("'*', a column name or count(*)");
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
    select.placeholder_count = placeholders_;
    return select;
  }

  // DROP TABLE table
  absl::StatusOr<Statement> ParseDropTable() {
    Next();  // DROP
    if (absl::Status s = ExpectKeyword("TABLE"); !s.ok()) return s;
    absl::StatusOr<table::TableName> name = ParseTableName();
    if (!name.ok()) return name.status();
    return DropTableStatement{*std::move(name)};
  }

  // ALTER TABLE table (CREATE TAG … | DROP TAG … | EXPIRE VERSIONS …)
  absl::StatusOr<Statement> ParseAlter() {
    Next();  // ALTER
    if (absl::Status s = ExpectKeyword("TABLE"); !s.ok()) return s;
    absl::StatusOr<table::TableName> name = ParseTableName();
    if (!name.ok()) return name.status();
    if (AcceptKeyword("CREATE")) {
      if (absl::Status s = ExpectKeyword("TAG"); !s.ok()) return s;
      absl::StatusOr<std::string> tag = ParseIdentifier("tag");
      if (!tag.ok()) return tag.status();
      if (absl::Status s = ExpectKeyword("AS"); !s.ok()) return s;
      if (absl::Status s = ExpectKeyword("OF"); !s.ok()) return s;
      if (absl::Status s = ExpectKeyword("VERSION"); !s.ok()) return s;
      absl::StatusOr<uint64_t> version = ParseInteger("AS OF VERSION");
      if (!version.ok()) return version.status();
      return CreateTagStatement{*std::move(name), *std::move(tag), *version};
    }
    if (AcceptKeyword("DROP")) {
      if (absl::Status s = ExpectKeyword("TAG"); !s.ok()) return s;
      absl::StatusOr<std::string> tag = ParseIdentifier("tag");
      if (!tag.ok()) return tag.status();
      return DropTagStatement{*std::move(name), *std::move(tag)};
    }
    if (AcceptKeyword("EXPIRE")) return ParseExpire(*std::move(name));
    return Expected("CREATE TAG, DROP TAG or EXPIRE VERSIONS");
  }

  // VERSIONS [KEEP LAST n] [OLDER THAN n unit]: after EXPIRE.
  absl::StatusOr<Statement> ParseExpire(table::TableName name) {
    if (absl::Status s = ExpectKeyword("VERSIONS"); !s.ok()) return s;
    ExpireStatement expire;
    expire.table = std::move(name);
    if (AcceptKeyword("KEEP")) {
      if (absl::Status s = ExpectKeyword("LAST"); !s.ok()) return s;
      const size_t offset = Peek().offset;
      absl::StatusOr<uint64_t> keep = ParseInteger("KEEP LAST");
      if (!keep.ok()) return keep.status();
      if (*keep == 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            "SQL: KEEP LAST keeps at least 1 version (the current one), found 0 at offset ", offset));
      }
      expire.keep_last = *keep;
    }
    if (AcceptKeyword("OLDER")) {
      if (absl::Status s = ExpectKeyword("THAN"); !s.ok()) return s;
      const size_t offset = Peek().offset;
      absl::StatusOr<uint64_t> count = ParseInteger("OLDER THAN");
      if (!count.ok()) return count.status();
      uint64_t unit = 0;
      for (const auto& [word, seconds] : kDurationUnits) {
        if (AcceptKeyword(word) || AcceptKeyword(word.substr(0, word.size() - 1))) {
          unit = seconds;
          break;
        }
      }
      if (unit == 0) return Expected("SECONDS, MINUTES, HOURS or DAYS");
      if (*count > kMaxExpireSeconds / unit) {
        return absl::InvalidArgumentError(absl::StrCat(
            "SQL: OLDER THAN is at most 100 years, found ", *count, " at offset ", offset));
      }
      expire.older_than_seconds = *count * unit;
    }
    if (!expire.keep_last && !expire.older_than_seconds) {
      return Expected("KEEP LAST or OLDER THAN");
    }
    return expire;
  }

  // OLDER THAN's units, plural (the singular is accepted too).
  static constexpr std::pair<std::string_view, uint64_t> kDurationUnits[] = {
      {"SECONDS", 1}, {"MINUTES", 60}, {"HOURS", 3600}, {"DAYS", 86400}};

  // DELETE FROM table [WHERE predicate]
  absl::StatusOr<Statement> ParseDelete() {
    Next();  // DELETE
    if (absl::Status s = ExpectKeyword("FROM"); !s.ok()) return s;
    DeleteStatement statement;
    absl::StatusOr<table::TableName> name = ParseTableName();
    if (!name.ok()) return name.status();
    statement.table = *std::move(name);
    if (AcceptKeyword("WHERE")) {
      absl::StatusOr<Predicate> where = ParsePredicate(0);
      if (!where.ok()) return where.status();
      statement.where = *std::move(where);
    }
    statement.placeholder_count = placeholders_;
    return statement;
  }

  // [AS OF VERSION n] [WHERE predicate] [ORDER BY keys] [LIMIT n], in this
  // order.
  absl::Status ParseSelectClauses(SelectStatement& select) {
    if (AcceptKeyword("AS")) {
      if (absl::Status s = ExpectKeyword("OF"); !s.ok()) return s;
      if (absl::Status s = ExpectKeyword("VERSION"); !s.ok()) return s;
      absl::StatusOr<uint64_t> version = ParseInteger("AS OF VERSION");
      if (!version.ok()) return version.status();
      select.as_of_version = *version;
    }
    if (AcceptKeyword("WHERE")) {
      absl::StatusOr<Predicate> where = ParsePredicate(0);
      if (!where.ok()) return where.status();
      select.where = *std::move(where);
    }
    if (IsKeyword(Peek(), "ORDER")) {
      if (select.count_rows) {
        return absl::InvalidArgumentError(absl::StrCat(
            "SQL: count(*) gives one row, which has no ORDER BY (found at offset ", Peek().offset, ")"));
      }
      Next();
      if (absl::Status s = ExpectKeyword("BY"); !s.ok()) return s;
      do {
        absl::StatusOr<std::string> column = ParseIdentifier("column");
        if (!column.ok()) return column.status();
        OrderKey key{*std::move(column), false};
        if (AcceptKeyword("DESC")) {
          key.descending = true;
        } else {
          AcceptKeyword("ASC");
        }
        select.order_by.push_back(std::move(key));
      } while (Accept(TokenKind::kComma));
    }
    if (AcceptKeyword("LIMIT")) {
      absl::StatusOr<uint64_t> limit = ParseInteger("LIMIT");
      if (!limit.ok()) return limit.status();
      select.limit = *limit;
    }
    return absl::OkStatus();
  }

  // predicate := disjunct {OR disjunct}; `depth` counts the parentheses and
  // NOTs around it.
  absl::StatusOr<Predicate> ParsePredicate(size_t depth) {
    return ParseChain(depth, "OR", PredicateKind::kOr,
                      [this](size_t d) { return ParseChain(d, "AND", PredicateKind::kAnd,
                                                           [this](size_t e) { return ParseNegation(e); }); });
  }

  // operand {keyword operand}: the operand alone, or one `kind` node over
  // every operand.
  template <typename ParseOperand>
  absl::StatusOr<Predicate> ParseChain(size_t depth, std::string_view keyword, PredicateKind kind,
                                       ParseOperand parse_operand) {
    absl::StatusOr<Predicate> first = parse_operand(depth);
    if (!first.ok() || !IsKeyword(Peek(), keyword)) return first;
    Predicate chain;
    chain.kind = kind;
    chain.children.push_back(*std::move(first));
    while (AcceptKeyword(keyword)) {
      absl::StatusOr<Predicate> next = parse_operand(depth);
      if (!next.ok()) return next.status();
      chain.children.push_back(*std::move(next));
    }
    return chain;
  }

  // `depth` for the NOT or '(' at `offset`.
  static absl::Status CheckDepth(size_t depth, size_t offset) {
    if (depth <= kMaxPredicateDepth) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrCat("SQL: the WHERE nests parentheses and NOTs deeper than ",
                                                   kMaxPredicateDepth, " (at offset ", offset, ")"));
  }

  // negation := NOT negation | '(' predicate ')' | condition
  absl::StatusOr<Predicate> ParseNegation(size_t depth) {
    const size_t offset = Peek().offset;
    if (AcceptKeyword("NOT")) {
      if (absl::Status s = CheckDepth(depth + 1, offset); !s.ok()) return s;
      absl::StatusOr<Predicate> operand = ParseNegation(depth + 1);
      if (!operand.ok()) return operand.status();
      return Negated(*std::move(operand));
    }
    if (Accept(TokenKind::kLeftParen)) {
      if (absl::Status s = CheckDepth(depth + 1, offset); !s.ok()) return s;
      absl::StatusOr<Predicate> inner = ParsePredicate(depth + 1);
      if (!inner.ok()) return inner.status();
      if (absl::Status s = Expect(TokenKind::kRightParen, "AND, OR or ')'"); !s.ok()) return s;
      return inner;
    }
    return ParseCondition();
  }

  static Predicate Negated(Predicate operand) {
    Predicate negation;
    negation.kind = PredicateKind::kNot;
    negation.children.push_back(std::move(operand));
    return negation;
  }

  static std::optional<CompareOp> CompareOpOf(TokenKind kind) {
    switch (kind) {
      case TokenKind::kEquals: return CompareOp::kEqual;
      case TokenKind::kNotEquals: return CompareOp::kNotEqual;
      case TokenKind::kLess: return CompareOp::kLess;
      case TokenKind::kLessOrEqual: return CompareOp::kLessOrEqual;
      case TokenKind::kGreater: return CompareOp::kGreater;
      case TokenKind::kGreaterOrEqual: return CompareOp::kGreaterOrEqual;
      default: return std::nullopt;
    }
  }

  // column (compare '?' | [NOT] IN '(' '?' {',' '?'} ')' | IS [NOT] NULL)
  absl::StatusOr<Predicate> ParseCondition() {
    absl::StatusOr<std::string> column = ParseIdentifier("column");
    if (!column.ok()) return column.status();
    Predicate leaf;
    leaf.column = *std::move(column);
    leaf.first_placeholder = placeholders_;
    if (std::optional<CompareOp> op = CompareOpOf(Peek().kind)) {
      Next();
      leaf.kind = PredicateKind::kCompare;
      leaf.op = *op;
      if (absl::Status s = ExpectPlaceholder("WHERE"); !s.ok()) return s;
      leaf.placeholder_count = 1;
      return leaf;
    }
    if (AcceptKeyword("IS")) {
      bool negated = AcceptKeyword("NOT");
      if (!AcceptKeyword("NULL")) return Expected(negated ? "NULL" : "NULL or NOT NULL");
      leaf.kind = PredicateKind::kIsNull;
      return negated ? Negated(std::move(leaf)) : leaf;
    }
    bool negated = AcceptKeyword("NOT");
    if (negated || IsKeyword(Peek(), "IN")) {
      if (absl::Status s = ExpectKeyword("IN"); !s.ok()) return s;
      if (absl::Status s = Expect(TokenKind::kLeftParen, "'(' and the values of IN"); !s.ok()) return s;
      do {
        if (absl::Status s = ExpectPlaceholder("IN"); !s.ok()) return s;
        ++leaf.placeholder_count;
      } while (Accept(TokenKind::kComma));
      if (absl::Status s = Expect(TokenKind::kRightParen, "',' or ')'"); !s.ok()) return s;
      leaf.kind = PredicateKind::kIn;
      return negated ? Negated(std::move(leaf)) : leaf;
    }
    return Expected(absl::StrCat("an operator after column '", leaf.column,
                                 "' (=, !=, <, <=, >, >=, IN, IS NULL)"));
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
      if (!select->limit) {
        if (!select->order_by.empty()) {
          allowed.push_back("','");
        } else {
          if (!select->as_of_version && !select->where) allowed.push_back("AS OF VERSION");
          if (!select->where) allowed.push_back("WHERE");
          if (select->where) {
            allowed.push_back("AND");
            allowed.push_back("OR");
          }
          if (!select->count_rows) allowed.push_back("ORDER BY");
        }
        allowed.push_back("LIMIT");
      }
    } else if (const auto* deletion = std::get_if<DeleteStatement>(&statement)) {
      if (deletion->where) {
        allowed.push_back("AND");
        allowed.push_back("OR");
      } else {
        allowed.push_back("WHERE");
      }
    } else if (const auto* expire = std::get_if<ExpireStatement>(&statement)) {
      if (!expire->older_than_seconds) allowed.push_back("OLDER THAN");
    } else if (std::holds_alternative<InsertStatement>(statement) ||
               std::holds_alternative<ReplaceStatement>(statement)) {
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
  size_t placeholders_ = 0;  // the placeholders parsed so far
};

}  // namespace

absl::StatusOr<Statement> ParseStatement(std::string_view sql) {
  absl::StatusOr<std::vector<Token>> tokens = TokenizeSql(sql);
  if (!tokens.ok()) return tokens.status();
  return Parser(*std::move(tokens)).ParseStatement();
}

}  // namespace lake::sql
