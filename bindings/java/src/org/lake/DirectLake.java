package org.lake;

import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.LongByReference;
import com.sun.jna.ptr.PointerByReference;

/**
 * {@link LakeNative} through JNA's direct mapping: each method calls a
 * static native method JNA binds to the library's symbol, several times
 * cheaper than the interface mapping's proxy (which marshals every call
 * reflectively). Same types and semantics as {@link LakeNative}, which
 * stays the binding's one declaration of the ABI (tests swap it for a
 * proxy). The one function direct mapping cannot take (a String[]
 * argument: lake_table_create) goes through the interface mapping.
 *
 * <p>Written mechanically from LakeNative's declarations: one native and
 * one forwarding method per function.
 */
final class DirectLake implements LakeNative {
    private final LakeNative mapped;

    DirectLake(NativeLibrary library, LakeNative mapped) {
        Native.register(Natives.class, library);
        this.mapped = mapped;
    }

    /** The direct-mapped functions (registered by the constructor). */
    private static final class Natives {
        private Natives() {}

        static native int lake_abi_version();
        static native String lake_version_string();
        static native String lake_status_name(int status);
        static native String lake_integrity_kind_name(int kind);
        static native int lake_error_code(Pointer err);
        static native String lake_error_message(Pointer err);
        static native int lake_error_integrity_kind(Pointer err);
        static native long lake_error_expected(Pointer err);
        static native long lake_error_observed(Pointer err);
        static native int lake_error_retryable(Pointer err);
        static native String lake_error_pending_operation_id(Pointer err);
        static native void lake_error_free(Pointer err);
        static native int lake_set_buffer_budget(long bytes, PointerByReference err);
        static native Pointer lake_cancel_token_new();
        static native void lake_cancel_token_cancel(Pointer token);
        static native int lake_cancel_token_is_cancelled(Pointer token);
        static native void lake_cancel_token_free(Pointer token);
        static native int lake_location_from_json(String json, long len, PointerByReference out, PointerByReference err);
        static native int lake_location_new(String uri, String contentType, long sizeBytes, String sha256, PointerByReference out, PointerByReference err);
        static native String lake_location_json(Pointer loc);
        static native String lake_location_uri(Pointer loc);
        static native String lake_location_content_type(Pointer loc);
        static native long lake_location_size_bytes(Pointer loc);
        static native String lake_location_sha256(Pointer loc);
        static native void lake_location_free(Pointer loc);
        static native Pointer lake_stage_options_new();
        static native int lake_stage_options_set_local_root(Pointer opts, String dir, PointerByReference err);
        static native int lake_stage_options_set_tenant(Pointer opts, String tenant, PointerByReference err);
        static native int lake_stage_options_set_s3(Pointer opts, String stageUri, PointerByReference err);
        static native int lake_stage_options_set_s3_endpoint(Pointer opts, String url, PointerByReference err);
        static native int lake_stage_options_set_s3_region(Pointer opts, String region, PointerByReference err);
        static native void lake_stage_options_set_s3_path_style(Pointer opts, int pathStyle);
        static native int lake_stage_options_set_s3_concurrency(Pointer opts, int concurrency, PointerByReference err);
        static native int lake_stage_options_set_s3_part_size(Pointer opts, long bytes, PointerByReference err);
        static native int lake_stage_options_set_upload_checkpoint_dir(Pointer opts, String dir, PointerByReference err);
        static native int lake_stage_options_set_s3_download_streams(Pointer opts, int streams, PointerByReference err);
        static native int lake_stage_options_set_s3_download_range_size(Pointer opts, long bytes, PointerByReference err);
        static native int lake_stage_options_set_descriptor(Pointer opts, String json, long len, PointerByReference err);
        static native int lake_stage_options_set_host_store(Pointer opts, HostStore store, PointerByReference err);
        static native int lake_stage_options_set_host_id(Pointer opts, String hostId, PointerByReference err);
        static native void lake_stage_options_free(Pointer opts);
        static native int lake_stage_open(Pointer opts, PointerByReference out, PointerByReference err);
        static native void lake_stage_free(Pointer stage);
        static native String lake_stage_descriptor(Pointer stage);
        static native int lake_stage_presign(Pointer stage, Pointer loc, int ttlSeconds, PointerByReference url, PointerByReference err);
        static native void lake_string_free(Pointer text);
        static native String lake_stage_io_backend(Pointer stage);
        static native int lake_stage_clean_staging(Pointer stage, LongByReference removed, PointerByReference err);
        static native int lake_stage_list(Pointer stage, ListFn emit, Pointer ctx, PointerByReference err);
        static native int lake_stage_delete(Pointer stage, Pointer loc, PointerByReference err);
        static native int lake_db_open(String dir, Pointer stageOpts, PointerByReference out, PointerByReference err);
        static native Pointer lake_db_stage(Pointer db);
        static native void lake_db_free(Pointer db);
        static native int lake_db_pin(Pointer db, Pointer loc, PointerByReference err);
        static native int lake_db_unpin(Pointer db, Pointer loc, PointerByReference err);
        static native Pointer lake_upload_options_new();
        static native int lake_upload_options_set_content_type(Pointer opts, String contentType, PointerByReference err);
        static native void lake_upload_options_set_cancel_token(Pointer opts, Pointer token);
        static native void lake_upload_options_set_progress(Pointer opts, ProgressFn fn, Pointer ctx);
        static native void lake_upload_options_set_notice(Pointer opts, NoticeFn fn, Pointer ctx);
        static native void lake_upload_options_free(Pointer opts);
        static native int lake_stage_upload_path(Pointer stage, String path, Pointer opts, PointerByReference out, PointerByReference err);
        static native int lake_stage_upload_reader(Pointer stage, ReadFn read, Pointer ctx, Pointer opts, PointerByReference out, PointerByReference err);
        static native int lake_writer_open(Pointer stage, Pointer opts, PointerByReference out, PointerByReference err);
        static native int lake_writer_write(Pointer writer, Pointer buf, long len, PointerByReference err);
        static native int lake_writer_close(Pointer writer, PointerByReference out, PointerByReference err);
        static native void lake_writer_free(Pointer writer);
        static native int lake_db_uploads_list(Pointer db, UploadInfoFn emit, Pointer ctx, PointerByReference err);
        static native int lake_db_uploads_resume(Pointer db, String id, Pointer opts, PointerByReference out, PointerByReference err);
        static native int lake_db_uploads_abort(Pointer db, String id, PointerByReference err);
        static native int lake_reader_open(Pointer stage, Pointer loc, PointerByReference out, PointerByReference err);
        static native int lake_reader_open_range(Pointer stage, Pointer loc, long start, long end, PointerByReference out, PointerByReference err);
        static native int lake_reader_read(Pointer reader, Pointer buf, long cap, LongByReference n, PointerByReference err);
        static native int lake_reader_read_view(Pointer reader, PointerByReference data, long maxLen, LongByReference n, PointerByReference err);
        static native int lake_reader_verified(Pointer reader);
        static native int lake_reader_close(Pointer reader, PointerByReference err);
        static native void lake_reader_free(Pointer reader);
        static native int lake_stage_read_ranges(Pointer stage, Range ranges, long count, PointerByReference err);
        static native int lake_db_open_follower(String dir, int maxStalenessMs, PointerByReference out, PointerByReference err);
        static native long lake_db_view_age_micros(Pointer db);
        static native int lake_db_set_busy_timeout(Pointer db, int busyTimeoutMs, PointerByReference err);
        static native int lake_table_list(Pointer db, PointerByReference jsonOut, PointerByReference err);
        static native int lake_table_describe(Pointer db, String table, PointerByReference jsonOut, PointerByReference err);
        static native int lake_table_versions(Pointer db, String table, PointerByReference jsonOut, PointerByReference err);
        static native int lake_table_compact(Pointer db, String table, LongByReference versionOut, PointerByReference err);
        static native int lake_table_compact_segments(Pointer db, String table, PointerByReference jsonOut, PointerByReference err);
        static native int lake_table_drop(Pointer db, String table, PointerByReference err);
        static native int lake_table_tag(Pointer db, String table, String tag, long version, PointerByReference err);
        static native int lake_table_untag(Pointer db, String table, String tag, PointerByReference err);
        static native int lake_table_expire(Pointer db, String table, long keepLast, long olderThanSeconds, PointerByReference jsonOut, PointerByReference err);
        static native int lake_db_prepare(Pointer db, String sql, PointerByReference out, PointerByReference err);
        static native long lake_statement_parameter_count(Pointer stmt);
        static native int lake_statement_bind_null(Pointer stmt, long index, PointerByReference err);
        static native int lake_statement_bind_int64(Pointer stmt, long index, long value, PointerByReference err);
        static native int lake_statement_bind_float64(Pointer stmt, long index, double value, PointerByReference err);
        static native int lake_statement_bind_bool(Pointer stmt, long index, int value, PointerByReference err);
        static native int lake_statement_bind_utf8(Pointer stmt, long index, String text, long len, PointerByReference err);
        static native int lake_statement_bind_binary(Pointer stmt, long index, Pointer bytes, long len, PointerByReference err);
        static native int lake_statement_bind_timestamp_micros(Pointer stmt, long index, long micros, PointerByReference err);
        static native int lake_statement_bind_text(Pointer stmt, long index, String text, PointerByReference err);
        static native int lake_statement_bind_file_path(Pointer stmt, long index, String path, String contentType, PointerByReference err);
        static native int lake_statement_bind_file_reader(Pointer stmt, long index, ReadFn read, Pointer readCtx, String contentType, PointerByReference err);
        static native int lake_statement_bind_location(Pointer stmt, long index, Pointer loc, PointerByReference err);
        static native int lake_statement_insert(Pointer stmt, Pointer opts, LongByReference versionOut, PointerByReference err);
        static native int lake_statement_query(Pointer stmt, Pointer out, PointerByReference err);
        static native int lake_statement_execute(Pointer stmt, LongByReference versionOut, LongByReference rowsOut, PointerByReference err);
        static native void lake_statement_changes(Pointer stmt, LongByReference deletedOut, LongByReference insertedOut);
        static native void lake_statement_free(Pointer stmt);
        static native int lake_location_from_arrow(Pointer schema, Pointer batch, long column, long row, PointerByReference out, PointerByReference err);
        static native int lake_db_pending_appends(Pointer db, PointerByReference jsonOut, PointerByReference err);
        static native int lake_db_recover(Pointer db, PointerByReference jsonOut, PointerByReference err);
        static native int lake_db_discard_append(Pointer db, String operationId, PointerByReference pathOut, PointerByReference err);
        static native Pointer lake_gc_options_new();
        static native void lake_gc_options_set_cutoff_seconds(Pointer opts, long seconds);
        static native void lake_gc_options_set_allow_short_cutoff(Pointer opts, int allow);
        static native int lake_gc_options_set_memory_budget(Pointer opts, long bytes, PointerByReference err);
        static native int lake_gc_options_set_temp_dir(Pointer opts, String dir, PointerByReference err);
        static native void lake_gc_options_set_progress(Pointer opts, GcProgressFn fn, Pointer ctx);
        static native void lake_gc_options_set_cancel_token(Pointer opts, Pointer token);
        static native void lake_gc_options_set_max_deletes_per_second(Pointer opts, long perSecond);
        static native void lake_gc_options_free(Pointer opts);
        static native int lake_gc_plan(Pointer db, Pointer opts, PointerByReference jsonOut, PointerByReference err);
        static native int lake_gc_show(Pointer db, String planId, GcCandidateFn emit, Pointer ctx, PointerByReference jsonOut, PointerByReference err);
        static native int lake_gc_status(Pointer db, String planId, PointerByReference jsonOut, PointerByReference err);
        static native int lake_gc_apply(Pointer db, String planId, Pointer opts, PointerByReference jsonOut, PointerByReference err);
        static native int lake_gc_verify(Pointer db, int deep, Pointer opts, GcProblemFn emit, Pointer ctx, PointerByReference jsonOut, PointerByReference err);
        static native int lake_experiment_create(Pointer db, String pipeline, String experiment, PointerByReference err);
        static native int lake_experiment_delete(Pointer db, String pipeline, String experiment, PointerByReference err);
        static native int lake_experiment_list(Pointer db, String pipeline, PointerByReference jsonOut, PointerByReference err);
        static native int lake_experiment_describe(Pointer db, String pipeline, String experiment, PointerByReference jsonOut, PointerByReference err);
        static native int lake_experiment_compact(Pointer db, String pipeline, String experiment, PointerByReference jsonOut, PointerByReference err);
        static native int lake_event_log_open(Pointer db, String pipeline, String experiment, int writable, PointerByReference out, PointerByReference err);
        static native int lake_event_log_refresh(Pointer log, PointerByReference err);
        static native void lake_event_log_free(Pointer log);
        static native int lake_event_log_append_jsonl(Pointer log, String jsonl, long len, LongByReference appendedOut, LongByReference duplicatesOut, PointerByReference err);
        static native int lake_event_writer_open(Pointer log, String itemId, String writerEpoch, Step createdBy, PointerByReference out, PointerByReference err);
        static native int lake_event_writer_resume(Pointer log, String itemId, String writerEpoch, PointerByReference out, PointerByReference err);
        static native int lake_event_writer_step_started(Pointer w, Step step, PointerByReference err);
        static native int lake_event_writer_step_completed(Pointer w, Step step, PointerByReference err);
        static native int lake_event_writer_field_set(Pointer w, String field, Value value, Step step, PointerByReference err);
        static native int lake_event_writer_field_append(Pointer w, String field, Value value, Step step, PointerByReference err);
        static native int lake_event_writer_terminal(Pointer w, int filtered, Step step, PointerByReference err);
        static native int lake_event_writer_failed(Pointer w, String errorType, String errorDump, String traceback, Step step, PointerByReference err);
        static native int lake_event_writer_commit(Pointer w, PointerByReference err);
        static native int lake_event_writer_attempt(Pointer w);
        static native void lake_event_writer_free(Pointer w);
        static native int lake_event_log_fold(Pointer log, String itemId, PointerByReference out, PointerByReference err);
        static native String lake_folded_item_json(Pointer item);
        static native String lake_folded_item_status(Pointer item);
        static native int lake_folded_item_last_attempt(Pointer item);
        static native long lake_folded_item_next_item_seq(Pointer item);
        static native long lake_folded_item_value_count(Pointer item, String field);
        static native int lake_folded_item_value(Pointer item, String field, long index, Value out, PointerByReference err);
        static native int lake_folded_item_open_blob(Pointer log, Pointer item, String field, long index, PointerByReference out, PointerByReference err);
        static native void lake_folded_item_free(Pointer item);
        static native int lake_event_log_tree(Pointer log, String rootItemId, PointerByReference jsonOut, PointerByReference err);
        static native int lake_event_log_roots(Pointer log, PointerByReference jsonOut, PointerByReference err);
        static native int lake_event_log_failures(Pointer log, PointerByReference jsonOut, PointerByReference err);
        static native int lake_event_log_events(Pointer log, String rootItemId, PointerByReference jsonlOut, PointerByReference err);
    }

