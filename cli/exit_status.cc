#include "cli/exit_status.h"

#include <cinttypes>
#include <cstdio>
#include <string>

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

int ReportFailure(lake_status status, lake_error* err, std::string_view context) {
  std::string ctx(context);
  const char* message = err != nullptr ? lake_error_message(err) : lake_status_name(status);
  if (status == LAKE_INTEGRITY) {
    // The message starts with the kind ("DigestMismatch: …").
    std::fprintf(stderr,
                 "lake: %s: integrity failure: %s (expected %" PRIu64
                 " bytes, observed %" PRIu64 ")\n",
                 ctx.c_str(), message, lake_error_expected(err),
                 lake_error_observed(err));
  } else {
    std::fprintf(stderr, "lake: %s: %s\n", ctx.c_str(), message);
  }
  lake_error_free(err);
  return ExitCodeOf(status);
}

int ReportUsage(std::string_view message, std::string_view command) {
  std::string msg(message), cmd(command);
  std::fprintf(stderr, "lake: %s\nRun 'lake %s%s--help' for usage.\n",
               msg.c_str(), cmd.c_str(), cmd.empty() ? "" : " ");
  return kExitUsage;
}

}  // namespace lake::cli

namespace lake::cli {

int ReportUsage(const absl::Status& status, std::string_view command) {
  return ReportUsage(std::string(status.message()), command);
}

}  // namespace lake::cli
