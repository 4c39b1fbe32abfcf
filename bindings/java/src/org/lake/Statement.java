package org.lake;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.LongByReference;
import com.sun.jna.ptr.PointerByReference;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

/**
 * A prepared statement of lake's SQL subset (lake.h, lake_db_prepare).
 * Not thread-safe: calls are serialised. Parameters are bound by 1-based
 * index. A FILE bound to an InputStream is read by lake during the INSERT
 * through {@link Trampolines#READ}; the statement keeps the stream
 * registered until the parameter is bound again or the statement closes
 * (H-005). A Throwable the stream raises becomes the INSERT's error. Query results outlive the statement (their parent is the root).
 */
public final class Statement extends Handle {
    private final Db db;
    private final CallbackFailure failure = new CallbackFailure();
    private final Map<Long, Pointer> sources = new HashMap<>();

    Statement(Pointer pointer, Db db) throws ClosedHandleException {
        super("statement", false, pointer, db);
        this.db = db;
    }

    public long parameterCount() throws LakeException {
        return use(p -> Lake.lib().lake_statement_parameter_count(p));
    }

    private interface Binder {
        int bind(Pointer statement, PointerByReference err) throws LakeException;
    }

    private void bindWith(long index, Binder binder) throws LakeException {
        use(p -> {
            PointerByReference err = new PointerByReference();
            LakeException.check(binder.bind(p, err), err);
            Trampolines.unregister(sources.remove(index));
            return null;
        });
    }

    /**
     * Binds {@code value} by its Java type: null, Long/Integer (int64),
     * Double/Float (float64), Boolean, String (utf8), byte[] (binary),
     * Instant (timestamp), Path (a FILE uploaded from the file),
     * InputStream (a FILE uploaded from the stream), Location (an existing object).
     */
    public Statement bind(long index, Object value) throws LakeException {
        LakeNative lib = Lake.lib();
        if (value == null) {
            bindWith(index, (p, e) -> lib.lake_statement_bind_null(p, index, e));
        } else if (value instanceof Long || value instanceof Integer || value instanceof Short) {
            long v = ((Number) value).longValue();
            bindWith(index, (p, e) -> lib.lake_statement_bind_int64(p, index, v, e));
        } else if (value instanceof Double || value instanceof Float) {
            double v = ((Number) value).doubleValue();
            bindWith(index, (p, e) -> lib.lake_statement_bind_float64(p, index, v, e));
        } else if (value instanceof Boolean) {
            int v = (Boolean) value ? 1 : 0;
            bindWith(index, (p, e) -> lib.lake_statement_bind_bool(p, index, v, e));
        } else if (value instanceof String) {
            String text = (String) value;
            bindWith(index, (p, e) -> lib.lake_statement_bind_utf8(p, index, text, NativeText.length(text), e));
        } else if (value instanceof byte[]) {
            byte[] bytes = (byte[]) value;
            Memory memory = bytes.length == 0 ? null : new Memory(bytes.length);
            if (memory != null) {
                memory.write(0, bytes, 0, bytes.length);
            }
            bindWith(index, (p, e) -> lib.lake_statement_bind_binary(p, index, memory, bytes.length, e));
        } else if (value instanceof Instant) {
            Instant t = (Instant) value;
            long micros = Math.addExact(Math.multiplyExact(t.getEpochSecond(), 1_000_000L), t.getNano() / 1000);
            bindTimestampMicros(index, micros);
        } else if (value instanceof Path) {
            bindFile(index, (Path) value, null);
        } else if (value instanceof InputStream) {
            bindFile(index, (InputStream) value, null);
        } else if (value instanceof Location) {
            Location location = (Location) value;
            bindWith(index, (p, e) -> location.with(l -> lib.lake_statement_bind_location(p, index, l, e)));
        } else {
            throw new IllegalArgumentException("cannot bind a " + value.getClass().getName());
        }
        return this;
    }