    @Override
    public int lake_abi_version() {
        return Natives.lake_abi_version();
    }

    @Override
    public String lake_version_string() {
        return Natives.lake_version_string();
    }

    @Override
    public String lake_status_name(int status) {
        return Natives.lake_status_name(status);
    }

    @Override
    public String lake_integrity_kind_name(int kind) {
        return Natives.lake_integrity_kind_name(kind);
    }

    @Override
    public int lake_error_code(Pointer err) {
        return Natives.lake_error_code(err);
    }

    @Override
    public String lake_error_message(Pointer err) {
        return Natives.lake_error_message(err);
    }

    @Override
    public int lake_error_integrity_kind(Pointer err) {
        return Natives.lake_error_integrity_kind(err);
    }

    @Override
    public long lake_error_expected(Pointer err) {
        return Natives.lake_error_expected(err);
    }

    @Override
    public long lake_error_observed(Pointer err) {
        return Natives.lake_error_observed(err);
    }

    @Override
    public int lake_error_retryable(Pointer err) {
        return Natives.lake_error_retryable(err);
    }

    @Override
    public String lake_error_pending_operation_id(Pointer err) {
        return Natives.lake_error_pending_operation_id(err);
    }

    @Override
    public void lake_error_free(Pointer err) {
        Natives.lake_error_free(err);
    }

