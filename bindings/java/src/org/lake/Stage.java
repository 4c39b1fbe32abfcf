package org.lake;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.LongByReference;
import com.sun.jna.ptr.PointerByReference;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Where managed objects live: a local directory, an S3 prefix, or a host
 * store. Thread-safe (lake.h). A stage opened on its own closes its readers
 * and writers first when it closes; a root's stage ({@link Db#stage()}) is
 * the root's, closed with it.
 */
public final class Stage extends Handle {
    private final boolean owned;
    private HostStoreAdapter host;

    Stage(Pointer pointer, Handle parent, boolean owned, HostStoreAdapter host) throws ClosedHandleException {
        super("stage", true, pointer, parent);
        this.owned = owned;
        this.host = host;
    }

    /** A local stage rooted at {@code dir} (created if missing), optionally for one tenant. */
    public static Stage openLocal(Path dir, String tenant) throws LakeException {
        try (StageOptions options = new StageOptions()) {
            options.localRoot(dir.toAbsolutePath().toString());
            if (tenant != null) {
                options.tenant(tenant);
            }
            return options.open();
        }
    }

    public static Stage openLocal(Path dir) throws LakeException {
        return openLocal(dir, null);
    }

    /** A stage served by a host store written in Java (see {@link HostStore}). */
    public static Stage openHost(HostStore store, String rootUri, String hostId) throws LakeException {
        try (StageOptions options = new StageOptions()) {
            options.hostStore(store, rootUri);
            if (hostId != null) {
                options.hostId(hostId);
            }
            return options.open();
        }
    }

    /** The stage's credential-free descriptor as canonical JSON. */
    public String descriptor() throws LakeException { return use(p -> Lake.lib().lake_stage_descriptor(p)); }

    /** "io_uring" or "sync" (local), "s3" or "host". */
    public String ioBackend() throws LakeException { return use(p -> Lake.lib().lake_stage_io_backend(p)); }

    /** Uploads the file at {@code path}; {@code options} may be null. */
    public Location put(Path path, UploadOptions options) throws LakeException {
        return upload(options, (p, o, out, err) ->
            Lake.lib().lake_stage_upload_path(p, path.toString(), o, out, err));
    }

    /** Uploads the file at {@code path} with a content type. */
    public Location put(Path path, String contentType) throws LakeException {
        try (UploadOptions options = new UploadOptions().contentType(contentType)) {
            return put(path, options);
        }
    }

    /** Uploads the bytes of {@code source} (read to its end; not closed here). */
    public Location put(InputStream source, UploadOptions options) throws LakeException {
        CallbackFailure failure = new CallbackFailure();
        Pointer ctx = Trampolines.register(new StreamSource(source, failure));
        try {
            return upload(options, (p, o, out, err) -> failure.around(x ->
                Lake.lib().lake_stage_upload_reader(p, Trampolines.READ, ctx, o, out, err), p));
        } finally {
            Trampolines.unregister(ctx);
        }
    }

    private interface UploadCall {
        int run(Pointer stage, Pointer options, PointerByReference out, PointerByReference err) throws LakeException;
    }

    private Location upload(UploadOptions options, UploadCall call) throws LakeException {
        Pointer location = run(p -> {
            PointerByReference out = new PointerByReference();
            PointerByReference err = new PointerByReference();
            if (options == null) {
                LakeException.check(call.run(p, null, out, err), err);
            } else {
                options.around(o -> {
                    LakeException.check(call.run(p, o, out, err), err);
                    return null;
                });
            }
            return out.getValue();
        });
        return new Location(location);
    }

    /** A push writer; {@code options} may be null (kept by the writer until it closes). */
    public Writer writer(UploadOptions options) throws LakeException {
        return run(p -> {
            PointerByReference out = new PointerByReference();
            PointerByReference err = new PointerByReference();
            if (options == null) {
                LakeException.check(Lake.lib().lake_writer_open(p, null, out, err), err);
            } else {
                options.around(o -> {
                    LakeException.check(Lake.lib().lake_writer_open(p, o, out, err), err);
                    return null;
                });
            }
            return new Writer(out.getValue(), this, options, false);
        });
    }

    /** A push writer of objects of {@code contentType}. */
    public Writer writer(String contentType) throws LakeException {
        UploadOptions options = new UploadOptions().contentType(contentType);
        try {
            return run(p -> {
                PointerByReference out = new PointerByReference();
                PointerByReference err = new PointerByReference();
                options.around(o -> {
                    LakeException.check(Lake.lib().lake_writer_open(p, o, out, err), err);
                    return null;
                });
                return new Writer(out.getValue(), this, options, true);
            });
        } catch (LakeException | RuntimeException e) {
            options.close();
            throw e;
        }
    }

    /** A verified full read of {@code location}. */
    public Reader open(Location location) throws LakeException {
        return run(p -> location.with(l -> {
            PointerByReference out = new PointerByReference();
            PointerByReference err = new PointerByReference();
            LakeException.check(Lake.lib().lake_reader_open(p, l, out, err), err);
            return new Reader(out.getValue(), this, host == null ? null : host.failure);
        }));
    }

    /** A read of the byte range [start, end) of {@code location} (not verified by SHA-256). */
    public Reader openRange(Location location, long start, long end) throws LakeException {
        return run(p -> location.with(l -> {
            PointerByReference out = new PointerByReference();
            PointerByReference err = new PointerByReference();
            LakeException.check(Lake.lib().lake_reader_open_range(p, l, start, end, out, err), err);
            return new Reader(out.getValue(), this, host == null ? null : host.failure);
        }));
    }

