//! Raw declarations of lake's C ABI, written from `include/lake.h` (ABI
//! version 1): every `LAKE_API` function, its types as `#[repr(C)]` structs
//! and the Arrow C data and stream interface. Nothing here is safe to call
//! without reading the header's contract; the `lake` crate is the safe API.
//!
//! Enumerations of the header (`lake_status`, `lake_integrity_kind`,
//! `lake_value_kind`) are plain `c_int` aliases with constants, so a value
//! the header does not name is still representable (a Rust `enum` holding an
//! unknown discriminant would be undefined behaviour).
#![allow(non_camel_case_types)]

use std::os::raw::{c_char, c_int, c_void};

/// The ABI major version this crate declares (`LAKE_ABI_VERSION`).
pub const LAKE_ABI_VERSION: u32 = 1;

pub type lake_status = c_int;
pub const LAKE_OK: lake_status = 0;
pub const LAKE_INVALID_ARGUMENT: lake_status = 1;
pub const LAKE_INTEGRITY: lake_status = 2;
pub const LAKE_CONFLICT: lake_status = 3;
pub const LAKE_IO: lake_status = 4;
pub const LAKE_NOT_FOUND: lake_status = 5;
pub const LAKE_CANCELLED: lake_status = 6;
pub const LAKE_INTERNAL: lake_status = 7;
pub const LAKE_UNSUPPORTED: lake_status = 8;

pub type lake_integrity_kind = c_int;
pub const LAKE_INTEGRITY_NONE: lake_integrity_kind = 0;
pub const LAKE_INTEGRITY_SIZE_SHORT: lake_integrity_kind = 1;
pub const LAKE_INTEGRITY_SIZE_LONG: lake_integrity_kind = 2;
pub const LAKE_INTEGRITY_DIGEST_MISMATCH: lake_integrity_kind = 3;
pub const LAKE_INTEGRITY_PREMATURE_EOF: lake_integrity_kind = 4;
pub const LAKE_INTEGRITY_INVALID_LOCATION: lake_integrity_kind = 5;
pub const LAKE_INTEGRITY_OBJECT_CHANGED: lake_integrity_kind = 6;

pub type lake_value_kind = c_int;
pub const LAKE_VALUE_INT: lake_value_kind = 1;
pub const LAKE_VALUE_FLOAT: lake_value_kind = 2;
pub const LAKE_VALUE_BOOL: lake_value_kind = 3;
pub const LAKE_VALUE_STR: lake_value_kind = 4;
pub const LAKE_VALUE_JSON: lake_value_kind = 5;
pub const LAKE_VALUE_BLOB: lake_value_kind = 6;

pub const LAKE_HOST_STORE_VERSION: c_int = 1;

// Opaque handles: only ever behind pointers.
macro_rules! opaque {
    ($($name:ident),*) => {$(
        #[repr(C)]
        pub struct $name {
            _private: [u8; 0],
        }
    )*};
}
opaque!(
    lake_error,
    lake_cancel_token,
    lake_location,
    lake_stage_options,
    lake_stage,
    lake_db,
    lake_upload_options,
    lake_writer,
    lake_reader,
    lake_statement,
    lake_gc_options,
    lake_event_log,
    lake_event_writer,
    lake_folded_item
);

pub type lake_progress_fn =
    Option<unsafe extern "C" fn(ctx: *mut c_void, done_bytes: u64, total_bytes: u64)>;
pub type lake_read_fn =
    Option<unsafe extern "C" fn(ctx: *mut c_void, buf: *mut u8, cap: usize) -> i64>;
pub type lake_list_fn =
    Option<unsafe extern "C" fn(ctx: *mut c_void, entry: *const lake_list_entry) -> c_int>;
pub type lake_notice_fn = Option<unsafe extern "C" fn(ctx: *mut c_void, line: *const c_char)>;
pub type lake_upload_info_fn =
    Option<unsafe extern "C" fn(ctx: *mut c_void, info: *const lake_upload_info) -> c_int>;
pub type lake_gc_progress_fn =
    Option<unsafe extern "C" fn(ctx: *mut c_void, phase: *const c_char, done: u64, total: u64)>;
pub type lake_gc_candidate_fn =
    Option<unsafe extern "C" fn(ctx: *mut c_void, candidate: *const lake_gc_candidate) -> c_int>;
