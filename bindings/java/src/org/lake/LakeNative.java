package org.lake;

import com.sun.jna.Callback;
import com.sun.jna.Library;
import com.sun.jna.Pointer;
import com.sun.jna.Structure;
import com.sun.jna.ptr.LongByReference;
import com.sun.jna.ptr.PointerByReference;

/**
 * The C ABI of include/lake.h as a JNA interface: every LAKE_API function,
 * its structs and its callback types, declared by hand from the header.
 *
 * <p>Type mapping (LP64 only, as lake builds): uint32_t/int/enums are int,
 * (u)int64_t and size_t are long (unsigned values reinterpreted), handles are
 * Pointer, T** outputs are PointerByReference, input strings are String
 * (UTF-8, see {@link Lake}). Returned const char* are String: JNA copies
 * them at once, while the owning handle is still alive.
 */
public interface LakeNative extends Library {
    // ---- callback types ----

    /** lake_read_fn: fill up to cap bytes, return the count, 0 at end, negative on failure. */
    interface ReadFn extends Callback { long invoke(Pointer ctx, Pointer buf, long cap); }
    /** lake_list_fn: entry points at a lake_list_entry {uri, size_bytes, modified}. */
    interface ListFn extends Callback { int invoke(Pointer ctx, Pointer entry); }
    interface ProgressFn extends Callback { void invoke(Pointer ctx, long doneBytes, long totalBytes); }
    interface NoticeFn extends Callback { void invoke(Pointer ctx, String line); }
    /** lake_upload_info_fn: info points at a lake_upload_info. */
    interface UploadInfoFn extends Callback { int invoke(Pointer ctx, Pointer info); }
    /** lake_gc_candidate_fn: candidate points at a lake_gc_candidate. */
    interface GcCandidateFn extends Callback { int invoke(Pointer ctx, Pointer candidate); }
    /** lake_gc_problem_fn: problem points at a lake_gc_problem. */
    interface GcProblemFn extends Callback { int invoke(Pointer ctx, Pointer problem); }
    interface GcProgressFn extends Callback { void invoke(Pointer ctx, String phase, long done, long total); }

    // lake_host_store's members.
    interface HostUploadFn extends Callback {
        int invoke(Pointer ctx, String uri, String contentType, ReadFn read, Pointer readCtx,
                   Pointer message, long messageCap);
    }
    interface HostOpenStreamFn extends Callback {
        int invoke(Pointer ctx, String uri, long start, Pointer streamOut, Pointer message, long messageCap);
    }
    interface HostReadStreamFn extends Callback {
        int invoke(Pointer ctx, Pointer stream, Pointer buf, long cap, Pointer nOut, Pointer message,
                   long messageCap);
    }
    interface HostCloseStreamFn extends Callback { void invoke(Pointer ctx, Pointer stream); }
    interface HostListFn extends Callback {
        int invoke(Pointer ctx, String prefixUri, ListFn emit, Pointer emitCtx, Pointer message,
                   long messageCap);
    }
    interface HostRemoveFn extends Callback { int invoke(Pointer ctx, String uri, Pointer message, long messageCap); }
    interface HostDestroyFn extends Callback { void invoke(Pointer ctx); }

    // ---- structs (frozen layouts of lake.h) ----

    /** lake_host_store, version 1. */
    @Structure.FieldOrder({"version", "ctx", "root_uri", "upload", "open_stream", "read_stream",
                           "close_stream", "list", "remove", "destroy"})
    class HostStore extends Structure {
        public int version;
        public Pointer ctx;
        public String root_uri;
        public HostUploadFn upload;
        public HostOpenStreamFn open_stream;
        public HostReadStreamFn read_stream;
        public HostCloseStreamFn close_stream;
        public HostListFn list;
        public HostRemoveFn remove;
        public HostDestroyFn destroy;
    }

    /** lake_range: inputs location/start/end/buffer, outputs status/bytes_read/error. */
    @Structure.FieldOrder({"location", "start", "end", "buffer", "status", "bytes_read", "error"})
    class Range extends Structure {
        public Pointer location;
        public long start;
        public long end;
        public Pointer buffer;
        public int status;
        public long bytes_read;
        public Pointer error;
    }

    /** lake_step. */
    @Structure.FieldOrder({"name", "index", "kind", "enclosing_step", "selector_step"})
    class Step extends Structure {
        public String name;
        public long index = -1;
        public String kind;
        public String enclosing_step;
        public String selector_step;
    }

    /** lake_value. */
    @Structure.FieldOrder({"kind", "i64", "f64", "boolean_", "bytes", "len"})
    class Value extends Structure {
        public int kind;
        public long i64;
        public double f64;
        public int boolean_;
        public Pointer bytes;
        public long len;
    }