    @Override
    public int lake_set_buffer_budget(long bytes, PointerByReference err) {
        return Natives.lake_set_buffer_budget(bytes, err);
    }

    @Override
    public Pointer lake_cancel_token_new() {
        return Natives.lake_cancel_token_new();
    }

    @Override
    public void lake_cancel_token_cancel(Pointer token) {
        Natives.lake_cancel_token_cancel(token);
    }

    @Override
    public int lake_cancel_token_is_cancelled(Pointer token) {
        return Natives.lake_cancel_token_is_cancelled(token);
    }

    @Override
    public void lake_cancel_token_free(Pointer token) {
        Natives.lake_cancel_token_free(token);
    }

    @Override
    public int lake_location_from_json(String json, long len, PointerByReference out, PointerByReference err) {
        return Natives.lake_location_from_json(json, len, out, err);
    }

    @Override
    public int lake_location_new(String uri, String contentType, long sizeBytes, String sha256, PointerByReference out, PointerByReference err) {
        return Natives.lake_location_new(uri, contentType, sizeBytes, sha256, out, err);
    }

    @Override
    public String lake_location_json(Pointer loc) {
        return Natives.lake_location_json(loc);
    }

    @Override
    public String lake_location_uri(Pointer loc) {
        return Natives.lake_location_uri(loc);
    }