pub type lake_gc_problem_fn =
    Option<unsafe extern "C" fn(ctx: *mut c_void, problem: *const lake_gc_problem) -> c_int>;

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct lake_list_entry {
    pub uri: *const c_char,
    pub size_bytes: u64,
    pub modified_unix_micros: i64,
}

/// The host store's callback table (frozen layout, version 1).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct lake_host_store {
    pub version: c_int,
    pub ctx: *mut c_void,
    pub root_uri: *const c_char,
    pub upload: Option<
        unsafe extern "C" fn(
            ctx: *mut c_void,
            uri: *const c_char,
            content_type: *const c_char,
            read: lake_read_fn,
            read_ctx: *mut c_void,
            message: *mut c_char,
            message_cap: usize,
        ) -> lake_status,
    >,
    pub open_stream: Option<
        unsafe extern "C" fn(
            ctx: *mut c_void,
            uri: *const c_char,
            start: u64,
            stream: *mut *mut c_void,
            message: *mut c_char,
            message_cap: usize,
        ) -> lake_status,
    >,
    pub read_stream: Option<
        unsafe extern "C" fn(
            ctx: *mut c_void,
            stream: *mut c_void,
            buf: *mut u8,
            cap: usize,
            n: *mut usize,
            message: *mut c_char,
            message_cap: usize,
        ) -> lake_status,
    >,
    pub close_stream: Option<unsafe extern "C" fn(ctx: *mut c_void, stream: *mut c_void)>,
    pub list: Option<
        unsafe extern "C" fn(
            ctx: *mut c_void,
            prefix_uri: *const c_char,
            emit: lake_list_fn,
            emit_ctx: *mut c_void,
            message: *mut c_char,
            message_cap: usize,
        ) -> lake_status,
    >,
    pub remove: Option<
        unsafe extern "C" fn(
            ctx: *mut c_void,
            uri: *const c_char,
            message: *mut c_char,
            message_cap: usize,
        ) -> lake_status,
    >,
    pub destroy: Option<unsafe extern "C" fn(ctx: *mut c_void)>,
}

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct lake_upload_info {
    pub id: *const c_char,
    pub source_path: *const c_char,
    pub uri: *const c_char,
    pub parts_done: u64,
    pub bytes_done: u64,
    pub size_bytes: u64,
    pub part_bytes: u64,
    pub updated_unix_micros: i64,
    pub stale: c_int,
    pub locked: c_int,
    pub error: *const c_char,
}

/// One range of a batched read (frozen layout).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct lake_range {
    pub location: *const lake_location,
    pub start: u64,
    pub end: u64,
    pub buffer: *mut c_void,
    pub status: lake_status,
    pub bytes_read: u64,
    pub error: *mut lake_error,
}

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct lake_gc_candidate {
    pub uri: *const c_char,
    pub kind: *const c_char,
    pub size_bytes: u64,
    pub modified_unix_micros: i64,
    pub tenant: *const c_char,
}

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct lake_gc_problem {
    pub uri: *const c_char,
    pub problem: *const c_char,
    pub expected_size: u64,
    pub observed_size: u64,
    pub message: *const c_char,
    pub referrers: *const *const c_char,
    pub referrer_count: usize,
    pub more_referrers: u64,
}

/// A step's provenance (frozen layout).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct lake_step {
    pub name: *const c_char,
    pub index: i64,
    pub kind: *const c_char,
    pub enclosing_step: *const c_char,
    pub selector_step: *const c_char,
}

/// A field value (frozen layout).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct lake_value {
    pub kind: lake_value_kind,
    pub i64: i64,
    pub f64: f64,
    pub boolean: c_int,
    pub bytes: *const c_void,
    pub len: usize,
}

// The Arrow C data interface, from its public specification.
pub const ARROW_FLAG_DICTIONARY_ORDERED: i64 = 1;
pub const ARROW_FLAG_NULLABLE: i64 = 2;
pub const ARROW_FLAG_MAP_KEYS_SORTED: i64 = 4;

