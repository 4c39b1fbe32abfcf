"""Event logs of data-generation pipelines (EVENT-LOG.md)."""
import ctypes
import json

from . import _native
from ._handle import Handle
from ._native import Step, Value, c_uint64, c_void_p
from .errors import check
from .stage import Reader, _out_json, _text

VALUE_INT, VALUE_FLOAT, VALUE_BOOL, VALUE_STR, VALUE_JSON, VALUE_BLOB = range(1, 7)


def _value(python_value):
    """A lake_value for a Python value, and the bytes object it points into."""
    value = Value()
    data = None
    if isinstance(python_value, bool):
        value.kind, value.boolean = VALUE_BOOL, int(python_value)
    elif isinstance(python_value, int):
        value.kind, value.i64 = VALUE_INT, python_value
    elif isinstance(python_value, float):
        value.kind, value.f64 = VALUE_FLOAT, python_value
    elif isinstance(python_value, str):
        value.kind, data = VALUE_STR, python_value.encode()
    elif isinstance(python_value, (bytes, bytearray, memoryview)):
        value.kind, data = VALUE_BLOB, bytes(python_value)
    else:
        value.kind, data = VALUE_JSON, json.dumps(python_value).encode()
    if data is not None:
        buffer = ctypes.create_string_buffer(data, len(data))
        value.bytes, value.len = ctypes.cast(buffer, c_void_p), len(data)
        data = buffer
    return value, data


def _python_value(value):
    raw = ctypes.string_at(value.bytes, value.len) if value.bytes else None
    return {VALUE_INT: lambda: value.i64, VALUE_FLOAT: lambda: value.f64,
            VALUE_BOOL: lambda: bool(value.boolean), VALUE_STR: lambda: raw.decode(),
            VALUE_JSON: lambda: json.loads(raw), VALUE_BLOB: lambda: raw}[value.kind]()


def _step(step):
    """A lake_step from a dict {name, index, kind, enclosing_step, selector_step} or None."""
    if step is None:
        return None
    s = Step()
    s.name = _text(step.get("name"))
    s.index = step.get("index", -1)
    s.kind = _text(step.get("kind"))
    s.enclosing_step = _text(step.get("enclosing_step"))
    s.selector_step = _text(step.get("selector_step"))
    return ctypes.byref(s)


class EventLog(Handle):
    """An experiment's event log. Thread-safe; closed with its root."""

    THREAD_SAFE = True
    KIND = "event log"

    @classmethod
    def open(cls, db, pipeline, experiment, writable):
        out = c_void_p()
        with db._use() as ptr:
            check(_native.lib().lake_event_log_open, ptr, _text(pipeline), _text(experiment),
                  int(writable), ctypes.byref(out))
        log = cls.__new__(cls)
        log._init_handle(out.value, _native.lib().lake_event_log_free, db)
        return log

    def refresh(self):
        with self._use() as ptr:
            check(_native.lib().lake_event_log_refresh, ptr)

    def append_jsonl(self, text):
        data = _text(text)
        appended, duplicates = c_uint64(), c_uint64()
        with self._use() as ptr:
            check(_native.lib().lake_event_log_append_jsonl, ptr, data, len(data),
                  ctypes.byref(appended), ctypes.byref(duplicates))
        return appended.value, duplicates.value

    def writer(self, item_id, writer_epoch, created_by=None):
        """A writer of a new item (its ITEM_CREATED pending until commit)."""
        out = c_void_p()
        with self._use() as ptr:
            check(_native.lib().lake_event_writer_open, ptr, _text(item_id), _text(writer_epoch),
                  _step(created_by), ctypes.byref(out))
        return EventWriter(out.value, self)

    def resume(self, item_id, writer_epoch):
        out = c_void_p()
        with self._use() as ptr:
            check(_native.lib().lake_event_writer_resume, ptr, _text(item_id),
                  _text(writer_epoch), ctypes.byref(out))
        return EventWriter(out.value, self)

    def fold(self, item_id):
        """The item folded from its events, or None when it has none."""
        out = c_void_p()
        with self._use() as ptr:
            check(_native.lib().lake_event_log_fold, ptr, _text(item_id), ctypes.byref(out))
        return FoldedItem(out.value, self) if out.value else None

    def tree(self, root_item_id):
        with self._use() as ptr:
            return json.loads(_out_json(_native.lib().lake_event_log_tree, ptr,
                                        _text(root_item_id)))

    def roots(self):
        with self._use() as ptr:
            return json.loads(_out_json(_native.lib().lake_event_log_roots, ptr))

    def failures(self):
        with self._use() as ptr:
            return json.loads(_out_json(_native.lib().lake_event_log_failures, ptr))

    def events(self, root_item_id):
        with self._use() as ptr:
            return _out_json(_native.lib().lake_event_log_events, ptr, _text(root_item_id))


