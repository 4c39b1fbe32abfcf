"""lake's errors as Python exceptions: one class per lake_status.

Each carries what lake_error carries: the status, its one-line message, the
integrity kind, the expected and observed byte counts, whether a retry may
succeed, and the pending operation id of an append that may still commit.
ClosedHandleError is the binding's own: a handle used after close(), raised
without calling into lake.
"""
import ctypes
import enum

from . import _native


class Status(enum.IntEnum):
    OK = 0
    INVALID_ARGUMENT = 1
    INTEGRITY = 2
    CONFLICT = 3
    IO = 4
    NOT_FOUND = 5
    CANCELLED = 6
    INTERNAL = 7
    UNSUPPORTED = 8


class IntegrityKind(enum.IntEnum):
    NONE = 0
    SIZE_SHORT = 1
    SIZE_LONG = 2
    DIGEST_MISMATCH = 3
    PREMATURE_EOF = 4
    INVALID_LOCATION = 5
    OBJECT_CHANGED = 6


class LakeError(Exception):
    """A failed lake call. `status` is None only for the binding's own errors."""

    status = None

    def __init__(self, message, integrity_kind=IntegrityKind.NONE, expected=0, observed=0,
                 retryable=False, pending_operation_id=None):
        super().__init__(message)
        self.message = message
        self.integrity_kind = IntegrityKind(integrity_kind)
        self.expected = expected
        self.observed = observed
        self.retryable = retryable
        self.pending_operation_id = pending_operation_id


class InvalidArgumentError(LakeError):
    status = Status.INVALID_ARGUMENT


class IntegrityError(LakeError):
    status = Status.INTEGRITY


class ConflictError(LakeError):
    status = Status.CONFLICT


class LakeIOError(LakeError):
    """LAKE_IO (named so it does not shadow the builtin IOError, i.e. OSError)."""
    status = Status.IO


class NotFoundError(LakeError):
    status = Status.NOT_FOUND


class CancelledError(LakeError):
    status = Status.CANCELLED


class InternalError(LakeError):
    status = Status.INTERNAL


class UnsupportedError(LakeError):
    status = Status.UNSUPPORTED


class ClosedHandleError(LakeError, ValueError):
    """A handle used after it (or its parent) was closed; lake was not called."""


ERROR_CLASSES = {cls.status: cls for cls in (
    InvalidArgumentError, IntegrityError, ConflictError, LakeIOError, NotFoundError,
    CancelledError, InternalError, UnsupportedError)}


def error_from_native(status, err):
    """The exception for `status` and the lake_error* `err` (may be NULL), which it frees."""
    lib = _native.lib()
    cls = ERROR_CLASSES.get(status, InternalError)
    if not err:
        name = lib.lake_status_name(status) or b"unknown status"
        return cls(name.decode())
    try:
        pending = lib.lake_error_pending_operation_id(err)
        return cls(lib.lake_error_message(err).decode("utf-8", "replace"),
                   integrity_kind=lib.lake_error_integrity_kind(err),
                   expected=lib.lake_error_expected(err),
                   observed=lib.lake_error_observed(err),
                   retryable=bool(lib.lake_error_retryable(err)),
                   pending_operation_id=pending.decode() if pending else None)
    finally:
        lib.lake_error_free(err)


def check(call, *args):
    """Calls `call(*args, &err)`; raises the error unless it returns LAKE_OK."""
    err = ctypes.c_void_p()
    status = call(*args, ctypes.byref(err))
    if status != Status.OK:
        raise error_from_native(status, err)
