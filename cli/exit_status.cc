#include "cli/exit_status.h"

#include <cstdio>
#include <string>

#include "absl/strings/str_cat.h"
#include "cli/message_text.h"

namespace lake::cli {

int ExitCodeOf(lake_status status) {
  switch (status) {
    case LAKE_OK: return kExitOk;
    case LAKE_INVALID_ARGUMENT:
    case LAKE_UNSUPPORTED: return kExitUsage;
    case LAKE_INTEGRITY: return kExitIntegrity;
    case LAKE_CONFLICT: return kExitConflict;
    case LAKE_IO: return kExitStorage;
    case LAKE_NOT_FOUND: return kExitNotFound;
    case LAKE_CANCELLED:
    case LAKE_INTERNAL: return kExitInternal;
  }
  return kExitInternal;
}

void ReportError(std::string_view message) {
  std::fprintf(stderr, "lake: %s\n", OneLineText(message).c_str());
}

int ReportFailure(lake_status status, lake_error* err, std::string_view context) {
  const char* message = err != nullptr ? lake_error_message(err) : lake_status_name(status);
  if (status == LAKE_INTEGRITY) {
    // The message starts with the kind ("DigestMismatch: …").
    ReportError(absl::StrCat(std::string(context), ": integrity failure: ", message, " (expected ",
                             lake_error_expected(err), " bytes, observed ",
                             lake_error_observed(err), ")"));
  } else {
    ReportError(absl::StrCat(std::string(context), ": ", message));
  }
  lake_error_free(err);
  return ExitCodeOf(status);
}

int ReportUsage(std::string_view message, std::string_view command) {
  ReportError(message);
  std::string cmd(command);
  std::fprintf(stderr, "Run 'lake %s%s--help' for usage.\n", cmd.c_str(), cmd.empty() ? "" : " ");
  return kExitUsage;
}

}  // namespace lake::cli

namespace lake::cli {

int ReportUsage(const absl::Status& status, std::string_view command) {
  return ReportUsage(std::string(status.message()), command);
}

}  // namespace lake::cli
