package org.lake;

/** LAKE_IO: lake_status IO as its own exception type. */
public final class LakeIOException extends LakeException {
    private static final long serialVersionUID = 1L;

    LakeIOException(String message, IntegrityKind kind, long expected, long observed, boolean retryable,
            String pendingOperationId) {
        super(Status.IO, message, kind, expected, observed, retryable, pendingOperationId);
    }
}