    @Override
    public String lake_location_content_type(Pointer loc) {
        return Natives.lake_location_content_type(loc);
    }

    @Override
    public long lake_location_size_bytes(Pointer loc) {
        return Natives.lake_location_size_bytes(loc);
    }

    @Override
    public String lake_location_sha256(Pointer loc) {
        return Natives.lake_location_sha256(loc);
    }

    @Override
    public void lake_location_free(Pointer loc) {
        Natives.lake_location_free(loc);
    }

    @Override
    public Pointer lake_stage_options_new() {
        return Natives.lake_stage_options_new();
    }

    @Override
    public int lake_stage_options_set_local_root(Pointer opts, String dir, PointerByReference err) {
        return Natives.lake_stage_options_set_local_root(opts, dir, err);
    }

    @Override
    public int lake_stage_options_set_tenant(Pointer opts, String tenant, PointerByReference err) {
        return Natives.lake_stage_options_set_tenant(opts, tenant, err);
    }

    @Override
    public int lake_stage_options_set_s3(Pointer opts, String stageUri, PointerByReference err) {
        return Natives.lake_stage_options_set_s3(opts, stageUri, err);
    }

    @Override
    public int lake_stage_options_set_s3_endpoint(Pointer opts, String url, PointerByReference err) {
        return Natives.lake_stage_options_set_s3_endpoint(opts, url, err);
    }

    @Override
    public int lake_stage_options_set_s3_region(Pointer opts, String region, PointerByReference err) {
        return Natives.lake_stage_options_set_s3_region(opts, region, err);
    }

    @Override
    public void lake_stage_options_set_s3_path_style(Pointer opts, int pathStyle) {
        Natives.lake_stage_options_set_s3_path_style(opts, pathStyle);
    }

    @Override
    public int lake_stage_options_set_s3_concurrency(Pointer opts, int concurrency, PointerByReference err) {
        return Natives.lake_stage_options_set_s3_concurrency(opts, concurrency, err);
    }

    @Override
    public int lake_stage_options_set_s3_part_size(Pointer opts, long bytes, PointerByReference err) {
        return Natives.lake_stage_options_set_s3_part_size(opts, bytes, err);
    }

    @Override
    public int lake_stage_options_set_upload_checkpoint_dir(Pointer opts, String dir, PointerByReference err) {
        return Natives.lake_stage_options_set_upload_checkpoint_dir(opts, dir, err);
    }

    @Override
    public int lake_stage_options_set_s3_download_streams(Pointer opts, int streams, PointerByReference err) {
        return Natives.lake_stage_options_set_s3_download_streams(opts, streams, err);
    }

    @Override
    public int lake_stage_options_set_s3_download_range_size(Pointer opts, long bytes, PointerByReference err) {
        return Natives.lake_stage_options_set_s3_download_range_size(opts, bytes, err);
    }

    @Override
    public int lake_stage_options_set_descriptor(Pointer opts, String json, long len, PointerByReference err) {
        return Natives.lake_stage_options_set_descriptor(opts, json, len, err);
    }

    @Override
    public int lake_stage_options_set_host_store(Pointer opts, HostStore store, PointerByReference err) {
        return Natives.lake_stage_options_set_host_store(opts, store, err);
    }

    @Override
    public int lake_stage_options_set_host_id(Pointer opts, String hostId, PointerByReference err) {
        return Natives.lake_stage_options_set_host_id(opts, hostId, err);
    }

    @Override
    public void lake_stage_options_free(Pointer opts) {
        Natives.lake_stage_options_free(opts);
    }

    @Override
    public int lake_stage_open(Pointer opts, PointerByReference out, PointerByReference err) {
        return Natives.lake_stage_open(opts, out, err);
    }

    @Override
    public void lake_stage_free(Pointer stage) {
        Natives.lake_stage_free(stage);
    }

