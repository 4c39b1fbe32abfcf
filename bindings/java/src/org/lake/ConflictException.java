package org.lake;

/** LAKE_CONFLICT: lake_status CONFLICT as its own exception type. */
public final class ConflictException extends LakeException {
    private static final long serialVersionUID = 1L;

    ConflictException(String message, IntegrityKind kind, long expected, long observed, boolean retryable,
            String pendingOperationId) {
        super(Status.CONFLICT, message, kind, expected, observed, retryable, pendingOperationId);
    }
}
