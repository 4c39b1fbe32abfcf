package org.lake;

import com.sun.jna.Pointer;
import java.io.InputStream;

/**
 * An InputStream as a lake_read_fn (through {@link Trampolines#READ}): lake
 * pulls the stream's bytes through it.
 * A Throwable the stream raises is recorded in its CallbackFailure and the
 * read returns -1 (lake fails the call); it never unwinds into C.
 */
final class StreamSource implements Trampolines.Source {
    private static final int CHUNK = 1 << 20;

    private final InputStream in;
    private final CallbackFailure failure;
    private byte[] chunk = new byte[0];

    StreamSource(InputStream in, CallbackFailure failure) {
        this.in = in;
        this.failure = failure;
    }

    @Override
    public long pull(Pointer buf, long cap) {
        if (cap <= 0) {
            return 0;
        }
        try {
            int want = (int) Math.min(cap, CHUNK);
            if (chunk.length < want) {
                chunk = new byte[want];
            }
            int n = in.read(chunk, 0, want);
            if (n <= 0) {
                return 0;
            }
            buf.write(0, chunk, 0, n);
            return n;
        } catch (Throwable t) {
            failure.record(t);
            return -1;
        }
    }
}