    @Override
    public String lake_stage_descriptor(Pointer stage) {
        return Natives.lake_stage_descriptor(stage);
    }

    @Override
    public int lake_stage_presign(Pointer stage, Pointer loc, int ttlSeconds, PointerByReference url, PointerByReference err) {
        return Natives.lake_stage_presign(stage, loc, ttlSeconds, url, err);
    }

    @Override
    public void lake_string_free(Pointer text) {
        Natives.lake_string_free(text);
    }

    @Override
    public String lake_stage_io_backend(Pointer stage) {
        return Natives.lake_stage_io_backend(stage);
    }

    @Override
    public int lake_stage_clean_staging(Pointer stage, LongByReference removed, PointerByReference err) {
        return Natives.lake_stage_clean_staging(stage, removed, err);
    }

    @Override
    public int lake_stage_list(Pointer stage, ListFn emit, Pointer ctx, PointerByReference err) {
        return Natives.lake_stage_list(stage, emit, ctx, err);
    }

    @Override
    public int lake_stage_delete(Pointer stage, Pointer loc, PointerByReference err) {
        return Natives.lake_stage_delete(stage, loc, err);
    }

    @Override
    public int lake_db_open(String dir, Pointer stageOpts, PointerByReference out, PointerByReference err) {
        return Natives.lake_db_open(dir, stageOpts, out, err);
    }

    @Override
    public Pointer lake_db_stage(Pointer db) {
        return Natives.lake_db_stage(db);
    }

    @Override
    public void lake_db_free(Pointer db) {
        Natives.lake_db_free(db);
    }

    @Override
    public int lake_db_pin(Pointer db, Pointer loc, PointerByReference err) {
        return Natives.lake_db_pin(db, loc, err);
    }

    @Override
    public int lake_db_unpin(Pointer db, Pointer loc, PointerByReference err) {
        return Natives.lake_db_unpin(db, loc, err);
    }

    @Override
    public Pointer lake_upload_options_new() {
        return Natives.lake_upload_options_new();
    }

    @Override
    public int lake_upload_options_set_content_type(Pointer opts, String contentType, PointerByReference err) {
        return Natives.lake_upload_options_set_content_type(opts, contentType, err);
    }

    @Override
    public void lake_upload_options_set_cancel_token(Pointer opts, Pointer token) {
        Natives.lake_upload_options_set_cancel_token(opts, token);
    }

    @Override
    public void lake_upload_options_set_progress(Pointer opts, ProgressFn fn, Pointer ctx) {
        Natives.lake_upload_options_set_progress(opts, fn, ctx);
    }

    @Override
    public void lake_upload_options_set_notice(Pointer opts, NoticeFn fn, Pointer ctx) {
        Natives.lake_upload_options_set_notice(opts, fn, ctx);
    }

    @Override
    public void lake_upload_options_free(Pointer opts) {
        Natives.lake_upload_options_free(opts);
    }

    @Override
    public int lake_stage_upload_path(Pointer stage, String path, Pointer opts, PointerByReference out, PointerByReference err) {
        return Natives.lake_stage_upload_path(stage, path, opts, out, err);
    }

    @Override
    public int lake_stage_upload_reader(Pointer stage, ReadFn read, Pointer ctx, Pointer opts, PointerByReference out, PointerByReference err) {
        return Natives.lake_stage_upload_reader(stage, read, ctx, opts, out, err);
    }

    @Override
    public int lake_writer_open(Pointer stage, Pointer opts, PointerByReference out, PointerByReference err) {
        return Natives.lake_writer_open(stage, opts, out, err);
    }

    @Override
    public int lake_writer_write(Pointer writer, Pointer buf, long len, PointerByReference err) {
        return Natives.lake_writer_write(writer, buf, len, err);
    }

    @Override
    public int lake_writer_close(Pointer writer, PointerByReference out, PointerByReference err) {
        return Natives.lake_writer_close(writer, out, err);
    }

    @Override
    public void lake_writer_free(Pointer writer) {
        Natives.lake_writer_free(writer);
    }

    @Override
    public int lake_db_uploads_list(Pointer db, UploadInfoFn emit, Pointer ctx, PointerByReference err) {
        return Natives.lake_db_uploads_list(db, emit, ctx, err);
    }

    @Override
    public int lake_db_uploads_resume(Pointer db, String id, Pointer opts, PointerByReference out, PointerByReference err) {
        return Natives.lake_db_uploads_resume(db, id, opts, out, err);
    }

    @Override
    public int lake_db_uploads_abort(Pointer db, String id, PointerByReference err) {
        return Natives.lake_db_uploads_abort(db, id, err);
    }

    @Override
    public int lake_reader_open(Pointer stage, Pointer loc, PointerByReference out, PointerByReference err) {
        return Natives.lake_reader_open(stage, loc, out, err);
    }

    @Override
    public int lake_reader_open_range(Pointer stage, Pointer loc, long start, long end, PointerByReference out, PointerByReference err) {
        return Natives.lake_reader_open_range(stage, loc, start, end, out, err);
    }

    @Override
    public int lake_reader_read(Pointer reader, Pointer buf, long cap, LongByReference n, PointerByReference err) {
        return Natives.lake_reader_read(reader, buf, cap, n, err);
    }

    @Override
    public int lake_reader_read_view(Pointer reader, PointerByReference data, long maxLen, LongByReference n, PointerByReference err) {
        return Natives.lake_reader_read_view(reader, data, maxLen, n, err);
    }

