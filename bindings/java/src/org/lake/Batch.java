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

    private static boolean isNull(Pointer child, long row) {
        long offset = child.getLong(16);
        Pointer validity = child.getPointer(40).getPointer(0);
        if (validity == null) {
            return false;
        }
        long bit = offset + row;
        return (validity.getByte(bit / 8) & (1 << (bit % 8))) == 0;
    }

    /** The values of a utf8 column (null for a null cell). */
    public List<String> strings(String column) throws LakeException {
        Pointer schema = result.schema();
        return use(a -> {
            Pointer child = a.getPointer(48).getPointer(8L * columnIndex(schema, column));
            long length = child.getLong(0);
            long offset = child.getLong(16);
            Pointer buffers = child.getPointer(40);
            Pointer offsets = buffers.getPointer(8);
            Pointer data = buffers.getPointer(16);
            List<String> values = new ArrayList<>();
            for (long row = 0; row < length; row++) {
                if (isNull(child, row)) {
                    values.add(null);
                    continue;
                }
                int start = offsets.getInt(4 * (offset + row));
                int end = offsets.getInt(4 * (offset + row + 1));
                values.add(new String(data.getByteArray(start, end - start), StandardCharsets.UTF_8));
            }
            return values;
        });
    }

    /** The values of an int64 column (null for a null cell). */
    public List<Long> longs(String column) throws LakeException {
        Pointer schema = result.schema();
        return use(a -> {
            Pointer child = a.getPointer(48).getPointer(8L * columnIndex(schema, column));
            long length = child.getLong(0);
            long offset = child.getLong(16);
            Pointer values = child.getPointer(40).getPointer(8);
            List<Long> out = new ArrayList<>();
            for (long row = 0; row < length; row++) {
                out.add(isNull(child, row) ? null : values.getLong(8 * (offset + row)));
            }
            return out;
        });
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
