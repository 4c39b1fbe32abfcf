package org.lake;

import com.sun.jna.Pointer;
import com.sun.jna.ptr.LongByReference;
import com.sun.jna.ptr.PointerByReference;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A lake root: one directory that records its stage, holding tables, event
 * logs and garbage-collection state. Thread-safe (lake.h). Closing it first
 * closes its children (its stage and that stage's readers and writers, its
 * statements, query results and batches, its event logs), then frees it,
 * which releases its writer lock at once (H-006).
 *
 * <p>JSON results are returned as text, exactly as lake.h documents them.
 */
public final class Db extends Handle {
    private Stage stage;
    private HostStoreAdapter host;

    private Db(Pointer pointer) throws ClosedHandleException {
        super("root", true, pointer, null);
    }

    /** Opens (creating if needed) the root at {@code dir} with a local stage in dir/stage. */
    public static Db open(Path dir) throws LakeException {
        return open(dir, null);
    }

    /** Opens the root at {@code dir} with stage options (S3, tenant, host store); null for defaults. */
    public static Db open(Path dir, StageOptions options) throws LakeException {
        PointerByReference out = new PointerByReference();
        PointerByReference err = new PointerByReference();
        if (options == null) {
            LakeException.check(Lake.lib().lake_db_open(dir.toString(), null, out, err), err);
            return new Db(out.getValue());
        }
        Db db = options.with(o -> {
            LakeException.check(Lake.lib().lake_db_open(dir.toString(), o, out, err), err);
            return new Db(out.getValue());
        });
        db.host = options.host;
        return db;
    }

    /** Opens the root as a follower whose view is at most {@code maxStalenessMs} old. */
    public static Db openFollower(Path dir, int maxStalenessMs) throws LakeException {
        PointerByReference out = new PointerByReference();
        PointerByReference err = new PointerByReference();
        LakeException.check(Lake.lib().lake_db_open_follower(dir.toString(), maxStalenessMs, out, err), err);
        return new Db(out.getValue());
    }

    /** The root's stage (the root's own: closed with the root). */
    public synchronized Stage stage() throws LakeException {
        if (stage == null || stage.isClosed()) {
            stage = use(p -> new Stage(Lake.lib().lake_db_stage(p), this, false, host));
        }
        return stage;
    }

    /** A follower's view age in microseconds (0 for the writer, -1 before the first table call). */
    public long viewAgeMicros() throws LakeException {
        return use(p -> Lake.lib().lake_db_view_age_micros(p));
    }

    private interface Op {
        int run(Pointer db, PointerByReference err) throws LakeException;
    }

    private void call(Op op) throws LakeException {
        use(p -> {
            PointerByReference err = new PointerByReference();
            if (host == null) {
                LakeException.check(op.run(p, err), err);
            } else {
                host.failure.around(x -> {
                    LakeException.check(op.run(p, err), err);
                    return null;
                }, p);
            }
            return null;
        });
    }

    private String text(NativeText.Producer producer) throws LakeException {
        PointerByReference out = new PointerByReference();
        call((p, err) -> producer.run(p, out, err));
        return NativeText.take(out);
    }

    public void setBusyTimeout(int milliseconds) throws LakeException {
        call((p, e) -> Lake.lib().lake_db_set_busy_timeout(p, milliseconds, e));
    }

    /** Creates "ns.table" with columns "name:type" (CONFLICT when it exists). */
    public void createTable(String table, List<String> columns) throws LakeException {
        String[] array = columns.toArray(new String[0]);
        call((p, e) -> Lake.lib().lake_table_create(p, table, array, array.length, e));
    }

    public String tables() throws LakeException {
        return text((p, o, e) -> Lake.lib().lake_table_list(p, o, e));
    }
    public String describeTable(String table) throws LakeException {
        return text((p, o, e) -> Lake.lib().lake_table_describe(p, table, o, e));
    }
    public String tableVersions(String table) throws LakeException {
        return text((p, o, e) -> Lake.lib().lake_table_versions(p, table, o, e));
    }
    /** Merges the current version's fragments; returns the new (or current) version. */
    public long compactTable(String table) throws LakeException {
        LongByReference version = new LongByReference();
        call((p, e) -> Lake.lib().lake_table_compact(p, table, version, e));
        return version.getValue();
    }
    /** Rewrites the table log's mostly-dead segments; {"compacted":…,"version":N,…}. */
    public String compactTableSegments(String table) throws LakeException {
        return text((p, o, e) -> Lake.lib().lake_table_compact_segments(p, table, o, e));
    }
    public void dropTable(String table) throws LakeException {
        call((p, e) -> Lake.lib().lake_table_drop(p, table, e));
    }
    public void tagTable(String table, String tag, long version) throws LakeException {
        call((p, e) -> Lake.lib().lake_table_tag(p, table, tag, version, e));
    }
    public void untagTable(String table, String tag) throws LakeException {
        call((p, e) -> Lake.lib().lake_table_untag(p, table, tag, e));
    }
    /** Retires old versions; {"retired":[…],"current_version":N}. */
    public String expireTable(String table, long keepLast, long olderThanSeconds) throws LakeException {
        return text((p, o, e) -> Lake.lib().lake_table_expire(p, table, keepLast, olderThanSeconds, o, e));
    }

