'use strict';
// The C ABI of lake.h as koffi declarations, and the library loaded once.
//
// Every LAKE_API function of include/lake.h is declared in PROTOTYPES below,
// in lake.h's order (scripts/lib/check_bindings.py checks none is missing).
// Conventions of the declarations: out-parameters are `_Out_`; a `char**`
// result (freed by lake_string_free) is taken as `void**`, so the binding
// keeps the pointer to free it; callbacks are pointers to the prototypes of
// lake.h's *_fn types. The library is $LAKE_LIBRARY (a path to liblake.so),
// else liblake.so.1 on the loader's path. Loading checks lake_abi_version()
// against ABI_VERSION before anything else is called: a mismatch throws
// AbiVersionError, and no handle can exist.
const koffi = require('koffi');

// LAKE_ABI_VERSION of the lake.h these declarations follow.
const ABI_VERSION = 1;

class AbiVersionError extends Error {
  constructor(message) {
    super(message);
    this.name = 'AbiVersionError';
  }
}

// ---- types of lake.h (frozen layouts) ----
for (const name of ['lake_status', 'lake_integrity_kind', 'lake_value_kind']) {
  koffi.alias(name, 'int');
}
for (const name of ['lake_error', 'lake_cancel_token', 'lake_location', 'lake_stage_options',
  'lake_stage', 'lake_db', 'lake_upload_options', 'lake_writer', 'lake_reader',
  'lake_statement', 'lake_gc_options', 'lake_event_log', 'lake_event_writer',
  'lake_folded_item']) {
  koffi.opaque(name);
}
const types = {};
types.ListEntry = koffi.struct('lake_list_entry', {
  uri: 'const char*', size_bytes: 'uint64_t', modified_unix_micros: 'int64_t',
});
types.Range = koffi.struct('lake_range', {
  location: 'void*', start: 'uint64_t', end: 'uint64_t', buffer: 'void*',
  status: 'int', bytes_read: 'uint64_t', error: 'void*',
});
types.Step = koffi.struct('lake_step', {
  name: 'const char*', index: 'int64_t', kind: 'const char*',
  enclosing_step: 'const char*', selector_step: 'const char*',
});
types.Value = koffi.struct('lake_value', {
  kind: 'int', i64: 'int64_t', f64: 'double', boolean: 'int', bytes: 'void*', len: 'size_t',
});
types.UploadInfo = koffi.struct('lake_upload_info', {
  id: 'const char*', source_path: 'const char*', uri: 'const char*', parts_done: 'uint64_t',
  bytes_done: 'uint64_t', size_bytes: 'uint64_t', part_bytes: 'uint64_t',
  updated_unix_micros: 'int64_t', stale: 'int', locked: 'int', error: 'const char*',
});
types.GcCandidate = koffi.struct('lake_gc_candidate', {
  uri: 'const char*', kind: 'const char*', size_bytes: 'uint64_t',
  modified_unix_micros: 'int64_t', tenant: 'const char*',
});
types.GcProblem = koffi.struct('lake_gc_problem', {
  uri: 'const char*', problem: 'const char*', expected_size: 'uint64_t',
  observed_size: 'uint64_t', message: 'const char*', referrers: 'void*',
  referrer_count: 'size_t', more_referrers: 'uint64_t',
});
types.ArrowSchema = koffi.struct('ArrowSchema', {
  format: 'const char*', name: 'const char*', metadata: 'void*', flags: 'int64_t',
  n_children: 'int64_t', children: 'void*', dictionary: 'void*', release: 'void*',
  private_data: 'void*',
});
types.ArrowArray = koffi.struct('ArrowArray', {
  length: 'int64_t', null_count: 'int64_t', offset: 'int64_t', n_buffers: 'int64_t',
  n_children: 'int64_t', buffers: 'void*', children: 'void*', dictionary: 'void*',
  release: 'void*', private_data: 'void*',
});
types.ArrowArrayStream = koffi.struct('ArrowArrayStream', {
  get_schema: 'void*', get_next: 'void*', get_last_error: 'void*', release: 'void*',
  private_data: 'void*',
});
// The Arrow stream's callbacks, called through the pointers it holds.
types.arrowGetSchema = koffi.proto('int arrow_get_schema(void* stream, void* out)');
types.arrowGetNext = koffi.proto('int arrow_get_next(void* stream, void* out)');
types.arrowGetLastError = koffi.proto('const char* arrow_get_last_error(void* stream)');
types.arrowRelease = koffi.proto('void arrow_release(void* self)');

