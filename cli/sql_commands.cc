// lake insert "INSERT …", lake query "SELECT …" [--json] and lake exec
// "DELETE …", "INSERT … REPLACE WHERE …", "DROP TABLE …" or "ALTER TABLE …"
// [--json], with
// --param/--file/--location bound in argv order.
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/arrow_rows.h"
#include "cli/cli_stage.h"
#include "cli/commands.h"
#include "cli/exit_status.h"
#include "cli/statement_params.h"

namespace lake::cli {
namespace {

constexpr char kInsertUsage[] =
    "usage: lake [global options] insert \"INSERT INTO NS.T (C, …) VALUES (?, …)\"\n"
    "            [--param VALUE | --file PATH[:CONTENT_TYPE] | --location JSON|@PATH]…\n"
    "\n"
    "Binds the placeholders in argv order (--param text is parsed by the\n"
    "column's type; NULL is null), uploads every --file, then appends the rows\n"
    "as one new version, which it prints. --location names an existing object\n"
    "of the root's stage: nothing is uploaded.\n";

constexpr char kQueryUsage[] =
    "usage: lake [global options] query \"SELECT C, …|*|count(*) FROM NS.T [AS OF VERSION N]\n"
    "            [WHERE PREDICATE] [ORDER BY C [ASC|DESC], …] [LIMIT N]\"\n"
    "            [--param V | --location L]… [--json]\n"
    "\n"
    "PREDICATE: C = ? (or !=, <>, <, <=, >, >=), C [NOT] IN (?, …), C IS [NOT]\n"
    "NULL, joined by AND, OR, NOT and parentheses. A column named like a\n"
    "keyword may be written in double quotes (\"not\").\n"
    "\n"
    "Prints the rows: a header and tab-separated cells, or with --json one\n"
    "JSON object per row per line (FILE cells as DataLocation objects).\n"
    "A running insert does not block it: it reads the rows committed when it\n"
    "starts.\n";

constexpr char kExecUsage[] =
    "usage: lake [global options] exec \"DELETE FROM NS.T [WHERE PREDICATE]\"\n"
    "       lake [global options] exec \"INSERT INTO NS.T REPLACE WHERE PREDICATE\n"
    "            (C, …) VALUES (?, …)[, …]\"\n"
    "            [--param V | --file PATH[:CONTENT_TYPE] | --location L]… [--json]\n"
    "\n"
    "DELETE deletes the rows the WHERE matches (every row without one;\n"
    "PREDICATE as for query) in one new version, and prints that version and\n"
    "the number of rows deleted, tab-separated (--json:\n"
    "{\"version\":N,\"deleted_rows\":M}). When nothing matched no version is\n"
    "committed: it prints the current version and 0. Older versions keep the\n"
    "rows (AS OF VERSION). Running it again after a failure converges: deleted\n"
    "rows are not counted twice.\n"
    "\n"
    "INSERT … REPLACE WHERE deletes the matching rows and appends the VALUES\n"
    "(files uploaded first, as insert does) in one new version, and prints the\n"
    "version, the rows deleted and the rows inserted, tab-separated (--json:\n"
    "{\"version\":N,\"deleted_rows\":M,\"inserted_rows\":K}). Any commit to\n"
    "the table after it read the version it replaces on (another insert too)\n"
    "fails it with exit 4, committing nothing: run it again.\n"
    "\n"
    "       lake [global options] exec \"DROP TABLE NS.T\"\n"
    "       lake [global options] exec \"ALTER TABLE NS.T CREATE TAG NAME AS OF VERSION N\"\n"
    "       lake [global options] exec \"ALTER TABLE NS.T DROP TAG NAME\"\n"
    "       lake [global options] exec \"ALTER TABLE NS.T EXPIRE VERSIONS [KEEP LAST N]\n"
    "            [OLDER THAN N SECONDS|MINUTES|HOURS|DAYS]\"\n"
    "\n"
    "As lake table drop, tag, untag and expire. Prints the table's version\n"
    "(the tagged one; for DROP TABLE its last) and the number of versions\n"
    "retired (0 but for EXPIRE), tab-separated (--json:\n"
    "{\"version\":N,\"retired_versions\":K}).\n";

constexpr char kRecoverUsage[] =
    "usage: lake [global options] recover [--list] [--json]\n"
    "       lake [global options] recover --discard OPERATION_ID\n"
    "\n"
    "Settles the appends a crash interrupted after their uploads, or whose\n"
    "failure may still commit (an insert that named its operation): each\n"
    "converges on the version its operation produced, or commits once; none\n"
    "appends twice. Checkpoints older than LAKE_APPEND_OPERATION_RETENTION_SECS\n"
    "(7 days), damaged or not, are removed. Stuck ones (damaged, written for\n"
    "another stage, their table gone) are kept and reported, and recover\n"
    "exits 5 while one is left.\n"
    "--list only shows every pending checkpoint, oldest first, with its age,\n"
    "size and what recover would do: replayable, already-committed, expired,\n"
    "stuck or failed, with the reason.\n"
    "--discard moves one checkpoint aside to <root>/checkpoints/discarded/\n"
    "(kept, never deleted) so it is never replayed, and prints where it went:\n"
    "for a stuck checkpoint you have decided to give up.\n";

using nlohmann::json;
using DbOwner = std::unique_ptr<lake_db, void (*)(lake_db*)>;
using StatementOwner = std::unique_ptr<lake_statement, void (*)(lake_statement*)>;

absl::StatusOr<ParsedArgs> Parse(const std::vector<std::string>& argv, bool query) {
  std::vector<FlagSpec> flags = GlobalFlags();
  for (FlagSpec& f : ParameterFlags()) flags.push_back(f);
  if (query) flags.push_back({"--json", "", false});
  flags.push_back({"--help", "-h", false});
  return ParseArgs(argv, flags);
}

// A query reads the root through a follower view, beside any writer
// (OpenRootToRead); an insert writes it.
int OpenFor(const ParsedArgs& args, const std::string& command, lake_db** db) {
  GlobalOptions global = GlobalOptionsFrom(args);
  return command == "query" ? OpenRootToRead(global, db) : OpenRoot(global, std::nullopt, db);
}

int Prepare(const ParsedArgs& args, const std::string& command, DbOwner* db,
            lake_statement** stmt) {
  lake_db* opened = nullptr;
  if (int code = OpenFor(args, command, &opened); code != kExitOk) return code;
  db->reset(opened);
  lake_error* err = nullptr;
  lake_status status = lake_db_prepare(opened, args.positionals[0].c_str(), stmt, &err);
  if (status != LAKE_OK) return ReportFailure(status, err, command);
  return kExitOk;
}

// Whether the prepared `sql` is a DROP TABLE or ALTER TABLE: in lake's
// SQL a statement's first word says what it is (CLI.md, "SQL").
bool IsTableChange(const std::string& sql) {
  size_t begin = sql.find_first_not_of(" \t\n\r\f\v");
  if (begin == std::string::npos) return false;
  size_t end = sql.find_first_of(" \t\n\r\f\v", begin);
  std::string first = sql.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
  for (char& c : first) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return first == "DROP" || first == "ALTER";
}

std::string TextOf(const nlohmann::ordered_json& cell) {
  if (cell.is_null()) return "NULL";
  if (cell.is_string()) return cell.get<std::string>();
  if (cell.is_object()) return cell["uri"].get<std::string>();
  return cell.dump();
}

}  // namespace

int RunInsert(const std::vector<std::string>& argv) {
  absl::StatusOr<ParsedArgs> args = Parse(argv, false);
  if (!args.ok()) return ReportUsage(args.status(), "insert");
  if (args->Has("--help")) {
    std::fputs(kInsertUsage, stdout);
    return kExitOk;
  }
  if (args->positionals.size() != 1) return ReportUsage("insert needs one SQL statement", "insert");
  DbOwner db(nullptr, lake_db_free);
  lake_statement* stmt = nullptr;
  if (int code = Prepare(*args, "insert", &db, &stmt); code != kExitOk) return code;
  StatementOwner stmt_owner(stmt, lake_statement_free);
  if (int code = BindParameters(stmt, *args, "insert"); code != kExitOk) return code;
  uint64_t version = 0;
  lake_error* err = nullptr;
  lake_status status = lake_statement_insert(stmt, nullptr, &version, &err);
  if (status != LAKE_OK) {
    // Copied: ReportFailure frees the error.
    const char* pending = lake_error_pending_operation_id(err);
    std::string operation = pending != nullptr ? pending : "";
    int code = ReportFailure(status, err, "insert");
    if (!operation.empty()) {
      std::fprintf(stderr,
                   "lake: insert: operation %s may still commit: run 'lake recover' to settle "
                   "it; do not run the insert again\n",
                   operation.c_str());
    }
    return code;
  }
  std::printf("%llu\n", static_cast<unsigned long long>(version));
  return std::fflush(stdout) == 0 ? kExitOk : kExitStorage;
}

int RunQuery(const std::vector<std::string>& argv) {
  absl::StatusOr<ParsedArgs> args = Parse(argv, true);
  if (!args.ok()) return ReportUsage(args.status(), "query");
  if (args->Has("--help")) {
    std::fputs(kQueryUsage, stdout);
    return kExitOk;
  }
  if (args->positionals.size() != 1) return ReportUsage("query needs one SQL statement", "query");
  DbOwner db(nullptr, lake_db_free);
  lake_statement* stmt = nullptr;
  if (int code = Prepare(*args, "query", &db, &stmt); code != kExitOk) return code;
  StatementOwner stmt_owner(stmt, lake_statement_free);
  if (int code = BindParameters(stmt, *args, "query"); code != kExitOk) return code;
  ArrowArrayStream stream{};
  lake_error* err = nullptr;
  lake_status status = lake_statement_query(stmt, &stream, &err);
  if (status != LAKE_OK) return ReportFailure(status, err, "query");
  NoteStaleView(db.get());
  std::unique_ptr<ArrowArrayStream, void (*)(ArrowArrayStream*)> stream_owner(
      &stream, [](ArrowArrayStream* s) { s->release(s); });
  ArrowSchema schema{};
  if (stream.get_schema(&stream, &schema) != 0) {
    ReportError(std::string("query: ") + stream.get_last_error(&stream));
    return kExitStorage;
  }
  std::unique_ptr<ArrowSchema, void (*)(ArrowSchema*)> schema_owner(
      &schema, [](ArrowSchema* s) { s->release(s); });
  absl::StatusOr<std::vector<ResultColumn>> columns = ResultColumns(schema);
  if (!columns.ok()) {
    ReportError("query: " + std::string(columns.status().message()));
    return kExitInternal;
  }
  bool as_json = args->Has("--json");
  if (!as_json) {
    for (size_t c = 0; c < columns->size(); ++c) {
      std::printf("%s%s", c ? "\t" : "", (*columns)[c].name.c_str());
    }
    std::printf("\n");
  }
  for (;;) {
    ArrowArray batch{};
    if (int error = stream.get_next(&stream, &batch); error != 0) {
      const char* message = stream.get_last_error(&stream);
      ReportError(std::string("query: ") + (message != nullptr ? message : "read failed"));
      // The stream's errno values (lake.h, lake_statement_query).
      switch (error) {
        case EBADMSG:
          return kExitIntegrity;
        case EINVAL:
          return kExitUsage;
        case ENOMEM:
          return kExitInternal;
        default:
          return kExitStorage;
      }
    }
    if (batch.release == nullptr) break;
    std::unique_ptr<ArrowArray, void (*)(ArrowArray*)> batch_owner(
        &batch, [](ArrowArray* a) { a->release(a); });
    for (int64_t row = 0; row < batch.length; ++row) {
      absl::StatusOr<std::vector<nlohmann::ordered_json>> cells = ResultRow(schema, batch, *columns, row);
      if (!cells.ok()) {
        ReportError("query: " + std::string(cells.status().message()));
        return kExitIntegrity;
      }
      if (as_json) {
        // The row's columns in the order selected.
        nlohmann::ordered_json object = nlohmann::ordered_json::object();
        for (size_t c = 0; c < columns->size(); ++c) object[(*columns)[c].name] = (*cells)[c];
        std::printf("%s\n", object.dump().c_str());
      } else {
        for (size_t c = 0; c < cells->size(); ++c) {
          std::printf("%s%s", c ? "\t" : "", TextOf((*cells)[c]).c_str());
        }
        std::printf("\n");
      }
    }
  }
  return std::fflush(stdout) == 0 ? kExitOk : kExitStorage;
}

int RunExec(const std::vector<std::string>& argv) {
  absl::StatusOr<ParsedArgs> args = Parse(argv, true);
  if (!args.ok()) return ReportUsage(args.status(), "exec");
  if (args->Has("--help")) {
    std::fputs(kExecUsage, stdout);
    return kExitOk;
  }
  if (args->positionals.size() != 1) return ReportUsage("exec needs one SQL statement", "exec");
  DbOwner db(nullptr, lake_db_free);
  lake_statement* stmt = nullptr;
  if (int code = Prepare(*args, "exec", &db, &stmt); code != kExitOk) return code;
  StatementOwner stmt_owner(stmt, lake_statement_free);
  if (int code = BindParameters(stmt, *args, "exec"); code != kExitOk) return code;
  uint64_t version = 0;
  uint64_t rows = 0;
  lake_error* err = nullptr;
  lake_status status = lake_statement_execute(stmt, &version, &rows, &err);
  if (status != LAKE_OK) return ReportFailure(status, err, "exec");
  if (IsTableChange(args->positionals[0])) {
    if (args->Has("--json")) {
      std::printf("%s\n", json{{"version", version}, {"retired_versions", rows}}.dump().c_str());
    } else {
      std::printf("%llu\t%llu\n", static_cast<unsigned long long>(version),
                  static_cast<unsigned long long>(rows));
    }
    return std::fflush(stdout) == 0 ? kExitOk : kExitStorage;
  }
  uint64_t deleted = 0;
  uint64_t inserted = 0;
  lake_statement_changes(stmt, &deleted, &inserted);
  // A replace-where is the one statement exec runs that inserts rows, and
  // it always inserts some (VALUES has at least one row).
  bool replaced = inserted > 0;
  if (args->Has("--json")) {
    json out{{"version", version}, {"deleted_rows", rows}};
    if (replaced) out["inserted_rows"] = inserted;
    std::printf("%s\n", out.dump().c_str());
  } else if (replaced) {
    std::printf("%llu\t%llu\t%llu\n", static_cast<unsigned long long>(version),
                static_cast<unsigned long long>(deleted), static_cast<unsigned long long>(inserted));
  } else {
    std::printf("%llu\t%llu\n", static_cast<unsigned long long>(version),
                static_cast<unsigned long long>(rows));
  }
  return std::fflush(stdout) == 0 ? kExitOk : kExitStorage;
}

int RunRecover(const std::vector<std::string>& argv) {
  std::vector<FlagSpec> flags = GlobalFlags();
  flags.push_back({"--list", "", false});
  flags.push_back({"--json", "", false});
  flags.push_back({"--discard", "", true});
  flags.push_back({"--help", "-h", false});
  absl::StatusOr<ParsedArgs> args = ParseArgs(argv, flags);
  if (!args.ok()) return ReportUsage(args.status(), "recover");
  if (args->Has("--help")) {
    std::fputs(kRecoverUsage, stdout);
    return kExitOk;
  }
  if (!args->positionals.empty()) return ReportUsage("recover takes no argument", "recover");
  std::optional<std::string> discard = args->Value("--discard");
  if (discard && (args->Has("--list") || args->Has("--json"))) {
    return ReportUsage("--discard goes alone, without --list or --json", "recover");
  }
  // --list changes nothing: it reads through a follower view, like query
  // (no writer lock: it works on a read-only root and beside a writer).
  bool list = args->Has("--list");
  lake_db* opened = nullptr;
  GlobalOptions global = GlobalOptionsFrom(*args);
  if (int code = list ? OpenRootToRead(global, &opened) : OpenRoot(global, std::nullopt, &opened);
      code != kExitOk) {
    return code;
  }
  DbOwner db(opened, lake_db_free);
  char* text = nullptr;
  lake_error* err = nullptr;
  if (discard) {
    lake_status status = lake_db_discard_append(opened, discard->c_str(), &text, &err);
    if (status != LAKE_OK) return ReportFailure(status, err, "recover");
    std::printf("%s\n", text);
    std::fprintf(stderr, "discarded append %s: its checkpoint is kept at %s\n", discard->c_str(),
                 text);
    lake_string_free(text);
    return std::fflush(stdout) == 0 ? kExitOk : kExitStorage;
  }
  lake_status status = list ? lake_db_pending_appends(opened, &text, &err)
                            : lake_db_recover(opened, &text, &err);
  if (status != LAKE_OK) return ReportFailure(status, err, "recover");
  json entries = json::parse(text);
  lake_string_free(text);
  int code = kExitOk;
  for (const json& e : entries) {
    if (args->Has("--json")) {
      std::printf("%s\n", e.dump().c_str());
    } else if (list) {
      std::printf("%s\t%.0f s old\t%llu bytes\t%s", e["operation_id"].get<std::string>().c_str(),
                  e["age_seconds"].get<double>(),
                  static_cast<unsigned long long>(e["size_bytes"].get<uint64_t>()),
                  e["state"].get<std::string>().c_str());
      if (e.contains("table")) std::printf("\t%s", e["table"].get<std::string>().c_str());
      if (e.contains("reason")) std::printf("\t%s", e["reason"].get<std::string>().c_str());
      std::printf("\n");
    } else {
      std::printf("%s\t%s\t%s", e["operation_id"].get<std::string>().c_str(),
                  e["table"].get<std::string>().c_str(), e["result"].get<std::string>().c_str());
      if (e.contains("version")) {
        std::printf("\tversion %llu", static_cast<unsigned long long>(e["version"].get<uint64_t>()));
      }
      if (e.contains("message")) std::printf("\t%s", e["message"].get<std::string>().c_str());
      std::printf("\n");
    }
    if (!list && (e["result"] == "failed" || e["result"] == "rejected")) code = kExitStorage;
  }
  if (list && !args->Has("--json") && entries.empty()) {
    std::fprintf(stderr, "no pending appends\n");
  }
  return std::fflush(stdout) == 0 ? code : kExitStorage;
}

}  // namespace lake::cli
