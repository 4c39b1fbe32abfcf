package org.lake;

import com.sun.jna.Pointer;
import com.sun.jna.ptr.PointerByReference;
import java.io.IOException;

/**
 * A failed lake call, with everything lake_error carries: the status, lake's
 * one-line message, the integrity kind, the expected and observed byte
 * counts, whether repeating the call may succeed, and the pending operation
 * id of an append that may still commit (null when lake gives none).
 *
 * <p>Each status has its own subclass ({@link IntegrityException}, …); a
 * status this binding does not know is an {@link InternalException}. It is an
 * IOException, so readers and writers throw it as Java streams do.
 * {@link ClosedHandleException} is the binding's own (status null).
 */
public class LakeException extends IOException {
    private static final long serialVersionUID = 1L;

    private final Status status;
    private final IntegrityKind integrityKind;
    private final long expected;
    private final long observed;
    private final boolean retryable;
    private final String pendingOperationId;

    LakeException(Status status, String message, IntegrityKind integrityKind, long expected, long observed,
                  boolean retryable, String pendingOperationId) {
        super(message);
        this.status = status;
        this.integrityKind = integrityKind;
        this.expected = expected;
        this.observed = observed;
        this.retryable = retryable;
        this.pendingOperationId = pendingOperationId;
    }

    /** The lake_status; null for the binding's own errors. */
    public Status status() { return status; }
    public IntegrityKind integrityKind() { return integrityKind; }
    /** For integrity failures: the expected byte count (unsigned). */
    public long expected() { return expected; }
    /** For integrity failures: the observed byte count (unsigned). */
    public long observed() { return observed; }
    public boolean retryable() { return retryable; }
    /** The 36-character id of an append that may still commit, or null. */
    public String pendingOperationId() { return pendingOperationId; }

    /** The exception of {@code status} with these details. */
    static LakeException of(Status status, String message, IntegrityKind kind, long expected, long observed,
                            boolean retryable, String pending) {
        switch (status) {
            case INVALID_ARGUMENT: return new InvalidArgumentException(message, kind, expected, observed, retryable, pending);
            case INTEGRITY: return new IntegrityException(message, kind, expected, observed, retryable, pending);
            case CONFLICT: return new ConflictException(message, kind, expected, observed, retryable, pending);
            case IO: return new LakeIOException(message, kind, expected, observed, retryable, pending);
            case NOT_FOUND: return new NotFoundException(message, kind, expected, observed, retryable, pending);
            case CANCELLED: return new CancelledException(message, kind, expected, observed, retryable, pending);
            case UNSUPPORTED: return new UnsupportedException(message, kind, expected, observed, retryable, pending);
            default: return new InternalException(message, kind, expected, observed, retryable, pending);
        }
    }

    /** The exception for a C status and lake_error* (may be NULL), which it frees. */
    static LakeException fromNative(int code, Pointer err) {
        LakeNative lib = Lake.lib();
        Status status = Status.of(code);
        if (err == null) {
            String name = lib.lake_status_name(code);
            return of(status, name == null ? "unknown status " + code : name, IntegrityKind.NONE, 0, 0, false, null);
        }
        try {
            return of(status, lib.lake_error_message(err), IntegrityKind.of(lib.lake_error_integrity_kind(err)),
                      lib.lake_error_expected(err), lib.lake_error_observed(err),
                      lib.lake_error_retryable(err) != 0, lib.lake_error_pending_operation_id(err));
        } finally {
            lib.lake_error_free(err);
        }
    }

    /** Throws the error of a failed call ({@code code} != LAKE_OK). */
    static void check(int code, PointerByReference err) throws LakeException {
        if (code != Status.OK.code) {
            throw fromNative(code, err.getValue());
        }
    }
}