    /** Binds every parameter in order, from index 1. */
    public Statement bindAll(Object... values) throws LakeException {
        for (int i = 0; i < values.length; i++) {
            bind(i + 1, values[i]);
        }
        return this;
    }

    public Statement bindTimestampMicros(long index, long micros) throws LakeException {
        bindWith(index, (p, e) -> Lake.lib().lake_statement_bind_timestamp_micros(p, index, micros, e));
        return this;
    }

    /** Text parsed by the column's type, as the CLI's --param. */
    public Statement bindText(long index, String text) throws LakeException {
        bindWith(index, (p, e) -> Lake.lib().lake_statement_bind_text(p, index, text, e));
        return this;
    }

    /** A FILE uploaded from {@code path} when the INSERT runs (contentType null: octet-stream). */
    public Statement bindFile(long index, Path path, String contentType) throws LakeException {
        bindWith(index, (p, e) -> Lake.lib().lake_statement_bind_file_path(p, index, path.toString(), contentType, e));
        return this;
    }

    /** A FILE uploaded from {@code source} (read to its end by the INSERT; not closed here). */
    public Statement bindFile(long index, InputStream source, String contentType) throws LakeException {
        use(p -> {
            Pointer ctx = Trampolines.register(new StreamSource(source, failure));
            PointerByReference err = new PointerByReference();
            int status = Lake.lib().lake_statement_bind_file_reader(p, index, Trampolines.READ, ctx, contentType, err);
            if (status != Status.OK.code) {
                Trampolines.unregister(ctx);
                LakeException.check(status, err);
            }
            Trampolines.unregister(sources.put(index, ctx));
            return null;
        });
        return this;
    }

    /** Runs an INSERT; returns the new table version. {@code options} may be null. */
    public long insert(UploadOptions options) throws LakeException {
        return use(p -> {
            LongByReference version = new LongByReference();
            PointerByReference err = new PointerByReference();
            Call<Object> run = o -> {
                LakeException.check(Lake.lib().lake_statement_insert(p, o, version, err), err);
                return null;
            };
            if (options == null) {
                failure.around(run, null);
            } else {
                options.around(o -> failure.around(run, o));
            }
            return version.getValue();
        });
    }

    public long insert() throws LakeException {
        return insert(null);
    }

    /** Runs a SELECT: its Arrow C stream, readable until the root closes. */
    public QueryResult query() throws LakeException {
        Memory stream = use(p -> {
            Memory out = new Memory(QueryResult.STREAM_SIZE);
            out.clear();
            PointerByReference err = new PointerByReference();
            LakeException.check(Lake.lib().lake_statement_query(p, out, err), err);
            return out;
        });
        return new QueryResult(stream, db);
    }

    /** What a DELETE, replace-where, DROP or ALTER committed. */
    public record Outcome(long version, long rows) {}

    /** Runs a DELETE, replace-where, DROP TABLE or ALTER TABLE. */
    public Outcome execute() throws LakeException {
        return use(p -> {
            LongByReference version = new LongByReference();
            LongByReference rows = new LongByReference();
            PointerByReference err = new PointerByReference();
            failure.around(x -> {
                LakeException.check(Lake.lib().lake_statement_execute(p, version, rows, err), err);
                return null;
            }, p);
            return new Outcome(version.getValue(), rows.getValue());
        });
    }

    /** The rows the last successful run deleted and inserted: {deleted, inserted}. */
    public long[] changes() throws LakeException {
        return use(p -> {
            LongByReference deleted = new LongByReference();
            LongByReference inserted = new LongByReference();
            Lake.lib().lake_statement_changes(p, deleted, inserted);
            return new long[] {deleted.getValue(), inserted.getValue()};
        });
    }

    /** Streams kept for FILE parameters (for tests of H-005). */
    int keptSources() {
        synchronized (this) {
            return sources.size();
        }
    }

    @Override
    protected void release(Pointer pointer) {
        Lake.lib().lake_statement_free(pointer);
    }

    @Override
    protected void released() {
        sources.values().forEach(Trampolines::unregister);
        sources.clear();
    }

    static String utf8(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
