package org.lake;

import com.sun.jna.Pointer;
import java.util.ArrayList;
import java.util.List;

/**
 * The entries a lake call emits through a callback (a stage listing, upload
 * checkpoints, GC candidates or problems), decoded into Java records while
 * the struct lake passes is valid (during the callback only). Reached through
 * the {@link Trampolines} of its C signature; a Throwable while decoding stops
 * the listing and becomes the call's error.
 */
final class Listing<T> implements Trampolines.Sink {
    /** Decodes one struct lake emitted. */
    @FunctionalInterface
    interface Decoder<T> {
        T decode(Pointer struct);
    }

    /** The lake call, given the ctx to pass with the emit function. */
    @FunctionalInterface
    interface Body {
        void run(Pointer ctx) throws LakeException;
    }

    private final Decoder<T> decoder;
    private final List<T> items = new ArrayList<>();
    private final CallbackFailure failure = new CallbackFailure();

    private Listing(Decoder<T> decoder) {
        this.decoder = decoder;
    }

    @Override
    public int accept(Pointer struct) {
        try {
            items.add(decoder.decode(struct));
            return 0;
        } catch (Throwable t) {
            failure.record(t);
            return 1;
        }
    }

    /** Runs {@code body} with a registered ctx and returns what it emitted. */
    static <T> List<T> collect(Decoder<T> decoder, Body body) throws LakeException {
        Listing<T> listing = new Listing<>(decoder);
        Pointer ctx = Trampolines.register(listing);
        try {
            listing.failure.around(x -> {
                body.run(ctx);
                return null;
            }, null);
        } finally {
            Trampolines.unregister(ctx);
        }
        return listing.items;
    }

    /** The UTF-8 string a struct's char* member at {@code offset} points at, or null. */
    static String string(Pointer struct, long offset) {
        Pointer text = struct.getPointer(offset);
        return text == null ? null : text.getString(0, "UTF-8");
    }
}