class EventWriter(Handle):
    """Writes one item's events; commit() appends the batch atomically."""

    KIND = "event writer"

    def __init__(self, ptr, log):
        self._init_handle(ptr, _native.lib().lake_event_writer_free, log)

    def _field(self, call, field, python_value, step):
        value, keep = _value(python_value)
        with self._use() as ptr:
            check(call, ptr, _text(field), ctypes.byref(value), _step(step))
        del keep

    def set(self, field, value, step=None):
        self._field(_native.lib().lake_event_writer_field_set, field, value, step)

    def append(self, field, value, step=None):
        self._field(_native.lib().lake_event_writer_field_append, field, value, step)

    def step_started(self, step):
        with self._use() as ptr:
            check(_native.lib().lake_event_writer_step_started, ptr, _step(step))

    def step_completed(self, step):
        with self._use() as ptr:
            check(_native.lib().lake_event_writer_step_completed, ptr, _step(step))

    def terminal(self, filtered=False, step=None):
        with self._use() as ptr:
            check(_native.lib().lake_event_writer_terminal, ptr, int(filtered), _step(step))

    def failed(self, error_type, error_dump="", traceback="", step=None):
        with self._use() as ptr:
            check(_native.lib().lake_event_writer_failed, ptr, _text(error_type),
                  _text(error_dump), _text(traceback), _step(step))

    def commit(self):
        with self._use() as ptr:
            check(_native.lib().lake_event_writer_commit, ptr)

    @property
    def attempt(self):
        with self._use() as ptr:
            return _native.lib().lake_event_writer_attempt(ptr)


class FoldedItem(Handle):
    """An item's state folded from its events. Immutable."""

    THREAD_SAFE = True
    KIND = "folded item"

    def __init__(self, ptr, log):
        self._init_handle(ptr, _native.lib().lake_folded_item_free, log)
        self._log = log

    @property
    def json(self):
        with self._use() as ptr:
            return json.loads(_native.lib().lake_folded_item_json(ptr))

    @property
    def status(self):
        with self._use() as ptr:
            return _native.lib().lake_folded_item_status(ptr).decode()

    @property
    def last_attempt(self):
        with self._use() as ptr:
            return _native.lib().lake_folded_item_last_attempt(ptr)

    @property
    def next_item_seq(self):
        with self._use() as ptr:
            return _native.lib().lake_folded_item_next_item_seq(ptr)

    def value_count(self, field):
        with self._use() as ptr:
            return _native.lib().lake_folded_item_value_count(ptr, _text(field))

    def value(self, field, index=0):
        """Value `index` of `field`; an offloaded blob comes back as None (open_blob it)."""
        out = Value()
        with self._use() as ptr:
            check(_native.lib().lake_folded_item_value, ptr, _text(field), index,
                  ctypes.byref(out))
            if out.kind == VALUE_BLOB and not out.bytes and out.len:
                return None
            return _python_value(out)

    def open_blob(self, field, index=0):
        """A verified reader over a blob value, inline or offloaded."""
        out = c_void_p()
        with self._log._use() as log, self._use() as ptr:
            check(_native.lib().lake_folded_item_open_blob, log, ptr, _text(field), index,
                  ctypes.byref(out))
        return Reader(out.value, self)
