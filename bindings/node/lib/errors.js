'use strict';
// lake's errors as JS errors: LakeError (a subclass of Error) and one
// subclass per lake_status, each carrying what lake_error carries: `code`
// (the status name, e.g. 'LAKE_INTEGRITY'), `status` (its number), lake's
// one-line message, the integrity kind, the expected and observed byte
// counts, whether a retry may succeed, and the pending operation id of an
// append that may still commit (null when lake gives none).
// ClosedHandleError is the binding's own: a handle used after close(),
// thrown without calling into lake.
const native = require('./native');

const Status = Object.freeze({
  OK: 0, INVALID_ARGUMENT: 1, INTEGRITY: 2, CONFLICT: 3, IO: 4, NOT_FOUND: 5,
  CANCELLED: 6, INTERNAL: 7, UNSUPPORTED: 8,
});

const IntegrityKind = Object.freeze({
  NONE: 'None', SIZE_SHORT: 'SizeShort', SIZE_LONG: 'SizeLong',
  DIGEST_MISMATCH: 'DigestMismatch', PREMATURE_EOF: 'PrematureEof',
  INVALID_LOCATION: 'InvalidLocation', OBJECT_CHANGED: 'ObjectChanged',
});
const INTEGRITY_KINDS = ['None', 'SizeShort', 'SizeLong', 'DigestMismatch', 'PrematureEof',
  'InvalidLocation', 'ObjectChanged'];

class LakeError extends Error {
  constructor(message, details = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = this.constructor.name;
    this.message = message;
    this.integrityKind = details.integrityKind || 'None';
    this.expected = details.expected || 0;
    this.observed = details.observed || 0;
    this.retryable = Boolean(details.retryable);
    this.pendingOperationId = details.pendingOperationId || null;
  }
}

function statusError(status, code) {
  const cls = class extends LakeError {};
  Object.defineProperty(cls, 'name', { value: `${code.split('_').map(
    (w) => w[0] + w.slice(1).toLowerCase()).join('')}Error` });
  cls.prototype.status = status;
  cls.prototype.code = `LAKE_${code}`;
  return cls;
}

const InvalidArgumentError = statusError(Status.INVALID_ARGUMENT, 'INVALID_ARGUMENT');
const IntegrityError = statusError(Status.INTEGRITY, 'INTEGRITY');
const ConflictError = statusError(Status.CONFLICT, 'CONFLICT');
const IoError = statusError(Status.IO, 'IO');
const NotFoundError = statusError(Status.NOT_FOUND, 'NOT_FOUND');
const CancelledError = statusError(Status.CANCELLED, 'CANCELLED');
const InternalError = statusError(Status.INTERNAL, 'INTERNAL');
const UnsupportedError = statusError(Status.UNSUPPORTED, 'UNSUPPORTED');

// The binding's own: lake was not called. `status` is null.
class ClosedHandleError extends LakeError {}
ClosedHandleError.prototype.status = null;
ClosedHandleError.prototype.code = 'LAKE_CLOSED_HANDLE';

const ERROR_CLASSES = new Map([InvalidArgumentError, IntegrityError, ConflictError, IoError,
  NotFoundError, CancelledError, InternalError, UnsupportedError].map(
  (cls) => [cls.prototype.status, cls]));

// The error for `status` and the lake_error* `err` (may be null), which it frees.
function errorFromNative(status, err) {
  const cls = ERROR_CLASSES.get(status) || InternalError;
  const lib = native.lib();
  if (!err) {
    return new cls(lib.lake_status_name(status) || `unknown lake status ${status}`);
  }
  try {
    return new cls(lib.lake_error_message(err), {
      integrityKind: INTEGRITY_KINDS[lib.lake_error_integrity_kind(err)] || 'None',
      expected: Number(lib.lake_error_expected(err)),
      observed: Number(lib.lake_error_observed(err)),
      retryable: lib.lake_error_retryable(err) !== 0,
      pendingOperationId: lib.lake_error_pending_operation_id(err),
    });
  } finally {
    lib.lake_error_free(err);
  }
}

// Calls `fn(...args, errOut)`; throws lake's error unless it returns LAKE_OK.
function check(fn, ...args) {
  const err = [null];
  const status = fn(...args, err);
  if (status !== Status.OK) {
    throw errorFromNative(status, err[0]);
  }
}

module.exports = {
  Status, IntegrityKind, LakeError, InvalidArgumentError, IntegrityError, ConflictError,
  IoError, NotFoundError, CancelledError, InternalError, UnsupportedError, ClosedHandleError,
  ERROR_CLASSES, errorFromNative, check,
};
