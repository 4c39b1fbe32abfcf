package org.lake;

/** LAKE_INTERNAL: lake_status INTERNAL as its own exception type. */
public final class InternalException extends LakeException {
    private static final long serialVersionUID = 1L;

    InternalException(String message, IntegrityKind kind, long expected, long observed, boolean retryable,
            String pendingOperationId) {
        super(Status.INTERNAL, message, kind, expected, observed, retryable, pendingOperationId);
    }
}
