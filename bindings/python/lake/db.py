"""A lake root: tables, SQL statements, query results and garbage collection."""
import ctypes
import errno
import json
import os
from collections import namedtuple

from . import _native, arrow
from ._callbacks import CallbackErrors, read_source
from ._handle import Handle
from ._native import (ArrowArray, ArrowSchema, GC_CANDIDATE_FN, GC_PROBLEM_FN, GC_PROGRESS_FN,
                      UPLOAD_INFO_FN, c_uint64, c_void_p)
from .errors import (ClosedHandleError, IntegrityError, InvalidArgumentError,
                     LakeIOError, check)
from .stage import Location, Stage, _options, _out_json, _text


GcCandidate = namedtuple("GcCandidate", "uri kind size_bytes modified_unix_micros tenant")
GcProblem = namedtuple("GcProblem", "uri problem expected_size observed_size message referrers "
                                    "more_referrers")
UploadInfo = namedtuple("UploadInfo", "id source_path uri parts_done bytes_done size_bytes "
                                      "part_bytes updated_unix_micros stale locked error")


class _GcOptions:
    """lake_gc_options for one call, and the callables it lends lake (kept
    here until the call returns; their exceptions re-raised after it)."""

    def __init__(self, cutoff_seconds=None, allow_short_cutoff=False, progress=None,
                 cancel=None, memory_budget=None, temp_dir=None, max_deletes_per_second=None):
        self._settings = dict(cutoff_seconds=cutoff_seconds,
                              allow_short_cutoff=allow_short_cutoff, progress=progress,
                              cancel=cancel, memory_budget=memory_budget, temp_dir=temp_dir,
                              max_deletes_per_second=max_deletes_per_second)
        self.errors = CallbackErrors()
        self.ptr = None
        self._keep = []
        self._token_use = None

    def __enter__(self):
        lib = _native.lib()
        o = self._settings
        self.ptr = lib.lake_gc_options_new()
        try:
            if o["cutoff_seconds"] is not None:
                lib.lake_gc_options_set_cutoff_seconds(self.ptr, o["cutoff_seconds"])
            lib.lake_gc_options_set_allow_short_cutoff(self.ptr, int(o["allow_short_cutoff"]))
            if o["memory_budget"] is not None:
                check(lib.lake_gc_options_set_memory_budget, self.ptr, o["memory_budget"])
            if o["temp_dir"] is not None:
                check(lib.lake_gc_options_set_temp_dir, self.ptr,
                      _text(os.fspath(o["temp_dir"])))
            if o["max_deletes_per_second"] is not None:
                lib.lake_gc_options_set_max_deletes_per_second(self.ptr,
                                                               o["max_deletes_per_second"])
            progress = o["progress"]
            if progress is not None:
                fn = GC_PROGRESS_FN(self.errors.wrap(
                    lambda _c, phase, done, total: progress(phase.decode(), done, total), None))
                lib.lake_gc_options_set_progress(self.ptr, fn, None)
                self._keep.append(fn)
            if o["cancel"] is not None:
                self._token_use = o["cancel"]._use()
                lib.lake_gc_options_set_cancel_token(self.ptr, self._token_use.__enter__())
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *exc):
        if self._token_use is not None:
            self._token_use.__exit__(None, None, None)
            self._token_use = None
        _native.lib().lake_gc_options_free(self.ptr)
        self.ptr = None
        self._keep.clear()


