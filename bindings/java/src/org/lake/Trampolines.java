package org.lake;

import com.sun.jna.Pointer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The JNA callbacks lake calls for read sources, progress, notices and
 * listings: one
 * per C signature, made once and held by static fields for the life of the
 * process, dispatching on the `ctx` lake passes back — a number registered
 * here, never a Java reference.
 *
 * <p>Why not one JNA Callback per handle: each costs a native closure that
 * JNA frees only after the Callback is collected, so native memory would
 * follow the garbage collector instead of close(). Here the Java object
 * behind a callback (a stream, a Progress) is held strongly by its owner's
 * registration, made while lake may call it and removed by the owner's
 * close ({@link #unregister}); a forced collection cannot take it while C
 * holds its number.
 */
final class Trampolines {
    /** Java code behind a lake_read_fn. */
    interface Source {
        long pull(Pointer buf, long cap);
    }

    /** Java code behind a lake_progress_fn / lake_notice_fn. */
    interface Listener {
        void progress(long done, long total);

        void notice(String line);
    }

    /** Java code behind the emit functions: lake_list_fn, lake_upload_info_fn, lake_gc_*_fn. */
    interface Sink {
        /** 0 to go on, non-zero to stop. */
        int accept(Pointer struct);
    }

    /** Java code behind a lake_gc_progress_fn. */
    interface PhaseListener {
        void phase(String phase, long done, long total);
    }

    private static final Map<Long, Object> TARGETS = new ConcurrentHashMap<>();
    private static final AtomicLong NEXT = new AtomicLong(1);

    static final LakeNative.ReadFn READ = (ctx, buf, cap) -> {
        Object target = TARGETS.get(Pointer.nativeValue(ctx));
        return target instanceof Source ? ((Source) target).pull(buf, cap) : -1;
    };
    static final LakeNative.ProgressFn PROGRESS = (ctx, done, total) -> {
        Object target = TARGETS.get(Pointer.nativeValue(ctx));
        if (target instanceof Listener) {
            ((Listener) target).progress(done, total);
        }
    };
    static final LakeNative.NoticeFn NOTICE = (ctx, line) -> {
        Object target = TARGETS.get(Pointer.nativeValue(ctx));
        if (target instanceof Listener) {
            ((Listener) target).notice(line);
        }
    };
    static final LakeNative.GcProgressFn GC_PROGRESS = (ctx, phase, done, total) -> {
        Object target = TARGETS.get(Pointer.nativeValue(ctx));
        if (target instanceof PhaseListener) {
            ((PhaseListener) target).phase(phase, done, total);
        }
    };

    static final LakeNative.ListFn LIST = (ctx, entry) -> sink(ctx).accept(entry);
    static final LakeNative.UploadInfoFn UPLOAD_INFO = (ctx, info) -> sink(ctx).accept(info);
    static final LakeNative.GcCandidateFn GC_CANDIDATE = (ctx, candidate) -> sink(ctx).accept(candidate);
    static final LakeNative.GcProblemFn GC_PROBLEM = (ctx, problem) -> sink(ctx).accept(problem);

    private Trampolines() {}

    private static Sink sink(Pointer ctx) {
        Object target = TARGETS.get(Pointer.nativeValue(ctx));
        return target instanceof Sink ? (Sink) target : struct -> 1;
    }

    /** Registers {@code target}; the returned ctx reaches it until {@link #unregister}. */
    static Pointer register(Object target) {
        long id = NEXT.getAndIncrement();
        TARGETS.put(id, target);
        return new Pointer(id);
    }

    static void unregister(Pointer ctx) {
        if (ctx != null) {
            TARGETS.remove(Pointer.nativeValue(ctx));
        }
    }

    /** How many targets are registered (for leak tests). */
    static int registered() {
        return TARGETS.size();
    }
}