// ---- callback types of lake.h ----
types.progress = koffi.proto('void lake_progress_fn(void* ctx, uint64_t done_bytes, uint64_t total_bytes)');
types.read = koffi.proto('int64_t lake_read_fn(void* ctx, void* buf, size_t cap)');
types.list = koffi.proto('int lake_list_fn(void* ctx, const lake_list_entry* entry)');
types.notice = koffi.proto('void lake_notice_fn(void* ctx, const char* line)');
types.uploadInfo = koffi.proto('int lake_upload_info_fn(void* ctx, const lake_upload_info* info)');
types.gcProgress = koffi.proto('void lake_gc_progress_fn(void* ctx, const char* phase, uint64_t done, uint64_t total)');
types.gcCandidate = koffi.proto('int lake_gc_candidate_fn(void* ctx, const lake_gc_candidate* candidate)');
types.gcProblem = koffi.proto('int lake_gc_problem_fn(void* ctx, const lake_gc_problem* problem)');
// lake_host_store's members.
types.hostUpload = koffi.proto('int lake_host_upload_fn(void* ctx, const char* uri, const char* content_type, void* read, void* read_ctx, void* message, size_t message_cap)');
types.hostOpenStream = koffi.proto('int lake_host_open_stream_fn(void* ctx, const char* uri, uint64_t start, void* stream, void* message, size_t message_cap)');
types.hostReadStream = koffi.proto('int lake_host_read_stream_fn(void* ctx, void* stream, void* buf, size_t cap, void* n, void* message, size_t message_cap)');
types.hostCloseStream = koffi.proto('void lake_host_close_stream_fn(void* ctx, void* stream)');
types.hostList = koffi.proto('int lake_host_list_fn(void* ctx, const char* prefix_uri, void* emit, void* emit_ctx, void* message, size_t message_cap)');
types.hostRemove = koffi.proto('int lake_host_remove_fn(void* ctx, const char* uri, void* message, size_t message_cap)');
types.hostDestroy = koffi.proto('void lake_host_destroy_fn(void* ctx)');
types.HostStore = koffi.struct('lake_host_store', {
  version: 'int', ctx: 'void*', root_uri: 'const char*',
  upload: 'lake_host_upload_fn*', open_stream: 'lake_host_open_stream_fn*',
  read_stream: 'lake_host_read_stream_fn*', close_stream: 'lake_host_close_stream_fn*',
  list: 'lake_host_list_fn*', remove: 'lake_host_remove_fn*',
  destroy: 'lake_host_destroy_fn*',
});

