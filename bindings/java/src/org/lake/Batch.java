package org.lake;

import com.sun.jna.Function;
import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.PointerByReference;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * One record batch of a query result (an ArrowArray of struct type, one
 * child per column). Released when closed, or when its result closes.
 * Reads utf8 ("u"), int64 ("l") and FILE (lake.file) columns; FILE cells
 * become {@link Location}s through lake_location_from_arrow.
 */
public final class Batch extends Handle {
    private final Memory array;
    private final QueryResult result;

    Batch(Memory array, QueryResult result) throws ClosedHandleException {
        super("batch", false, array, result);
        this.array = array;
        this.result = result;
    }

    public long length() throws LakeException {
        return use(a -> a.getLong(0));
    }

    private int columnIndex(Pointer schema, String name) {
        long n = schema.getLong(32);
        Pointer children = schema.getPointer(40);
        for (int i = 0; i < n; i++) {
            if (name.equals(children.getPointer(8L * i).getPointer(8).getString(0, "UTF-8"))) {
                return i;
            }
        }
        throw new IllegalArgumentException("no column " + name);
    }

    /** The ArrowArray of column {@code name}: child i of the struct array (children at offset 48). */
    private Pointer child(Pointer array, Pointer schema, String name) {
        return array.getPointer(48).getPointer(8L * columnIndex(schema, name));
    }

    private static boolean isNull(Pointer child, long row) {
        long offset = child.getLong(16);
        Pointer validity = child.getPointer(40).getPointer(0);
        if (validity == null) {
            return false;
        }
        long bit = offset + row;
        return (validity.getByte(bit / 8) & (1 << (bit % 8))) == 0;
    }

    /** Reads the value at {@code index} (the array's offset included) of a non-null cell. */
    @FunctionalInterface
    private interface Cell<T> {
        T read(Pointer buffers, long index);
    }

    /** The values of a column (null for a null cell), each read by {@code cell}. */
    private <T> List<T> column(String column, Cell<T> cell) throws LakeException {
        Pointer schema = result.schema();
        return use(a -> {
            Pointer child = child(a, schema, column);
            long length = child.getLong(0);
            long offset = child.getLong(16);
            Pointer buffers = child.getPointer(40);
            List<T> values = new ArrayList<>();
            for (long row = 0; row < length; row++) {
                values.add(isNull(child, row) ? null : cell.read(buffers, offset + row));
            }
            return values;
        });
    }

    /** The values of a utf8 column ("u": int32 offsets, then the bytes). */
    public List<String> strings(String column) throws LakeException {
        return column(column, (buffers, i) -> {
            Pointer offsets = buffers.getPointer(8);
            int start = offsets.getInt(4 * i);
            int end = offsets.getInt(4 * (i + 1));
            return new String(buffers.getPointer(16).getByteArray(start, end - start), StandardCharsets.UTF_8);
        });
    }

    /** The values of an int64 column ("l"). */
    public List<Long> longs(String column) throws LakeException {
        return column(column, (buffers, i) -> buffers.getPointer(8).getLong(8 * i));
    }

    /** The DataLocation in {@code row} of FILE column {@code column} (NOT_FOUND for a null cell). */
    public Location location(String column, long row) throws LakeException {
        Pointer schema = result.schema();
        Pointer location = use(a -> {
            PointerByReference out = new PointerByReference();
            PointerByReference err = new PointerByReference();
            LakeException.check(Lake.lib().lake_location_from_arrow(schema, a, columnIndex(schema, column), row,
                                                                     out, err), err);
            return out.getValue();
        });
        return new Location(location);
    }

    @Override
    protected void release(Pointer pointer) {
        Pointer release = array.getPointer(64);
        if (release != null) {
            Function.getFunction(release).invokeVoid(new Object[] {array});
        }
    }
}