    /** Prepares a statement (a child of this root). */
    public Statement prepare(String sql) throws LakeException {
        return use(p -> {
            PointerByReference out = new PointerByReference();
            PointerByReference err = new PointerByReference();
            LakeException.check(Lake.lib().lake_db_prepare(p, sql, out, err), err);
            return new Statement(out.getValue(), this);
        });
    }

    /** Prepares, binds and runs an INSERT; returns the new version. */
    public long insert(String sql, Object... params) throws LakeException {
        try (Statement statement = prepare(sql)) {
            return statement.bindAll(params).insert();
        }
    }

    /** Prepares, binds and runs a SELECT; the result outlives the statement. */
    public QueryResult query(String sql, Object... params) throws LakeException {
        try (Statement statement = prepare(sql)) {
            return statement.bindAll(params).query();
        }
    }

    /** Prepares, binds and runs a DELETE, replace-where, DROP or ALTER. */
    public Statement.Outcome execute(String sql, Object... params) throws LakeException {
        try (Statement statement = prepare(sql)) {
            return statement.bindAll(params).execute();
        }
    }

    public String pendingAppends() throws LakeException {
        return text((p, o, e) -> Lake.lib().lake_db_pending_appends(p, o, e));
    }
    public String recover() throws LakeException {
        return text((p, o, e) -> Lake.lib().lake_db_recover(p, o, e));
    }
    /** Moves a pending append aside; returns where. */
    public String discardAppend(String operationId) throws LakeException {
        return text((p, o, e) -> Lake.lib().lake_db_discard_append(p, operationId, o, e));
    }

    public void pin(Location location) throws LakeException {
        call((p, e) -> location.with(l -> Lake.lib().lake_db_pin(p, l, e)));
    }
    public void unpin(Location location) throws LakeException {
        call((p, e) -> location.with(l -> Lake.lib().lake_db_unpin(p, l, e)));
    }

    /** One upload checkpoint (lake_upload_info). */
    public record UploadInfo(String id, String sourcePath, String uri, long partsDone, long bytesDone,
                             long sizeBytes, long partBytes, long updatedUnixMicros, boolean stale,
                             boolean locked, String error) {}

    public List<UploadInfo> uploads() throws LakeException {
        return use(p -> Listing.collect(
            i -> new UploadInfo(Listing.string(i, 0), Listing.string(i, 8), Listing.string(i, 16), i.getLong(24),
                                i.getLong(32), i.getLong(40), i.getLong(48), i.getLong(56), i.getInt(64) != 0,
                                i.getInt(68) != 0, Listing.string(i, 72)),
            ctx -> {
                PointerByReference err = new PointerByReference();
                LakeException.check(Lake.lib().lake_db_uploads_list(p, Trampolines.UPLOAD_INFO, ctx, err), err);
            }));
    }

    public Location resumeUpload(String id, UploadOptions options) throws LakeException {
        PointerByReference out = new PointerByReference();
        if (options == null) {
            call((p, e) -> Lake.lib().lake_db_uploads_resume(p, id, null, out, e));
        } else {
            options.around(o -> {
                call((p, e) -> Lake.lib().lake_db_uploads_resume(p, id, o, out, e));
                return null;
            });
        }
        return new Location(out.getValue());
    }

    public void abortUpload(String id) throws LakeException {
        call((p, e) -> Lake.lib().lake_db_uploads_abort(p, id, e));
    }

    // ---- garbage collection ----

    /** Writes a GC plan (deletes nothing); its summary JSON. {@code options} may be null. */
    public String gcPlan(GcOptions options) throws LakeException {
        return gc(options, (p, o, out, e) -> Lake.lib().lake_gc_plan(p, o, out, e));
    }
    /** Deletes plan {@code planId}'s candidates; the final status JSON. */
    public String gcApply(String planId, GcOptions options) throws LakeException {
        return gc(options, (p, o, out, e) -> Lake.lib().lake_gc_apply(p, planId, o, out, e));
    }
    /** The kept plans (planId null) or one plan, as JSON. */
    public String gcStatus(String planId) throws LakeException {
        return text((p, o, e) -> Lake.lib().lake_gc_status(p, planId, o, e));
    }

