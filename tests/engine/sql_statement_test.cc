// The SQL subset: the statements it accepts, the AST they give, and the
// error (naming the offending token and its offset) for everything else.
#include <doctest/doctest.h>

#include <string>
#include <variant>

#include "engine/sql/sql_lexer.h"
#include "engine/sql/sql_statement.h"
#include "tests/support/status_checks.h"

namespace lake::sql {
namespace {

InsertStatement ParseInsert(std::string_view sql) {
  absl::StatusOr<Statement> statement = ParseStatement(sql);
  REQUIRE_MESSAGE(statement.ok(), statement.status().ToString());
  REQUIRE(std::holds_alternative<InsertStatement>(*statement));
  return std::get<InsertStatement>(*statement);
}

SelectStatement ParseSelect(std::string_view sql) {
  absl::StatusOr<Statement> statement = ParseStatement(sql);
  REQUIRE_MESSAGE(statement.ok(), statement.status().ToString());
  REQUIRE(std::holds_alternative<SelectStatement>(*statement));
  return std::get<SelectStatement>(*statement);
}

// The columns the WHERE's conditions name, in statement order.
std::vector<std::string> WhereNames(const SelectStatement& select) {
  return select.where ? PredicateColumnNames(*select.where) : std::vector<std::string>();
}

// The message of the InvalidArgument that `sql` must give.
std::string ErrorOf(std::string_view sql) {
  absl::StatusOr<Statement> statement = ParseStatement(sql);
  REQUIRE_MESSAGE(!statement.ok(), sql);
  CHECK(statement.status().code() == absl::StatusCode::kInvalidArgument);
  return std::string(statement.status().message());
}

TEST_CASE("INSERT of one row lists its columns and counts its placeholders") {
  InsertStatement insert = ParseInsert("INSERT INTO media.videos (id, title) VALUES (?, ?)");
  CHECK(insert.table == table::TableName{"media", "videos"});
  CHECK(insert.columns == std::vector<std::string>{"id", "title"});
  CHECK(insert.row_count == 1);
  CHECK(insert.placeholder_count == 2);
}

TEST_CASE("INSERT of several rows has one placeholder per column per row") {
  InsertStatement insert = ParseInsert("INSERT INTO ns.t (a, b) VALUES (?, ?), (?, ?), (?, ?)");
  CHECK(insert.columns == std::vector<std::string>{"a", "b"});
  CHECK(insert.row_count == 3);
  CHECK(insert.placeholder_count == 6);
}

TEST_CASE("keywords ignore case while names keep theirs") {
  InsertStatement insert = ParseInsert("insert InTo Ns.T (Col_A) vAlUeS (?)");
  CHECK(insert.table == table::TableName{"Ns", "T"});
  CHECK(insert.columns == std::vector<std::string>{"Col_A"});
  SelectStatement select = ParseSelect("select A from ns.t as of version 2 where B = ? and c = ? limit 1");
  CHECK(select.columns == std::vector<std::string>{"A"});
  CHECK(WhereNames(select) == std::vector<std::string>{"B", "c"});
  CHECK(select.as_of_version == 2u);
  CHECK(select.limit == 1u);
}

TEST_CASE("whitespace is optional between tokens and may be any ASCII space") {
  InsertStatement insert = ParseInsert("INSERT INTO ns.t(a,b)VALUES(?,?),(?,?);");
  CHECK(insert.row_count == 2);
  CHECK(insert.placeholder_count == 4);
  SelectStatement select = ParseSelect("\n\tSELECT\r\n*\fFROM\vns . t\n;\n");
  CHECK(select.all_columns);
  CHECK(select.table == table::TableName{"ns", "t"});
}

TEST_CASE("a trailing semicolon is optional") {
  CHECK(ParseSelect("SELECT * FROM ns.t;") == ParseSelect("SELECT * FROM ns.t"));
  CHECK(ParseInsert("INSERT INTO ns.t (a) VALUES (?);") == ParseInsert("INSERT INTO ns.t (a) VALUES (?)"));
}

TEST_CASE("SELECT * has no columns and no clauses by default") {
  SelectStatement select = ParseSelect("SELECT * FROM ns.t");
  CHECK(select.table == table::TableName{"ns", "t"});
  CHECK(select.all_columns);
  CHECK(select.columns.empty());
  CHECK(!select.as_of_version.has_value());
  CHECK(WhereNames(select).empty());
  CHECK(!select.limit.has_value());
  CHECK(select.placeholder_count == 0);
}

TEST_CASE("SELECT with every clause keeps the columns and conditions in order") {
  SelectStatement select =
      ParseSelect("SELECT c, a, b FROM ns.t AS OF VERSION 7 WHERE b = ? AND a = ? AND b = ? LIMIT 10");
  CHECK(!select.all_columns);
  CHECK(select.columns == std::vector<std::string>{"c", "a", "b"});
  CHECK(select.as_of_version == 7u);
  CHECK(WhereNames(select) == std::vector<std::string>{"b", "a", "b"});
  CHECK(select.limit == 10u);
  CHECK(select.placeholder_count == 3);
}

TEST_CASE("each SELECT clause may appear alone") {
  SelectStatement version = ParseSelect("SELECT a FROM ns.t AS OF VERSION 0");
  CHECK(version.as_of_version == 0u);
  CHECK(WhereNames(version).empty());
  SelectStatement where = ParseSelect("SELECT a FROM ns.t WHERE a = ?");
  CHECK(!where.as_of_version.has_value());
  CHECK(WhereNames(where) == std::vector<std::string>{"a"});
  CHECK(where.placeholder_count == 1);
  SelectStatement limit = ParseSelect("SELECT a FROM ns.t LIMIT 0");
  CHECK(limit.limit == 0u);
  SelectStatement both = ParseSelect("SELECT a FROM ns.t AS OF VERSION 3 LIMIT 4");
  CHECK(both.as_of_version == 3u);
  CHECK(both.limit == 4u);
}

TEST_CASE("integers take the whole uint64 range") {
  SelectStatement select =
      ParseSelect("SELECT a FROM ns.t AS OF VERSION 18446744073709551615 LIMIT 00042");
  CHECK(select.as_of_version == 18446744073709551615u);
  CHECK(select.limit == 42u);
  CHECK(ErrorOf("SELECT a FROM ns.t LIMIT 18446744073709551616") ==
        "SQL: integer '18446744073709551616' at offset 25 is out of range");
}

TEST_CASE("keywords are not reserved: columns may be named like them") {
  SelectStatement select = ParseSelect("SELECT version, limit, from FROM ns.t WHERE and = ? AND where = ?");
  CHECK(select.columns == std::vector<std::string>{"version", "limit", "from"});
  CHECK(WhereNames(select) == std::vector<std::string>{"and", "where"});
  SelectStatement more = ParseSelect("SELECT order, by FROM ns.t WHERE or IS NULL OR in IN (?) OR is IS NOT NULL "
                                     "ORDER BY asc, null DESC");
  CHECK(more.columns == std::vector<std::string>{"order", "by"});
  CHECK(WhereNames(more) == std::vector<std::string>{"or", "in", "is"});
  CHECK(more.order_by == std::vector<OrderKey>{{"asc", false}, {"null", true}});
  InsertStatement insert = ParseInsert("INSERT INTO select.values (values, into) VALUES (?, ?)");
  CHECK(insert.table == table::TableName{"select", "values"});
  CHECK(insert.columns == std::vector<std::string>{"values", "into"});
}

TEST_CASE("a statement other than INSERT, SELECT, DELETE, DROP or ALTER is named") {
  CHECK(ErrorOf("UPDATE ns.t SET a = ?") ==
        "SQL: UPDATE is not supported (INSERT, SELECT, DELETE, DROP TABLE or ALTER TABLE)");
  CHECK(ErrorOf("(SELECT * FROM ns.t)") ==
        "SQL: expected INSERT, SELECT, DELETE, DROP TABLE or ALTER TABLE, found '(' at offset 0");
  CHECK(ErrorOf("") ==
        "SQL: the statement is empty (INSERT, SELECT, DELETE, DROP TABLE or ALTER TABLE)");
  CHECK(ErrorOf(" \n\t") ==
        "SQL: the statement is empty (INSERT, SELECT, DELETE, DROP TABLE or ALTER TABLE)");
  CHECK(ErrorOf(";") ==
        "SQL: expected INSERT, SELECT, DELETE, DROP TABLE or ALTER TABLE, found ';' at offset 0");
}

TEST_CASE("DELETE FROM a table parses with or without a WHERE") {
  absl::StatusOr<Statement> all = ParseStatement("delete from ns.t;");
  LAKE_REQUIRE_OK(all);
  const DeleteStatement& every_row = std::get<DeleteStatement>(*all);
  CHECK(every_row.table == table::TableName{"ns", "t"});
  CHECK(!every_row.where.has_value());
  CHECK(every_row.placeholder_count == 0);
  absl::StatusOr<Statement> some = ParseStatement("DELETE FROM ns.t WHERE a = ? AND b IN (?, ?)");
  LAKE_REQUIRE_OK(some);
  const DeleteStatement& matching = std::get<DeleteStatement>(*some);
  CHECK(matching.where.has_value());
  CHECK(matching.placeholder_count == 3);
}

TEST_CASE("INSERT … REPLACE WHERE numbers the WHERE's placeholders before the VALUES'") {
  absl::StatusOr<Statement> parsed = ParseStatement(
      "insert into ns.t replace where a = ? or b in (?, ?) (a, b) values (?, ?), (?, ?);");
  LAKE_REQUIRE_OK(parsed);
  REQUIRE(std::holds_alternative<ReplaceStatement>(*parsed));
  const ReplaceStatement& replace = std::get<ReplaceStatement>(*parsed);
  CHECK(replace.table == table::TableName{"ns", "t"});
  CHECK(replace.removed.table == replace.table);
  REQUIRE(replace.removed.where.has_value());
  CHECK(PredicateColumnNames(*replace.removed.where) == std::vector<std::string>{"a", "b"});
  CHECK(replace.removed.placeholder_count == 3);
  CHECK(replace.added.columns == std::vector<std::string>{"a", "b"});
  CHECK(replace.added.row_count == 2);
  CHECK(replace.added.placeholder_count == 4);
  CHECK(replace.placeholder_count == 7);
}

TEST_CASE("REPLACE is a keyword only after INSERT INTO's table: elsewhere a name") {
  absl::StatusOr<Statement> parsed =
      ParseStatement("INSERT INTO ns.t REPLACE WHERE replace = ? (replace) VALUES (?)");
  LAKE_REQUIRE_OK(parsed);
  const ReplaceStatement& replace = std::get<ReplaceStatement>(*parsed);
  CHECK(replace.added.columns == std::vector<std::string>{"replace"});
  CHECK(ParseInsert("INSERT INTO ns.t (replace) VALUES (?)").columns ==
        std::vector<std::string>{"replace"});
}

TEST_CASE("replace-where errors name the token where the statement left the grammar") {
  CHECK(ErrorOf("INSERT INTO ns.t REPLACE (a) VALUES (?)") ==
        "SQL: expected WHERE, found '(' at offset 25");
  CHECK(ErrorOf("INSERT INTO ns.t REPLACE WHERE (a) VALUES (?)") ==
        "SQL: expected an operator after column 'a' (=, !=, <, <=, >, >=, IN, IS NULL), found ')' "
        "at offset 33");
  CHECK(ErrorOf("INSERT INTO ns.t REPLACE WHERE a = ? VALUES (?)") ==
        "SQL: expected AND, OR or '(' and the column list, found 'VALUES' at offset 37");
  CHECK(ErrorOf("INSERT INTO ns.t REPLACE WHERE a = 1 (a) VALUES (?)") ==
        "SQL: only ? placeholders may appear in WHERE, found '1' at offset 35");
  CHECK(ErrorOf("INSERT INTO ns.t REPLACE WHERE a = ? (a) VALUES (?, ?)") ==
        "SQL: row 1 of VALUES has 2 values for 1 column (the row ends at offset 53)");
}

TEST_CASE("DROP TABLE and ALTER TABLE parse into their statements") {
  CHECK(std::get<DropTableStatement>(*ParseStatement("drop table ns.t;")).table ==
        table::TableName{"ns", "t"});
  CHECK(std::get<CreateTagStatement>(
            *ParseStatement("ALTER TABLE ns.t CREATE TAG release AS OF VERSION 7")) ==
        CreateTagStatement{{"ns", "t"}, "release", 7});
  CHECK(std::get<DropTagStatement>(*ParseStatement("ALTER TABLE ns.t DROP TAG \"table\"")) ==
        DropTagStatement{{"ns", "t"}, "table"});
  CHECK(std::get<ExpireStatement>(*ParseStatement("ALTER TABLE ns.t EXPIRE VERSIONS KEEP LAST 3")) ==
        ExpireStatement{{"ns", "t"}, 3, std::nullopt});
  CHECK(std::get<ExpireStatement>(
            *ParseStatement("ALTER TABLE ns.t EXPIRE VERSIONS KEEP LAST 2 OLDER THAN 1 day")) ==
        ExpireStatement{{"ns", "t"}, 2, 86400});
  CHECK(std::get<ExpireStatement>(
            *ParseStatement("ALTER TABLE ns.t EXPIRE VERSIONS OLDER THAN 90 MINUTES")) ==
        ExpireStatement{{"ns", "t"}, std::nullopt, 5400});
}

TEST_CASE("DROP TABLE and ALTER TABLE errors name the token") {
  CHECK(ErrorOf("DROP ns.t") == "SQL: expected TABLE, found 'ns' at offset 5");
  CHECK(ErrorOf("ALTER TABLE ns.t RENAME TO u") ==
        "SQL: expected CREATE TAG, DROP TAG or EXPIRE VERSIONS, found 'RENAME' at offset 17");
  CHECK(ErrorOf("ALTER TABLE ns.t CREATE TAG v1 VERSION 3") ==
        "SQL: expected AS, found 'VERSION' at offset 31");
  CHECK(ErrorOf("ALTER TABLE ns.t CREATE TAG v1 AS OF VERSION ?") ==
        "SQL: expected an integer after AS OF VERSION, found '?' at offset 45");
  CHECK(ErrorOf("ALTER TABLE ns.t EXPIRE VERSIONS") ==
        "SQL: expected KEEP LAST or OLDER THAN, found end of statement at offset 32");
  CHECK(ErrorOf("ALTER TABLE ns.t EXPIRE VERSIONS KEEP LAST 0") ==
        "SQL: KEEP LAST keeps at least 1 version (the current one), found 0 at offset 43");
  CHECK(ErrorOf("ALTER TABLE ns.t EXPIRE VERSIONS OLDER THAN 3 WEEKS") ==
        "SQL: expected SECONDS, MINUTES, HOURS or DAYS, found 'WEEKS' at offset 46");
  CHECK(ErrorOf("ALTER TABLE ns.t EXPIRE VERSIONS OLDER THAN 99999999999 DAYS") ==
        "SQL: OLDER THAN is at most 100 years, found 99999999999 at offset 44");
  CHECK(ErrorOf("DROP TABLE ns.t WHERE a = ?") ==
        "SQL: expected ';' or end of statement, found 'WHERE' at offset 16");
}

TEST_CASE("DELETE errors name the token where the statement left the grammar") {
  CHECK(ErrorOf("DELETE ns.t") == "SQL: expected FROM, found 'ns' at offset 7");
  CHECK(ErrorOf("DELETE FROM ns.t LIMIT 3") ==
        "SQL: expected WHERE, ';' or end of statement, found 'LIMIT' at offset 17");
  CHECK(ErrorOf("DELETE FROM ns.t WHERE a = ? LIMIT 3") ==
        "SQL: expected AND, OR, ';' or end of statement, found 'LIMIT' at offset 29");
}

TEST_CASE("INSERT errors name the token where the statement left the grammar") {
  CHECK(ErrorOf("INSERT INTO ns.t (a, b) VALUE (?, ?)") ==
        "SQL: expected VALUES, found 'VALUE' at offset 24");
  CHECK(ErrorOf("INSERT ns.t (a) VALUES (?)") == "SQL: expected INTO, found 'ns' at offset 7");
  CHECK(ErrorOf("INSERT INTO ns.t VALUES (?)") ==
        "SQL: expected '(' and the column list, or REPLACE WHERE, found 'VALUES' at offset 17");
  CHECK(ErrorOf("INSERT INTO ns.t () VALUES (?)") ==
        "SQL: expected a column name, found ')' at offset 18");
  CHECK(ErrorOf("INSERT INTO ns.t (a b) VALUES (?)") == "SQL: expected ',' or ')', found 'b' at offset 20");
  CHECK(ErrorOf("INSERT INTO ns.t (a) VALUES") ==
        "SQL: expected '(' and a row of VALUES, found end of statement at offset 27");
  CHECK(ErrorOf("INSERT INTO ns.t (a) VALUES (?) RETURNING a") ==
        "SQL: expected ',', ';' or end of statement, found 'RETURNING' at offset 32");
  CHECK(ErrorOf("INSERT INTO ns.t (a) VALUES (?), ") ==
        "SQL: expected '(' and a row of VALUES, found end of statement at offset 33");
  CHECK(ErrorOf("INSERT INTO ns.t (a) SELECT * FROM ns.u") ==
        "SQL: expected VALUES, found 'SELECT' at offset 21");
}

TEST_CASE("VALUES holds only placeholders") {
  CHECK(ErrorOf("INSERT INTO ns.t (a) VALUES (42)") ==
        "SQL: only ? placeholders may appear in VALUES, found '42' at offset 29");
  CHECK(ErrorOf("INSERT INTO ns.t (a, b) VALUES (?, NULL)") ==
        "SQL: only ? placeholders may appear in VALUES, found 'NULL' at offset 35");
  CHECK(ErrorOf("INSERT INTO ns.t (a) VALUES (?,)") == "SQL: expected ?, found ')' at offset 31");
  CHECK(ErrorOf("INSERT INTO ns.t (a) VALUES ()") == "SQL: expected ?, found ')' at offset 29");
  CHECK(ErrorOf("INSERT INTO ns.t (a, b) VALUES (? ?)") ==
        "SQL: expected ',' or ')', found '?' at offset 34");
}

TEST_CASE("every row of VALUES has one placeholder per column") {
  CHECK(ErrorOf("INSERT INTO ns.t (a, b) VALUES (?, ?), (?)") ==
        "SQL: row 2 of VALUES has 1 value for 2 columns (the row ends at offset 41)");
  CHECK(ErrorOf("INSERT INTO ns.t (a) VALUES (?, ?)") ==
        "SQL: row 1 of VALUES has 2 values for 1 column (the row ends at offset 33)");
}

TEST_CASE("quoted text is refused without echoing it") {
  std::string uri = ErrorOf("INSERT INTO ns.t (a) VALUES ('s3://other-bucket/key')");
  CHECK(uri == "SQL: quoted text at offset 29 is not supported: bind values with ? placeholders, "
               "quote names with \"...\"");
  std::string secret = ErrorOf("SELECT * FROM ns.t WHERE key = 'AKIAIOSFODNN7EXAMPLE'");
  CHECK(secret.find("AKIA") == std::string::npos);
  CHECK(secret.find("offset 31") != std::string::npos);
  CHECK(ErrorOf("SELECT `a` FROM ns.t").find("quoted text at offset 7") != std::string::npos);
}

TEST_CASE("double-quoted text that is not a name is refused without echoing it") {
  CHECK(ErrorOf("INSERT INTO ns.t (a) VALUES (\"s3://other-bucket/key\")") ==
        "SQL: quoted text at offset 29 is not a name ([A-Za-z_][A-Za-z0-9_]* between double quotes): "
        "bind values with ? placeholders");
  std::string secret = ErrorOf("SELECT * FROM ns.t WHERE key = \"AKIAIOSFODNN7EXAMPLE\"");
  CHECK(secret == "SQL: only ? placeholders may appear in WHERE, found a quoted name at offset 31");
  CHECK(ErrorOf("SELECT \"a FROM ns.t") == "SQL: the quoted name at offset 7 has no closing '\"'");
  CHECK(ErrorOf("SELECT \"\" FROM ns.t") == "SQL: column name is empty (at offset 7)");
  CHECK(ErrorOf("SELECT \"1a\" FROM ns.t") ==
        "SQL: column name '1a' is not an identifier ([A-Za-z_][A-Za-z0-9_]*) (at offset 7)");
}

TEST_CASE("a double-quoted name is always a name, never a keyword") {
  SelectStatement select = ParseSelect("SELECT \"count\", \"a\" FROM \"select\".\"from\" WHERE \"not\" IS NULL");
  CHECK(select.columns == std::vector<std::string>{"count", "a"});
  CHECK(!select.count_rows);
  CHECK(select.table == table::TableName{"select", "from"});
  CHECK(WhereNames(select) == std::vector<std::string>{"not"});
  CHECK(select.where->kind == PredicateKind::kIsNull);
  // Unquoted, NOT at the start of a condition is the operator.
  CHECK(ErrorOf("SELECT a FROM ns.t WHERE not = ?") == "SQL: expected a column name, found '=' at offset 29");
  // Quoted names keep their case, as names do.
  CHECK(ParseSelect("SELECT \"Ab\" FROM ns.t").columns == std::vector<std::string>{"Ab"});
}

TEST_CASE("a storage URI outside a quote is an unexpected token") {
  CHECK(ErrorOf("SELECT * FROM s3://bucket/t") == "SQL: unexpected token '://bucket/t' at offset 16");
  CHECK(ErrorOf("INSERT INTO ns.t (a) VALUES (file:///etc/passwd)") ==
        "SQL: unexpected token ':///etc/passwd' at offset 33");
}

TEST_CASE("table names are NAMESPACE.TABLE") {
  CHECK(ErrorOf("SELECT * FROM t") ==
        "SQL: expected '.' between namespace and table (NAMESPACE.TABLE), found end of statement at offset 15");
  CHECK(ErrorOf("SELECT * FROM a.b.c") ==
        "SQL: expected AS OF VERSION, WHERE, ORDER BY, LIMIT, ';' or end of statement, found '.' at offset 17");
  CHECK(ErrorOf("SELECT * FROM .t") == "SQL: expected a table name (NAMESPACE.TABLE), found '.' at offset 14");
  CHECK(ErrorOf("SELECT * FROM ns.") == "SQL: expected a table name, found end of statement at offset 17");
  CHECK(ErrorOf("SELECT * FROM ns.*") == "SQL: expected a table name, found '*' at offset 17");
}

TEST_CASE("identifiers are at most 128 bytes") {
  std::string longest(128, 'c');
  SelectStatement select = ParseSelect("SELECT " + longest + " FROM ns.t");
  CHECK(select.columns == std::vector<std::string>{longest});
  std::string too_long(129, 'c');
  CHECK(ErrorOf("SELECT " + too_long + " FROM ns.t") ==
        "SQL: column name '" + std::string(64, 'c') + "...' is longer than 128 bytes (at offset 7)");
  CHECK(ErrorOf("SELECT * FROM " + too_long + ".t") ==
        "SQL: namespace name '" + std::string(64, 'c') + "...' is longer than 128 bytes (at offset 14)");
}

TEST_CASE("SELECT list errors name the token") {
  CHECK(ErrorOf("SELECT") == "SQL: expected '*', a column name or count(*), found end of statement at offset 6");
  CHECK(ErrorOf("SELECT FROM ns.t") == "SQL: expected ',' or FROM, found 'ns' at offset 12");
  CHECK(ErrorOf("SELECT sum(*) FROM ns.t") == "SQL: expected ',' or FROM, found '(' at offset 10");
  CHECK(ErrorOf("SELECT *, a FROM ns.t") == "SQL: expected FROM, found ',' at offset 8");
  CHECK(ErrorOf("SELECT a, FROM ns.t") == "SQL: expected ',' or FROM, found 'ns' at offset 15");
  CHECK(ErrorOf("SELECT a,, b FROM ns.t") == "SQL: expected a column name, found ',' at offset 9");
  CHECK(ErrorOf("SELECT DISTINCT a FROM ns.t") == "SQL: expected ',' or FROM, found 'a' at offset 16");
}

TEST_CASE("WHERE values are placeholders on the right of their column") {
  CHECK(ErrorOf("SELECT a FROM ns.t WHERE a = 5") ==
        "SQL: only ? placeholders may appear in WHERE, found '5' at offset 29");
  CHECK(ErrorOf("SELECT a FROM ns.t WHERE a = b") ==
        "SQL: only ? placeholders may appear in WHERE, found 'b' at offset 29");
  CHECK(ErrorOf("SELECT a FROM ns.t WHERE a IN (?, 5)") ==
        "SQL: only ? placeholders may appear in IN, found '5' at offset 34");
  CHECK(ErrorOf("SELECT a FROM ns.t WHERE ? = a") == "SQL: expected a column name, found '?' at offset 25");
}

TEST_CASE("WHERE errors name the token where the predicate left the grammar") {
  CHECK(ErrorOf("SELECT a FROM ns.t WHERE a") ==
        "SQL: expected an operator after column 'a' (=, !=, <, <=, >, >=, IN, IS NULL), found end of "
        "statement at offset 26");
  CHECK(ErrorOf("SELECT a FROM ns.t WHERE a == ?") ==
        "SQL: only ? placeholders may appear in WHERE, found '=' at offset 28");
  CHECK(ErrorOf("SELECT a FROM ns.t WHERE a ! ?") == "SQL: unexpected token '!' at offset 27");
  CHECK(ErrorOf("SELECT a FROM ns.t WHERE a LIKE ?") ==
        "SQL: expected an operator after column 'a' (=, !=, <, <=, >, >=, IN, IS NULL), found 'LIKE' at "
        "offset 27");
  CHECK(ErrorOf("SELECT a FROM ns.t WHERE a IS ?") == "SQL: expected NULL or NOT NULL, found '?' at offset 30");
  CHECK(ErrorOf("SELECT a FROM ns.t WHERE a IS NOT") == "SQL: expected NULL, found end of statement at offset 33");
  CHECK(ErrorOf("SELECT a FROM ns.t WHERE a NOT = ?") == "SQL: expected IN, found '=' at offset 31");
  CHECK(ErrorOf("SELECT a FROM ns.t WHERE a IN ?") ==
        "SQL: expected '(' and the values of IN, found '?' at offset 30");
  CHECK(ErrorOf("SELECT a FROM ns.t WHERE a IN ()") == "SQL: expected ?, found ')' at offset 31");
  CHECK(ErrorOf("SELECT a FROM ns.t WHERE a IN (?") == "SQL: expected ',' or ')', found end of statement at offset 32");
  CHECK(ErrorOf("SELECT a FROM ns.t WHERE (a = ?") ==
        "SQL: expected AND, OR or ')', found end of statement at offset 31");
  CHECK(ErrorOf("SELECT a FROM ns.t WHERE a = ? OR") ==
        "SQL: expected a column name, found end of statement at offset 33");
  CHECK(ErrorOf("SELECT a FROM ns.t WHERE") ==
        "SQL: expected a column name, found end of statement at offset 24");
  CHECK(ErrorOf("SELECT a FROM ns.t WHERE a = ? AND") ==
        "SQL: expected a column name, found end of statement at offset 34");
  CHECK(ErrorOf("SELECT a FROM ns.t WHERE NOT") ==
        "SQL: expected a column name, found end of statement at offset 28");
}

TEST_CASE("each comparison operator gives its op, and <> is !=") {
  std::vector<std::pair<std::string, CompareOp>> cases = {
      {"=", CompareOp::kEqual},          {"!=", CompareOp::kNotEqual},     {"<>", CompareOp::kNotEqual},
      {"<", CompareOp::kLess},           {"<=", CompareOp::kLessOrEqual}, {">", CompareOp::kGreater},
      {">=", CompareOp::kGreaterOrEqual}};
  for (const auto& [text, op] : cases) {
    CAPTURE(text);
    SelectStatement select = ParseSelect("SELECT a FROM ns.t WHERE b " + text + " ?");
    REQUIRE(select.where.has_value());
    CHECK(select.where->kind == PredicateKind::kCompare);
    CHECK(select.where->op == op);
    CHECK(select.where->column == "b");
    CHECK(select.where->first_placeholder == 0);
    CHECK(select.where->placeholder_count == 1);
  }
  // Operators need no spaces around them.
  CHECK(ParseSelect("SELECT a FROM ns.t WHERE b<=?").where->op == CompareOp::kLessOrEqual);
}

TEST_CASE("IN takes one or more placeholders; NOT IN is NOT over it") {
  SelectStatement in = ParseSelect("SELECT a FROM ns.t WHERE b = ? AND c IN (?, ?, ?)");
  REQUIRE(in.where->kind == PredicateKind::kAnd);
  const Predicate& list = in.where->children[1];
  CHECK(list.kind == PredicateKind::kIn);
  CHECK(list.column == "c");
  CHECK(list.first_placeholder == 1);
  CHECK(list.placeholder_count == 3);
  CHECK(in.placeholder_count == 4);
  SelectStatement not_in = ParseSelect("SELECT a FROM ns.t WHERE c NOT IN (?)");
  REQUIRE(not_in.where->kind == PredicateKind::kNot);
  CHECK(not_in.where->children[0].kind == PredicateKind::kIn);
  CHECK(not_in.where->children[0].placeholder_count == 1);
}

TEST_CASE("IS NULL takes no placeholder; IS NOT NULL is NOT over it") {
  SelectStatement is_null = ParseSelect("SELECT a FROM ns.t WHERE b IS NULL");
  CHECK(is_null.where->kind == PredicateKind::kIsNull);
  CHECK(is_null.where->placeholder_count == 0);
  CHECK(is_null.placeholder_count == 0);
  SelectStatement not_null = ParseSelect("SELECT a FROM ns.t WHERE b is not null");
  REQUIRE(not_null.where->kind == PredicateKind::kNot);
  CHECK(not_null.where->children[0].kind == PredicateKind::kIsNull);
}

TEST_CASE("AND binds tighter than OR, NOT tighter than AND, parentheses tightest") {
  // a OR (b AND (NOT c))
  SelectStatement select = ParseSelect("SELECT x FROM ns.t WHERE a = ? OR b = ? AND NOT c = ?");
  const Predicate& where = *select.where;
  REQUIRE(where.kind == PredicateKind::kOr);
  REQUIRE(where.children.size() == 2);
  CHECK(where.children[0].column == "a");
  REQUIRE(where.children[1].kind == PredicateKind::kAnd);
  CHECK(where.children[1].children[0].column == "b");
  REQUIRE(where.children[1].children[1].kind == PredicateKind::kNot);
  CHECK(where.children[1].children[1].children[0].column == "c");
  // (a OR b) AND c
  SelectStatement grouped = ParseSelect("SELECT x FROM ns.t WHERE (a = ? OR b = ?) AND c = ?");
  REQUIRE(grouped.where->kind == PredicateKind::kAnd);
  CHECK(grouped.where->children[0].kind == PredicateKind::kOr);
  CHECK(WhereNames(grouped) == std::vector<std::string>{"a", "b", "c"});
}

TEST_CASE("a chain of one operator is one node over every operand") {
  SelectStatement select = ParseSelect("SELECT x FROM ns.t WHERE a = ? AND b = ? AND c = ? AND d = ?");
  REQUIRE(select.where->kind == PredicateKind::kAnd);
  CHECK(select.where->children.size() == 4);
  for (size_t i = 0; i < 4; ++i) CHECK(select.where->children[i].first_placeholder == i);
  SelectStatement ors = ParseSelect("SELECT x FROM ns.t WHERE a = ? OR b = ? OR c = ?");
  CHECK(ors.where->children.size() == 3);
}

TEST_CASE("parentheses and NOTs nest at most 64 deep") {
  std::string deepest = "SELECT x FROM ns.t WHERE " + std::string(64, '(') + "a = ?" + std::string(64, ')');
  CHECK(ParseSelect(deepest).where->column == "a");
  std::string deeper = "SELECT x FROM ns.t WHERE " + std::string(65, '(') + "a = ?" + std::string(65, ')');
  CHECK(ErrorOf(deeper) == "SQL: the WHERE nests parentheses and NOTs deeper than 64 (at offset 89)");
  std::string nots = "SELECT x FROM ns.t WHERE ";
  for (int i = 0; i < 65; ++i) nots += "NOT ";
  CHECK(ErrorOf(nots + "a = ?").find("deeper than 64") != std::string::npos);
}

TEST_CASE("ORDER BY lists keys, ascending unless DESC") {
  SelectStatement select = ParseSelect("SELECT a FROM ns.t WHERE a > ? ORDER BY b DESC, c, d asc LIMIT 3");
  CHECK(select.order_by == std::vector<OrderKey>{{"b", true}, {"c", false}, {"d", false}});
  CHECK(select.limit == 3u);
  // Keywords stay unreserved: columns named desc and limit.
  SelectStatement named = ParseSelect("SELECT a FROM ns.t ORDER BY desc DESC, limit LIMIT 1");
  CHECK(named.order_by == std::vector<OrderKey>{{"desc", true}, {"limit", false}});
  CHECK(ErrorOf("SELECT a FROM ns.t ORDER a") == "SQL: expected BY, found 'a' at offset 25");
  CHECK(ErrorOf("SELECT a FROM ns.t ORDER BY") == "SQL: expected a column name, found end of statement at offset 27");
  CHECK(ErrorOf("SELECT a FROM ns.t ORDER BY a DESC b") ==
        "SQL: expected ',', LIMIT, ';' or end of statement, found 'b' at offset 35");
}

TEST_CASE("SELECT count(*) counts rows, and a column named count is still a column") {
  SelectStatement count = ParseSelect("select COUNT ( * ) from ns.t where a = ? limit 1");
  CHECK(count.count_rows);
  CHECK(!count.all_columns);
  CHECK(count.columns.empty());
  CHECK(count.placeholder_count == 1);
  CHECK(ParseSelect("SELECT count FROM ns.t").columns == std::vector<std::string>{"count"});
  CHECK(ErrorOf("SELECT count(a) FROM ns.t") == "SQL: expected '*' (count(*) counts rows), found 'a' at offset 13");
  CHECK(ErrorOf("SELECT count(*), a FROM ns.t") == "SQL: expected FROM, found ',' at offset 15");
  CHECK(ErrorOf("SELECT count(*) FROM ns.t ORDER BY a") ==
        "SQL: count(*) gives one row, which has no ORDER BY (found at offset 26)");
  CHECK(ErrorOf("SELECT count(*) FROM ns.t x") ==
        "SQL: expected AS OF VERSION, WHERE, LIMIT, ';' or end of statement, found 'x' at offset 26");
}

TEST_CASE("AS OF VERSION and LIMIT take an integer literal") {
  CHECK(ErrorOf("SELECT a FROM ns.t LIMIT ?") == "SQL: expected an integer after LIMIT, found '?' at offset 25");
  CHECK(ErrorOf("SELECT a FROM ns.t LIMIT -1") == "SQL: unexpected token '-1' at offset 25");
  CHECK(ErrorOf("SELECT a FROM ns.t LIMIT 1.5") == "SQL: unexpected token '1.5' at offset 25");
  CHECK(ErrorOf("SELECT a FROM ns.t LIMIT 10abc") == "SQL: unexpected token '10abc' at offset 25");
  CHECK(ErrorOf("SELECT a FROM ns.t AS OF 3") == "SQL: expected VERSION, found '3' at offset 25");
  CHECK(ErrorOf("SELECT a FROM ns.t AS x") == "SQL: expected OF, found 'x' at offset 22");
  CHECK(ErrorOf("SELECT a FROM ns.t AS OF VERSION") ==
        "SQL: expected an integer after AS OF VERSION, found end of statement at offset 32");
}

TEST_CASE("SELECT clauses come in grammar order, once each") {
  CHECK(ErrorOf("SELECT a FROM ns.t LIMIT 1 WHERE a = ?") ==
        "SQL: expected ';' or end of statement, found 'WHERE' at offset 27");
  CHECK(ErrorOf("SELECT a FROM ns.t WHERE a = ? AS OF VERSION 1") ==
        "SQL: expected AND, OR, ORDER BY, LIMIT, ';' or end of statement, found 'AS' at offset 31");
  CHECK(ErrorOf("SELECT a FROM ns.t AS OF VERSION 1 AS OF VERSION 2") ==
        "SQL: expected WHERE, ORDER BY, LIMIT, ';' or end of statement, found 'AS' at offset 35");
  CHECK(ErrorOf("SELECT a FROM ns.t ORDER BY a WHERE a = ?") ==
        "SQL: expected ',', LIMIT, ';' or end of statement, found 'WHERE' at offset 30");
}

TEST_CASE("one statement only") {
  CHECK(ErrorOf("SELECT * FROM ns.t; SELECT * FROM ns.t") ==
        "SQL: one statement only, found 'SELECT' at offset 20 after ';'");
  CHECK(ErrorOf("SELECT * FROM ns.t;;") == "SQL: one statement only, found ';' at offset 19 after ';'");
}

TEST_CASE("anything that is not a token is named with its offset") {
  CHECK(ErrorOf("SELECT * FROM ns.t -- comment") == "SQL: unexpected token '--' at offset 19");
  CHECK(ErrorOf("SELECT * FROM ns.t /* c */") == "SQL: unexpected token '/' at offset 19");
  CHECK(ErrorOf("SELECT * FROM ns.t\xc3\xa4") == "SQL: unexpected token '\\xc3\\xa4' at offset 18");
  CHECK(ErrorOf(std::string("SELECT * FROM ns.t\0", 19)) == "SQL: unexpected token '\\x00' at offset 18");
  CHECK(ErrorOf("SELECT @a FROM ns.t") == "SQL: unexpected token '@a' at offset 7");
  CHECK(ErrorOf("SELECT a FROM ns.t WHERE a = :name") == "SQL: unexpected token ':name' at offset 29");
  CHECK(ErrorOf("SELECT a FROM ns.t WHERE a = $1") == "SQL: unexpected token '$1' at offset 29");
}

TEST_CASE("a long offending token is cut in the message") {
  std::string junk(100, '#');
  CHECK(ErrorOf("SELECT " + junk) == "SQL: unexpected token '" + std::string(64, '#') + "...' at offset 7");
}

TEST_CASE("a statement is at most 1 MiB") {
  std::string base = "SELECT * FROM ns.t";
  std::string largest = base + std::string(kMaxStatementBytes - base.size(), ' ');
  CHECK(ParseSelect(largest).all_columns);
  CHECK(ErrorOf(largest + " ") == "SQL: the statement is 1048577 bytes, more than 1048576");
}

TEST_CASE("a statement holds at most 65,536 placeholders") {
  std::string most = "INSERT INTO ns.t (a) VALUES (?)";
  for (size_t i = 1; i < kMaxPlaceholders; ++i) most += ",(?)";
  InsertStatement insert = ParseInsert(most);
  CHECK(insert.row_count == 65536);
  CHECK(insert.placeholder_count == 65536);
  std::string one_more = most + ",(?)";
  CHECK(ErrorOf(one_more) == "SQL: more than 65536 placeholders (the next is at offset " +
                                 std::to_string(one_more.size() - 2) + ")");
}

TEST_CASE("the lexer gives kinds, texts and byte offsets") {
  absl::StatusOr<std::vector<Token>> tokens = TokenizeSql("SELECT a,* FROM n.t WHERE x=? LIMIT 9;");
  LAKE_REQUIRE_OK(tokens);
  std::vector<TokenKind> kinds;
  std::vector<std::string> texts;
  std::vector<size_t> offsets;
  for (const Token& token : *tokens) {
    kinds.push_back(token.kind);
    texts.emplace_back(token.text);
    offsets.push_back(token.offset);
  }
  using K = TokenKind;
  CHECK(kinds == std::vector<K>{K::kWord, K::kWord, K::kComma, K::kStar, K::kWord, K::kWord, K::kDot,
                                K::kWord, K::kWord, K::kWord, K::kEquals, K::kPlaceholder, K::kWord,
                                K::kInteger, K::kSemicolon, K::kEnd});
  CHECK(texts == std::vector<std::string>{"SELECT", "a", ",", "*", "FROM", "n", ".", "t", "WHERE", "x", "=",
                                          "?", "LIMIT", "9", ";", ""});
  CHECK(offsets == std::vector<size_t>{0, 7, 8, 9, 11, 16, 17, 18, 20, 26, 27, 28, 30, 36, 37, 38});
  CHECK(tokens->at(13).integer == 9);
}

TEST_CASE("the lexer reads the longest operator and quoted names without their quotes") {
  absl::StatusOr<std::vector<Token>> tokens = TokenizeSql("a<=?b<>c!=d>=e<f>g=\"Not\"");
  LAKE_REQUIRE_OK(tokens);
  std::vector<TokenKind> kinds;
  for (const Token& token : *tokens) kinds.push_back(token.kind);
  using K = TokenKind;
  CHECK(kinds == std::vector<K>{K::kWord, K::kLessOrEqual, K::kPlaceholder, K::kWord, K::kNotEquals, K::kWord,
                                K::kNotEquals, K::kWord, K::kGreaterOrEqual, K::kWord, K::kLess, K::kWord,
                                K::kGreater, K::kWord, K::kEquals, K::kQuotedName, K::kEnd});
  const Token& quoted = tokens->at(15);
  CHECK(quoted.text == "Not");
  CHECK(quoted.offset == 19);
  CHECK(!IsKeyword(quoted, "NOT"));
  CHECK(DescribeToken(quoted) == "'\"Not\"'");
}

TEST_CASE("keywords compare ignoring ASCII case, and only words are keywords") {
  CHECK(IsKeyword(Token{TokenKind::kWord, "sElEcT", 0, 0}, "SELECT"));
  CHECK(!IsKeyword(Token{TokenKind::kWord, "SELECTS", 0, 0}, "SELECT"));
  CHECK(!IsKeyword(Token{TokenKind::kInteger, "1", 0, 1}, "1"));
  CHECK(DescribeToken(Token{TokenKind::kEnd, "", 5, 0}) == "end of statement");
  CHECK(DescribeToken(Token{TokenKind::kWord, "ab", 0, 0}) == "'ab'");
}

}  // namespace
}  // namespace lake::sql
