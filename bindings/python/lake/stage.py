"""Stages, DataLocations, uploads and verified readers."""
import ctypes
import io
import itertools
import os
from contextlib import ExitStack, nullcontext

from . import _native
from ._callbacks import CallbackErrors, read_source
from ._handle import Handle
from ._native import (HOST_CLOSE_STREAM_FN, HOST_DESTROY_FN, HOST_LIST_FN, HOST_OPEN_STREAM_FN,
                      HOST_READ_STREAM_FN, HOST_REMOVE_FN, HOST_UPLOAD_FN, LIST_FN, NOTICE_FN,
                      PROGRESS_FN, HostStore, ListEntry, Range, c_size_t, c_uint64, c_void_p)
from .errors import Status, check, error_from_native


def _text(value):
    return value.encode() if isinstance(value, str) else value


def _owned_string(ptr):
    """A char* lake allocated, as str, released with lake_string_free."""
    if not ptr:
        return None
    try:
        return ctypes.string_at(ptr).decode()
    finally:
        _native.lib().lake_string_free(ptr)


def _out_json(call, *args):
    """Calls a lake function whose last outputs are char** json, lake_error** err."""
    out = c_void_p()
    check(call, *args, ctypes.byref(out))
    return _owned_string(out.value)


class Location(Handle):
    """A DataLocation: {uri, content_type, size_bytes, sha256}. Immutable."""

    THREAD_SAFE = True
    KIND = "location"

    def __init__(self, ptr):
        self._init_handle(ptr, _native.lib().lake_location_free)

    @classmethod
    def from_json(cls, text):
        data = _text(text)
        out = c_void_p()
        check(_native.lib().lake_location_from_json, data, len(data), ctypes.byref(out))
        return cls(out.value)

    @classmethod
    def new(cls, uri, content_type, size_bytes, sha256):
        out = c_void_p()
        check(_native.lib().lake_location_new, _text(uri), _text(content_type), size_bytes,
              _text(sha256), ctypes.byref(out))
        return cls(out.value)

    def _string(self, getter):
        with self._use() as ptr:
            return getter(ptr).decode()

    @property
    def json(self):
        return self._string(_native.lib().lake_location_json)

    @property
    def uri(self):
        return self._string(_native.lib().lake_location_uri)

    @property
    def content_type(self):
        return self._string(_native.lib().lake_location_content_type)

    @property
    def sha256(self):
        return self._string(_native.lib().lake_location_sha256)

    @property
    def size_bytes(self):
        with self._use() as ptr:
            return _native.lib().lake_location_size_bytes(ptr)

    def __repr__(self):
        return "Location(closed)" if self.closed else f"Location({self.json})"


class CancelToken(Handle):
    """A cancellation token; any thread may cancel it."""

    THREAD_SAFE = True
    KIND = "cancel token"

    def __init__(self):
        self._init_handle(_native.lib().lake_cancel_token_new(),
                          _native.lib().lake_cancel_token_free)

    def cancel(self):
        with self._use() as ptr:
            _native.lib().lake_cancel_token_cancel(ptr)

    @property
    def cancelled(self):
        with self._use() as ptr:
            return bool(_native.lib().lake_cancel_token_is_cancelled(ptr))


class UploadOptions(Handle):
    """Options of one upload or INSERT: content type, cancellation, progress.

    The progress callable and the token are kept here while lake may use
    them; an exception the progress callable raises is re-raised after the
    call that used these options.
    """

    KIND = "upload options"

    def __init__(self, content_type=None, cancel=None, progress=None, notice=None):
        lib = _native.lib()
        self._init_handle(lib.lake_upload_options_new(), lib.lake_upload_options_free)
        self.errors = CallbackErrors()
        self._keep = []
        with self._use() as ptr:
            if content_type is not None:
                check(lib.lake_upload_options_set_content_type, ptr, _text(content_type))
            if cancel is not None:
                # lake borrows the token: these options (and the writers
                # using them) are closed before it.
                cancel._adopt(self)
                with cancel._use() as token:
                    lib.lake_upload_options_set_cancel_token(ptr, token)
                self._keep.append(cancel)
            if progress is not None:
                fn = PROGRESS_FN(self.errors.wrap(lambda _c, done, total: progress(done, total),
                                                  None))
                lib.lake_upload_options_set_progress(ptr, fn, None)
                self._keep.append(fn)
            if notice is not None:
                fn = NOTICE_FN(self.errors.wrap(lambda _c, line: notice(line.decode()), None))
                lib.lake_upload_options_set_notice(ptr, fn, None)
                self._keep.append(fn)


