package org.lake;

/** lake_integrity_kind: why an object failed verification. */
public enum IntegrityKind {
    NONE(0), SIZE_SHORT(1), SIZE_LONG(2), DIGEST_MISMATCH(3), PREMATURE_EOF(4), INVALID_LOCATION(5),
    OBJECT_CHANGED(6);

    /** The C value. */
    public final int code;

    IntegrityKind(int code) {
        this.code = code;
    }

    /** The kind of a C value; an unknown one is NONE. */
    public static IntegrityKind of(int code) {
        for (IntegrityKind kind : values()) {
            if (kind.code == code) {
                return kind;
            }
        }
        return NONE;
    }
}
