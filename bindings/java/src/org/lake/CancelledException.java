package org.lake;

/** LAKE_CANCELLED: lake_status CANCELLED as its own exception type. */
public final class CancelledException extends LakeException {
    private static final long serialVersionUID = 1L;

    CancelledException(String message, IntegrityKind kind, long expected, long observed, boolean retryable,
            String pendingOperationId) {
        super(Status.CANCELLED, message, kind, expected, observed, retryable, pendingOperationId);
    }
}