class Db(Handle):
    """A lake root (lake_db). Thread-safe. Closing it first closes its
    statements, query results, event logs, and the readers and writers of
    its stage; the root's writer lock is released when close() returns."""

    THREAD_SAFE = True
    KIND = "root"

    def __init__(self, ptr):
        self._init_handle(ptr, _native.lib().lake_db_free)
        self._stage = None

    @classmethod
    def open(cls, directory, s3=None, tenant=None):
        """Opens (creating if needed) the root at `directory`; `s3` is an
        optional "s3://bucket/prefix" stage URI for a new root."""
        lib = _native.lib()
        opts = lib.lake_stage_options_new()
        try:
            if s3 is not None:
                check(lib.lake_stage_options_set_s3, opts, _text(s3))
            if tenant is not None:
                check(lib.lake_stage_options_set_tenant, opts, _text(tenant))
            out = c_void_p()
            check(lib.lake_db_open, _text(os.fspath(directory)), opts, ctypes.byref(out))
        finally:
            lib.lake_stage_options_free(opts)
        return cls(out.value)

    @classmethod
    def open_follower(cls, directory, max_staleness_ms=0):
        out = c_void_p()
        check(_native.lib().lake_db_open_follower, _text(os.fspath(directory)), max_staleness_ms,
              ctypes.byref(out))
        return cls(out.value)

    @property
    def stage(self):
        """The root's stage (owned by the root: closed with it)."""
        if self._stage is None or self._stage.closed:
            with self._use() as ptr:
                self._stage = Stage(_native.lib().lake_db_stage(ptr), None, parent=self)
        return self._stage

    def set_busy_timeout(self, milliseconds):
        with self._use() as ptr:
            check(_native.lib().lake_db_set_busy_timeout, ptr, milliseconds)

    # ---- tables ----

    def create_table(self, name, columns):
        """Creates "ns.table" with columns given as "name:type" strings."""
        encoded = [_text(c) for c in columns]
        array = (ctypes.c_char_p * len(encoded))(*encoded)
        with self._use() as ptr:
            check(_native.lib().lake_table_create, ptr, _text(name), array, len(encoded))

    def tables(self):
        with self._use() as ptr:
            return json.loads(_out_json(_native.lib().lake_table_list, ptr))

    def describe_table(self, name):
        with self._use() as ptr:
            return json.loads(_out_json(_native.lib().lake_table_describe, ptr, _text(name)))

    def table_versions(self, name):
        with self._use() as ptr:
            return json.loads(_out_json(_native.lib().lake_table_versions, ptr, _text(name)))

    def drop_table(self, name):
        with self._use() as ptr:
            check(_native.lib().lake_table_drop, ptr, _text(name))

    def compact_table(self, name):
        """Merges the current version's fragments; the new (or unchanged) version."""
        version = c_uint64()
        with self._use() as ptr:
            check(_native.lib().lake_table_compact, ptr, _text(name), ctypes.byref(version))
        return version.value

    def compact_table_segments(self, name):
        """Rewrites the table log's mostly-dead segments: {"compacted": …,
        "version": N, …} (lake_table_compact_segments)."""
        with self._use() as ptr:
            return json.loads(_out_json(
                _native.lib().lake_table_compact_segments, ptr, _text(name)))

    def tag_table(self, name, tag, version):
        """Names `version` of the table `tag`: no expiry retires it."""
        with self._use() as ptr:
            check(_native.lib().lake_table_tag, ptr, _text(name), _text(tag), version)

    def untag_table(self, name, tag):
        with self._use() as ptr:
            check(_native.lib().lake_table_untag, ptr, _text(name), _text(tag))

    def expire_table(self, name, keep_last=0, older_than_seconds=None):
        """Retires old versions (never the current or a tagged one):
        {"retired": [...], "current_version": N}."""
        with self._use() as ptr:
            return json.loads(_out_json(
                _native.lib().lake_table_expire, ptr, _text(name), keep_last,
                -1 if older_than_seconds is None else older_than_seconds))

    def prepare(self, sql):
        out = c_void_p()
        with self._use() as ptr:
            check(_native.lib().lake_db_prepare, ptr, _text(sql), ctypes.byref(out))
        return Statement(out.value, self)

    def insert(self, sql, *params, options=None, **option_kwargs):
        """Prepares, binds and runs an INSERT; the new table version."""
        with self.prepare(sql) as statement:
            statement.bind_all(params)
            return statement.insert(options, **option_kwargs)

    def query(self, sql, *params):
        """Runs a SELECT; a QueryResult (an Arrow C stream)."""
        with self.prepare(sql) as statement:
            statement.bind_all(params)
            return statement.query()

    def execute(self, sql, *params):
        """Runs a DELETE, replace-where, DROP or ALTER; (version, rows)."""
        with self.prepare(sql) as statement:
            statement.bind_all(params)
            return statement.execute()

    def pending_appends(self):
        with self._use() as ptr:
            return json.loads(_out_json(_native.lib().lake_db_pending_appends, ptr))

    def recover(self):
        with self._use() as ptr:
            return json.loads(_out_json(_native.lib().lake_db_recover, ptr))

    def pin(self, location):
        with self._use() as ptr, location._use() as loc:
            check(_native.lib().lake_db_pin, ptr, loc)

    def unpin(self, location):
        with self._use() as ptr, location._use() as loc:
            check(_native.lib().lake_db_unpin, ptr, loc)

    # ---- garbage collection ----

    def gc_plan(self, cutoff_seconds=None, allow_short_cutoff=False, progress=None, cancel=None,
                memory_budget=None, temp_dir=None):
        """Writes a plan (deletes nothing); its summary as a dict."""
        with _GcOptions(cutoff_seconds=cutoff_seconds, allow_short_cutoff=allow_short_cutoff,
                        progress=progress, cancel=cancel, memory_budget=memory_budget,
                        temp_dir=temp_dir) as opts, self._use() as ptr, opts.errors.reraised():
            return json.loads(_out_json(_native.lib().lake_gc_plan, ptr, opts.ptr))

    def gc_status(self, plan_id=None):
        with self._use() as ptr:
            return json.loads(_out_json(_native.lib().lake_gc_status, ptr,
                                        _text(plan_id) if plan_id else None))

    def gc_show(self, plan_id):
        """Plan `plan_id`'s candidates, verified page by page as apply would:
        (list of GcCandidate, status dict)."""
        candidates = []
        errors = CallbackErrors()

        def emit(_ctx, candidate):
            c = candidate.contents
            candidates.append(GcCandidate(c.uri.decode(), c.kind.decode(), c.size_bytes,
                                          c.modified_unix_micros, c.tenant.decode()))
            return 0

        fn = GC_CANDIDATE_FN(errors.wrap(emit, 1))
        with self._use() as ptr, errors.reraised():
            status = _out_json(_native.lib().lake_gc_show, ptr, _text(plan_id), fn, None)
        return candidates, json.loads(status)

    def gc_apply(self, plan_id, max_deletes_per_second=None, progress=None, cancel=None):
        """Deletes plan `plan_id`'s candidates (resuming a started apply);
        its final status as a dict."""
        with _GcOptions(max_deletes_per_second=max_deletes_per_second, progress=progress,
                        cancel=cancel) as opts, self._use() as ptr, opts.errors.reraised():
            return json.loads(_out_json(_native.lib().lake_gc_apply, ptr, _text(plan_id),
                                        opts.ptr))

    def gc_verify(self, deep=False, progress=None, cancel=None):
        """Scrubs the root (changes nothing): (list of GcProblem, summary dict)."""
        problems = []

        def emit(_ctx, problem):
            p = problem.contents
            referrers = [p.referrers[i].decode() for i in range(p.referrer_count)]
            problems.append(GcProblem(p.uri.decode(), p.problem.decode(), p.expected_size,
                                      p.observed_size, (p.message or b"").decode(),
                                      referrers, p.more_referrers))
            return 0

        with _GcOptions(progress=progress, cancel=cancel) as opts, self._use() as ptr, \
                opts.errors.reraised():
            fn = GC_PROBLEM_FN(opts.errors.wrap(emit, 1))
            summary = _out_json(_native.lib().lake_gc_verify, ptr, int(deep), opts.ptr, fn, None)
        return problems, json.loads(summary)

    # ---- resumable uploads (S3 stages) ----

    def uploads(self):
        """The stage's upload checkpoints, in id order (list of UploadInfo)."""
        found = []
        errors = CallbackErrors()

        def emit(_ctx, info):
            i = info.contents
            text = lambda b: b.decode() if b else ""  # noqa: E731
            found.append(UploadInfo(text(i.id), text(i.source_path), text(i.uri), i.parts_done,
                                    i.bytes_done, i.size_bytes, i.part_bytes,
                                    i.updated_unix_micros, bool(i.stale), bool(i.locked),
                                    i.error.decode() if i.error else None))
            return 0

        fn = UPLOAD_INFO_FN(errors.wrap(emit, 1))
        with self._use() as ptr, errors.reraised():
            check(_native.lib().lake_db_uploads_list, ptr, fn, None)
        return found

    def resume_upload(self, upload_id, options=None, **option_kwargs):
        """Resumes upload `upload_id` from its source file; its Location."""
        opts, owned = _options(options, **option_kwargs)
        try:
            out = c_void_p()
            with self._use() as ptr, opts._use() as opts_ptr, opts.errors.reraised():
                check(_native.lib().lake_db_uploads_resume, ptr, _text(upload_id), opts_ptr,
                      ctypes.byref(out))
            return Location(out.value)
        finally:
            if owned:
                opts.close()

    def abort_upload(self, upload_id):
        """Aborts upload `upload_id` and removes its checkpoint."""
        with self._use() as ptr:
            check(_native.lib().lake_db_uploads_abort, ptr, _text(upload_id))

    # ---- event logs ----

    def create_experiment(self, pipeline, experiment):
        with self._use() as ptr:
            check(_native.lib().lake_experiment_create, ptr, _text(pipeline), _text(experiment))

    def event_log(self, pipeline, experiment, writable=False):
        from .events import EventLog
        return EventLog.open(self, pipeline, experiment, writable)


