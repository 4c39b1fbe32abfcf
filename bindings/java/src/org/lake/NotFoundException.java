package org.lake;

/** LAKE_NOT_FOUND: lake_status NOT_FOUND as its own exception type. */
public final class NotFoundException extends LakeException {
    private static final long serialVersionUID = 1L;

    NotFoundException(String message, IntegrityKind kind, long expected, long observed, boolean retryable,
            String pendingOperationId) {
        super(Status.NOT_FOUND, message, kind, expected, observed, retryable, pendingOperationId);
    }
}