def _options(options, **kwargs):
    """The UploadOptions to use: the caller's, or new ones from keywords (owned=True)."""
    if options is not None:
        return options, False
    return UploadOptions(**kwargs), True


class Stage(Handle):
    """Where managed objects live. Thread-safe."""

    THREAD_SAFE = True
    KIND = "stage"

    def __init__(self, ptr, free, parent=None, host=None):
        self._init_handle(ptr, free, parent)
        self._host = host  # a _HostTable: its callbacks live while the stage does

    def _reraising(self):
        """Re-raises, after a call, what the host store's callbacks raised."""
        return self._host.errors.reraised() if self._host is not None else nullcontext()

    @classmethod
    def open_host(cls, store, host_id=None):
        """A stage over `store`, an object store written in Python (see HostStore)."""
        host = _HostTable(store)

        def configure(lib, opts):
            check(lib.lake_stage_options_set_host_store, opts, ctypes.byref(host.table))
            if host_id is not None:
                check(lib.lake_stage_options_set_host_id, opts, _text(host_id))
        return cls._open(configure, host)

    @classmethod
    def open_local(cls, directory, tenant=None):
        return cls._open(lambda lib, opts: (
            check(lib.lake_stage_options_set_local_root, opts, _text(os.fspath(directory))),
            tenant is not None and check(lib.lake_stage_options_set_tenant, opts, _text(tenant))))

    @classmethod
    def open_s3(cls, stage_uri, endpoint=None, region=None, path_style=False):
        def configure(lib, opts):
            check(lib.lake_stage_options_set_s3, opts, _text(stage_uri))
            if endpoint is not None:
                check(lib.lake_stage_options_set_s3_endpoint, opts, _text(endpoint))
            if region is not None:
                check(lib.lake_stage_options_set_s3_region, opts, _text(region))
            lib.lake_stage_options_set_s3_path_style(opts, int(path_style))
        return cls._open(configure)

    @classmethod
    def _open(cls, configure, host=None):
        lib = _native.lib()
        opts = lib.lake_stage_options_new()
        try:
            configure(lib, opts)
            out = c_void_p()
            with host.errors.reraised() if host is not None else nullcontext():
                check(lib.lake_stage_open, opts, ctypes.byref(out))
        finally:
            lib.lake_stage_options_free(opts)
        return cls(out.value, lib.lake_stage_free, host=host)

    @property
    def descriptor(self):
        with self._use() as ptr:
            return _native.lib().lake_stage_descriptor(ptr).decode()

    @property
    def io_backend(self):
        with self._use() as ptr:
            return _native.lib().lake_stage_io_backend(ptr).decode()

    def put(self, source, content_type=None, options=None, **option_kwargs):
        """Uploads a path (str or os.PathLike) or a binary file object; its Location."""
        opts, owned = _options(options, content_type=content_type, **option_kwargs)
        try:
            out = c_void_p()
            lib = _native.lib()
            with self._use() as ptr, opts._use() as opts_ptr, self._reraising(), \
                    opts.errors.reraised():
                if isinstance(source, (str, os.PathLike)):
                    check(lib.lake_stage_upload_path, ptr, _text(os.fspath(source)), opts_ptr,
                          ctypes.byref(out))
                else:
                    read = read_source(source, opts.errors)
                    check(lib.lake_stage_upload_reader, ptr, read, None, opts_ptr,
                          ctypes.byref(out))
            return Location(out.value)
        finally:
            if owned:
                opts.close()

    def writer(self, content_type=None, options=None, **option_kwargs):
        """A push-style upload: write(), then leave the `with` block (or publish())."""
        return Writer(self, *_options(options, content_type=content_type, **option_kwargs))

    def open(self, location):
        """A verified reader of the whole object (io.RawIOBase)."""
        out = c_void_p()
        with self._use() as ptr, location._use() as loc, self._reraising():
            check(_native.lib().lake_reader_open, ptr, loc, ctypes.byref(out))
        return Reader(out.value, self)

    def open_range(self, location, start, end):
        """A reader of bytes [start, end) (not verified against the SHA-256)."""
        out = c_void_p()
        with self._use() as ptr, location._use() as loc, self._reraising():
            check(_native.lib().lake_reader_open_range, ptr, loc, start, end, ctypes.byref(out))
        return Reader(out.value, self)

    def cat(self, location):
        """The whole object, verified."""
        with self.open(location) as reader:
            return reader.read()

    def read_ranges(self, ranges):
        """Reads [(location, start, end), …] in one batch; a list of bytes.

        Raises the first failed range's error (every range is attempted).
        """
        lib = _native.lib()
        buffers = [ctypes.create_string_buffer(max(end - start, 0)) for _, start, end in ranges]
        array = (Range * len(ranges))()
        with ExitStack() as in_use:  # every location stays open during the call
            for slot, (location, start, end), buffer in zip(array, ranges, buffers):
                slot.location = in_use.enter_context(location._use())
                slot.start, slot.end = start, end
                slot.buffer = ctypes.cast(buffer, c_void_p)
            with self._use() as ptr, self._reraising():
                status = lib.lake_stage_read_ranges(ptr, array, len(ranges), None)
        errors = [error_from_native(slot.status, slot.error) if slot.status else None
                  for slot in array]
        if status != Status.OK:
            raise next(error for error in errors if error is not None)
        return [buffer.raw[:slot.bytes_read] for buffer, slot in zip(buffers, array)]

    def list(self):
        """Every published object: [(uri, size_bytes, modified_unix_micros), …]."""
        entries = []
        errors = CallbackErrors()

        def emit(_ctx, entry):
            e = entry.contents
            entries.append((e.uri.decode(), e.size_bytes, e.modified_unix_micros))
            return 0
        fn = LIST_FN(errors.wrap(emit, 1))
        with self._use() as ptr, self._reraising(), errors.reraised():
            check(_native.lib().lake_stage_list, ptr, fn, None)
        return entries

    def delete(self, location):
        with self._use() as ptr, location._use() as loc, self._reraising():
            check(_native.lib().lake_stage_delete, ptr, loc)

    def presign(self, location, ttl_seconds):
        out = c_void_p()
        with self._use() as ptr, location._use() as loc:
            check(_native.lib().lake_stage_presign, ptr, loc, ttl_seconds, ctypes.byref(out))
        return _owned_string(out.value)

    def clean_staging(self):
        removed = c_uint64()
        with self._use() as ptr:
            check(_native.lib().lake_stage_clean_staging, ptr, ctypes.byref(removed))
        return removed.value


