package org.lake;

import com.sun.jna.Pointer;
import com.sun.jna.ptr.PointerByReference;
import java.nio.charset.StandardCharsets;

/** Strings lake returns for the caller to free (lake_string_free). */
final class NativeText {
    private NativeText() {}

    /** The UTF-8 text at *out (null for NULL), freed. */
    static String take(PointerByReference out) {
        Pointer text = out.getValue();
        if (text == null) {
            return null;
        }
        try {
            return text.getString(0, StandardCharsets.UTF_8.name());
        } finally {
            Lake.lib().lake_string_free(text);
        }
    }

    /** A lake call that writes a string the caller frees into *out. */
    @FunctionalInterface
    interface Producer {
        int run(Pointer handle, PointerByReference out, PointerByReference err) throws LakeException;
    }

    /** Runs {@code producer} on {@code handle}; the text it wrote, freed (or its error). */
    static String produce(Pointer handle, Producer producer) throws LakeException {
        PointerByReference out = new PointerByReference();
        PointerByReference err = new PointerByReference();
        LakeException.check(producer.run(handle, out, err), err);
        return take(out);
    }

    /** The UTF-8 byte length of {@code text}. */
    static long length(String text) {
        return text.getBytes(StandardCharsets.UTF_8).length;
    }
}
