package org.lake;

import com.sun.jna.Function;
import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import java.util.ArrayList;
import java.util.List;

/**
 * A query's result: the Arrow C stream lake_statement_query gave (Arrow's C
 * stream interface: get_schema, get_next, get_last_error, release at offsets
 * 0, 8, 16, 24 of a 40-byte struct). Its parent is the root, which it may
 * not outlive; closing it releases the stream and the schema. Batches are
 * its children. One thread at a time. A stream callback's errno (EBADMSG for
 * damaged data) is thrown as INTEGRITY; EINVAL as INVALID_ARGUMENT; others
 * as IO.
 */
public final class QueryResult extends Handle {
    static final int STREAM_SIZE = 40;
    static final int SCHEMA_SIZE = 72;
    static final int ARRAY_SIZE = 80;
    private static final int EINVAL = 22;
    private static final int EBADMSG = 74;
    private static final int ENOMEM = 12;

    private final Memory stream;
    private Memory schema;

    QueryResult(Memory stream, Db db) throws ClosedHandleException {
        super("query result", false, stream, db);
        this.stream = stream;
    }

    private LakeException streamError(Pointer s, int code) {
        Pointer message = (Pointer) Function.getFunction(s.getPointer(16)).invoke(Pointer.class, new Object[] {s});
        String text = message == null ? "errno " + code : message.getString(0, "UTF-8");
        Status status = code == EBADMSG ? Status.INTEGRITY : code == EINVAL ? Status.INVALID_ARGUMENT
            : code == ENOMEM ? Status.INTERNAL : Status.IO;
        return LakeException.of(status, text, IntegrityKind.NONE, 0, 0, false, null);
    }

    /** The result's ArrowSchema (owned by this result). */
    Pointer schema() throws LakeException {
        return use(this::schemaOf);
    }

    private Pointer schemaOf(Pointer s) throws LakeException {
        if (schema == null) {
            Memory out = new Memory(SCHEMA_SIZE);
            out.clear();
            int code = Function.getFunction(s.getPointer(0)).invokeInt(new Object[] {s, out});
            if (code != 0) {
                throw streamError(s, code);
            }
            schema = out;
        }
        return schema;
    }

    /** The column names, in order. */
    public List<String> columnNames() throws LakeException {
        return use(s -> {
            Pointer sc = schemaOf(s);
            List<String> names = new ArrayList<>();
            long n = sc.getLong(32);
            Pointer children = sc.getPointer(40);
            for (int i = 0; i < n; i++) {
                names.add(children.getPointer(8L * i).getPointer(8).getString(0, "UTF-8"));
            }
            return names;
        });
    }

    /** The next batch, or null at the end of the stream. */
    public Batch next() throws LakeException {
        Memory array = use(s -> {
            schemaOf(s);
            Memory out = new Memory(ARRAY_SIZE);
            out.clear();
            int code = Function.getFunction(s.getPointer(8)).invokeInt(new Object[] {s, out});
            if (code != 0) {
                throw streamError(s, code);
            }
            return out;
        });
        if (array.getPointer(64) == null) {
            return null;
        }
        return new Batch(array, this);
    }

    /** Moves the stream out into {@code out} (a 40-byte ArrowArrayStream); this result is then closed. */
    public void exportTo(Pointer out) throws LakeException {
        use(s -> {
            out.write(0, s.getByteArray(0, STREAM_SIZE), 0, STREAM_SIZE);
            s.setPointer(24, null);
            return null;
        });
        close();
    }

    @Override
    protected void release(Pointer pointer) {
        if (schema != null && schema.getPointer(56) != null) {
            Function.getFunction(schema.getPointer(56)).invokeVoid(new Object[] {schema});
        }
        Pointer release = stream.getPointer(24);
        if (release != null) {
            Function.getFunction(release).invokeVoid(new Object[] {stream});
        }
    }
}
