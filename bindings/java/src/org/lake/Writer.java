package org.lake;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.PointerByReference;
import java.io.OutputStream;

/**
 * A push-style upload as an OutputStream: write any number of times, then
 * {@link #publish()} to make the object durable and visible. close() without
 * publish() discards the upload (nothing is published), so a
 * try-with-resources block that throws publishes nothing. One thread at a
 * time. The writer keeps its upload options (and their callbacks and token)
 * until it closes, and is closed first when they (or the token) close.
 */
public final class Writer extends OutputStream {
    private static final int CHUNK = 1 << 20;

    private final Handle handle;
    private final UploadOptions options;
    private final boolean ownsOptions;
    private Memory staging;

    Writer(Pointer pointer, Handle stage, UploadOptions options, boolean ownsOptions) throws LakeException {
        this.options = options;
        this.ownsOptions = ownsOptions;
        handle = new Handle("writer", false, pointer, stage) {
            @Override
            protected void release(Pointer p) {
                Lake.lib().lake_writer_free(p);
            }

            @Override
            protected void released() {
                staging = null;
            }
        };
        if (options != null) {
            try {
                handle.guardedBy(options);
            } catch (ClosedHandleException closed) {
                handle.close();
                throw closed;
            }
        }
    }

    @Override
    public void write(int b) throws LakeException {
        write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] buffer, int offset, int length) throws LakeException {
        java.util.Objects.checkFromIndexSize(offset, length, buffer.length);
        handle.use(p -> {
            int done = 0;
            while (done < length) {
                int n = Math.min(CHUNK, length - done);
                if (staging == null || staging.size() < n) {
                    staging = new Memory(Math.max(n, 64 * 1024));
                }
                staging.write(0, buffer, offset + done, n);
                PointerByReference err = new PointerByReference();
                int status = options == null ? Lake.lib().lake_writer_write(p, staging, n, err)
                    : options.failure.around(x -> Lake.lib().lake_writer_write(p, staging, n, err), p);
                LakeException.check(status, err);
                done += n;
            }
            return null;
        });
    }

    /** Publishes the object and returns its location; after a failure nothing is published. */
    public Location publish() throws LakeException {
        Pointer out = handle.use(p -> {
            PointerByReference loc = new PointerByReference();
            PointerByReference err = new PointerByReference();
            if (options == null) {
                LakeException.check(Lake.lib().lake_writer_close(p, loc, err), err);
            } else {
                options.failure.around(x -> {
                    LakeException.check(Lake.lib().lake_writer_close(p, loc, err), err);
                    return null;
                }, p);
            }
            return loc.getValue();
        });
        return new Location(out);
    }

    public boolean isClosed() {
        return handle.isClosed();
    }

    /** Frees the writer: an upload not published is discarded. */
    @Override
    public void close() throws LakeException {
        try {
            handle.close();
        } finally {
            if (ownsOptions) {
                options.close();
            }
        }
    }
}
