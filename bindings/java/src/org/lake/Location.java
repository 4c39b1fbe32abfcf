package org.lake;

import com.sun.jna.Pointer;
import com.sun.jna.ptr.PointerByReference;
import java.nio.charset.StandardCharsets;

/**
 * A DataLocation: the immutable identity {uri, content type, size, SHA-256}
 * of one complete managed object. Thread-safe, as lake.h says.
 */
public final class Location extends Handle {
    Location(Pointer pointer) throws ClosedHandleException {
        super("location", true, pointer, null);
    }

    /** Parses the canonical JSON form (INVALID_ARGUMENT, kind INVALID_LOCATION, when malformed). */
    public static Location fromJson(String json) throws LakeException {
        PointerByReference out = new PointerByReference();
        PointerByReference err = new PointerByReference();
        LakeException.check(Lake.lib().lake_location_from_json(json,
                json.getBytes(StandardCharsets.UTF_8).length, out, err), err);
        return new Location(out.getValue());
    }

    /** Builds a location from its fields, with the same validation. */
    public static Location of(String uri, String contentType, long sizeBytes, String sha256) throws LakeException {
        PointerByReference out = new PointerByReference();
        PointerByReference err = new PointerByReference();
        LakeException.check(Lake.lib().lake_location_new(uri, contentType, sizeBytes, sha256, out, err), err);
        return new Location(out.getValue());
    }

    /** Canonical JSON: fixed key order, no whitespace. */
    public String json() throws LakeException { return use(p -> Lake.lib().lake_location_json(p)); }
    public String uri() throws LakeException { return use(p -> Lake.lib().lake_location_uri(p)); }
    public String contentType() throws LakeException { return use(p -> Lake.lib().lake_location_content_type(p)); }
    public long sizeBytes() throws LakeException { return use(p -> Lake.lib().lake_location_size_bytes(p)); }
    /** 64 lowercase hexadecimal characters. */
    public String sha256() throws LakeException { return use(p -> Lake.lib().lake_location_sha256(p)); }

    /** Runs {@code call} with the native pointer (for handles that pass a location to lake). */
    <T> T with(Call<T> call) throws LakeException {
        return use(call);
    }

    @Override
    protected void release(Pointer pointer) {
        Lake.lib().lake_location_free(pointer);
    }
}
