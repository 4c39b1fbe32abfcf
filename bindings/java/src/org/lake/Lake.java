package org.lake;

import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.ptr.PointerByReference;
import java.util.Map;

/**
 * The loaded library, once per process.
 *
 * <p>The library is found as "lake" (liblake.so) on JNA's search path
 * ({@code -Djna.library.path=BUILD_DIR}), or at the path in the system
 * property {@code lake.library} (else $LAKE_LIBRARY). Loading checks
 * {@code lake_abi_version()} against {@link #ABI_VERSION} before any other
 * call: a mismatch throws {@link AbiVersionException}, so no handle can exist
 * over a library of another ABI. Calls then go through {@link DirectLake}
 * (JNA's direct mapping), or through the interface mapping itself with
 * {@code -Dlake.jna.mapping=interface}.
 *
 * <p>Every call of the binding goes through {@link #lib()}; tests replace it
 * (package-private {@link #replaceForTests}) to prove a path calls nothing.
 */
public final class Lake {
    /** LAKE_ABI_VERSION of the lake.h this binding follows. */
    public static final int ABI_VERSION = 1;

    private static volatile LakeNative loaded;

    private Lake() {}

    /** The library, loaded and checked at the first use. */
    public static LakeNative lib() {
        LakeNative library = loaded;
        if (library == null) {
            synchronized (Lake.class) {
                if (loaded == null) {
                    loaded = load();
                }
                library = loaded;
            }
        }
        return library;
    }

    private static LakeNative load() {
        String path = System.getProperty("lake.library");
        if (path == null || path.isEmpty()) {
            path = System.getenv("LAKE_LIBRARY");
        }
        String name = path == null || path.isEmpty() ? "lake" : path;
        Map<String, Object> options = Map.of(Library.OPTION_STRING_ENCODING, "UTF-8");
        LakeNative mapped = Native.load(name, LakeNative.class, options);
        int version = mapped.lake_abi_version();
        if (version != ABI_VERSION) {
            throw new AbiVersionException("the library " + name + " implements lake ABI " + version
                    + ", this binding needs ABI " + ABI_VERSION);
        }
        // Only a library of our ABI has every symbol the direct mapping binds.
        if ("interface".equals(System.getProperty("lake.jna.mapping"))) {
            return mapped;
        }
        return new DirectLake(NativeLibrary.getInstance(name, options), mapped);
    }

    /** Swaps the library for a test double; returns the previous one. */
    static LakeNative replaceForTests(LakeNative replacement) {
        synchronized (Lake.class) {
            LakeNative previous = lib();
            loaded = replacement;
            return previous;
        }
    }

    /** The library's release version, e.g. "0.1.0". */
    public static String version() {
        return lib().lake_version_string();
    }

    /** The short name of a status code ("LAKE_INTEGRITY"). */
    public static String statusName(int status) {
        return lib().lake_status_name(status);
    }

    /** The name of an integrity kind ("DigestMismatch"). */
    public static String integrityKindName(int kind) {
        return lib().lake_integrity_kind_name(kind);
    }

    /** Caps the memory lake uses for in-flight data buffers in this process. */
    public static void setBufferBudget(long bytes) throws LakeException {
        PointerByReference err = new PointerByReference();
        LakeException.check(lib().lake_set_buffer_budget(bytes, err), err);
    }

    /** How many handles of the binding are open now (for leak tests). */
    public static long openHandles() {
        return Handle.openCount();
    }
}
