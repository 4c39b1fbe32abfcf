"""The C ABI of lake.h as ctypes declarations, and the library loaded once.

Every LAKE_API function of include/lake.h is declared in FUNCTIONS below
(scripts/lib/check_bindings.py checks that none is missing). The library is
found through $LAKE_LIBRARY (a path to liblake.so), else as liblake.so.1 on
the loader's search path. Loading checks lake_abi_version() against
ABI_VERSION before anything else is called: a mismatch raises
AbiVersionError and no handle can exist.
"""
import ctypes
import os
import threading
from ctypes import (CFUNCTYPE, POINTER as _P, Structure, c_char_p, c_double, c_int, c_int64,
                    c_size_t, c_uint8, c_uint32, c_uint64, c_void_p)

# LAKE_ABI_VERSION of the lake.h these declarations follow.
ABI_VERSION = 1


class AbiVersionError(ImportError):
    """The library implements another ABI major version than this binding."""


# ---- structs of lake.h (frozen layouts) ----

class ListEntry(Structure):
    _fields_ = [("uri", c_char_p), ("size_bytes", c_uint64), ("modified_unix_micros", c_int64)]


class Range(Structure):
    _fields_ = [("location", c_void_p), ("start", c_uint64), ("end", c_uint64),
                ("buffer", c_void_p), ("status", c_int), ("bytes_read", c_uint64),
                ("error", c_void_p)]


class Step(Structure):
    _fields_ = [("name", c_char_p), ("index", c_int64), ("kind", c_char_p),
                ("enclosing_step", c_char_p), ("selector_step", c_char_p)]


class Value(Structure):
    _fields_ = [("kind", c_int), ("i64", c_int64), ("f64", c_double), ("boolean", c_int),
                ("bytes", c_void_p), ("len", c_size_t)]


class UploadInfo(Structure):
    _fields_ = [("id", c_char_p), ("source_path", c_char_p), ("uri", c_char_p),
                ("parts_done", c_uint64), ("bytes_done", c_uint64), ("size_bytes", c_uint64),
                ("part_bytes", c_uint64), ("updated_unix_micros", c_int64), ("stale", c_int),
                ("locked", c_int), ("error", c_char_p)]


class GcCandidate(Structure):
    _fields_ = [("uri", c_char_p), ("kind", c_char_p), ("size_bytes", c_uint64),
                ("modified_unix_micros", c_int64), ("tenant", c_char_p)]


class GcProblem(Structure):
    _fields_ = [("uri", c_char_p), ("problem", c_char_p), ("expected_size", c_uint64),
                ("observed_size", c_uint64), ("message", c_char_p),
                ("referrers", _P(c_char_p)), ("referrer_count", c_size_t),
                ("more_referrers", c_uint64)]


class ArrowSchema(Structure):
    pass


ArrowSchema._fields_ = [("format", c_char_p), ("name", c_char_p), ("metadata", c_void_p),
                        ("flags", c_int64), ("n_children", c_int64),
                        ("children", _P(_P(ArrowSchema))), ("dictionary", _P(ArrowSchema)),
                        ("release", CFUNCTYPE(None, _P(ArrowSchema))),
                        ("private_data", c_void_p)]


class ArrowArray(Structure):
    pass


ArrowArray._fields_ = [("length", c_int64), ("null_count", c_int64), ("offset", c_int64),
                       ("n_buffers", c_int64), ("n_children", c_int64),
                       ("buffers", _P(c_void_p)), ("children", _P(_P(ArrowArray))),
                       ("dictionary", _P(ArrowArray)),
                       ("release", CFUNCTYPE(None, _P(ArrowArray))),
                       ("private_data", c_void_p)]


class ArrowArrayStream(Structure):
    pass


ArrowArrayStream._fields_ = [
    ("get_schema", CFUNCTYPE(c_int, _P(ArrowArrayStream), _P(ArrowSchema))),
    ("get_next", CFUNCTYPE(c_int, _P(ArrowArrayStream), _P(ArrowArray))),
    ("get_last_error", CFUNCTYPE(c_char_p, _P(ArrowArrayStream))),
    ("release", CFUNCTYPE(None, _P(ArrowArrayStream))),
    ("private_data", c_void_p)]

