package org.lake;

import com.sun.jna.Pointer;
import com.sun.jna.ptr.PointerByReference;
import java.util.function.Consumer;

/**
 * Options of one upload or INSERT: content type, cancellation token, progress
 * and notice callbacks. The JNA callbacks and the token are kept here while
 * lake may call or use them, i.e. until this handle closes; a Throwable a
 * callback raises becomes the error of the call that used these options.
 */
public final class UploadOptions extends Handle {
    final CallbackFailure failure = new CallbackFailure();
    private CancelToken token;
    private LakeNative.ProgressFn progressFn;
    private LakeNative.NoticeFn noticeFn;

    public UploadOptions() throws LakeException {
        super("upload options", false, Lake.lib().lake_upload_options_new(), null);
    }

    /** Default "application/octet-stream". */
    public UploadOptions contentType(String contentType) throws LakeException {
        use(p -> {
            PointerByReference err = new PointerByReference();
            LakeException.check(Lake.lib().lake_upload_options_set_content_type(p, contentType, err), err);
            return null;
        });
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
        LakeNative.ProgressFn fn = (ctx, done, total) -> {
            try {
                progress.update(done, total);
            } catch (Throwable t) {
                failure.record(t);
            }
        };
        use(p -> {
            Lake.lib().lake_upload_options_set_progress(p, fn, null);
            progressFn = fn;
            return null;
        });
        return this;
    }

    /** One line for a person about what a resumable upload did. */
    public UploadOptions notice(Consumer<String> notice) throws LakeException {
        LakeNative.NoticeFn fn = (ctx, line) -> {
            try {
                notice.accept(line);
            } catch (Throwable t) {
                failure.record(t);
            }
        };
        use(p -> {
            Lake.lib().lake_upload_options_set_notice(p, fn, null);
            noticeFn = fn;
            return null;
        });
        return this;
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
        progressFn = null;
        noticeFn = null;
        token = null;
    }
}