class Writer(Handle):
    """A push-style upload. Leaving `with` normally publishes (see .location);
    on an exception, or close() before publish(), the upload is discarded."""

    KIND = "writer"

    def __init__(self, stage, options, owns_options):
        out = c_void_p()
        lib = _native.lib()
        try:
            with stage._use() as ptr, options._use() as opts:
                check(lib.lake_writer_open, ptr, opts, ctypes.byref(out))
        except BaseException:
            if owns_options:
                options.close()
            raise
        self._init_handle(out.value, lib.lake_writer_free, stage)
        self._options = options  # its token and callbacks live while the writer does
        options._adopt(self)  # lake borrows the options' token until the writer is freed
        self._stage = stage
        self._owns_options = owns_options
        self.location = None

    def write(self, data):
        view = memoryview(data).cast("B")
        with self._use() as ptr, self._stage._reraising(), self._options.errors.reraised():
            buf = (ctypes.c_char * len(view)).from_buffer_copy(view) if view.readonly else \
                (ctypes.c_char * len(view)).from_buffer(view)
            check(_native.lib().lake_writer_write, ptr, buf, len(view))
        return len(view)

    def publish(self):
        """Makes the object durable and visible; its Location."""
        out = c_void_p()
        with self._use() as ptr, self._stage._reraising(), self._options.errors.reraised():
            check(_native.lib().lake_writer_close, ptr, ctypes.byref(out))
        self.location = Location(out.value)
        self.close()
        return self.location

    def _close_native(self, ptr):
        _native.lib().lake_writer_free(ptr)
        if self._owns_options:
            self._options.close()

    def __exit__(self, exc_type, *exc):
        if exc_type is None and not self.closed:
            self.publish()
        self.close()