    /** The whole object, verified. */
    public byte[] cat(Location location) throws LakeException {
        try (Reader reader = open(location)) {
            return reader.readAllBytes();
        } catch (LakeException e) {
            throw e;
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** One range of a batch: [start, end) of a location. */
    public record ByteRange(Location location, long start, long end) {}

    /**
     * Reads many ranges submitted together (not verified by SHA-256); every
     * range is validated first and an invalid one fails alone. Returns each
     * range's bytes, or throws the first failed range's error. A range longer
     * than a Java array can hold is refused (IllegalArgumentException).
     */
    public List<byte[]> readRanges(List<ByteRange> ranges) throws LakeException {
        if (ranges.isEmpty()) {
            return new ArrayList<>();
        }
        for (ByteRange range : ranges) {
            if (range.end() - range.start() > Integer.MAX_VALUE - 8) {
                throw new IllegalArgumentException("a range of " + (range.end() - range.start()) + " bytes");
            }
        }
        List<Location> distinct = new ArrayList<>();
        java.util.Map<Location, Pointer> pointers = new java.util.IdentityHashMap<>();
        for (ByteRange range : ranges) {
            if (!pointers.containsKey(range.location())) {
                pointers.put(range.location(), null);
                distinct.add(range.location());
            }
        }
        return run(p -> withLocations(distinct, 0, pointers, x -> readRanges(p, ranges, pointers)));
    }

    /**
     * Runs {@code call} with each of {@code locations} held in use (none can
     * close meanwhile), their pointers in {@code pointers}.
     */
    private static <T> T withLocations(List<Location> locations, int i, java.util.Map<Location, Pointer> pointers,
                                       Call<T> call) throws LakeException {
        if (i == locations.size()) {
            return call.apply(null);
        }
        return locations.get(i).with(l -> {
            pointers.put(locations.get(i), l);
            return withLocations(locations, i + 1, pointers, call);
        });
    }

    /** lake_stage_read_ranges over a contiguous lake_range array. */
    private static List<byte[]> readRanges(Pointer p, List<ByteRange> ranges, java.util.Map<Location, Pointer> pointers)
            throws LakeException {
        int count = ranges.size();
        LakeNative.Range[] array = (LakeNative.Range[]) new LakeNative.Range().toArray(count);
        Memory[] buffers = new Memory[count];
        for (int i = 0; i < count; i++) {
            ByteRange range = ranges.get(i);
            buffers[i] = new Memory(Math.max(1, range.end() - range.start()));
            array[i].location = pointers.get(range.location());
            array[i].start = range.start();
            array[i].end = range.end();
            array[i].buffer = buffers[i];
        }
        for (LakeNative.Range range : array) {
            range.write();
        }
        PointerByReference err = new PointerByReference();
        int status = Lake.lib().lake_stage_read_ranges(p, array[0], count, err);
        if (err.getValue() != null) {
            Lake.lib().lake_error_free(err.getValue());
        }
        for (LakeNative.Range range : array) {
            range.read();
        }
        LakeException first = null;
        List<byte[]> result = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            LakeNative.Range range = array[i];
            if (range.status != Status.OK.code) {
                LakeException e = LakeException.fromNative(range.status, range.error);
                if (first == null) {
                    first = e;
                }
                result.add(null);
            } else {
                result.add(buffers[i].getByteArray(0, (int) range.bytes_read));
            }
        }
        if (first != null) {
            throw first;
        }
        if (status != Status.OK.code) {
            throw LakeException.fromNative(status, null);
        }
        return result;
    }

    /** One published object of a listing. */
    public record Entry(String uri, long sizeBytes, long modifiedUnixMicros) {}

    /** Every published object of the stage (or tenant). */
    public List<Entry> list() throws LakeException {
        return run(p -> Listing.collect(
            e -> new Entry(Listing.string(e, 0), e.getLong(8), e.getLong(16)),
            ctx -> {
                PointerByReference err = new PointerByReference();
                LakeException.check(Lake.lib().lake_stage_list(p, Trampolines.LIST, ctx, err), err);
            }));
    }

    /** Deletes a managed object (absent: success). */
    public void delete(Location location) throws LakeException {
        run(p -> location.with(l -> {
            PointerByReference err = new PointerByReference();
            LakeException.check(Lake.lib().lake_stage_delete(p, l, err), err);
            return null;
        }));
    }

    /** A GET URL valid for {@code ttlSeconds} (S3 stages only; UNSUPPORTED otherwise). */
    public String presign(Location location, int ttlSeconds) throws LakeException {
        return run(p -> location.with(l -> {
            PointerByReference url = new PointerByReference();
            PointerByReference err = new PointerByReference();
            LakeException.check(Lake.lib().lake_stage_presign(p, l, ttlSeconds, url, err), err);
            return NativeText.take(url);
        }));
    }

    /** Removes leftovers of dead uploads; returns how many. */
    public long cleanStaging() throws LakeException {
        return run(p -> {
            LongByReference removed = new LongByReference();
            PointerByReference err = new PointerByReference();
            LakeException.check(Lake.lib().lake_stage_clean_staging(p, removed, err), err);
            return removed.getValue();
        });
    }

    /** Runs a call on the stage; a host store callback's Throwable becomes its error. */
    private <T> T run(Call<T> call) throws LakeException {
        HostStoreAdapter adapter = host;
        return use(p -> adapter == null ? call.apply(p) : adapter.failure.around(call, p));
    }

    @Override
    protected void release(Pointer pointer) {
        if (owned) {
            Lake.lib().lake_stage_free(pointer);
        }
    }

    @Override
    protected void released() {
        host = null;
    }
}
