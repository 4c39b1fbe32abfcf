package org.lake;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link HostStore} as lake's table of callbacks. The table and every JNA
 * callback in it are fields here, kept by the stage until it closes. Open
 * streams are numbered: the void* lake passes back is the number, never a
 * Java reference. Each callback catches every Throwable (recorded in
 * {@link #failure}, its message written for lake) and returns LAKE_IO; an
 * absent object is LAKE_NOT_FOUND (see {@link #guard}).
 *
 * <p>One {@link CallbackFailure} serves the whole stage, which threads use
 * at once: when two calls run concurrently, a store's Throwable is thrown by
 * whichever of them finishes first (lake fails the call that met it with
 * LAKE_IO either way).
 */
final class HostStoreAdapter {
    final CallbackFailure failure = new CallbackFailure();
    final LakeNative.HostStore table = new LakeNative.HostStore();
    private final HostStore store;
    private final Map<Long, InputStream> streams = new ConcurrentHashMap<>();
    private final AtomicLong nextStream = new AtomicLong(1);

    HostStoreAdapter(HostStore store, String rootUri) {
        this.store = store;
        table.version = 1;
        table.root_uri = rootUri;
        table.upload = (ctx, uri, contentType, read, readCtx, message, cap) ->
            guard(message, cap, () -> store.upload(uri, contentType, new NativeSource(read, readCtx)));
        table.open_stream = (ctx, uri, start, streamOut, message, cap) -> guard(message, cap, () -> {
            InputStream in = store.openStream(uri, start);
            long id = nextStream.getAndIncrement();
            streams.put(id, in);
            streamOut.setPointer(0, new Pointer(id));
        });
        table.read_stream = (ctx, stream, buf, cap, nOut, message, messageCap) -> guard(message, messageCap, () -> {
            InputStream in = streams.get(Pointer.nativeValue(stream));
            byte[] chunk = new byte[(int) Math.min(cap, 1 << 20)];
            int n = in.read(chunk, 0, chunk.length);
            if (n < 0) {
                n = 0;
            }
            buf.write(0, chunk, 0, n);
            nOut.setLong(0, n);
        });
        table.close_stream = (ctx, stream) -> {
            InputStream in = streams.remove(Pointer.nativeValue(stream));
            try {
                if (in != null) {
                    in.close();
                }
            } catch (Throwable t) {
                failure.record(t);
            }
        };
        table.list = (ctx, prefix, emit, emitCtx, message, cap) -> guard(message, cap, () -> {
            for (Stage.Entry entry : store.list(prefix)) {
                Memory native_ = new Memory(24);
                byte[] uri = entry.uri().getBytes(StandardCharsets.UTF_8);
                Memory text = new Memory(uri.length + 1);
                text.write(0, uri, 0, uri.length);
                text.setByte(uri.length, (byte) 0);
                native_.setPointer(0, text);
                native_.setLong(8, entry.sizeBytes());
                native_.setLong(16, entry.modifiedUnixMicros());
                if (emit.invoke(emitCtx, native_) != 0) {
                    break;
                }
            }
        });
        table.remove = (ctx, uri, message, cap) -> guard(message, cap, () -> store.remove(uri));
        table.destroy = ctx -> {
            try {
                store.destroy();
            } catch (Throwable t) {
                failure.record(t);
            }
        };
        table.write();
    }

    private interface Body {
        void run() throws Exception;
    }

    /**
     * Runs a store method for lake: LAKE_OK; LAKE_NOT_FOUND for an absent
     * object (NoSuchFileException or FileNotFoundException: an answer lake
     * expects, e.g. when it looks for its owner marker, so not recorded);
     * LAKE_IO for any other Throwable, recorded as the call's error. The
     * message goes to lake either way.
     */
    private int guard(Pointer message, long cap, Body body) {
        try {
            body.run();
            return Status.OK.code;
        } catch (java.nio.file.NoSuchFileException | java.io.FileNotFoundException absent) {
            tell(message, cap, absent);
            return Status.NOT_FOUND.code;
        } catch (Throwable t) {
            failure.record(t);
            tell(message, cap, t);
            return Status.IO.code;
        }
    }

    private static void tell(Pointer message, long cap, Throwable t) {
        if (message != null && cap > 0) {
            byte[] text = String.valueOf(t).getBytes(StandardCharsets.UTF_8);
            int n = (int) Math.min(text.length, cap - 1);
            message.write(0, text, 0, n);
            message.setByte(n, (byte) 0);
        }
    }

    /** lake's read function for an upload, as an InputStream for the store. */
    private static final class NativeSource extends InputStream {
        private final LakeNative.ReadFn read;
        private final Pointer ctx;
        private Memory buffer;

        NativeSource(LakeNative.ReadFn read, Pointer ctx) {
            this.read = read;
            this.ctx = ctx;
        }

        @Override
        public int read() throws java.io.IOException {
            byte[] one = new byte[1];
            int n = read(one, 0, 1);
            return n < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws java.io.IOException {
            if (len == 0) {
                return 0;
            }
            if (buffer == null || buffer.size() < len) {
                buffer = new Memory(Math.max(len, 64 * 1024));
            }
            long n = read.invoke(ctx, buffer, len);
            if (n < 0) {
                throw new java.io.IOException("lake's upload source failed");
            }
            if (n == 0) {
                return -1;
            }
            buffer.read(0, b, off, (int) n);
            return (int) n;
        }
    }
}