    /** One candidate of a plan. */
    public record GcCandidate(String uri, String kind, long sizeBytes, long modifiedUnixMicros, String tenant) {}

    /** Every candidate of plan {@code planId}, in URI order. */
    public List<GcCandidate> gcShow(String planId) throws LakeException {
        PointerByReference out = new PointerByReference();
        List<GcCandidate> candidates = use(p -> Listing.collect(
            c -> new GcCandidate(Listing.string(c, 0), Listing.string(c, 8), c.getLong(16), c.getLong(24),
                                 Listing.string(c, 32)),
            ctx -> {
                PointerByReference err = new PointerByReference();
                LakeException.check(Lake.lib().lake_gc_show(p, planId, Trampolines.GC_CANDIDATE, ctx, out, err), err);
            }));
        NativeText.take(out);
        return candidates;
    }

    /** One problem a scrub found, with up to 16 referrers (the rest counted in moreReferrers). */
    public record GcProblem(String uri, String problem, long expectedSize, long observedSize, String message,
                            List<String> referrers, long moreReferrers) {}

    private static GcProblem problem(Pointer g) {
        List<String> referrers = new ArrayList<>();
        Pointer array = g.getPointer(40);
        for (long i = 0; i < g.getLong(48); i++) {
            referrers.add(array.getPointer(8 * i).getString(0, "UTF-8"));
        }
        return new GcProblem(Listing.string(g, 0), Listing.string(g, 8), g.getLong(16), g.getLong(24),
                             Listing.string(g, 32), referrers, g.getLong(56));
    }

    /** Scrubs the root (deep: read and verify every object); the problems found. */
    public List<GcProblem> gcVerify(boolean deep, GcOptions options) throws LakeException {
        List<List<GcProblem>> found = new ArrayList<>();
        gc(options, (p, o, out, e) -> {
            int[] status = new int[1];
            found.add(Listing.collect(Db::problem, ctx ->
                status[0] = Lake.lib().lake_gc_verify(p, deep ? 1 : 0, o, Trampolines.GC_PROBLEM, ctx, out, e)));
            return status[0];
        });
        return found.get(0);
    }

    private interface GcOp {
        int run(Pointer db, Pointer options, PointerByReference out, PointerByReference err) throws LakeException;
    }

    private String gc(GcOptions options, GcOp op) throws LakeException {
        PointerByReference out = new PointerByReference();
        if (options == null) {
            call((p, e) -> op.run(p, null, out, e));
        } else {
            options.around(o -> {
                call((p, e) -> op.run(p, o, out, e));
                return null;
            });
        }
        return NativeText.take(out);
    }

    // ---- event logs ----

    public void createExperiment(String pipeline, String experiment) throws LakeException {
        call((p, e) -> Lake.lib().lake_experiment_create(p, pipeline, experiment, e));
    }
    public void deleteExperiment(String pipeline, String experiment) throws LakeException {
        call((p, e) -> Lake.lib().lake_experiment_delete(p, pipeline, experiment, e));
    }
    /** The experiments of {@code pipeline} (null: every pipeline) as JSON. */
    public String experiments(String pipeline) throws LakeException {
        return text((p, o, e) -> Lake.lib().lake_experiment_list(p, pipeline, o, e));
    }
    public String describeExperiment(String pipeline, String experiment) throws LakeException {
        return text((p, o, e) -> Lake.lib().lake_experiment_describe(p, pipeline, experiment, o, e));
    }
    public String compactExperiment(String pipeline, String experiment) throws LakeException {
        return text((p, o, e) -> Lake.lib().lake_experiment_compact(p, pipeline, experiment, o, e));
    }

    /** Opens an experiment's event log (a child of this root); writable takes a shard. */
    public EventLog eventLog(String pipeline, String experiment, boolean writable) throws LakeException {
        return use(p -> {
            PointerByReference out = new PointerByReference();
            PointerByReference err = new PointerByReference();
            LakeException.check(Lake.lib().lake_event_log_open(p, pipeline, experiment, writable ? 1 : 0, out, err), err);
            return new EventLog(out.getValue(), this);
        });
    }

    @Override
    protected void release(Pointer pointer) {
        Lake.lib().lake_db_free(pointer);
    }

    @Override
    protected void released() {
        stage = null;
        host = null;
    }
}