    @Override
    public int lake_reader_verified(Pointer reader) {
        return Natives.lake_reader_verified(reader);
    }

    @Override
    public int lake_reader_close(Pointer reader, PointerByReference err) {
        return Natives.lake_reader_close(reader, err);
    }

    @Override
    public void lake_reader_free(Pointer reader) {
        Natives.lake_reader_free(reader);
    }

    @Override
    public int lake_stage_read_ranges(Pointer stage, Range ranges, long count, PointerByReference err) {
        return Natives.lake_stage_read_ranges(stage, ranges, count, err);
    }

    @Override
    public int lake_db_open_follower(String dir, int maxStalenessMs, PointerByReference out, PointerByReference err) {
        return Natives.lake_db_open_follower(dir, maxStalenessMs, out, err);
    }

    @Override
    public long lake_db_view_age_micros(Pointer db) {
        return Natives.lake_db_view_age_micros(db);
    }

    @Override
    public int lake_db_set_busy_timeout(Pointer db, int busyTimeoutMs, PointerByReference err) {
        return Natives.lake_db_set_busy_timeout(db, busyTimeoutMs, err);
    }

    @Override
    public int lake_table_create(Pointer db, String table, String[] columns, long columnCount, PointerByReference err) {
        return mapped.lake_table_create(db, table, columns, columnCount, err);
    }

    @Override
    public int lake_table_list(Pointer db, PointerByReference jsonOut, PointerByReference err) {
        return Natives.lake_table_list(db, jsonOut, err);
    }

    @Override
    public int lake_table_describe(Pointer db, String table, PointerByReference jsonOut, PointerByReference err) {
        return Natives.lake_table_describe(db, table, jsonOut, err);
    }

    @Override
    public int lake_table_versions(Pointer db, String table, PointerByReference jsonOut, PointerByReference err) {
        return Natives.lake_table_versions(db, table, jsonOut, err);
    }

    @Override
    public int lake_table_compact(Pointer db, String table, LongByReference versionOut, PointerByReference err) {
        return Natives.lake_table_compact(db, table, versionOut, err);
    }

    @Override
    public int lake_table_drop(Pointer db, String table, PointerByReference err) {
        return Natives.lake_table_drop(db, table, err);
    }

    @Override
    public int lake_table_tag(Pointer db, String table, String tag, long version, PointerByReference err) {
        return Natives.lake_table_tag(db, table, tag, version, err);
    }

    @Override
    public int lake_table_untag(Pointer db, String table, String tag, PointerByReference err) {
        return Natives.lake_table_untag(db, table, tag, err);
    }

    @Override
    public int lake_table_compact_segments(Pointer db, String table, PointerByReference jsonOut, PointerByReference err) {
        return Natives.lake_table_compact_segments(db, table, jsonOut, err);
    }

    @Override
    public int lake_table_expire(Pointer db, String table, long keepLast, long olderThanSeconds, PointerByReference jsonOut, PointerByReference err) {
        return Natives.lake_table_expire(db, table, keepLast, olderThanSeconds, jsonOut, err);
    }

    @Override
    public int lake_db_prepare(Pointer db, String sql, PointerByReference out, PointerByReference err) {
        return Natives.lake_db_prepare(db, sql, out, err);
    }

    @Override
    public long lake_statement_parameter_count(Pointer stmt) {
        return Natives.lake_statement_parameter_count(stmt);
    }

    @Override
    public int lake_statement_bind_null(Pointer stmt, long index, PointerByReference err) {
        return Natives.lake_statement_bind_null(stmt, index, err);
    }

    @Override
    public int lake_statement_bind_int64(Pointer stmt, long index, long value, PointerByReference err) {
        return Natives.lake_statement_bind_int64(stmt, index, value, err);
    }

    @Override
    public int lake_statement_bind_float64(Pointer stmt, long index, double value, PointerByReference err) {
        return Natives.lake_statement_bind_float64(stmt, index, value, err);
    }

    @Override
    public int lake_statement_bind_bool(Pointer stmt, long index, int value, PointerByReference err) {
        return Natives.lake_statement_bind_bool(stmt, index, value, err);
    }

    @Override
    public int lake_statement_bind_utf8(Pointer stmt, long index, String text, long len, PointerByReference err) {
        return Natives.lake_statement_bind_utf8(stmt, index, text, len, err);
    }

    @Override
    public int lake_statement_bind_binary(Pointer stmt, long index, Pointer bytes, long len, PointerByReference err) {
        return Natives.lake_statement_bind_binary(stmt, index, bytes, len, err);
    }

    @Override
    public int lake_statement_bind_timestamp_micros(Pointer stmt, long index, long micros, PointerByReference err) {
        return Natives.lake_statement_bind_timestamp_micros(stmt, index, micros, err);
    }

    @Override
    public int lake_statement_bind_text(Pointer stmt, long index, String text, PointerByReference err) {
        return Natives.lake_statement_bind_text(stmt, index, text, err);
    }

    @Override
    public int lake_statement_bind_file_path(Pointer stmt, long index, String path, String contentType, PointerByReference err) {
        return Natives.lake_statement_bind_file_path(stmt, index, path, contentType, err);
    }

    @Override
    public int lake_statement_bind_file_reader(Pointer stmt, long index, ReadFn read, Pointer readCtx, String contentType, PointerByReference err) {
        return Natives.lake_statement_bind_file_reader(stmt, index, read, readCtx, contentType, err);
    }