class Statement(Handle):
    """A prepared statement. One thread at a time. A stream bound to a FILE
    parameter, and its callback, are kept here until the statement is closed
    or the parameter bound again. Its query results belong to the root, as
    lake.h lets a stream outlive its statement."""

    KIND = "statement"

    def __init__(self, ptr, db):
        self._init_handle(ptr, _native.lib().lake_statement_free, db)
        self._db = db
        self._sources = {}  # index -> (stream, READ_FN, CallbackErrors)

    def _close_native(self, ptr):
        _native.lib().lake_statement_free(ptr)
        self._sources.clear()  # lake holds no stream of ours any more

    @property
    def parameter_count(self):
        with self._use() as ptr:
            return _native.lib().lake_statement_parameter_count(ptr)

    def bind_all(self, params):
        for index, value in enumerate(params, start=1):
            self.bind(index, value)

    def bind(self, index, value):
        """Binds parameter `index` (1-based) by the value's Python type:
        None, bool, int, float, str, bytes, a Location (an existing object),
        an os.PathLike (a file to upload) or a binary file object (a stream
        to upload)."""
        lib = _native.lib()
        if isinstance(value, os.PathLike) or hasattr(value, "read"):
            self.bind_file(index, value)
            return
        with self._use() as ptr:
            if isinstance(value, Location):
                with value._use() as loc:
                    check(lib.lake_statement_bind_location, ptr, index, loc)
            else:
                self._bind_scalar(lib, ptr, index, value)
            self._sources.pop(index, None)

    @staticmethod
    def _bind_scalar(lib, ptr, index, value):
        if value is None:
            check(lib.lake_statement_bind_null, ptr, index)
        elif isinstance(value, bool):
            check(lib.lake_statement_bind_bool, ptr, index, int(value))
        elif isinstance(value, int):
            check(lib.lake_statement_bind_int64, ptr, index, value)
        elif isinstance(value, float):
            check(lib.lake_statement_bind_float64, ptr, index, value)
        elif isinstance(value, str):
            data = value.encode()
            check(lib.lake_statement_bind_utf8, ptr, index, data, len(data))
        elif isinstance(value, (bytes, bytearray, memoryview)):
            data = bytes(value)
            check(lib.lake_statement_bind_binary, ptr, index, data, len(data))
        else:
            raise TypeError(f"cannot bind a {type(value).__name__}")

    def bind_file(self, index, source, content_type=None):
        """A FILE uploaded when the INSERT runs, from a path or a binary stream."""
        lib = _native.lib()
        ctype = _text(content_type) if content_type else None
        with self._use() as ptr:
            if isinstance(source, (str, os.PathLike)):
                check(lib.lake_statement_bind_file_path, ptr, index, _text(os.fspath(source)),
                      ctype)
                self._sources.pop(index, None)
            else:
                errors = CallbackErrors()
                read = read_source(source, errors)
                check(lib.lake_statement_bind_file_reader, ptr, index, read, None, ctype)
                self._sources[index] = (source, read, errors)

    def bind_timestamp_micros(self, index, micros):
        with self._use() as ptr:
            check(_native.lib().lake_statement_bind_timestamp_micros, ptr, index, micros)

    def _source_errors(self):
        """Re-raises the first exception a bound stream raised during a run."""
        for _, _, errors in self._sources.values():
            if errors.error is not None:
                raise errors.take()

    def insert(self, options=None, **option_kwargs):
        """Runs the INSERT; the new version. A stream's exception is re-raised."""
        opts, owned = _options(options, **option_kwargs)
        version = c_uint64()
        try:
            with self._use() as ptr, opts._use() as opts_ptr, opts.errors.reraised():
                try:
                    check(_native.lib().lake_statement_insert, ptr, opts_ptr,
                          ctypes.byref(version))
                except LakeIOError as error:
                    try:
                        self._source_errors()
                    except BaseException as source_error:
                        raise source_error from error
                    raise
                self._source_errors()
            return version.value
        finally:
            if owned:
                opts.close()

    def query(self):
        stream = arrow.new_stream()
        try:
            with self._use() as ptr:
                check(_native.lib().lake_statement_query, ptr, ctypes.byref(stream))
        except BaseException:
            arrow.free_stream(stream)
            raise
        return QueryResult(stream, self._db)  # lake.h: it outlives the statement

    def execute(self):
        version, rows = c_uint64(), c_uint64()
        with self._use() as ptr:
            check(_native.lib().lake_statement_execute, ptr, ctypes.byref(version),
                  ctypes.byref(rows))
        return version.value, rows.value

    def changes(self):
        deleted, inserted = c_uint64(), c_uint64()
        with self._use() as ptr:
            _native.lib().lake_statement_changes(ptr, ctypes.byref(deleted), ctypes.byref(inserted))
        return deleted.value, inserted.value