class Reader(io.RawIOBase, Handle):
    """A verified (or range) reader. The read that reaches the end raises
    IntegrityError unless the object is exactly its DataLocation's; closing
    early claims nothing."""

    KIND = "reader"

    def __init__(self, ptr, parent, stage=None):
        io.RawIOBase.__init__(self)
        self._init_handle(ptr, _native.lib().lake_reader_free, parent)
        self._stage = stage if stage is not None else parent

    def readable(self):
        return True

    def readinto(self, buffer):
        view = memoryview(buffer).cast("B")
        if len(view) == 0:
            return 0
        n = c_size_t()
        reraising = self._stage._reraising() if isinstance(self._stage, Stage) else nullcontext()
        with self._use() as ptr, reraising:
            target = (ctypes.c_char * len(view)).from_buffer(view)
            check(_native.lib().lake_reader_read, ptr, target, len(view), ctypes.byref(n))
        return n.value

    def readall(self):
        chunks = []
        buffer = bytearray(1 << 20)
        while True:
            n = self.readinto(buffer)
            if n == 0:
                return b"".join(chunks)
            chunks.append(bytes(buffer[:n]))

    @property
    def verified(self):
        with self._use() as ptr:
            return bool(_native.lib().lake_reader_verified(ptr))

    @property
    def closed(self):
        return self._ptr is None

    def _close_native(self, ptr):
        lib = _native.lib()
        err = c_void_p()
        status = lib.lake_reader_close(ptr, ctypes.byref(err))
        lib.lake_reader_free(ptr)
        if status != Status.OK:
            raise error_from_native(status, err)

    def close(self):
        try:
            io.RawIOBase.close(self)  # first: its flush() refuses a closed file
        finally:
            Handle.close(self)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        Handle.__del__(self)


class _HostTable:
    """A lake_host_store over a Python object with the methods
        upload(uri, content_type, read)   read(n) -> bytes (b"" at the end)
        open(uri, start) -> a stream with read(n) -> bytes and close()
        list(prefix_uri) -> iterable of (uri, size_bytes, modified_unix_micros)
        remove(uri)
    and the attribute root_uri. A callback's exception fails lake's call
    (LAKE_IO, its text as the message) and is re-raised after it."""

    IO_ERROR = 4

    def __init__(self, store):
        self.store = store
        self.errors = CallbackErrors()
        self.streams = {}
        self.stream_ids = itertools.count(1)
        self.root_uri = _text(store.root_uri)
        self.table = HostStore()
        self.table.version = 1
        self.table.ctx = None
        self.table.root_uri = self.root_uri
        self.table.upload = HOST_UPLOAD_FN(self._guard(self._upload))
        self.table.open_stream = HOST_OPEN_STREAM_FN(self._guard(self._open_stream))
        self.table.read_stream = HOST_READ_STREAM_FN(self._guard(self._read_stream))
        self.table.close_stream = HOST_CLOSE_STREAM_FN(self.errors.wrap(self._close_stream, None))
        self.table.list = HOST_LIST_FN(self._guard(self._list))
        self.table.remove = HOST_REMOVE_FN(self._guard(self._remove))
        self.table.destroy = HOST_DESTROY_FN(lambda _ctx: None)

    def _guard(self, function):
        """`function` returning LAKE_OK, or LAKE_IO with the exception's text as message."""
        def callback(*args):
            message, message_cap = args[-2], args[-1]
            try:
                function(*args[:-2])
                return 0
            except BaseException as error:  # noqa: B902 - nothing may unwind into C
                if self.errors.error is None:
                    self.errors.error = error
                text = f"{type(error).__name__}: {error}".encode()[:max(message_cap - 1, 0)]
                if message and message_cap:
                    ctypes.memmove(message, text + b"\0", len(text) + 1)
                return self.IO_ERROR
        return callback

    def _upload(self, _ctx, uri, content_type, read, read_ctx):
        def pull(n):
            buffer = ctypes.create_string_buffer(n)
            got = read(read_ctx, ctypes.cast(buffer, ctypes.POINTER(ctypes.c_uint8)), n)
            if got < 0:
                raise OSError("lake's upload source failed")
            return buffer.raw[:got]
        self.store.upload(uri.decode(), content_type.decode() if content_type else None, pull)

    def _open_stream(self, _ctx, uri, start, stream_out):
        stream_id = next(self.stream_ids)
        self.streams[stream_id] = self.store.open(uri.decode(), start)
        stream_out[0] = stream_id

    def _read_stream(self, _ctx, stream_id, buf, cap, n_out):
        data = self.streams[stream_id].read(cap)
        ctypes.memmove(buf, data, len(data))
        n_out[0] = len(data)

    def _close_stream(self, _ctx, stream_id):
        stream = self.streams.pop(stream_id, None)
        if stream is not None:
            stream.close()

    def _list(self, _ctx, prefix_uri, emit, emit_ctx):
        for uri, size_bytes, modified in self.store.list(prefix_uri.decode()):
            entry = ListEntry(_text(uri), size_bytes, modified)
            if emit(emit_ctx, ctypes.byref(entry)) != 0:
                return

    def _remove(self, _ctx, uri):
        self.store.remove(uri.decode())
