"""lake from Python: a ctypes binding of lake.h (see README.md).

    import lake
    with lake.Db.open("lake-data") as db:
        ...

The library is $LAKE_LIBRARY, else liblake.so.1 on the loader's path; its
ABI version is checked when it is first loaded (lake.load()).
"""
from ._native import ABI_VERSION, AbiVersionError
from .db import Batch, Db, GcCandidate, GcProblem, QueryResult, Statement, UploadInfo
from .errors import (CancelledError, ClosedHandleError, ConflictError, IntegrityError,
                     IntegrityKind, InternalError, InvalidArgumentError, LakeError, LakeIOError,
                     NotFoundError, Status, UnsupportedError)
from .events import EventLog, EventWriter, FoldedItem
from .stage import CancelToken, Location, Reader, Stage, UploadOptions, Writer

__all__ = [
    "ABI_VERSION", "AbiVersionError", "Batch", "CancelToken", "CancelledError",
    "ClosedHandleError", "ConflictError", "Db", "EventLog", "EventWriter", "FoldedItem",
    "GcCandidate", "GcProblem", "IntegrityError", "IntegrityKind", "InternalError",
    "InvalidArgumentError", "LakeError", "LakeIOError", "Location", "NotFoundError",
    "QueryResult", "Reader", "Stage", "Statement", "Status", "UnsupportedError", "UploadInfo",
    "UploadOptions", "Writer", "load", "open", "set_buffer_budget", "version",
]


def load():
    """Loads liblake now (it is loaded at first use otherwise); raises
    AbiVersionError when its ABI is not ABI_VERSION."""
    from . import _native
    return _native.lib()


def version():
    return load().lake_version_string().decode()


def set_buffer_budget(nbytes):
    from .errors import check
    check(load().lake_set_buffer_budget, nbytes)


open = Db.open  # noqa: A001 - lake.open(dir) opens a root
