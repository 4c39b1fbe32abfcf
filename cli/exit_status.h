// Exit codes of `lake` (CLI.md) and how failures are printed.
#ifndef LAKE_CLI_EXIT_STATUS_H_
#define LAKE_CLI_EXIT_STATUS_H_

#include <string_view>

#include "absl/status/status.h"
#include "lake.h"

namespace lake::cli {

enum ExitCode {
  kExitOk = 0,
  kExitInternal = 1,   // unexpected internal error
  kExitUsage = 2,      // usage or invalid input, containment refused
  kExitIntegrity = 3,  // digest mismatch, short or long object, premature EOF
  kExitConflict = 4,   // CAS lost, lock held elsewhere
  kExitStorage = 5,    // I/O or network failure after retries
  kExitNotFound = 6,   // no such object, table or namespace
};

int ExitCodeOf(lake_status status);

// Every message below is one line on stderr, "lake: …", its outside text
// shown by OneLineText (message_text.h); a usage error adds a hint line.

// Prints "lake: <message>".
void ReportError(std::string_view message);

// Prints "lake: <context>: <message>" to stderr — for integrity failures
// naming the kind with its expected and observed counts — frees `err`, and
// returns the exit code of `status`.
int ReportFailure(lake_status status, lake_error* err, std::string_view context);

// Prints "lake: <message>" and a hint to run --help; returns kExitUsage.
int ReportUsage(std::string_view message, std::string_view command);
int ReportUsage(const absl::Status& status, std::string_view command);

}  // namespace lake::cli

#endif  // LAKE_CLI_EXIT_STATUS_H_