    // ---- functions ----

    int lake_abi_version();
    String lake_version_string();
    String lake_status_name(int status);
    String lake_integrity_kind_name(int kind);
    int lake_error_code(Pointer err);
    String lake_error_message(Pointer err);
    int lake_error_integrity_kind(Pointer err);
    long lake_error_expected(Pointer err);
    long lake_error_observed(Pointer err);
    int lake_error_retryable(Pointer err);
    String lake_error_pending_operation_id(Pointer err);
    void lake_error_free(Pointer err);
    int lake_set_buffer_budget(long bytes, PointerByReference err);
    Pointer lake_cancel_token_new();
    void lake_cancel_token_cancel(Pointer token);
    int lake_cancel_token_is_cancelled(Pointer token);
    void lake_cancel_token_free(Pointer token);
    int lake_location_from_json(String json, long len, PointerByReference out, PointerByReference err);
    int lake_location_new(String uri, String contentType, long sizeBytes, String sha256, PointerByReference out, PointerByReference err);
    String lake_location_json(Pointer loc);
    String lake_location_uri(Pointer loc);
    String lake_location_content_type(Pointer loc);
    long lake_location_size_bytes(Pointer loc);
    String lake_location_sha256(Pointer loc);
    void lake_location_free(Pointer loc);
    Pointer lake_stage_options_new();
    int lake_stage_options_set_local_root(Pointer opts, String dir, PointerByReference err);
    int lake_stage_options_set_tenant(Pointer opts, String tenant, PointerByReference err);
    int lake_stage_options_set_s3(Pointer opts, String stageUri, PointerByReference err);
    int lake_stage_options_set_s3_endpoint(Pointer opts, String url, PointerByReference err);
    int lake_stage_options_set_s3_region(Pointer opts, String region, PointerByReference err);
    void lake_stage_options_set_s3_path_style(Pointer opts, int pathStyle);
    int lake_stage_options_set_s3_concurrency(Pointer opts, int concurrency, PointerByReference err);
    int lake_stage_options_set_s3_part_size(Pointer opts, long bytes, PointerByReference err);
    int lake_stage_options_set_upload_checkpoint_dir(Pointer opts, String dir, PointerByReference err);
    int lake_stage_options_set_s3_download_streams(Pointer opts, int streams, PointerByReference err);
    int lake_stage_options_set_s3_download_range_size(Pointer opts, long bytes, PointerByReference err);
    int lake_stage_options_set_descriptor(Pointer opts, String json, long len, PointerByReference err);
    int lake_stage_options_set_host_store(Pointer opts, HostStore store, PointerByReference err);
    int lake_stage_options_set_host_id(Pointer opts, String hostId, PointerByReference err);
    void lake_stage_options_free(Pointer opts);
    int lake_stage_open(Pointer opts, PointerByReference out, PointerByReference err);
    void lake_stage_free(Pointer stage);
    String lake_stage_descriptor(Pointer stage);
    int lake_stage_presign(Pointer stage, Pointer loc, int ttlSeconds, PointerByReference url, PointerByReference err);
    void lake_string_free(Pointer text);
    String lake_stage_io_backend(Pointer stage);
    int lake_stage_clean_staging(Pointer stage, LongByReference removed, PointerByReference err);
    int lake_stage_list(Pointer stage, ListFn emit, Pointer ctx, PointerByReference err);
    int lake_stage_delete(Pointer stage, Pointer loc, PointerByReference err);
    int lake_db_open(String dir, Pointer stageOpts, PointerByReference out, PointerByReference err);
    Pointer lake_db_stage(Pointer db);
    void lake_db_free(Pointer db);
    int lake_db_pin(Pointer db, Pointer loc, PointerByReference err);
    int lake_db_unpin(Pointer db, Pointer loc, PointerByReference err);
    Pointer lake_upload_options_new();
    int lake_upload_options_set_content_type(Pointer opts, String contentType, PointerByReference err);
    void lake_upload_options_set_cancel_token(Pointer opts, Pointer token);
    void lake_upload_options_set_progress(Pointer opts, ProgressFn fn, Pointer ctx);
    void lake_upload_options_set_notice(Pointer opts, NoticeFn fn, Pointer ctx);
    void lake_upload_options_free(Pointer opts);
    int lake_stage_upload_path(Pointer stage, String path, Pointer opts, PointerByReference out, PointerByReference err);
    int lake_stage_upload_reader(Pointer stage, ReadFn read, Pointer ctx, Pointer opts, PointerByReference out, PointerByReference err);
    int lake_writer_open(Pointer stage, Pointer opts, PointerByReference out, PointerByReference err);
    int lake_writer_write(Pointer writer, Pointer buf, long len, PointerByReference err);
    int lake_writer_close(Pointer writer, PointerByReference out, PointerByReference err);
    void lake_writer_free(Pointer writer);
    int lake_db_uploads_list(Pointer db, UploadInfoFn emit, Pointer ctx, PointerByReference err);
    int lake_db_uploads_resume(Pointer db, String id, Pointer opts, PointerByReference out, PointerByReference err);
    int lake_db_uploads_abort(Pointer db, String id, PointerByReference err);
    int lake_reader_open(Pointer stage, Pointer loc, PointerByReference out, PointerByReference err);
    int lake_reader_open_range(Pointer stage, Pointer loc, long start, long end, PointerByReference out, PointerByReference err);
    int lake_reader_read(Pointer reader, Pointer buf, long cap, LongByReference n, PointerByReference err);
    int lake_reader_read_view(Pointer reader, PointerByReference data, long maxLen, LongByReference n, PointerByReference err);
    int lake_reader_verified(Pointer reader);
    int lake_reader_close(Pointer reader, PointerByReference err);
    void lake_reader_free(Pointer reader);
    int lake_stage_read_ranges(Pointer stage, Range ranges, long count, PointerByReference err);
    int lake_db_open_follower(String dir, int maxStalenessMs, PointerByReference out, PointerByReference err);
    long lake_db_view_age_micros(Pointer db);
    int lake_db_set_busy_timeout(Pointer db, int busyTimeoutMs, PointerByReference err);
    int lake_table_create(Pointer db, String table, String[] columns, long columnCount, PointerByReference err);
    int lake_table_list(Pointer db, PointerByReference jsonOut, PointerByReference err);
    int lake_table_describe(Pointer db, String table, PointerByReference jsonOut, PointerByReference err);
    int lake_table_versions(Pointer db, String table, PointerByReference jsonOut, PointerByReference err);
    int lake_table_compact(Pointer db, String table, LongByReference versionOut, PointerByReference err);
    int lake_table_compact_segments(Pointer db, String table, PointerByReference jsonOut, PointerByReference err);
    int lake_table_drop(Pointer db, String table, PointerByReference err);
    int lake_table_tag(Pointer db, String table, String tag, long version, PointerByReference err);
    int lake_table_untag(Pointer db, String table, String tag, PointerByReference err);
    int lake_table_expire(Pointer db, String table, long keepLast, long olderThanSeconds, PointerByReference jsonOut, PointerByReference err);
    int lake_db_prepare(Pointer db, String sql, PointerByReference out, PointerByReference err);
    long lake_statement_parameter_count(Pointer stmt);
    int lake_statement_bind_null(Pointer stmt, long index, PointerByReference err);
    int lake_statement_bind_int64(Pointer stmt, long index, long value, PointerByReference err);
    int lake_statement_bind_float64(Pointer stmt, long index, double value, PointerByReference err);
    int lake_statement_bind_bool(Pointer stmt, long index, int value, PointerByReference err);
    int lake_statement_bind_utf8(Pointer stmt, long index, String text, long len, PointerByReference err);
    int lake_statement_bind_binary(Pointer stmt, long index, Pointer bytes, long len, PointerByReference err);
    int lake_statement_bind_timestamp_micros(Pointer stmt, long index, long micros, PointerByReference err);
    int lake_statement_bind_text(Pointer stmt, long index, String text, PointerByReference err);
    int lake_statement_bind_file_path(Pointer stmt, long index, String path, String contentType, PointerByReference err);
    int lake_statement_bind_file_reader(Pointer stmt, long index, ReadFn read, Pointer readCtx, String contentType, PointerByReference err);
    int lake_statement_bind_location(Pointer stmt, long index, Pointer loc, PointerByReference err);
    int lake_statement_insert(Pointer stmt, Pointer opts, LongByReference versionOut, PointerByReference err);
    int lake_statement_query(Pointer stmt, Pointer out, PointerByReference err);
    int lake_statement_execute(Pointer stmt, LongByReference versionOut, LongByReference rowsOut, PointerByReference err);
    void lake_statement_changes(Pointer stmt, LongByReference deletedOut, LongByReference insertedOut);
    void lake_statement_free(Pointer stmt);
    int lake_location_from_arrow(Pointer schema, Pointer batch, long column, long row, PointerByReference out, PointerByReference err);
    int lake_db_pending_appends(Pointer db, PointerByReference jsonOut, PointerByReference err);
    int lake_db_recover(Pointer db, PointerByReference jsonOut, PointerByReference err);
    int lake_db_discard_append(Pointer db, String operationId, PointerByReference pathOut, PointerByReference err);
    Pointer lake_gc_options_new();
    void lake_gc_options_set_cutoff_seconds(Pointer opts, long seconds);
    void lake_gc_options_set_allow_short_cutoff(Pointer opts, int allow);
    int lake_gc_options_set_memory_budget(Pointer opts, long bytes, PointerByReference err);
    int lake_gc_options_set_temp_dir(Pointer opts, String dir, PointerByReference err);
    void lake_gc_options_set_progress(Pointer opts, GcProgressFn fn, Pointer ctx);
    void lake_gc_options_set_cancel_token(Pointer opts, Pointer token);
    void lake_gc_options_set_max_deletes_per_second(Pointer opts, long perSecond);
    void lake_gc_options_free(Pointer opts);
    int lake_gc_plan(Pointer db, Pointer opts, PointerByReference jsonOut, PointerByReference err);
    int lake_gc_show(Pointer db, String planId, GcCandidateFn emit, Pointer ctx, PointerByReference jsonOut, PointerByReference err);
    int lake_gc_status(Pointer db, String planId, PointerByReference jsonOut, PointerByReference err);
    int lake_gc_apply(Pointer db, String planId, Pointer opts, PointerByReference jsonOut, PointerByReference err);
    int lake_gc_verify(Pointer db, int deep, Pointer opts, GcProblemFn emit, Pointer ctx, PointerByReference jsonOut, PointerByReference err);
    int lake_experiment_create(Pointer db, String pipeline, String experiment, PointerByReference err);
    int lake_experiment_delete(Pointer db, String pipeline, String experiment, PointerByReference err);
    int lake_experiment_list(Pointer db, String pipeline, PointerByReference jsonOut, PointerByReference err);
    int lake_experiment_describe(Pointer db, String pipeline, String experiment, PointerByReference jsonOut, PointerByReference err);
    int lake_experiment_compact(Pointer db, String pipeline, String experiment, PointerByReference jsonOut, PointerByReference err);
    int lake_event_log_open(Pointer db, String pipeline, String experiment, int writable, PointerByReference out, PointerByReference err);
    int lake_event_log_refresh(Pointer log, PointerByReference err);
    void lake_event_log_free(Pointer log);
    int lake_event_log_append_jsonl(Pointer log, String jsonl, long len, LongByReference appendedOut, LongByReference duplicatesOut, PointerByReference err);
    int lake_event_writer_open(Pointer log, String itemId, String writerEpoch, Step createdBy, PointerByReference out, PointerByReference err);
    int lake_event_writer_resume(Pointer log, String itemId, String writerEpoch, PointerByReference out, PointerByReference err);
    int lake_event_writer_step_started(Pointer w, Step step, PointerByReference err);
    int lake_event_writer_step_completed(Pointer w, Step step, PointerByReference err);
    int lake_event_writer_field_set(Pointer w, String field, Value value, Step step, PointerByReference err);
    int lake_event_writer_field_append(Pointer w, String field, Value value, Step step, PointerByReference err);
    int lake_event_writer_terminal(Pointer w, int filtered, Step step, PointerByReference err);
    int lake_event_writer_failed(Pointer w, String errorType, String errorDump, String traceback, Step step, PointerByReference err);
    int lake_event_writer_commit(Pointer w, PointerByReference err);
    int lake_event_writer_attempt(Pointer w);
    void lake_event_writer_free(Pointer w);
    int lake_event_log_fold(Pointer log, String itemId, PointerByReference out, PointerByReference err);
    String lake_folded_item_json(Pointer item);
    String lake_folded_item_status(Pointer item);
    int lake_folded_item_last_attempt(Pointer item);
    long lake_folded_item_next_item_seq(Pointer item);
    long lake_folded_item_value_count(Pointer item, String field);
    int lake_folded_item_value(Pointer item, String field, long index, Value out, PointerByReference err);
    int lake_folded_item_open_blob(Pointer log, Pointer item, String field, long index, PointerByReference out, PointerByReference err);
    void lake_folded_item_free(Pointer item);
    int lake_event_log_tree(Pointer log, String rootItemId, PointerByReference jsonOut, PointerByReference err);
    int lake_event_log_roots(Pointer log, PointerByReference jsonOut, PointerByReference err);
    int lake_event_log_failures(Pointer log, PointerByReference jsonOut, PointerByReference err);
    int lake_event_log_events(Pointer log, String rootItemId, PointerByReference jsonlOut, PointerByReference err);
}
