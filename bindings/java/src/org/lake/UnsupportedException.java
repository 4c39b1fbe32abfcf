package org.lake;

/** LAKE_UNSUPPORTED: lake_status UNSUPPORTED as its own exception type. */
public final class UnsupportedException extends LakeException {
    private static final long serialVersionUID = 1L;

    UnsupportedException(String message, IntegrityKind kind, long expected, long observed, boolean retryable,
            String pendingOperationId) {
        super(Status.UNSUPPORTED, message, kind, expected, observed, retryable, pendingOperationId);
    }
}
