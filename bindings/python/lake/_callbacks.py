"""Python callables behind lake's C callbacks.

An exception must never unwind through lake's C frames: each trampoline
catches everything, stores the first exception in its CallbackErrors, and
returns the failure value the C signature defines. After the call, the
binding re-raises the stored exception (chained to lake's error, when the
call failed too). The CFUNCTYPE objects are kept by the handle that lends
them to lake, for as long as lake may call them.
"""
import ctypes
from contextlib import contextmanager

from ._native import READ_FN
from .errors import LakeError


class CallbackErrors:
    def __init__(self):
        self.error = None

    def wrap(self, function, failure):
        """`function` with any exception stored and `failure` returned instead."""
        def trampoline(*args):
            try:
                return function(*args)
            except BaseException as error:  # noqa: B902 - nothing may unwind into C
                if self.error is None:
                    self.error = error
                return failure
        return trampoline

    def take(self):
        error, self.error = self.error, None
        return error

    @contextmanager
    def reraised(self):
        """Runs a lake call; a callback's exception wins over the call's result."""
        try:
            yield
        except LakeError as lake_error:
            if self.error is not None:
                raise self.take() from lake_error
            raise
        if self.error is not None:
            raise self.take()


def read_source(stream, errors):
    """A lake_read_fn pulling from a binary file object (readinto or read)."""
    readinto = getattr(stream, "readinto", None)

    def read(_ctx, buf, cap):
        if cap == 0:
            return 0
        if readinto is not None:
            view = (ctypes.c_char * cap).from_address(ctypes.addressof(buf.contents))
            n = readinto(memoryview(view).cast("B"))
            return n or 0
        data = stream.read(cap)
        ctypes.memmove(buf, data, len(data))
        return len(data)

    return READ_FN(errors.wrap(read, -1))