    @Override
    public int lake_statement_bind_location(Pointer stmt, long index, Pointer loc, PointerByReference err) {
        return Natives.lake_statement_bind_location(stmt, index, loc, err);
    }

    @Override
    public int lake_statement_insert(Pointer stmt, Pointer opts, LongByReference versionOut, PointerByReference err) {
        return Natives.lake_statement_insert(stmt, opts, versionOut, err);
    }

    @Override
    public int lake_statement_query(Pointer stmt, Pointer out, PointerByReference err) {
        return Natives.lake_statement_query(stmt, out, err);
    }

    @Override
    public int lake_statement_execute(Pointer stmt, LongByReference versionOut, LongByReference rowsOut, PointerByReference err) {
        return Natives.lake_statement_execute(stmt, versionOut, rowsOut, err);
    }

    @Override
    public void lake_statement_changes(Pointer stmt, LongByReference deletedOut, LongByReference insertedOut) {
        Natives.lake_statement_changes(stmt, deletedOut, insertedOut);
    }

    @Override
    public void lake_statement_free(Pointer stmt) {
        Natives.lake_statement_free(stmt);
    }

    @Override
    public int lake_location_from_arrow(Pointer schema, Pointer batch, long column, long row, PointerByReference out, PointerByReference err) {
        return Natives.lake_location_from_arrow(schema, batch, column, row, out, err);
    }

    @Override
    public int lake_db_pending_appends(Pointer db, PointerByReference jsonOut, PointerByReference err) {
        return Natives.lake_db_pending_appends(db, jsonOut, err);
    }

    @Override
    public int lake_db_recover(Pointer db, PointerByReference jsonOut, PointerByReference err) {
        return Natives.lake_db_recover(db, jsonOut, err);
    }

    @Override
    public int lake_db_discard_append(Pointer db, String operationId, PointerByReference pathOut, PointerByReference err) {
        return Natives.lake_db_discard_append(db, operationId, pathOut, err);
    }

    @Override
    public Pointer lake_gc_options_new() {
        return Natives.lake_gc_options_new();
    }

    @Override
    public void lake_gc_options_set_cutoff_seconds(Pointer opts, long seconds) {
        Natives.lake_gc_options_set_cutoff_seconds(opts, seconds);
    }

    @Override
    public void lake_gc_options_set_allow_short_cutoff(Pointer opts, int allow) {
        Natives.lake_gc_options_set_allow_short_cutoff(opts, allow);
    }

    @Override
    public int lake_gc_options_set_memory_budget(Pointer opts, long bytes, PointerByReference err) {
        return Natives.lake_gc_options_set_memory_budget(opts, bytes, err);
    }

    @Override
    public int lake_gc_options_set_temp_dir(Pointer opts, String dir, PointerByReference err) {
        return Natives.lake_gc_options_set_temp_dir(opts, dir, err);
    }

    @Override
    public void lake_gc_options_set_progress(Pointer opts, GcProgressFn fn, Pointer ctx) {
        Natives.lake_gc_options_set_progress(opts, fn, ctx);
    }

    @Override
    public void lake_gc_options_set_cancel_token(Pointer opts, Pointer token) {
        Natives.lake_gc_options_set_cancel_token(opts, token);
    }

    @Override
    public void lake_gc_options_set_max_deletes_per_second(Pointer opts, long perSecond) {
        Natives.lake_gc_options_set_max_deletes_per_second(opts, perSecond);
    }

    @Override
    public void lake_gc_options_free(Pointer opts) {
        Natives.lake_gc_options_free(opts);
    }

    @Override
    public int lake_gc_plan(Pointer db, Pointer opts, PointerByReference jsonOut, PointerByReference err) {
        return Natives.lake_gc_plan(db, opts, jsonOut, err);
    }

    @Override
    public int lake_gc_show(Pointer db, String planId, GcCandidateFn emit, Pointer ctx, PointerByReference jsonOut, PointerByReference err) {
        return Natives.lake_gc_show(db, planId, emit, ctx, jsonOut, err);
    }

    @Override
    public int lake_gc_status(Pointer db, String planId, PointerByReference jsonOut, PointerByReference err) {
        return Natives.lake_gc_status(db, planId, jsonOut, err);
    }

    @Override
    public int lake_gc_apply(Pointer db, String planId, Pointer opts, PointerByReference jsonOut, PointerByReference err) {
        return Natives.lake_gc_apply(db, planId, opts, jsonOut, err);
    }

    @Override
    public int lake_gc_verify(Pointer db, int deep, Pointer opts, GcProblemFn emit, Pointer ctx, PointerByReference jsonOut, PointerByReference err) {
        return Natives.lake_gc_verify(db, deep, opts, emit, ctx, jsonOut, err);
    }

    @Override
    public int lake_experiment_create(Pointer db, String pipeline, String experiment, PointerByReference err) {
        return Natives.lake_experiment_create(db, pipeline, experiment, err);
    }

    @Override
    public int lake_experiment_delete(Pointer db, String pipeline, String experiment, PointerByReference err) {
        return Natives.lake_experiment_delete(db, pipeline, experiment, err);
    }

    @Override
    public int lake_experiment_list(Pointer db, String pipeline, PointerByReference jsonOut, PointerByReference err) {
        return Natives.lake_experiment_list(db, pipeline, jsonOut, err);
    }

    @Override
    public int lake_experiment_describe(Pointer db, String pipeline, String experiment, PointerByReference jsonOut, PointerByReference err) {
        return Natives.lake_experiment_describe(db, pipeline, experiment, jsonOut, err);
    }

