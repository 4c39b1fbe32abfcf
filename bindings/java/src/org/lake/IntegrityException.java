package org.lake;

/** LAKE_INTEGRITY: lake_status INTEGRITY as its own exception type. */
public final class IntegrityException extends LakeException {
    private static final long serialVersionUID = 1L;

    IntegrityException(String message, IntegrityKind kind, long expected, long observed, boolean retryable,
            String pendingOperationId) {
        super(Status.INTEGRITY, message, kind, expected, observed, retryable, pendingOperationId);
    }
}