#[repr(C)]
#[derive(Debug)]
pub struct ArrowSchema {
    pub format: *const c_char,
    pub name: *const c_char,
    pub metadata: *const c_char,
    pub flags: i64,
    pub n_children: i64,
    pub children: *mut *mut ArrowSchema,
    pub dictionary: *mut ArrowSchema,
    pub release: Option<unsafe extern "C" fn(*mut ArrowSchema)>,
    pub private_data: *mut c_void,
}

#[repr(C)]
#[derive(Debug)]
pub struct ArrowArray {
    pub length: i64,
    pub null_count: i64,
    pub offset: i64,
    pub n_buffers: i64,
    pub n_children: i64,
    pub buffers: *mut *const c_void,
    pub children: *mut *mut ArrowArray,
    pub dictionary: *mut ArrowArray,
    pub release: Option<unsafe extern "C" fn(*mut ArrowArray)>,
    pub private_data: *mut c_void,
}

#[repr(C)]
#[derive(Debug)]
pub struct ArrowArrayStream {
    pub get_schema:
        Option<unsafe extern "C" fn(*mut ArrowArrayStream, out: *mut ArrowSchema) -> c_int>,
    pub get_next:
        Option<unsafe extern "C" fn(*mut ArrowArrayStream, out: *mut ArrowArray) -> c_int>,
    pub get_last_error: Option<unsafe extern "C" fn(*mut ArrowArrayStream) -> *const c_char>,
    pub release: Option<unsafe extern "C" fn(*mut ArrowArrayStream)>,
    pub private_data: *mut c_void,
}

macro_rules! released {
    ($($name:ident),*) => {$(
        impl $name {
            /// A released (empty) struct: every field zero, `release` None.
            pub fn empty() -> Self {
                // SAFETY: all fields are integers, raw pointers or Option<fn>,
                // for which all-zero bytes are valid (0, null, None).
                unsafe { std::mem::zeroed() }
            }
        }
    )*};
}
released!(ArrowSchema, ArrowArray, ArrowArrayStream);