class QueryResult(Handle):
    """A SELECT's result: an Arrow C stream. Iterate it for Batches, or hand
    it to any Arrow consumer through __arrow_c_stream__ (which moves the
    stream out: the result is closed afterwards)."""

    KIND = "query result"

    def __init__(self, stream, parent):
        self._init_handle(stream, arrow.free_stream, parent)
        self._schema = None

    def __arrow_c_stream__(self, requested_schema=None):
        with self._use() as stream:
            if self._schema is not None:
                raise ValueError("the stream was partly read through the binding")
            moved = arrow.new_stream()
            ctypes.memmove(ctypes.addressof(moved), ctypes.addressof(stream),
                           ctypes.sizeof(stream))
            stream.release = type(stream.release)()  # moved: NULL
            capsule = arrow.stream_capsule(moved)
        self.close()
        return capsule

    # lake.h: a stream callback fails with EBADMSG for damaged or missing
    # stored data, EINVAL for an invalid request, else ENOMEM or EIO.
    _STREAM_ERRORS = {errno.EBADMSG: IntegrityError, errno.EINVAL: InvalidArgumentError}

    def _stream_error(self, stream, code):
        message = stream.get_last_error(ctypes.byref(stream))
        text = message.decode("utf-8", "replace") if message else os.strerror(code)
        return self._STREAM_ERRORS.get(code, LakeIOError)(f"query stream: {text}")

    def schema(self):
        if self._schema is None:
            with self._use() as stream:
                schema = ArrowSchema()
                code = stream.get_schema(ctypes.byref(stream), ctypes.byref(schema))
                if code:
                    raise self._stream_error(stream, code)
                self._schema = schema
        return self._schema

    @property
    def column_names(self):
        schema = self.schema()
        return [schema.children[i].contents.name.decode() for i in range(schema.n_children)]

    def __iter__(self):
        schema = self.schema()
        while True:
            array = ArrowArray()
            with self._use() as stream:
                code = stream.get_next(ctypes.byref(stream), ctypes.byref(array))
                if code:
                    raise self._stream_error(stream, code)
            if not array.release:
                return
            yield Batch(schema, array, self)

    def rows(self):
        """Every row as a dict (decodable columns only; FILE cells as Locations)."""
        result = []
        for batch in self:
            with batch:
                columns = {name: batch.column(name) for name in self.column_names}
                for i in range(batch.num_rows):
                    result.append({name: values[i] for name, values in columns.items()})
        return result

    def _close_native(self, stream):
        if self._schema is not None and self._schema.release:
            self._schema.release(ctypes.byref(self._schema))
        arrow.free_stream(stream)


