package org.lake;

import com.sun.jna.Pointer;
import com.sun.jna.ptr.LongByReference;
import com.sun.jna.ptr.PointerByReference;
import java.io.InputStream;

/**
 * A verified full read or a range read of one object, as an InputStream.
 *
 * <p>A full reader's read that reaches the end returns -1 only when the
 * object is exactly its location's size and its SHA-256 matches; otherwise
 * it throws {@link IntegrityException} with the kind. Closing early claims
 * nothing. One thread at a time (lake.h): concurrent calls are serialised.
 * Each read copies once, from lake's buffer (lake_reader_read_view) into the
 * caller's array.
 */
public final class Reader extends InputStream {
    private final Handle handle;
    private final CallbackFailure hostFailure;

    Reader(Pointer pointer, Handle parent) throws ClosedHandleException {
        this(pointer, parent, null);
    }

    /** {@code hostFailure}: where a host store's callbacks record a Throwable, or null. */
    Reader(Pointer pointer, Handle parent, CallbackFailure hostFailure) throws ClosedHandleException {
        this.hostFailure = hostFailure;
        handle = new Handle("reader", false, pointer, parent) {
            @Override
            protected void release(Pointer p) throws LakeException {
                PointerByReference err = new PointerByReference();
                int status = Lake.lib().lake_reader_close(p, err);
                Lake.lib().lake_reader_free(p);
                LakeException.check(status, err);
            }
        };
    }

    @Override
    public int read() throws LakeException {
        byte[] one = new byte[1];
        int n;
        do {
            n = read(one, 0, 1);
        } while (n == 0);
        return n < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws LakeException {
        java.util.Objects.checkFromIndexSize(offset, length, buffer.length);
        if (length == 0) {
            return 0;
        }
        return handle.use(p -> {
            PointerByReference data = new PointerByReference();
            LongByReference n = new LongByReference();
            PointerByReference err = new PointerByReference();
            if (hostFailure == null) {
                LakeException.check(Lake.lib().lake_reader_read_view(p, data, length, n, err), err);
            } else {
                hostFailure.around(x -> {
                    LakeException.check(Lake.lib().lake_reader_read_view(p, data, length, n, err), err);
                    return null;
                }, p);
            }
            int count = (int) n.getValue();
            if (count == 0) {
                return -1;
            }
            data.getValue().read(0, buffer, offset, count);
            return count;
        });
    }

    /** Reads into native memory the caller owns (no copy through the Java heap). */
    public long read(Pointer buffer, long capacity) throws LakeException {
        return handle.use(p -> {
            LongByReference n = new LongByReference();
            PointerByReference err = new PointerByReference();
            LakeException.check(Lake.lib().lake_reader_read(p, buffer, capacity, n, err), err);
            return n.getValue() == 0 ? -1L : n.getValue();
        });
    }

    /** True once a full reader reached its verified end; always false for a range reader. */
    public boolean verified() throws LakeException {
        return handle.use(p -> Lake.lib().lake_reader_verified(p) != 0);
    }

    public boolean isClosed() {
        return handle.isClosed();
    }

    /** Releases the storage stream (reporting a failure to do so); a second close does nothing. */
    @Override
    public void close() throws LakeException {
        handle.close();
    }
}
