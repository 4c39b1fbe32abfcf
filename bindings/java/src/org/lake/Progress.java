package org.lake;

/** A progress callback: bytes done so far and the total (0 when unknown). */
@FunctionalInterface
public interface Progress {
    void update(long doneBytes, long totalBytes) throws Exception;
}