class Batch(Handle):
    """One record batch of a QueryResult (closed with it)."""

    KIND = "batch"

    def __init__(self, schema, array, result):
        self._schema_struct = schema
        self._array_struct = array
        self._result = result
        self._init_handle(ctypes.addressof(array), None, result)

    @property
    def num_rows(self):
        with self._use():
            return self._array_struct.length

    def _column_index(self, column):
        if isinstance(column, int):
            return column
        names = self._result.column_names
        if column not in names:
            raise KeyError(column)
        return names.index(column)

    def location(self, column, row):
        """The DataLocation in row `row` of FILE column `column` (a name or index)."""
        out = c_void_p()
        index = self._column_index(column)
        with self._use():
            check(_native.lib().lake_location_from_arrow, ctypes.byref(self._schema_struct),
                  ctypes.byref(self._array_struct), index, row, ctypes.byref(out))
        return Location(out.value)

    def column(self, column):
        """The values of a column; FILE cells as Locations (None when null)."""
        index = self._column_index(column)
        with self._use():
            child_schema = self._schema_struct.children[index].contents
            if child_schema.format == b"+s":  # lake.file
                return [self._maybe_location(index, row) for row in range(self.num_rows_raw)]
            child = self._array_struct.children[index].contents
            return arrow.column_values(child_schema, child)

    @property
    def num_rows_raw(self):
        return self._array_struct.length

    def _maybe_location(self, index, row):
        from .errors import NotFoundError
        out = c_void_p()
        try:
            check(_native.lib().lake_location_from_arrow, ctypes.byref(self._schema_struct),
                  ctypes.byref(self._array_struct), index, row, ctypes.byref(out))
        except NotFoundError:
            return None
        return Location(out.value)

    def _close_native(self, _ptr):
        if self._array_struct.release:
            self._array_struct.release(ctypes.byref(self._array_struct))


__all__ = ["Db", "Statement", "QueryResult", "Batch", "ClosedHandleError"]
