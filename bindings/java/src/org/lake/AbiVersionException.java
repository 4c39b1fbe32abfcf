package org.lake;

/** The library implements another ABI major version than this binding (refused at load). */
public final class AbiVersionException extends LinkageError {
    private static final long serialVersionUID = 1L;

    AbiVersionException(String message) {
        super(message);
    }
}
