package org.lake;

import com.sun.jna.Pointer;
import java.util.function.Consumer;

/**
 * Options of one upload or INSERT: content type, cancellation token, progress
 * and notice callbacks. The callbacks (registered with {@link Trampolines})
 * and the token are kept here while lake may call or use them, i.e. until
 * this handle closes; a Throwable a callback raises becomes the error of the
 * call that used these options.
 */
public final class UploadOptions extends Handle {
    final CallbackFailure failure = new CallbackFailure();
    private CancelToken token;
    private Progress progress;
    private Consumer<String> notice;
    private Pointer ctx;

    public UploadOptions() throws LakeException {
        super("upload options", false, Lake.lib().lake_upload_options_new(), null);
    }

    /** Default "application/octet-stream". */
    public UploadOptions contentType(String contentType) throws LakeException {
        useChecked((p, e) -> Lake.lib().lake_upload_options_set_content_type(p, contentType, e));
        return this;
    }

    /** Borrows {@code token}: closing it first closes these options. */
    public UploadOptions cancelToken(CancelToken token) throws LakeException {
        use(p -> {
            guardedBy(token);
            token.with(t -> { Lake.lib().lake_upload_options_set_cancel_token(p, t); return null; });
            this.token = token;
            return null;
        });
        return this;
    }

    /** Called with the bytes done and the total, one call at a time. */
    public UploadOptions progress(Progress progress) throws LakeException {
        use(p -> {
            Lake.lib().lake_upload_options_set_progress(p, Trampolines.PROGRESS, context());
            this.progress = progress;
            return null;
        });
        return this;
    }

    /** One line for a person about what a resumable upload did. */
    public UploadOptions notice(Consumer<String> notice) throws LakeException {
        use(p -> {
            Lake.lib().lake_upload_options_set_notice(p, Trampolines.NOTICE, context());
            this.notice = notice;
            return null;
        });
        return this;
    }

    /** The ctx lake passes back to the trampolines: these options' registration. */
    private Pointer context() {
        if (ctx == null) {
            ctx = Trampolines.register(new Trampolines.Listener() {
                @Override
                public void progress(long done, long total) {
                    try {
                        Progress p = progress;
                        if (p != null) {
                            p.update(done, total);
                        }
                    } catch (Throwable t) {
                        failure.record(t);
                    }
                }

                @Override
                public void notice(String line) {
                    try {
                        Consumer<String> n = notice;
                        if (n != null) {
                            n.accept(line);
                        }
                    } catch (Throwable t) {
                        failure.record(t);
                    }
                }
            });
        }
        return ctx;
    }

    /** Runs a call with these options' pointer; a callback's Throwable becomes its error. */
    <T> T around(Call<T> call) throws LakeException {
        return use(p -> failure.around(call, p));
    }

    @Override
    protected void release(Pointer pointer) {
        Lake.lib().lake_upload_options_free(pointer);
    }

    @Override
    protected void released() {
        Trampolines.unregister(ctx);
        ctx = null;
        progress = null;
        notice = null;
        token = null;
    }
}
