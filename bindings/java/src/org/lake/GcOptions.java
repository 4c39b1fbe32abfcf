package org.lake;

import com.sun.jna.Pointer;

/**
 * Options of a GC plan, apply or verify: cutoff, memory, spill directory,
 * progress, cancellation, delete rate. Keeps its progress callback and token
 * until it closes; closing the token first closes these options.
 */
public final class GcOptions extends Handle {
    /** A GC progress callback: phase, work done, total (0 when unknown). */
    @FunctionalInterface
    public interface PhaseProgress {
        void update(String phase, long done, long total) throws Exception;
    }

    final CallbackFailure failure = new CallbackFailure();
    private Pointer ctx;
    private CancelToken token;

    public GcOptions() throws LakeException {
        super("gc options", false, Lake.lib().lake_gc_options_new(), null);
    }

    public GcOptions cutoffSeconds(long seconds) throws LakeException {
        use(p -> { Lake.lib().lake_gc_options_set_cutoff_seconds(p, seconds); return null; });
        return this;
    }
    public GcOptions allowShortCutoff(boolean allow) throws LakeException {
        use(p -> { Lake.lib().lake_gc_options_set_allow_short_cutoff(p, allow ? 1 : 0); return null; });
        return this;
    }
    public GcOptions maxDeletesPerSecond(long perSecond) throws LakeException {
        use(p -> { Lake.lib().lake_gc_options_set_max_deletes_per_second(p, perSecond); return null; });
        return this;
    }
    public GcOptions memoryBudget(long bytes) throws LakeException {
        useChecked((p, e) -> Lake.lib().lake_gc_options_set_memory_budget(p, bytes, e));
        return this;
    }
    public GcOptions tempDir(String dir) throws LakeException {
        useChecked((p, e) -> Lake.lib().lake_gc_options_set_temp_dir(p, dir, e));
        return this;
    }
    public GcOptions progress(PhaseProgress progress) throws LakeException {
        Trampolines.PhaseListener listener = (phase, done, total) -> {
            try {
                progress.update(phase, done, total);
            } catch (Throwable t) {
                failure.record(t);
            }
        };
        use(p -> {
            Pointer next = Trampolines.register(listener);
            Lake.lib().lake_gc_options_set_progress(p, Trampolines.GC_PROGRESS, next);
            Trampolines.unregister(ctx);
            ctx = next;
            return null;
        });
        return this;
    }
    public GcOptions cancelToken(CancelToken token) throws LakeException {
        use(p -> {
            guardedBy(token);
            token.with(t -> { Lake.lib().lake_gc_options_set_cancel_token(p, t); return null; });
            this.token = token;
            return null;
        });
        return this;
    }

    <T> T around(Call<T> call) throws LakeException {
        return use(p -> failure.around(call, p));
    }

    @Override
    protected void release(Pointer pointer) {
        Lake.lib().lake_gc_options_free(pointer);
    }

    @Override
    protected void released() {
        Trampolines.unregister(ctx);
        ctx = null;
        token = null;
    }
}