# ---- callback types ----

READ_FN = CFUNCTYPE(c_int64, c_void_p, _P(c_uint8), c_size_t)
PROGRESS_FN = CFUNCTYPE(None, c_void_p, c_uint64, c_uint64)
LIST_FN = CFUNCTYPE(c_int, c_void_p, _P(ListEntry))
NOTICE_FN = CFUNCTYPE(None, c_void_p, c_char_p)
UPLOAD_INFO_FN = CFUNCTYPE(c_int, c_void_p, _P(UploadInfo))
GC_PROGRESS_FN = CFUNCTYPE(None, c_void_p, c_char_p, c_uint64, c_uint64)
GC_CANDIDATE_FN = CFUNCTYPE(c_int, c_void_p, _P(GcCandidate))
GC_PROBLEM_FN = CFUNCTYPE(c_int, c_void_p, _P(GcProblem))

# The host store's callbacks (lake_host_store, version 1).
HOST_UPLOAD_FN = CFUNCTYPE(c_int, c_void_p, c_char_p, c_char_p, READ_FN, c_void_p, c_void_p,
                           c_size_t)
HOST_OPEN_STREAM_FN = CFUNCTYPE(c_int, c_void_p, c_char_p, c_uint64, _P(c_void_p), c_void_p,
                                c_size_t)
HOST_READ_STREAM_FN = CFUNCTYPE(c_int, c_void_p, c_void_p, _P(c_uint8), c_size_t, _P(c_size_t),
                                c_void_p, c_size_t)
HOST_CLOSE_STREAM_FN = CFUNCTYPE(None, c_void_p, c_void_p)
HOST_LIST_FN = CFUNCTYPE(c_int, c_void_p, c_char_p, LIST_FN, c_void_p, c_void_p, c_size_t)
HOST_REMOVE_FN = CFUNCTYPE(c_int, c_void_p, c_char_p, c_void_p, c_size_t)
HOST_DESTROY_FN = CFUNCTYPE(None, c_void_p)


class HostStore(Structure):
    _fields_ = [("version", c_int), ("ctx", c_void_p), ("root_uri", c_char_p),
                ("upload", HOST_UPLOAD_FN), ("open_stream", HOST_OPEN_STREAM_FN),
                ("read_stream", HOST_READ_STREAM_FN), ("close_stream", HOST_CLOSE_STREAM_FN),
                ("list", HOST_LIST_FN), ("remove", HOST_REMOVE_FN),
                ("destroy", HOST_DESTROY_FN)]


# ---- every LAKE_API function: (name, restype, argtypes) ----