/// Every `LAKE_API` function name, in the header's order (what A-002 compares).
pub const FUNCTIONS: &[&str] = &[
    "lake_abi_version",
    "lake_version_string",
    "lake_status_name",
    "lake_integrity_kind_name",
    "lake_error_code",
    "lake_error_message",
    "lake_error_integrity_kind",
    "lake_error_expected",
    "lake_error_observed",
    "lake_error_retryable",
    "lake_error_pending_operation_id",
    "lake_error_free",
    "lake_set_buffer_budget",
    "lake_cancel_token_new",
    "lake_cancel_token_cancel",
    "lake_cancel_token_is_cancelled",
    "lake_cancel_token_free",
    "lake_location_from_json",
    "lake_location_new",
    "lake_location_json",
    "lake_location_uri",
    "lake_location_content_type",
    "lake_location_size_bytes",
    "lake_location_sha256",
    "lake_location_free",
    "lake_stage_options_new",
    "lake_stage_options_set_local_root",
    "lake_stage_options_set_tenant",
    "lake_stage_options_set_s3",
    "lake_stage_options_set_s3_endpoint",
    "lake_stage_options_set_s3_region",
    "lake_stage_options_set_s3_path_style",
    "lake_stage_options_set_s3_concurrency",
    "lake_stage_options_set_s3_part_size",
    "lake_stage_options_set_upload_checkpoint_dir",
    "lake_stage_options_set_s3_download_streams",
    "lake_stage_options_set_s3_download_range_size",
    "lake_stage_options_set_descriptor",
    "lake_stage_options_set_host_store",
    "lake_stage_options_set_host_id",
    "lake_stage_options_free",
    "lake_stage_open",
    "lake_stage_free",
    "lake_stage_descriptor",
    "lake_stage_presign",
    "lake_string_free",
    "lake_stage_io_backend",
    "lake_stage_clean_staging",
    "lake_stage_list",
    "lake_stage_delete",
    "lake_db_open",
    "lake_db_stage",
    "lake_db_free",
    "lake_db_pin",
    "lake_db_unpin",
    "lake_upload_options_new",
    "lake_upload_options_set_content_type",
    "lake_upload_options_set_cancel_token",
    "lake_upload_options_set_progress",
    "lake_upload_options_set_notice",
    "lake_upload_options_free",
    "lake_stage_upload_path",
    "lake_stage_upload_reader",
    "lake_writer_open",
    "lake_writer_write",
    "lake_writer_close",
    "lake_writer_free",
    "lake_db_uploads_list",
    "lake_db_uploads_resume",
    "lake_db_uploads_abort",
    "lake_reader_open",
    "lake_reader_open_range",
    "lake_reader_read",
    "lake_reader_read_view",
    "lake_reader_verified",
    "lake_reader_close",
    "lake_reader_free",
    "lake_stage_read_ranges",
    "lake_db_open_follower",
    "lake_db_view_age_micros",
    "lake_db_set_busy_timeout",
    "lake_table_create",
    "lake_table_list",
    "lake_table_describe",
    "lake_table_versions",
    "lake_table_compact",
    "lake_table_compact_segments",
    "lake_table_drop",
    "lake_table_tag",
    "lake_table_untag",
    "lake_table_expire",
    "lake_db_prepare",
    "lake_statement_parameter_count",
    "lake_statement_bind_null",
    "lake_statement_bind_int64",
    "lake_statement_bind_float64",
    "lake_statement_bind_bool",
    "lake_statement_bind_utf8",
    "lake_statement_bind_binary",
    "lake_statement_bind_timestamp_micros",
    "lake_statement_bind_text",
    "lake_statement_bind_file_path",
    "lake_statement_bind_file_reader",
    "lake_statement_bind_location",
    "lake_statement_insert",
    "lake_statement_query",
    "lake_statement_execute",
    "lake_statement_changes",
    "lake_statement_free",
    "lake_location_from_arrow",
    "lake_db_pending_appends",
    "lake_db_recover",
    "lake_db_discard_append",
    "lake_gc_options_new",
    "lake_gc_options_set_cutoff_seconds",
    "lake_gc_options_set_allow_short_cutoff",
    "lake_gc_options_set_memory_budget",
    "lake_gc_options_set_temp_dir",
    "lake_gc_options_set_progress",
    "lake_gc_options_set_cancel_token",
    "lake_gc_options_set_max_deletes_per_second",
    "lake_gc_options_free",
    "lake_gc_plan",
    "lake_gc_show",
    "lake_gc_status",
    "lake_gc_apply",
    "lake_gc_verify",
    "lake_experiment_create",
    "lake_experiment_delete",
    "lake_experiment_list",
    "lake_experiment_describe",
    "lake_experiment_compact",
    "lake_event_log_open",
    "lake_event_log_refresh",
    "lake_event_log_free",
    "lake_event_log_append_jsonl",
    "lake_event_writer_open",
    "lake_event_writer_resume",
    "lake_event_writer_step_started",
    "lake_event_writer_step_completed",
    "lake_event_writer_field_set",
    "lake_event_writer_field_append",
    "lake_event_writer_terminal",
    "lake_event_writer_failed",
    "lake_event_writer_commit",
    "lake_event_writer_attempt",
    "lake_event_writer_free",
    "lake_event_log_fold",
    "lake_folded_item_json",
    "lake_folded_item_status",
    "lake_folded_item_last_attempt",
    "lake_folded_item_next_item_seq",
    "lake_folded_item_value_count",
    "lake_folded_item_value",
    "lake_folded_item_open_blob",
    "lake_folded_item_free",
    "lake_event_log_tree",
    "lake_event_log_roots",
    "lake_event_log_failures",
    "lake_event_log_events",
];

