// lake_error: the error handle, and the mapping from internal statuses.
#include "bindings/c/c_handles.h"
#include "engine/integrity_error.h"
#include "engine/table/pending_append_error.h"

namespace lake::c {

lake_status StatusCode(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kOk:
      return LAKE_OK;
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kOutOfRange:
    case absl::StatusCode::kFailedPrecondition:
      return LAKE_INVALID_ARGUMENT;
    case absl::StatusCode::kDataLoss:
      return LAKE_INTEGRITY;
    case absl::StatusCode::kAborted:
    case absl::StatusCode::kAlreadyExists:
      return LAKE_CONFLICT;
    case absl::StatusCode::kNotFound:
      return LAKE_NOT_FOUND;
    case absl::StatusCode::kCancelled:
      return LAKE_CANCELLED;
    case absl::StatusCode::kUnimplemented:
      return LAKE_UNSUPPORTED;
    case absl::StatusCode::kInternal:
      return LAKE_INTERNAL;
    default:  // Unavailable, DeadlineExceeded, ResourceExhausted,
              // PermissionDenied, Unknown: storage failures
      return LAKE_IO;
  }
}

lake_error* NewError(const absl::Status& status) {
  auto* error = new lake_error;
  error->code = StatusCode(status);
  error->message = std::string(status.message());
  error->pending_operation_id = table::GetPendingOperationId(status);
  // An operation that may still commit is recovered, never repeated.
  error->retryable = !error->pending_operation_id.has_value() &&
                     (status.code() == absl::StatusCode::kUnavailable ||
                      status.code() == absl::StatusCode::kDeadlineExceeded);
  if (std::optional<IntegrityDetail> detail = GetIntegrityDetail(status)) {
    switch (detail->kind) {
      case IntegrityKind::kSizeShort:
        error->integrity_kind = LAKE_INTEGRITY_SIZE_SHORT;
        break;
      case IntegrityKind::kSizeLong:
        error->integrity_kind = LAKE_INTEGRITY_SIZE_LONG;
        break;
      case IntegrityKind::kDigestMismatch:
        error->integrity_kind = LAKE_INTEGRITY_DIGEST_MISMATCH;
        break;
      case IntegrityKind::kPrematureEof:
        error->integrity_kind = LAKE_INTEGRITY_PREMATURE_EOF;
        break;
      case IntegrityKind::kInvalidLocation:
        error->integrity_kind = LAKE_INTEGRITY_INVALID_LOCATION;
        break;
      case IntegrityKind::kObjectChanged:
        error->integrity_kind = LAKE_INTEGRITY_OBJECT_CHANGED;
        break;
    }
    error->expected = detail->expected;
    error->observed = detail->observed;
  }
  return error;
}

lake_status Report(const absl::Status& status, lake_error** err) {
  if (!status.ok() && err != nullptr) *err = NewError(status);
  return StatusCode(status);
}

}  // namespace lake::c

extern "C" {

lake_status lake_error_code(const lake_error* err) {
  return err == nullptr ? LAKE_OK : err->code;
}
const char* lake_error_message(const lake_error* err) {
  return err == nullptr ? "" : err->message.c_str();
}
lake_integrity_kind lake_error_integrity_kind(const lake_error* err) {
  return err == nullptr ? LAKE_INTEGRITY_NONE : err->integrity_kind;
}
uint64_t lake_error_expected(const lake_error* err) {
  return err == nullptr ? 0 : err->expected;
}
uint64_t lake_error_observed(const lake_error* err) {
  return err == nullptr ? 0 : err->observed;
}
int lake_error_retryable(const lake_error* err) {
  return err != nullptr && err->retryable ? 1 : 0;
}
const char* lake_error_pending_operation_id(const lake_error* err) {
  if (err == nullptr || !err->pending_operation_id.has_value()) return nullptr;
  return err->pending_operation_id->c_str();
}
void lake_error_free(lake_error* err) { delete err; }

const char* lake_status_name(lake_status status) {
  switch (status) {
    case LAKE_OK: return "LAKE_OK";
    case LAKE_INVALID_ARGUMENT: return "LAKE_INVALID_ARGUMENT";
    case LAKE_INTEGRITY: return "LAKE_INTEGRITY";
    case LAKE_CONFLICT: return "LAKE_CONFLICT";
    case LAKE_IO: return "LAKE_IO";
    case LAKE_NOT_FOUND: return "LAKE_NOT_FOUND";
    case LAKE_CANCELLED: return "LAKE_CANCELLED";
    case LAKE_INTERNAL: return "LAKE_INTERNAL";
    case LAKE_UNSUPPORTED: return "LAKE_UNSUPPORTED";
  }
  return "LAKE_UNKNOWN_STATUS";
}

const char* lake_integrity_kind_name(lake_integrity_kind kind) {
  switch (kind) {
    case LAKE_INTEGRITY_NONE: return "None";
    case LAKE_INTEGRITY_SIZE_SHORT: return "SizeShort";
    case LAKE_INTEGRITY_SIZE_LONG: return "SizeLong";
    case LAKE_INTEGRITY_DIGEST_MISMATCH: return "DigestMismatch";
    case LAKE_INTEGRITY_PREMATURE_EOF: return "PrematureEof";
    case LAKE_INTEGRITY_INVALID_LOCATION: return "InvalidLocation";
    case LAKE_INTEGRITY_OBJECT_CHANGED: return "ObjectChanged";
  }
  return "Unknown";
}

}  // extern "C"
