package org.lake;

/** LAKE_INVALID_ARGUMENT: lake_status INVALID_ARGUMENT as its own exception type. */
public final class InvalidArgumentException extends LakeException {
    private static final long serialVersionUID = 1L;

    InvalidArgumentException(String message, IntegrityKind kind, long expected, long observed, boolean retryable,
            String pendingOperationId) {
        super(Status.INVALID_ARGUMENT, message, kind, expected, observed, retryable, pendingOperationId);
    }
}
