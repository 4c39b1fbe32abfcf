package org.lake;

import java.io.InputStream;
import java.util.List;

/**
 * An object store written in Java that serves a stage (lake_host_store).
 * lake keeps its policy on top: it hashes every uploaded byte, builds the
 * location, verifies full reads and checks containment; the store only
 * moves bytes. Methods may be called from any thread using the stage,
 * concurrently. For an absent object, openStream throws
 * {@link java.nio.file.NoSuchFileException} (or FileNotFoundException): lake
 * gets LAKE_NOT_FOUND, an answer, not a failure. Any other Throwable a method
 * throws fails lake's call with LAKE_IO and becomes the error of the
 * binding's call that invoked it.
 */
public interface HostStore {
    /** Stores all of {@code data} under {@code uri}; must not publish a partial object. */
    void upload(String uri, String contentType, InputStream data) throws Exception;

    /** The object's bytes from {@code start}; NoSuchFileException when it is absent. */
    InputStream openStream(String uri, long start) throws Exception;

    /** Every object whose URI starts with {@code prefixUri}. */
    List<Stage.Entry> list(String prefixUri) throws Exception;

    /** Removes the object; removing an absent object succeeds. */
    void remove(String uri) throws Exception;

    /** Called once when the stage opened with this store is closed. */
    default void destroy() {}
}