    @Override
    public int lake_experiment_compact(Pointer db, String pipeline, String experiment, PointerByReference jsonOut, PointerByReference err) {
        return Natives.lake_experiment_compact(db, pipeline, experiment, jsonOut, err);
    }

    @Override
    public int lake_event_log_open(Pointer db, String pipeline, String experiment, int writable, PointerByReference out, PointerByReference err) {
        return Natives.lake_event_log_open(db, pipeline, experiment, writable, out, err);
    }

    @Override
    public int lake_event_log_refresh(Pointer log, PointerByReference err) {
        return Natives.lake_event_log_refresh(log, err);
    }

    @Override
    public void lake_event_log_free(Pointer log) {
        Natives.lake_event_log_free(log);
    }

    @Override
    public int lake_event_log_append_jsonl(Pointer log, String jsonl, long len, LongByReference appendedOut, LongByReference duplicatesOut, PointerByReference err) {
        return Natives.lake_event_log_append_jsonl(log, jsonl, len, appendedOut, duplicatesOut, err);
    }

    @Override
    public int lake_event_writer_open(Pointer log, String itemId, String writerEpoch, Step createdBy, PointerByReference out, PointerByReference err) {
        return Natives.lake_event_writer_open(log, itemId, writerEpoch, createdBy, out, err);
    }

    @Override
    public int lake_event_writer_resume(Pointer log, String itemId, String writerEpoch, PointerByReference out, PointerByReference err) {
        return Natives.lake_event_writer_resume(log, itemId, writerEpoch, out, err);
    }

    @Override
    public int lake_event_writer_step_started(Pointer w, Step step, PointerByReference err) {
        return Natives.lake_event_writer_step_started(w, step, err);
    }

    @Override
    public int lake_event_writer_step_completed(Pointer w, Step step, PointerByReference err) {
        return Natives.lake_event_writer_step_completed(w, step, err);
    }

    @Override
    public int lake_event_writer_field_set(Pointer w, String field, Value value, Step step, PointerByReference err) {
        return Natives.lake_event_writer_field_set(w, field, value, step, err);
    }

    @Override
    public int lake_event_writer_field_append(Pointer w, String field, Value value, Step step, PointerByReference err) {
        return Natives.lake_event_writer_field_append(w, field, value, step, err);
    }

    @Override
    public int lake_event_writer_terminal(Pointer w, int filtered, Step step, PointerByReference err) {
        return Natives.lake_event_writer_terminal(w, filtered, step, err);
    }

    @Override
    public int lake_event_writer_failed(Pointer w, String errorType, String errorDump, String traceback, Step step, PointerByReference err) {
        return Natives.lake_event_writer_failed(w, errorType, errorDump, traceback, step, err);
    }

    @Override
    public int lake_event_writer_commit(Pointer w, PointerByReference err) {
        return Natives.lake_event_writer_commit(w, err);
    }

    @Override
    public int lake_event_writer_attempt(Pointer w) {
        return Natives.lake_event_writer_attempt(w);
    }

    @Override
    public void lake_event_writer_free(Pointer w) {
        Natives.lake_event_writer_free(w);
    }

    @Override
    public int lake_event_log_fold(Pointer log, String itemId, PointerByReference out, PointerByReference err) {
        return Natives.lake_event_log_fold(log, itemId, out, err);
    }

    @Override
    public String lake_folded_item_json(Pointer item) {
        return Natives.lake_folded_item_json(item);
    }

    @Override
    public String lake_folded_item_status(Pointer item) {
        return Natives.lake_folded_item_status(item);
    }

    @Override
    public int lake_folded_item_last_attempt(Pointer item) {
        return Natives.lake_folded_item_last_attempt(item);
    }

    @Override
    public long lake_folded_item_next_item_seq(Pointer item) {
        return Natives.lake_folded_item_next_item_seq(item);
    }

    @Override
    public long lake_folded_item_value_count(Pointer item, String field) {
        return Natives.lake_folded_item_value_count(item, field);
    }

    @Override
    public int lake_folded_item_value(Pointer item, String field, long index, Value out, PointerByReference err) {
        return Natives.lake_folded_item_value(item, field, index, out, err);
    }

    @Override
    public int lake_folded_item_open_blob(Pointer log, Pointer item, String field, long index, PointerByReference out, PointerByReference err) {
        return Natives.lake_folded_item_open_blob(log, item, field, index, out, err);
    }

    @Override
    public void lake_folded_item_free(Pointer item) {
        Natives.lake_folded_item_free(item);
    }

    @Override
    public int lake_event_log_tree(Pointer log, String rootItemId, PointerByReference jsonOut, PointerByReference err) {
        return Natives.lake_event_log_tree(log, rootItemId, jsonOut, err);
    }

    @Override
    public int lake_event_log_roots(Pointer log, PointerByReference jsonOut, PointerByReference err) {
        return Natives.lake_event_log_roots(log, jsonOut, err);
    }

    @Override
    public int lake_event_log_failures(Pointer log, PointerByReference jsonOut, PointerByReference err) {
        return Natives.lake_event_log_failures(log, jsonOut, err);
    }

    @Override
    public int lake_event_log_events(Pointer log, String rootItemId, PointerByReference jsonlOut, PointerByReference err) {
        return Natives.lake_event_log_events(log, rootItemId, jsonlOut, err);
    }
}