FUNCTIONS = [
    ("lake_abi_version", c_uint32, []),
    ("lake_version_string", c_char_p, []),
    ("lake_status_name", c_char_p, [c_int]),
    ("lake_integrity_kind_name", c_char_p, [c_int]),
    ("lake_error_code", c_int, [c_void_p]),
    ("lake_error_message", c_char_p, [c_void_p]),
    ("lake_error_integrity_kind", c_int, [c_void_p]),
    ("lake_error_expected", c_uint64, [c_void_p]),
    ("lake_error_observed", c_uint64, [c_void_p]),
    ("lake_error_retryable", c_int, [c_void_p]),
    ("lake_error_pending_operation_id", c_char_p, [c_void_p]),
    ("lake_error_free", None, [c_void_p]),
    ("lake_set_buffer_budget", c_int, [c_uint64, _P(c_void_p)]),
    ("lake_cancel_token_new", c_void_p, []),
    ("lake_cancel_token_cancel", None, [c_void_p]),
    ("lake_cancel_token_is_cancelled", c_int, [c_void_p]),
    ("lake_cancel_token_free", None, [c_void_p]),
    ("lake_location_from_json", c_int, [c_char_p, c_size_t, _P(c_void_p), _P(c_void_p)]),
    ("lake_location_new", c_int, [c_char_p, c_char_p, c_uint64, c_char_p, _P(c_void_p), _P(c_void_p)]),
    ("lake_location_json", c_char_p, [c_void_p]),
    ("lake_location_uri", c_char_p, [c_void_p]),
    ("lake_location_content_type", c_char_p, [c_void_p]),
    ("lake_location_size_bytes", c_uint64, [c_void_p]),
    ("lake_location_sha256", c_char_p, [c_void_p]),
    ("lake_location_free", None, [c_void_p]),
    ("lake_stage_options_new", c_void_p, []),
    ("lake_stage_options_set_local_root", c_int, [c_void_p, c_char_p, _P(c_void_p)]),
    ("lake_stage_options_set_tenant", c_int, [c_void_p, c_char_p, _P(c_void_p)]),
    ("lake_stage_options_set_s3", c_int, [c_void_p, c_char_p, _P(c_void_p)]),
    ("lake_stage_options_set_s3_endpoint", c_int, [c_void_p, c_char_p, _P(c_void_p)]),
    ("lake_stage_options_set_s3_region", c_int, [c_void_p, c_char_p, _P(c_void_p)]),
    ("lake_stage_options_set_s3_path_style", None, [c_void_p, c_int]),
    ("lake_stage_options_set_s3_concurrency", c_int, [c_void_p, c_uint32, _P(c_void_p)]),
    ("lake_stage_options_set_s3_part_size", c_int, [c_void_p, c_uint64, _P(c_void_p)]),
    ("lake_stage_options_set_upload_checkpoint_dir", c_int, [c_void_p, c_char_p, _P(c_void_p)]),
    ("lake_stage_options_set_s3_download_streams", c_int, [c_void_p, c_uint32, _P(c_void_p)]),
    ("lake_stage_options_set_s3_download_range_size", c_int, [c_void_p, c_uint64, _P(c_void_p)]),
    ("lake_stage_options_set_descriptor", c_int, [c_void_p, c_char_p, c_size_t, _P(c_void_p)]),
    ("lake_stage_options_set_host_store", c_int, [c_void_p, _P(HostStore), _P(c_void_p)]),
    ("lake_stage_options_set_host_id", c_int, [c_void_p, c_char_p, _P(c_void_p)]),
    ("lake_stage_options_free", None, [c_void_p]),
    ("lake_stage_open", c_int, [c_void_p, _P(c_void_p), _P(c_void_p)]),
    ("lake_stage_free", None, [c_void_p]),
    ("lake_stage_descriptor", c_char_p, [c_void_p]),
    ("lake_stage_presign", c_int, [c_void_p, c_void_p, c_uint32, _P(c_void_p), _P(c_void_p)]),
    ("lake_string_free", None, [c_void_p]),
    ("lake_stage_io_backend", c_char_p, [c_void_p]),
    ("lake_stage_clean_staging", c_int, [c_void_p, _P(c_uint64), _P(c_void_p)]),
    ("lake_stage_list", c_int, [c_void_p, LIST_FN, c_void_p, _P(c_void_p)]),
    ("lake_stage_delete", c_int, [c_void_p, c_void_p, _P(c_void_p)]),
    ("lake_db_open", c_int, [c_char_p, c_void_p, _P(c_void_p), _P(c_void_p)]),
    ("lake_db_stage", c_void_p, [c_void_p]),
    ("lake_db_free", None, [c_void_p]),
    ("lake_db_pin", c_int, [c_void_p, c_void_p, _P(c_void_p)]),
    ("lake_db_unpin", c_int, [c_void_p, c_void_p, _P(c_void_p)]),
    ("lake_upload_options_new", c_void_p, []),
    ("lake_upload_options_set_content_type", c_int, [c_void_p, c_char_p, _P(c_void_p)]),
    ("lake_upload_options_set_cancel_token", None, [c_void_p, c_void_p]),
    ("lake_upload_options_set_progress", None, [c_void_p, PROGRESS_FN, c_void_p]),
    ("lake_upload_options_set_notice", None, [c_void_p, NOTICE_FN, c_void_p]),
    ("lake_upload_options_free", None, [c_void_p]),
    ("lake_stage_upload_path", c_int, [c_void_p, c_char_p, c_void_p, _P(c_void_p), _P(c_void_p)]),
    ("lake_stage_upload_reader", c_int, [c_void_p, READ_FN, c_void_p, c_void_p, _P(c_void_p), _P(c_void_p)]),
    ("lake_writer_open", c_int, [c_void_p, c_void_p, _P(c_void_p), _P(c_void_p)]),
    ("lake_writer_write", c_int, [c_void_p, c_void_p, c_size_t, _P(c_void_p)]),
    ("lake_writer_close", c_int, [c_void_p, _P(c_void_p), _P(c_void_p)]),
    ("lake_writer_free", None, [c_void_p]),
    ("lake_db_uploads_list", c_int, [c_void_p, UPLOAD_INFO_FN, c_void_p, _P(c_void_p)]),
    ("lake_db_uploads_resume", c_int, [c_void_p, c_char_p, c_void_p, _P(c_void_p), _P(c_void_p)]),
    ("lake_db_uploads_abort", c_int, [c_void_p, c_char_p, _P(c_void_p)]),
    ("lake_reader_open", c_int, [c_void_p, c_void_p, _P(c_void_p), _P(c_void_p)]),
    ("lake_reader_open_range", c_int, [c_void_p, c_void_p, c_uint64, c_uint64, _P(c_void_p), _P(c_void_p)]),
    ("lake_reader_read", c_int, [c_void_p, c_void_p, c_size_t, _P(c_size_t), _P(c_void_p)]),
    ("lake_reader_read_view", c_int, [c_void_p, _P(c_void_p), c_size_t, _P(c_size_t), _P(c_void_p)]),
    ("lake_reader_verified", c_int, [c_void_p]),
    ("lake_reader_close", c_int, [c_void_p, _P(c_void_p)]),
    ("lake_reader_free", None, [c_void_p]),
    ("lake_stage_read_ranges", c_int, [c_void_p, _P(Range), c_size_t, _P(c_void_p)]),
    ("lake_db_open_follower", c_int, [c_char_p, c_uint32, _P(c_void_p), _P(c_void_p)]),
    ("lake_db_view_age_micros", c_int64, [c_void_p]),
    ("lake_db_set_busy_timeout", c_int, [c_void_p, c_uint32, _P(c_void_p)]),
    ("lake_table_create", c_int, [c_void_p, c_char_p, _P(c_char_p), c_size_t, _P(c_void_p)]),
    ("lake_table_list", c_int, [c_void_p, _P(c_void_p), _P(c_void_p)]),
    ("lake_table_describe", c_int, [c_void_p, c_char_p, _P(c_void_p), _P(c_void_p)]),
    ("lake_table_versions", c_int, [c_void_p, c_char_p, _P(c_void_p), _P(c_void_p)]),
    ("lake_table_compact", c_int, [c_void_p, c_char_p, _P(c_uint64), _P(c_void_p)]),
    ("lake_table_compact_segments", c_int, [c_void_p, c_char_p, _P(c_void_p), _P(c_void_p)]),
    ("lake_table_drop", c_int, [c_void_p, c_char_p, _P(c_void_p)]),
    ("lake_table_tag", c_int, [c_void_p, c_char_p, c_char_p, c_uint64, _P(c_void_p)]),
    ("lake_table_untag", c_int, [c_void_p, c_char_p, c_char_p, _P(c_void_p)]),
    ("lake_table_expire", c_int, [c_void_p, c_char_p, c_uint64, c_int64, _P(c_void_p), _P(c_void_p)]),
    ("lake_db_prepare", c_int, [c_void_p, c_char_p, _P(c_void_p), _P(c_void_p)]),
    ("lake_statement_parameter_count", c_size_t, [c_void_p]),
    ("lake_statement_bind_null", c_int, [c_void_p, c_size_t, _P(c_void_p)]),
    ("lake_statement_bind_int64", c_int, [c_void_p, c_size_t, c_int64, _P(c_void_p)]),
    ("lake_statement_bind_float64", c_int, [c_void_p, c_size_t, c_double, _P(c_void_p)]),
    ("lake_statement_bind_bool", c_int, [c_void_p, c_size_t, c_int, _P(c_void_p)]),
    ("lake_statement_bind_utf8", c_int, [c_void_p, c_size_t, c_char_p, c_size_t, _P(c_void_p)]),
    ("lake_statement_bind_binary", c_int, [c_void_p, c_size_t, c_void_p, c_size_t, _P(c_void_p)]),
    ("lake_statement_bind_timestamp_micros", c_int, [c_void_p, c_size_t, c_int64, _P(c_void_p)]),
    ("lake_statement_bind_text", c_int, [c_void_p, c_size_t, c_char_p, _P(c_void_p)]),
    ("lake_statement_bind_file_path", c_int, [c_void_p, c_size_t, c_char_p, c_char_p, _P(c_void_p)]),
    ("lake_statement_bind_file_reader", c_int, [c_void_p, c_size_t, READ_FN, c_void_p, c_char_p, _P(c_void_p)]),
    ("lake_statement_bind_location", c_int, [c_void_p, c_size_t, c_void_p, _P(c_void_p)]),
    ("lake_statement_insert", c_int, [c_void_p, c_void_p, _P(c_uint64), _P(c_void_p)]),
    ("lake_statement_query", c_int, [c_void_p, _P(ArrowArrayStream), _P(c_void_p)]),
    ("lake_statement_execute", c_int, [c_void_p, _P(c_uint64), _P(c_uint64), _P(c_void_p)]),
    ("lake_statement_changes", None, [c_void_p, _P(c_uint64), _P(c_uint64)]),
    ("lake_statement_free", None, [c_void_p]),
    ("lake_location_from_arrow", c_int, [_P(ArrowSchema), _P(ArrowArray), c_int64, c_int64, _P(c_void_p), _P(c_void_p)]),
    ("lake_db_pending_appends", c_int, [c_void_p, _P(c_void_p), _P(c_void_p)]),
    ("lake_db_recover", c_int, [c_void_p, _P(c_void_p), _P(c_void_p)]),
    ("lake_db_discard_append", c_int, [c_void_p, c_char_p, _P(c_void_p), _P(c_void_p)]),
    ("lake_gc_options_new", c_void_p, []),
    ("lake_gc_options_set_cutoff_seconds", None, [c_void_p, c_uint64]),
    ("lake_gc_options_set_allow_short_cutoff", None, [c_void_p, c_int]),
    ("lake_gc_options_set_memory_budget", c_int, [c_void_p, c_uint64, _P(c_void_p)]),
    ("lake_gc_options_set_temp_dir", c_int, [c_void_p, c_char_p, _P(c_void_p)]),
    ("lake_gc_options_set_progress", None, [c_void_p, GC_PROGRESS_FN, c_void_p]),
    ("lake_gc_options_set_cancel_token", None, [c_void_p, c_void_p]),
    ("lake_gc_options_set_max_deletes_per_second", None, [c_void_p, c_uint64]),
    ("lake_gc_options_free", None, [c_void_p]),
    ("lake_gc_plan", c_int, [c_void_p, c_void_p, _P(c_void_p), _P(c_void_p)]),
    ("lake_gc_show", c_int, [c_void_p, c_char_p, GC_CANDIDATE_FN, c_void_p, _P(c_void_p), _P(c_void_p)]),
    ("lake_gc_status", c_int, [c_void_p, c_char_p, _P(c_void_p), _P(c_void_p)]),
    ("lake_gc_apply", c_int, [c_void_p, c_char_p, c_void_p, _P(c_void_p), _P(c_void_p)]),
    ("lake_gc_verify", c_int, [c_void_p, c_int, c_void_p, GC_PROBLEM_FN, c_void_p, _P(c_void_p), _P(c_void_p)]),
    ("lake_experiment_create", c_int, [c_void_p, c_char_p, c_char_p, _P(c_void_p)]),
    ("lake_experiment_delete", c_int, [c_void_p, c_char_p, c_char_p, _P(c_void_p)]),
    ("lake_experiment_list", c_int, [c_void_p, c_char_p, _P(c_void_p), _P(c_void_p)]),
    ("lake_experiment_describe", c_int, [c_void_p, c_char_p, c_char_p, _P(c_void_p), _P(c_void_p)]),
    ("lake_experiment_compact", c_int, [c_void_p, c_char_p, c_char_p, _P(c_void_p), _P(c_void_p)]),
    ("lake_event_log_open", c_int, [c_void_p, c_char_p, c_char_p, c_int, _P(c_void_p), _P(c_void_p)]),
    ("lake_event_log_refresh", c_int, [c_void_p, _P(c_void_p)]),
    ("lake_event_log_free", None, [c_void_p]),
    ("lake_event_log_append_jsonl", c_int, [c_void_p, c_char_p, c_size_t, _P(c_uint64), _P(c_uint64), _P(c_void_p)]),
    ("lake_event_writer_open", c_int, [c_void_p, c_char_p, c_char_p, _P(Step), _P(c_void_p), _P(c_void_p)]),
    ("lake_event_writer_resume", c_int, [c_void_p, c_char_p, c_char_p, _P(c_void_p), _P(c_void_p)]),
    ("lake_event_writer_step_started", c_int, [c_void_p, _P(Step), _P(c_void_p)]),
    ("lake_event_writer_step_completed", c_int, [c_void_p, _P(Step), _P(c_void_p)]),
    ("lake_event_writer_field_set", c_int, [c_void_p, c_char_p, _P(Value), _P(Step), _P(c_void_p)]),
    ("lake_event_writer_field_append", c_int, [c_void_p, c_char_p, _P(Value), _P(Step), _P(c_void_p)]),
    ("lake_event_writer_terminal", c_int, [c_void_p, c_int, _P(Step), _P(c_void_p)]),
    ("lake_event_writer_failed", c_int, [c_void_p, c_char_p, c_char_p, c_char_p, _P(Step), _P(c_void_p)]),
    ("lake_event_writer_commit", c_int, [c_void_p, _P(c_void_p)]),
    ("lake_event_writer_attempt", c_uint32, [c_void_p]),
    ("lake_event_writer_free", None, [c_void_p]),
    ("lake_event_log_fold", c_int, [c_void_p, c_char_p, _P(c_void_p), _P(c_void_p)]),
    ("lake_folded_item_json", c_char_p, [c_void_p]),
    ("lake_folded_item_status", c_char_p, [c_void_p]),
    ("lake_folded_item_last_attempt", c_uint32, [c_void_p]),
    ("lake_folded_item_next_item_seq", c_uint64, [c_void_p]),
    ("lake_folded_item_value_count", c_size_t, [c_void_p, c_char_p]),
    ("lake_folded_item_value", c_int, [c_void_p, c_char_p, c_size_t, _P(Value), _P(c_void_p)]),
    ("lake_folded_item_open_blob", c_int, [c_void_p, c_void_p, c_char_p, c_size_t, _P(c_void_p), _P(c_void_p)]),
    ("lake_folded_item_free", None, [c_void_p]),
    ("lake_event_log_tree", c_int, [c_void_p, c_char_p, _P(c_void_p), _P(c_void_p)]),
    ("lake_event_log_roots", c_int, [c_void_p, _P(c_void_p), _P(c_void_p)]),
    ("lake_event_log_failures", c_int, [c_void_p, _P(c_void_p), _P(c_void_p)]),
    ("lake_event_log_events", c_int, [c_void_p, c_char_p, _P(c_void_p), _P(c_void_p)]),
]


class Library:
    """liblake loaded from `path`, its ABI version checked first."""

    def __init__(self, path):
        self.path = path
        self._cdll = ctypes.CDLL(path)
        abi_version = self._cdll.lake_abi_version
        abi_version.restype = c_uint32
        abi_version.argtypes = []
        found = abi_version()
        if found != ABI_VERSION:
            raise AbiVersionError(
                f"{path} implements lake ABI {found}; this binding needs ABI {ABI_VERSION}")
        for name, restype, argtypes in FUNCTIONS:
            function = getattr(self._cdll, name)
            function.restype = restype
            function.argtypes = argtypes
            setattr(self, name, function)


_loaded = None
_load_lock = threading.Lock()


def default_path():
    return os.environ.get("LAKE_LIBRARY") or "liblake.so.1"


def lib():
    """The process's library, loaded (and checked) at the first call."""
    global _loaded
    if _loaded is None:
        with _load_lock:
            if _loaded is None:
                _loaded = Library(default_path())
    return _loaded
