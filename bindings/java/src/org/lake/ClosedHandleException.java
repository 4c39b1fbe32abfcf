package org.lake;

/** A handle used after it (or its parent) was closed; lake was not called. */
public final class ClosedHandleException extends LakeException {
    private static final long serialVersionUID = 1L;

    ClosedHandleException(String message) {
        super(null, message, IntegrityKind.NONE, 0, 0, false, null);
    }
}