extern "C" {
    pub fn lake_abi_version() -> u32;
    pub fn lake_version_string() -> *const c_char;
    pub fn lake_status_name(status: lake_status) -> *const c_char;
    pub fn lake_integrity_kind_name(kind: lake_integrity_kind) -> *const c_char;
    pub fn lake_error_code(err: *const lake_error) -> lake_status;
    pub fn lake_error_message(err: *const lake_error) -> *const c_char;
    pub fn lake_error_integrity_kind(err: *const lake_error) -> lake_integrity_kind;
    pub fn lake_error_expected(err: *const lake_error) -> u64;
    pub fn lake_error_observed(err: *const lake_error) -> u64;
    pub fn lake_error_retryable(err: *const lake_error) -> c_int;
    pub fn lake_error_pending_operation_id(err: *const lake_error) -> *const c_char;
    pub fn lake_error_free(err: *mut lake_error);
    pub fn lake_set_buffer_budget(bytes: u64, err: *mut *mut lake_error) -> lake_status;
    pub fn lake_cancel_token_new() -> *mut lake_cancel_token;
    pub fn lake_cancel_token_cancel(token: *mut lake_cancel_token);
    pub fn lake_cancel_token_is_cancelled(token: *const lake_cancel_token) -> c_int;
    pub fn lake_cancel_token_free(token: *mut lake_cancel_token);
    pub fn lake_location_from_json(
        json: *const c_char,
        len: usize,
        out: *mut *mut lake_location,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_location_new(
        uri: *const c_char,
        content_type: *const c_char,
        size_bytes: u64,
        sha256: *const c_char,
        out: *mut *mut lake_location,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_location_json(loc: *const lake_location) -> *const c_char;
    pub fn lake_location_uri(loc: *const lake_location) -> *const c_char;
    pub fn lake_location_content_type(loc: *const lake_location) -> *const c_char;
    pub fn lake_location_size_bytes(loc: *const lake_location) -> u64;
    pub fn lake_location_sha256(loc: *const lake_location) -> *const c_char;
    pub fn lake_location_free(loc: *mut lake_location);
    pub fn lake_stage_options_new() -> *mut lake_stage_options;
    pub fn lake_stage_options_set_local_root(
        opts: *mut lake_stage_options,
        dir: *const c_char,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_stage_options_set_tenant(
        opts: *mut lake_stage_options,
        tenant: *const c_char,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_stage_options_set_s3(
        opts: *mut lake_stage_options,
        stage_uri: *const c_char,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_stage_options_set_s3_endpoint(
        opts: *mut lake_stage_options,
        url: *const c_char,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_stage_options_set_s3_region(
        opts: *mut lake_stage_options,
        region: *const c_char,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_stage_options_set_s3_path_style(opts: *mut lake_stage_options, path_style: c_int);
    pub fn lake_stage_options_set_s3_concurrency(
        opts: *mut lake_stage_options,
        concurrency: u32,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_stage_options_set_s3_part_size(
        opts: *mut lake_stage_options,
        bytes: u64,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_stage_options_set_upload_checkpoint_dir(
        opts: *mut lake_stage_options,
        dir: *const c_char,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_stage_options_set_s3_download_streams(
        opts: *mut lake_stage_options,
        streams: u32,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_stage_options_set_s3_download_range_size(
        opts: *mut lake_stage_options,
        bytes: u64,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_stage_options_set_descriptor(
        opts: *mut lake_stage_options,
        json: *const c_char,
        len: usize,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_stage_options_set_host_store(
        opts: *mut lake_stage_options,
        store: *const lake_host_store,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_stage_options_set_host_id(
        opts: *mut lake_stage_options,
        host_id: *const c_char,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_stage_options_free(opts: *mut lake_stage_options);
    pub fn lake_stage_open(
        opts: *const lake_stage_options,
        out: *mut *mut lake_stage,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_stage_free(stage: *mut lake_stage);
    pub fn lake_stage_descriptor(stage: *const lake_stage) -> *const c_char;
    pub fn lake_stage_presign(
        stage: *mut lake_stage,
        loc: *const lake_location,
        ttl_seconds: u32,
        url: *mut *mut c_char,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_string_free(text: *mut c_char);
    pub fn lake_stage_io_backend(stage: *const lake_stage) -> *const c_char;
    pub fn lake_stage_clean_staging(
        stage: *mut lake_stage,
        removed: *mut u64,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_stage_list(
        stage: *mut lake_stage,
        emit: lake_list_fn,
        ctx: *mut c_void,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_stage_delete(
        stage: *mut lake_stage,
        loc: *const lake_location,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_db_open(
        dir: *const c_char,
        stage_opts: *const lake_stage_options,
        out: *mut *mut lake_db,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_db_stage(db: *mut lake_db) -> *mut lake_stage;
    pub fn lake_db_free(db: *mut lake_db);
    pub fn lake_db_pin(
        db: *mut lake_db,
        loc: *const lake_location,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_db_unpin(
        db: *mut lake_db,
        loc: *const lake_location,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_upload_options_new() -> *mut lake_upload_options;
    pub fn lake_upload_options_set_content_type(
        opts: *mut lake_upload_options,
        content_type: *const c_char,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_upload_options_set_cancel_token(
        opts: *mut lake_upload_options,
        token: *mut lake_cancel_token,
    );
    pub fn lake_upload_options_set_progress(
        opts: *mut lake_upload_options,
        fn_: lake_progress_fn,
        ctx: *mut c_void,
    );
    pub fn lake_upload_options_set_notice(
        opts: *mut lake_upload_options,
        fn_: lake_notice_fn,
        ctx: *mut c_void,
    );
    pub fn lake_upload_options_free(opts: *mut lake_upload_options);
    pub fn lake_stage_upload_path(
        stage: *mut lake_stage,
        path: *const c_char,
        opts: *const lake_upload_options,
        out: *mut *mut lake_location,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_stage_upload_reader(
        stage: *mut lake_stage,
        read: lake_read_fn,
        ctx: *mut c_void,
        opts: *const lake_upload_options,
        out: *mut *mut lake_location,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_writer_open(
        stage: *mut lake_stage,
        opts: *const lake_upload_options,
        out: *mut *mut lake_writer,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_writer_write(
        writer: *mut lake_writer,
        buf: *const c_void,
        len: usize,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_writer_close(
        writer: *mut lake_writer,
        out: *mut *mut lake_location,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_writer_free(writer: *mut lake_writer);
    pub fn lake_db_uploads_list(
        db: *mut lake_db,
        emit: lake_upload_info_fn,
        ctx: *mut c_void,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_db_uploads_resume(
        db: *mut lake_db,
        id: *const c_char,
        opts: *const lake_upload_options,
        out: *mut *mut lake_location,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_db_uploads_abort(
        db: *mut lake_db,
        id: *const c_char,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_reader_open(
        stage: *mut lake_stage,
        loc: *const lake_location,
        out: *mut *mut lake_reader,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_reader_open_range(
        stage: *mut lake_stage,
        loc: *const lake_location,
        start: u64,
        end: u64,
        out: *mut *mut lake_reader,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_reader_read(
        reader: *mut lake_reader,
        buf: *mut c_void,
        cap: usize,
        n: *mut usize,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_reader_read_view(
        reader: *mut lake_reader,
        data: *mut *const c_void,
        max_len: usize,
        n: *mut usize,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_reader_verified(reader: *const lake_reader) -> c_int;
    pub fn lake_reader_close(reader: *mut lake_reader, err: *mut *mut lake_error) -> lake_status;
    pub fn lake_reader_free(reader: *mut lake_reader);
    pub fn lake_stage_read_ranges(
        stage: *mut lake_stage,
        ranges: *mut lake_range,
        count: usize,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_db_open_follower(
        dir: *const c_char,
        max_staleness_ms: u32,
        out: *mut *mut lake_db,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_db_view_age_micros(db: *mut lake_db) -> i64;
    pub fn lake_db_set_busy_timeout(
        db: *mut lake_db,
        busy_timeout_ms: u32,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_table_create(
        db: *mut lake_db,
        table: *const c_char,
        columns: *const *const c_char,
        column_count: usize,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_table_list(
        db: *mut lake_db,
        json_out: *mut *mut c_char,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_table_describe(
        db: *mut lake_db,
        table: *const c_char,
        json_out: *mut *mut c_char,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_table_versions(
        db: *mut lake_db,
        table: *const c_char,
        json_out: *mut *mut c_char,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_table_compact(
        db: *mut lake_db,
        table: *const c_char,
        version_out: *mut u64,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_table_compact_segments(
        db: *mut lake_db,
        table: *const c_char,
        json_out: *mut *mut c_char,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_table_drop(
        db: *mut lake_db,
        table: *const c_char,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_table_tag(
        db: *mut lake_db,
        table: *const c_char,
        tag: *const c_char,
        version: u64,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_table_untag(
        db: *mut lake_db,
        table: *const c_char,
        tag: *const c_char,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_table_expire(
        db: *mut lake_db,
        table: *const c_char,
        keep_last: u64,
        older_than_seconds: i64,
        json_out: *mut *mut c_char,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_db_prepare(
        db: *mut lake_db,
        sql: *const c_char,
        out: *mut *mut lake_statement,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_statement_parameter_count(stmt: *const lake_statement) -> usize;
    pub fn lake_statement_bind_null(
        stmt: *mut lake_statement,
        index: usize,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_statement_bind_int64(
        stmt: *mut lake_statement,
        index: usize,
        value: i64,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_statement_bind_float64(
        stmt: *mut lake_statement,
        index: usize,
        value: f64,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_statement_bind_bool(
        stmt: *mut lake_statement,
        index: usize,
        value: c_int,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_statement_bind_utf8(
        stmt: *mut lake_statement,
        index: usize,
        text: *const c_char,
        len: usize,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_statement_bind_binary(
        stmt: *mut lake_statement,
        index: usize,
        bytes: *const c_void,
        len: usize,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_statement_bind_timestamp_micros(
        stmt: *mut lake_statement,
        index: usize,
        micros: i64,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_statement_bind_text(
        stmt: *mut lake_statement,
        index: usize,
        text: *const c_char,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_statement_bind_file_path(
        stmt: *mut lake_statement,
        index: usize,
        path: *const c_char,
        content_type: *const c_char,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_statement_bind_file_reader(
        stmt: *mut lake_statement,
        index: usize,
        read: lake_read_fn,
        read_ctx: *mut c_void,
        content_type: *const c_char,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_statement_bind_location(
        stmt: *mut lake_statement,
        index: usize,
        loc: *const lake_location,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_statement_insert(
        stmt: *mut lake_statement,
        opts: *const lake_upload_options,
        version_out: *mut u64,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_statement_query(
        stmt: *mut lake_statement,
        out: *mut ArrowArrayStream,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_statement_execute(
        stmt: *mut lake_statement,
        version_out: *mut u64,
        rows_out: *mut u64,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_statement_changes(
        stmt: *const lake_statement,
        deleted_out: *mut u64,
        inserted_out: *mut u64,
    );
    pub fn lake_statement_free(stmt: *mut lake_statement);
    pub fn lake_location_from_arrow(
        schema: *const ArrowSchema,
        batch: *const ArrowArray,
        column: i64,
        row: i64,
        out: *mut *mut lake_location,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_db_pending_appends(
        db: *mut lake_db,
        json_out: *mut *mut c_char,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_db_recover(
        db: *mut lake_db,
        json_out: *mut *mut c_char,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_db_discard_append(
        db: *mut lake_db,
        operation_id: *const c_char,
        path_out: *mut *mut c_char,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_gc_options_new() -> *mut lake_gc_options;
    pub fn lake_gc_options_set_cutoff_seconds(opts: *mut lake_gc_options, seconds: u64);
    pub fn lake_gc_options_set_allow_short_cutoff(opts: *mut lake_gc_options, allow: c_int);
    pub fn lake_gc_options_set_memory_budget(
        opts: *mut lake_gc_options,
        bytes: u64,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_gc_options_set_temp_dir(
        opts: *mut lake_gc_options,
        dir: *const c_char,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_gc_options_set_progress(
        opts: *mut lake_gc_options,
        fn_: lake_gc_progress_fn,
        ctx: *mut c_void,
    );
    pub fn lake_gc_options_set_cancel_token(
        opts: *mut lake_gc_options,
        token: *mut lake_cancel_token,
    );
    pub fn lake_gc_options_set_max_deletes_per_second(opts: *mut lake_gc_options, per_second: u64);
    pub fn lake_gc_options_free(opts: *mut lake_gc_options);
    pub fn lake_gc_plan(
        db: *mut lake_db,
        opts: *const lake_gc_options,
        json_out: *mut *mut c_char,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_gc_show(
        db: *mut lake_db,
        plan_id: *const c_char,
        emit: lake_gc_candidate_fn,
        ctx: *mut c_void,
        json_out: *mut *mut c_char,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_gc_status(
        db: *mut lake_db,
        plan_id: *const c_char,
        json_out: *mut *mut c_char,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_gc_apply(
        db: *mut lake_db,
        plan_id: *const c_char,
        opts: *const lake_gc_options,
        json_out: *mut *mut c_char,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_gc_verify(
        db: *mut lake_db,
        deep: c_int,
        opts: *const lake_gc_options,
        emit: lake_gc_problem_fn,
        ctx: *mut c_void,
        json_out: *mut *mut c_char,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_experiment_create(
        db: *mut lake_db,
        pipeline: *const c_char,
        experiment: *const c_char,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_experiment_delete(
        db: *mut lake_db,
        pipeline: *const c_char,
        experiment: *const c_char,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_experiment_list(
        db: *mut lake_db,
        pipeline: *const c_char,
        json_out: *mut *mut c_char,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_experiment_describe(
        db: *mut lake_db,
        pipeline: *const c_char,
        experiment: *const c_char,
        json_out: *mut *mut c_char,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_experiment_compact(
        db: *mut lake_db,
        pipeline: *const c_char,
        experiment: *const c_char,
        json_out: *mut *mut c_char,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_event_log_open(
        db: *mut lake_db,
        pipeline: *const c_char,
        experiment: *const c_char,
        writable: c_int,
        out: *mut *mut lake_event_log,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_event_log_refresh(
        log: *mut lake_event_log,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_event_log_free(log: *mut lake_event_log);
    pub fn lake_event_log_append_jsonl(
        log: *mut lake_event_log,
        jsonl: *const c_char,
        len: usize,
        appended_out: *mut u64,
        duplicates_out: *mut u64,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_event_writer_open(
        log: *mut lake_event_log,
        item_id: *const c_char,
        writer_epoch: *const c_char,
        created_by: *const lake_step,
        out: *mut *mut lake_event_writer,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_event_writer_resume(
        log: *mut lake_event_log,
        item_id: *const c_char,
        writer_epoch: *const c_char,
        out: *mut *mut lake_event_writer,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_event_writer_step_started(
        w: *mut lake_event_writer,
        step: *const lake_step,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_event_writer_step_completed(
        w: *mut lake_event_writer,
        step: *const lake_step,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_event_writer_field_set(
        w: *mut lake_event_writer,
        field: *const c_char,
        value: *const lake_value,
        step: *const lake_step,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_event_writer_field_append(
        w: *mut lake_event_writer,
        field: *const c_char,
        value: *const lake_value,
        step: *const lake_step,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_event_writer_terminal(
        w: *mut lake_event_writer,
        filtered: c_int,
        step: *const lake_step,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_event_writer_failed(
        w: *mut lake_event_writer,
        error_type: *const c_char,
        error_dump: *const c_char,
        traceback: *const c_char,
        step: *const lake_step,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_event_writer_commit(
        w: *mut lake_event_writer,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_event_writer_attempt(w: *const lake_event_writer) -> u32;
    pub fn lake_event_writer_free(w: *mut lake_event_writer);
    pub fn lake_event_log_fold(
        log: *mut lake_event_log,
        item_id: *const c_char,
        out: *mut *mut lake_folded_item,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_folded_item_json(item: *const lake_folded_item) -> *const c_char;
    pub fn lake_folded_item_status(item: *const lake_folded_item) -> *const c_char;
    pub fn lake_folded_item_last_attempt(item: *const lake_folded_item) -> u32;
    pub fn lake_folded_item_next_item_seq(item: *const lake_folded_item) -> u64;
    pub fn lake_folded_item_value_count(
        item: *const lake_folded_item,
        field: *const c_char,
    ) -> usize;
    pub fn lake_folded_item_value(
        item: *const lake_folded_item,
        field: *const c_char,
        index: usize,
        out: *mut lake_value,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_folded_item_open_blob(
        log: *mut lake_event_log,
        item: *const lake_folded_item,
        field: *const c_char,
        index: usize,
        out: *mut *mut lake_reader,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_folded_item_free(item: *mut lake_folded_item);
    pub fn lake_event_log_tree(
        log: *mut lake_event_log,
        root_item_id: *const c_char,
        json_out: *mut *mut c_char,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_event_log_roots(
        log: *mut lake_event_log,
        json_out: *mut *mut c_char,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_event_log_failures(
        log: *mut lake_event_log,
        json_out: *mut *mut c_char,
        err: *mut *mut lake_error,
    ) -> lake_status;
    pub fn lake_event_log_events(
        log: *mut lake_event_log,
        root_item_id: *const c_char,
        jsonl_out: *mut *mut c_char,
        err: *mut *mut lake_error,
    ) -> lake_status;
}
