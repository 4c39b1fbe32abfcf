"""The lifetime rules every handle of the binding follows.

Invariants:
  - close() is idempotent; after it, every method raises ClosedHandleError
    before any call into lake.
  - A handle keeps its parent alive (a strong reference); a parent knows its
    open children weakly and closes them before itself, so lake never sees a
    child outlive the handle it depends on.
  - A call holds the handle in use: close() waits until calls in flight
    return. Handles lake.h says are one-thread-at-a-time (THREAD_SAFE False)
    also serialise their calls, so two threads never enter lake with one of
    them at once.
"""
import threading
import weakref

from .errors import ClosedHandleError

_open_handles = 0
_count_lock = threading.Lock()


def open_handles():
    """How many handles of the binding are open now (for leak tests)."""
    return _open_handles


def _count(delta):
    global _open_handles
    with _count_lock:
        _open_handles += delta


class Handle:
    THREAD_SAFE = False
    KIND = "handle"

    def _init_handle(self, ptr, free, parent=None):
        """`free(ptr)` releases the native handle (None: borrowed, nothing to free)."""
        self._ptr = ptr
        self._free = free
        self._parent = parent
        self._children = weakref.WeakSet()
        self._state = threading.Condition(threading.Lock())
        self._active = 0
        self._waiters = 0  # threads waiting in _use or close for _active to fall
        self._closing = False
        self._in_use = _InUse(self)
        if parent is not None:
            try:
                parent._adopt(self)
            except BaseException:
                self._ptr = None
                if free is not None:
                    free(ptr)
                raise
        _count(1)

    def _adopt(self, child):
        with self._state:
            if self._ptr is None:
                raise ClosedHandleError(f"the {self.KIND} is closed")
            self._children.add(child)

    @property
    def closed(self):
        return self._ptr is None

    def _use(self):
        """A context manager yielding the native pointer while the handle is
        in use (one object per handle: its state is the handle's)."""
        return self._in_use

    def _await_no_calls(self):
        """Waits, holding _state, until no call is in flight."""
        while self._active:
            self._waiters += 1
            try:
                self._state.wait()
            finally:
                self._waiters -= 1

    def _close_native(self, ptr):
        """Releases `ptr`; a subclass whose close can fail reports it here."""
        if self._free is not None:
            self._free(ptr)

    def close(self):
        with self._state:
            if self._ptr is None or self._closing:
                return
            self._closing = True
        try:
            for child in list(self._children):
                child.close()
        finally:
            with self._state:
                self._await_no_calls()
                ptr, self._ptr = self._ptr, None
                self._closing = False
            _count(-1)
            self._close_native(ptr)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            if getattr(self, "_ptr", None) is not None:
                self.close()
        except Exception:  # a failing close at collection time has no caller to tell
            pass


class _InUse:
    """Handle._use's context manager: counts a call in flight, so close()
    waits for it; a one-thread-at-a-time handle's calls wait for each
    other. A class, not a generator: it is on every call's path."""

    __slots__ = ("handle",)

    def __init__(self, handle):
        self.handle = handle

    def __enter__(self):
        h = self.handle
        with h._state:
            if h._ptr is None or h._closing:
                raise ClosedHandleError(f"the {h.KIND} is closed")
            if not h.THREAD_SAFE:
                h._await_no_calls()
                if h._ptr is None or h._closing:
                    raise ClosedHandleError(f"the {h.KIND} is closed")
            h._active += 1
            return h._ptr

    def __exit__(self, *exc):
        h = self.handle
        with h._state:
            h._active -= 1
            if h._waiters:
                h._state.notify_all()
