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

    /** The UTF-8 byte length of {@code text}. */
    static long length(String text) {
        return text.getBytes(StandardCharsets.UTF_8).length;
    }
}
