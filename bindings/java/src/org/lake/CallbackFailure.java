package org.lake;

/**
 * The first Throwable a callback raised during a lake call. A Throwable must
 * never unwind through lake's C frames: each callback catches everything,
 * records it here and returns the failure value its C signature defines;
 * after the call the binding throws it as the call's error ({@link #rethrow}).
 */
final class CallbackFailure {
    private Throwable first;

    /** Records {@code failure} unless an earlier one is recorded. */
    synchronized void record(Throwable failure) {
        if (first == null) {
            first = failure;
        }
    }

    synchronized Throwable take() {
        Throwable failure = first;
        first = null;
        return failure;
    }

    /**
     * Runs a lake call whose callbacks record here. A callback's Throwable wins
     * over the call's result: an unchecked one (or a LakeException) is thrown as
     * it is, with lake's error added as suppressed; a checked one becomes the
     * cause of lake's error (or of an INTERNAL error when lake succeeded).
     */
    <T> T around(Handle.Call<T> call, com.sun.jna.Pointer pointer) throws LakeException {
        T result;
        try {
            result = call.apply(pointer);
        } catch (LakeException lakeError) {
            Throwable failure = take();
            if (failure == null) {
                throw lakeError;
            }
            throw rethrown(failure, lakeError);
        }
        Throwable failure = take();
        if (failure != null) {
            throw rethrown(failure, null);
        }
        return result;
    }

    private static LakeException rethrown(Throwable failure, LakeException lakeError) {
        if (failure instanceof RuntimeException || failure instanceof Error || failure instanceof LakeException) {
            if (lakeError != null) {
                failure.addSuppressed(lakeError);
            }
            sneakyThrow(failure);
        }
        LakeException wrapper = lakeError != null ? lakeError
            : LakeException.of(Status.INTERNAL, "a callback failed: " + failure, IntegrityKind.NONE, 0, 0, false, null);
        wrapper.initCause(failure);
        return wrapper;
    }

    @SuppressWarnings("unchecked")
    private static <E extends Throwable> void sneakyThrow(Throwable failure) throws E {
        throw (E) failure;
    }
}
