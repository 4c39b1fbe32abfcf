package org.lake;

import com.sun.jna.Pointer;
import com.sun.jna.ptr.PointerByReference;
import java.lang.ref.Cleaner;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The lifetime rules every handle of the binding follows.
 *
 * <p>Invariants:
 * <ul>
 * <li>{@link #close()} is idempotent; after it every method throws
 *     {@link ClosedHandleException} before any call into lake.</li>
 * <li>A handle holds its parent strongly, and a parent holds its open
 *     children strongly: closing a parent first closes its children, so lake
 *     never sees a child outlive the handle it depends on.</li>
 * <li>A call holds the handle in use: close() first waits until the calls in
 *     flight return. Handles lake.h calls one-thread-at-a-time
 *     ({@code threadSafe} false) also serialise their calls.</li>
 * <li>What lake may call back (a stream, a progress callback) is registered
 *     with {@link Trampolines} by the handle lending it, until that handle
 *     closes, so no collection frees it while C holds it.</li>
 * <li>The {@link Cleaner} only reports a handle that became unreachable
 *     without close() (a leak, counted in {@link #leakCount()}); it never
 *     frees, since it cannot know whether lake still uses the handle.</li>
 * </ul>
 */
public abstract class Handle implements AutoCloseable {
    private static final Cleaner CLEANER = Cleaner.create();
    private static final AtomicLong OPEN = new AtomicLong();
    private static final AtomicLong LEAKS = new AtomicLong();

    /** A native call on this handle's pointer. */
    @FunctionalInterface
    protected interface Call<T> {
        T apply(Pointer pointer) throws LakeException;
    }

    /** A native call on this handle's pointer that reports a failure as a status and an error. */
    @FunctionalInterface
    protected interface CheckedCall {
        int apply(Pointer pointer, PointerByReference err);
    }

    /** What the cleaner sees: whether the handle was closed; never the handle itself. */
    private static final class LeakReport implements Runnable {
        private final String kind;
        volatile boolean closed;

        LeakReport(String kind) {
            this.kind = kind;
        }

        @Override
        public void run() {
            if (!closed) {
                LEAKS.incrementAndGet();
                System.err.println("lake: a " + kind + " became unreachable without close() (leaked)");
            }
        }
    }

    private final String kind;
    private final boolean threadSafe;
    private final Handle parent;
    private final Set<Handle> children = new LinkedHashSet<>();
    private final List<Handle> guardians = new ArrayList<>();
    private final LeakReport report;
    private final Cleaner.Cleanable cleanable;
    private Pointer pointer;
    private int active;
    private boolean closing;

    /**
     * Takes ownership of {@code pointer} (released by {@link #release}); with a
     * parent, joins its children or, when the parent is closing, releases the
     * pointer and throws the closed-handle error.
     */
    protected Handle(String kind, boolean threadSafe, Pointer pointer, Handle parent) throws ClosedHandleException {
        this.kind = kind;
        this.threadSafe = threadSafe;
        this.parent = parent;
        this.pointer = pointer;
        if (parent != null) {
            try {
                parent.adopt(this);
            } catch (ClosedHandleException closed) {
                this.pointer = null;
                try {
                    release(pointer);
                } catch (LakeException ignored) {
                    // The parent's closed error is what the caller needs.
                }
                throw closed;
            }
        }
        OPEN.incrementAndGet();
        report = new LeakReport(kind);
        cleanable = CLEANER.register(this, report);
    }

    /** Open handles of the binding in this process. */
    static long openCount() {
        return OPEN.get();
    }

    /** Handles the cleaner found unreachable and unclosed, since the process started. */
    public static long leakCount() {
        return LEAKS.get();
    }

    private synchronized void adopt(Handle child) throws ClosedHandleException {
        if (pointer == null || closing) {
            throw new ClosedHandleException("the " + kind + " is closed");
        }
        children.add(child);
    }

    private synchronized void forget(Handle child) {
        children.remove(child);
    }

    /**
     * Makes this handle also a child of {@code guardian} (besides its parent):
     * closing the guardian first closes this handle. For a handle that borrows
     * another lake.h requires to outlive it (a writer borrows its options' token).
     */
    protected final void guardedBy(Handle guardian) throws ClosedHandleException {
        guardian.adopt(this);
        synchronized (this) {
            guardians.add(guardian);
        }
    }

    /** The parent this handle was opened from, or null. */
    protected Handle parent() {
        return parent;
    }

    /** True once close() returned (or began, from another thread). */
    public synchronized boolean isClosed() {
        return pointer == null || closing;
    }

    /** Runs {@code call} with the native pointer, the handle held in use meanwhile. */
    protected final <T> T use(Call<T> call) throws LakeException {
        Pointer p = enter();
        try {
            return call.apply(p);
        } finally {
            leave();
        }
    }

    /** Runs {@code call} as {@link #use} does; a failing status throws its error. */
    protected final void useChecked(CheckedCall call) throws LakeException {
        use(p -> {
            PointerByReference err = new PointerByReference();
            LakeException.check(call.apply(p, err), err);
            return null;
        });
    }

    private synchronized Pointer enter() throws ClosedHandleException {
        if (pointer == null || closing) {
            throw new ClosedHandleException("the " + kind + " is closed");
        }
        if (!threadSafe) {
            while (active > 0) {
                try {
                    wait();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new ClosedHandleException("interrupted while waiting for the " + kind);
                }
                if (pointer == null || closing) {
                    throw new ClosedHandleException("the " + kind + " is closed");
                }
            }
        }
        active++;
        return pointer;
    }

    private synchronized void leave() {
        active--;
        notifyAll();
    }

    /** Releases the native handle; a subclass whose release can fail throws here. */
    protected abstract void release(Pointer pointer) throws LakeException;

    /**
     * Closes the handle: waits for calls in flight, closes its children, then
     * releases it. A second close (or a close while one runs) does nothing.
     * The handle is closed even when releasing fails (then that error is thrown).
     */
    @Override
    public void close() throws LakeException {
        synchronized (this) {
            if (pointer == null || closing) {
                return;
            }
            closing = true;
            boolean interrupted = false;
            while (active > 0) {
                try {
                    wait();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        LakeException first = null;
        List<Handle> open;
        synchronized (this) {
            open = new ArrayList<>(children);
        }
        for (Handle child : open) {
            try {
                child.close();
            } catch (LakeException e) {
                if (first == null) {
                    first = e;
                }
            }
        }
        Pointer p;
        synchronized (this) {
            p = pointer;
            pointer = null;
            closing = false;
            notifyAll();
        }
        if (parent != null) {
            parent.forget(this);
        }
        List<Handle> borrowed;
        synchronized (this) {
            borrowed = new ArrayList<>(guardians);
            guardians.clear();
        }
        for (Handle guardian : borrowed) {
            guardian.forget(this);
        }
        OPEN.decrementAndGet();
        report.closed = true;
        cleanable.clean();
        try {
            release(p);
        } catch (LakeException e) {
            if (first == null) {
                first = e;
            }
        } finally {
            released();
        }
        if (first != null) {
            throw first;
        }
    }

    /** After the native handle is gone: drop what was kept for lake (callbacks, buffers). */
    protected void released() {}

    @Override
    public String toString() {
        return getClass().getSimpleName() + (isClosed() ? "(closed)" : "");
    }
}
