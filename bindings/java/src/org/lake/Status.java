package org.lake;

/** lake_status: the outcome of a lake call (lake.h, "Status codes and errors"). */
public enum Status {
    OK(0), INVALID_ARGUMENT(1), INTEGRITY(2), CONFLICT(3), IO(4), NOT_FOUND(5), CANCELLED(6),
    INTERNAL(7), UNSUPPORTED(8);

    /** The C value. */
    public final int code;

    Status(int code) {
        this.code = code;
    }

    /** The status of a C value; a code this binding does not know is INTERNAL. */
    public static Status of(int code) {
        for (Status status : values()) {
            if (status.code == code) {
                return status;
            }
        }
        return INTERNAL;
    }
}