// Every LAKE_API function of lake.h, in its order.
const PROTOTYPES = [
  'uint32_t lake_abi_version()',
  'const char* lake_version_string()',
  'const char* lake_status_name(lake_status status)',
  'const char* lake_integrity_kind_name(lake_integrity_kind kind)',
  'lake_status lake_error_code(const lake_error* err)',
  'const char* lake_error_message(const lake_error* err)',
  'lake_integrity_kind lake_error_integrity_kind(const lake_error* err)',
  'uint64_t lake_error_expected(const lake_error* err)',
  'uint64_t lake_error_observed(const lake_error* err)',
  'int lake_error_retryable(const lake_error* err)',
  'const char* lake_error_pending_operation_id(const lake_error* err)',
  'void lake_error_free(lake_error* err)',
  'lake_status lake_set_buffer_budget(uint64_t bytes, _Out_ lake_error** err)',
  'lake_cancel_token* lake_cancel_token_new()',
  'void lake_cancel_token_cancel(lake_cancel_token* token)',
  'int lake_cancel_token_is_cancelled(const lake_cancel_token* token)',
  'void lake_cancel_token_free(lake_cancel_token* token)',
  'lake_status lake_location_from_json(const char* json, size_t len, _Out_ lake_location** out, _Out_ lake_error** err)',
  'lake_status lake_location_new(const char* uri, const char* content_type, uint64_t size_bytes, const char* sha256, _Out_ lake_location** out, _Out_ lake_error** err)',
  'const char* lake_location_json(const lake_location* loc)',
  'const char* lake_location_uri(const lake_location* loc)',
  'const char* lake_location_content_type(const lake_location* loc)',
  'uint64_t lake_location_size_bytes(const lake_location* loc)',
  'const char* lake_location_sha256(const lake_location* loc)',
  'void lake_location_free(lake_location* loc)',
  'lake_stage_options* lake_stage_options_new()',
  'lake_status lake_stage_options_set_local_root(lake_stage_options* opts, const char* dir, _Out_ lake_error** err)',
  'lake_status lake_stage_options_set_tenant(lake_stage_options* opts, const char* tenant, _Out_ lake_error** err)',
  'lake_status lake_stage_options_set_s3(lake_stage_options* opts, const char* stage_uri, _Out_ lake_error** err)',
  'lake_status lake_stage_options_set_s3_endpoint(lake_stage_options* opts, const char* url, _Out_ lake_error** err)',
  'lake_status lake_stage_options_set_s3_region(lake_stage_options* opts, const char* region, _Out_ lake_error** err)',
  'void lake_stage_options_set_s3_path_style(lake_stage_options* opts, int path_style)',
  'lake_status lake_stage_options_set_s3_concurrency(lake_stage_options* opts, uint32_t concurrency, _Out_ lake_error** err)',
  'lake_status lake_stage_options_set_s3_part_size(lake_stage_options* opts, uint64_t bytes, _Out_ lake_error** err)',
  'lake_status lake_stage_options_set_upload_checkpoint_dir(lake_stage_options* opts, const char* dir, _Out_ lake_error** err)',
  'lake_status lake_stage_options_set_s3_download_streams(lake_stage_options* opts, uint32_t streams, _Out_ lake_error** err)',
  'lake_status lake_stage_options_set_s3_download_range_size(lake_stage_options* opts, uint64_t bytes, _Out_ lake_error** err)',
  'lake_status lake_stage_options_set_descriptor(lake_stage_options* opts, const char* json, size_t len, _Out_ lake_error** err)',
  'lake_status lake_stage_options_set_host_store(lake_stage_options* opts, const lake_host_store* store, _Out_ lake_error** err)',
  'lake_status lake_stage_options_set_host_id(lake_stage_options* opts, const char* host_id, _Out_ lake_error** err)',
  'void lake_stage_options_free(lake_stage_options* opts)',
  'lake_status lake_stage_open(const lake_stage_options* opts, _Out_ lake_stage** out, _Out_ lake_error** err)',
  'void lake_stage_free(lake_stage* stage)',
  'const char* lake_stage_descriptor(const lake_stage* stage)',
  'lake_status lake_stage_presign(lake_stage* stage, const lake_location* loc, uint32_t ttl_seconds, _Out_ void** url, _Out_ lake_error** err)',
  'void lake_string_free(void* text)',
  'const char* lake_stage_io_backend(const lake_stage* stage)',
  'lake_status lake_stage_clean_staging(lake_stage* stage, _Out_ uint64_t* removed, _Out_ lake_error** err)',
  'lake_status lake_stage_list(lake_stage* stage, lake_list_fn* emit, void* ctx, _Out_ lake_error** err)',
  'lake_status lake_stage_delete(lake_stage* stage, const lake_location* loc, _Out_ lake_error** err)',
  'lake_status lake_db_open(const char* dir, const lake_stage_options* stage_opts, _Out_ lake_db** out, _Out_ lake_error** err)',
  'lake_stage* lake_db_stage(lake_db* db)',
  'void lake_db_free(lake_db* db)',
  'lake_status lake_db_pin(lake_db* db, const lake_location* loc, _Out_ lake_error** err)',
  'lake_status lake_db_unpin(lake_db* db, const lake_location* loc, _Out_ lake_error** err)',
  'lake_upload_options* lake_upload_options_new()',
  'lake_status lake_upload_options_set_content_type(lake_upload_options* opts, const char* content_type, _Out_ lake_error** err)',
  'void lake_upload_options_set_cancel_token(lake_upload_options* opts, lake_cancel_token* token)',
  'void lake_upload_options_set_progress(lake_upload_options* opts, lake_progress_fn* fn, void* ctx)',
  'void lake_upload_options_set_notice(lake_upload_options* opts, lake_notice_fn* fn, void* ctx)',
  'void lake_upload_options_free(lake_upload_options* opts)',
  'lake_status lake_stage_upload_path(lake_stage* stage, const char* path, const lake_upload_options* opts, _Out_ lake_location** out, _Out_ lake_error** err)',
  'lake_status lake_stage_upload_reader(lake_stage* stage, lake_read_fn* read, void* ctx, const lake_upload_options* opts, _Out_ lake_location** out, _Out_ lake_error** err)',
  'lake_status lake_writer_open(lake_stage* stage, const lake_upload_options* opts, _Out_ lake_writer** out, _Out_ lake_error** err)',
  'lake_status lake_writer_write(lake_writer* writer, const void* buf, size_t len, _Out_ lake_error** err)',
  'lake_status lake_writer_close(lake_writer* writer, _Out_ lake_location** out, _Out_ lake_error** err)',
  'void lake_writer_free(lake_writer* writer)',
  'lake_status lake_db_uploads_list(lake_db* db, lake_upload_info_fn* emit, void* ctx, _Out_ lake_error** err)',
  'lake_status lake_db_uploads_resume(lake_db* db, const char* id, const lake_upload_options* opts, _Out_ lake_location** out, _Out_ lake_error** err)',
  'lake_status lake_db_uploads_abort(lake_db* db, const char* id, _Out_ lake_error** err)',
  'lake_status lake_reader_open(lake_stage* stage, const lake_location* loc, _Out_ lake_reader** out, _Out_ lake_error** err)',
  'lake_status lake_reader_open_range(lake_stage* stage, const lake_location* loc, uint64_t start, uint64_t end, _Out_ lake_reader** out, _Out_ lake_error** err)',
  'lake_status lake_reader_read(lake_reader* reader, void* buf, size_t cap, _Out_ size_t* n, _Out_ lake_error** err)',
  'lake_status lake_reader_read_view(lake_reader* reader, _Out_ void** data, size_t max_len, _Out_ size_t* n, _Out_ lake_error** err)',
  'int lake_reader_verified(const lake_reader* reader)',
  'lake_status lake_reader_close(lake_reader* reader, _Out_ lake_error** err)',
  'void lake_reader_free(lake_reader* reader)',
  'lake_status lake_stage_read_ranges(lake_stage* stage, lake_range* ranges, size_t count, _Out_ lake_error** err)',
  'lake_status lake_db_open_follower(const char* dir, uint32_t max_staleness_ms, _Out_ lake_db** out, _Out_ lake_error** err)',
  'int64_t lake_db_view_age_micros(lake_db* db)',
  'lake_status lake_db_set_busy_timeout(lake_db* db, uint32_t busy_timeout_ms, _Out_ lake_error** err)',
  'lake_status lake_table_create(lake_db* db, const char* table, const char** columns, size_t column_count, _Out_ lake_error** err)',
  'lake_status lake_table_list(lake_db* db, _Out_ void** json_out, _Out_ lake_error** err)',
  'lake_status lake_table_describe(lake_db* db, const char* table, _Out_ void** json_out, _Out_ lake_error** err)',
  'lake_status lake_table_versions(lake_db* db, const char* table, _Out_ void** json_out, _Out_ lake_error** err)',
  'lake_status lake_table_compact(lake_db* db, const char* table, _Out_ uint64_t* version_out, _Out_ lake_error** err)',
  'lake_status lake_table_compact_segments(lake_db* db, const char* table, _Out_ void** json_out, _Out_ lake_error** err)',
  'lake_status lake_table_drop(lake_db* db, const char* table, _Out_ lake_error** err)',
  'lake_status lake_table_tag(lake_db* db, const char* table, const char* tag, uint64_t version, _Out_ lake_error** err)',
  'lake_status lake_table_untag(lake_db* db, const char* table, const char* tag, _Out_ lake_error** err)',
  'lake_status lake_table_expire(lake_db* db, const char* table, uint64_t keep_last, int64_t older_than_seconds, _Out_ void** json_out, _Out_ lake_error** err)',
  'lake_status lake_db_prepare(lake_db* db, const char* sql, _Out_ lake_statement** out, _Out_ lake_error** err)',
  'size_t lake_statement_parameter_count(const lake_statement* stmt)',
  'lake_status lake_statement_bind_null(lake_statement* stmt, size_t index, _Out_ lake_error** err)',
  'lake_status lake_statement_bind_int64(lake_statement* stmt, size_t index, int64_t value, _Out_ lake_error** err)',
  'lake_status lake_statement_bind_float64(lake_statement* stmt, size_t index, double value, _Out_ lake_error** err)',
  'lake_status lake_statement_bind_bool(lake_statement* stmt, size_t index, int value, _Out_ lake_error** err)',
  'lake_status lake_statement_bind_utf8(lake_statement* stmt, size_t index, const char* text, size_t len, _Out_ lake_error** err)',
  'lake_status lake_statement_bind_binary(lake_statement* stmt, size_t index, const void* bytes, size_t len, _Out_ lake_error** err)',
  'lake_status lake_statement_bind_timestamp_micros(lake_statement* stmt, size_t index, int64_t micros, _Out_ lake_error** err)',
  'lake_status lake_statement_bind_text(lake_statement* stmt, size_t index, const char* text, _Out_ lake_error** err)',
  'lake_status lake_statement_bind_file_path(lake_statement* stmt, size_t index, const char* path, const char* content_type, _Out_ lake_error** err)',
  'lake_status lake_statement_bind_file_reader(lake_statement* stmt, size_t index, lake_read_fn* read, void* read_ctx, const char* content_type, _Out_ lake_error** err)',
  'lake_status lake_statement_bind_location(lake_statement* stmt, size_t index, const lake_location* loc, _Out_ lake_error** err)',
  'lake_status lake_statement_insert(lake_statement* stmt, const lake_upload_options* opts, _Out_ uint64_t* version_out, _Out_ lake_error** err)',
  'lake_status lake_statement_query(lake_statement* stmt, ArrowArrayStream* out, _Out_ lake_error** err)',
  'lake_status lake_statement_execute(lake_statement* stmt, _Out_ uint64_t* version_out, _Out_ uint64_t* rows_out, _Out_ lake_error** err)',
  'void lake_statement_changes(const lake_statement* stmt, _Out_ uint64_t* deleted_out, _Out_ uint64_t* inserted_out)',
  'void lake_statement_free(lake_statement* stmt)',
  'lake_status lake_location_from_arrow(const ArrowSchema* schema, const ArrowArray* batch, int64_t column, int64_t row, _Out_ lake_location** out, _Out_ lake_error** err)',
  'lake_status lake_db_pending_appends(lake_db* db, _Out_ void** json_out, _Out_ lake_error** err)',
  'lake_status lake_db_recover(lake_db* db, _Out_ void** json_out, _Out_ lake_error** err)',
  'lake_status lake_db_discard_append(lake_db* db, const char* operation_id, _Out_ void** path_out, _Out_ lake_error** err)',
  'lake_gc_options* lake_gc_options_new()',
  'void lake_gc_options_set_cutoff_seconds(lake_gc_options* opts, uint64_t seconds)',
  'void lake_gc_options_set_allow_short_cutoff(lake_gc_options* opts, int allow)',
  'lake_status lake_gc_options_set_memory_budget(lake_gc_options* opts, uint64_t bytes, _Out_ lake_error** err)',
  'lake_status lake_gc_options_set_temp_dir(lake_gc_options* opts, const char* dir, _Out_ lake_error** err)',
  'void lake_gc_options_set_progress(lake_gc_options* opts, lake_gc_progress_fn* fn, void* ctx)',
  'void lake_gc_options_set_cancel_token(lake_gc_options* opts, lake_cancel_token* token)',
  'void lake_gc_options_set_max_deletes_per_second(lake_gc_options* opts, uint64_t per_second)',
  'void lake_gc_options_free(lake_gc_options* opts)',
  'lake_status lake_gc_plan(lake_db* db, const lake_gc_options* opts, _Out_ void** json_out, _Out_ lake_error** err)',
  'lake_status lake_gc_show(lake_db* db, const char* plan_id, lake_gc_candidate_fn* emit, void* ctx, _Out_ void** json_out, _Out_ lake_error** err)',
  'lake_status lake_gc_status(lake_db* db, const char* plan_id, _Out_ void** json_out, _Out_ lake_error** err)',
  'lake_status lake_gc_apply(lake_db* db, const char* plan_id, const lake_gc_options* opts, _Out_ void** json_out, _Out_ lake_error** err)',
  'lake_status lake_gc_verify(lake_db* db, int deep, const lake_gc_options* opts, lake_gc_problem_fn* emit, void* ctx, _Out_ void** json_out, _Out_ lake_error** err)',
  'lake_status lake_experiment_create(lake_db* db, const char* pipeline, const char* experiment, _Out_ lake_error** err)',
  'lake_status lake_experiment_delete(lake_db* db, const char* pipeline, const char* experiment, _Out_ lake_error** err)',
  'lake_status lake_experiment_list(lake_db* db, const char* pipeline, _Out_ void** json_out, _Out_ lake_error** err)',
  'lake_status lake_experiment_describe(lake_db* db, const char* pipeline, const char* experiment, _Out_ void** json_out, _Out_ lake_error** err)',
  'lake_status lake_experiment_compact(lake_db* db, const char* pipeline, const char* experiment, _Out_ void** json_out, _Out_ lake_error** err)',
  'lake_status lake_event_log_open(lake_db* db, const char* pipeline, const char* experiment, int writable, _Out_ lake_event_log** out, _Out_ lake_error** err)',
  'lake_status lake_event_log_refresh(lake_event_log* log, _Out_ lake_error** err)',
  'void lake_event_log_free(lake_event_log* log)',
  'lake_status lake_event_log_append_jsonl(lake_event_log* log, const char* jsonl, size_t len, _Out_ uint64_t* appended_out, _Out_ uint64_t* duplicates_out, _Out_ lake_error** err)',
  'lake_status lake_event_writer_open(lake_event_log* log, const char* item_id, const char* writer_epoch, const lake_step* created_by, _Out_ lake_event_writer** out, _Out_ lake_error** err)',
  'lake_status lake_event_writer_resume(lake_event_log* log, const char* item_id, const char* writer_epoch, _Out_ lake_event_writer** out, _Out_ lake_error** err)',
  'lake_status lake_event_writer_step_started(lake_event_writer* w, const lake_step* step, _Out_ lake_error** err)',
  'lake_status lake_event_writer_step_completed(lake_event_writer* w, const lake_step* step, _Out_ lake_error** err)',
  'lake_status lake_event_writer_field_set(lake_event_writer* w, const char* field, const lake_value* value, const lake_step* step, _Out_ lake_error** err)',
  'lake_status lake_event_writer_field_append(lake_event_writer* w, const char* field, const lake_value* value, const lake_step* step, _Out_ lake_error** err)',
  'lake_status lake_event_writer_terminal(lake_event_writer* w, int filtered, const lake_step* step, _Out_ lake_error** err)',
  'lake_status lake_event_writer_failed(lake_event_writer* w, const char* error_type, const char* error_dump, const char* traceback, const lake_step* step, _Out_ lake_error** err)',
  'lake_status lake_event_writer_commit(lake_event_writer* w, _Out_ lake_error** err)',
  'uint32_t lake_event_writer_attempt(const lake_event_writer* w)',
  'void lake_event_writer_free(lake_event_writer* w)',
  'lake_status lake_event_log_fold(lake_event_log* log, const char* item_id, _Out_ lake_folded_item** out, _Out_ lake_error** err)',
  'const char* lake_folded_item_json(const lake_folded_item* item)',
  'const char* lake_folded_item_status(const lake_folded_item* item)',
  'uint32_t lake_folded_item_last_attempt(const lake_folded_item* item)',
  'uint64_t lake_folded_item_next_item_seq(const lake_folded_item* item)',
  'size_t lake_folded_item_value_count(const lake_folded_item* item, const char* field)',
  'lake_status lake_folded_item_value(const lake_folded_item* item, const char* field, size_t index, _Out_ lake_value* out, _Out_ lake_error** err)',
  'lake_status lake_folded_item_open_blob(lake_event_log* log, const lake_folded_item* item, const char* field, size_t index, _Out_ lake_reader** out, _Out_ lake_error** err)',
  'void lake_folded_item_free(lake_folded_item* item)',
  'lake_status lake_event_log_tree(lake_event_log* log, const char* root_item_id, _Out_ void** json_out, _Out_ lake_error** err)',
  'lake_status lake_event_log_roots(lake_event_log* log, _Out_ void** json_out, _Out_ lake_error** err)',
  'lake_status lake_event_log_failures(lake_event_log* log, _Out_ void** json_out, _Out_ lake_error** err)',
  'lake_status lake_event_log_events(lake_event_log* log, const char* root_item_id, _Out_ void** jsonl_out, _Out_ lake_error** err)',
];

function functionName(prototype) {
  return /\b(lake_\w+)\(/.exec(prototype)[1];
}

let loaded = null;

// The library with every function declared, loaded and ABI-checked once.
function lib() {
  if (loaded === null) {
    const path = process.env.LAKE_LIBRARY || 'liblake.so.1';
    const library = koffi.load(path);
    const abiVersion = library.func('uint32_t lake_abi_version(void)')();
    if (abiVersion !== ABI_VERSION) {
      library.unload();
      throw new AbiVersionError(
        `${path} implements lake ABI ${abiVersion}; this binding needs ABI ${ABI_VERSION}`);
    }
    const functions = {};
    for (const prototype of PROTOTYPES) {
      functions[functionName(prototype)] = library.func(prototype);
    }
    loaded = functions;
  }
  return loaded;
}

module.exports = { ABI_VERSION, AbiVersionError, PROTOTYPES, functionName, koffi, lib, types };
