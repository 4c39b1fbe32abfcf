package org.lake;

import com.sun.jna.Pointer;

/**
 * A cancellation token; any thread may cancel it. lake borrows it: upload
 * options given it and writers opened with those options are closed first
 * when it closes (H-008).
 */
public final class CancelToken extends Handle {
    public CancelToken() throws LakeException {
        super("cancel token", true, Lake.lib().lake_cancel_token_new(), null);
    }

    public void cancel() throws LakeException {
        use(p -> { Lake.lib().lake_cancel_token_cancel(p); return null; });
    }

    public boolean isCancelled() throws LakeException {
        return use(p -> Lake.lib().lake_cancel_token_is_cancelled(p) != 0);
    }

    <T> T with(Call<T> call) throws LakeException {
        return use(call);
    }

    @Override
    protected void release(Pointer pointer) {
        Lake.lib().lake_cancel_token_free(pointer);
    }
}
