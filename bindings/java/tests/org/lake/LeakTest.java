package org.lake;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Leaks (CONFORMANCE.md, L-001, L-002). Resident memory is meaningful here
 * because scripts/lib/test-java-binding fixes and pre-touches the Java heap
 * (-Xms = -Xmx, -XX:+AlwaysPreTouch): what grows is native memory, metadata
 * and code. Threads are counted with the JVM's dynamic compiler and GC
 * threads switched off.
 */
public class LeakTest extends Scratch {
    private static final long MIB = 1 << 20;

    static long residentBytes() throws IOException {
        String[] statm = Files.readString(Path.of("/proc/self/statm")).trim().split(" ");
        return Long.parseLong(statm[1]) * 4096;
    }

    static long count(String dir) throws IOException {
        try (var entries = Files.list(Path.of(dir))) {
            return entries.count();
        }
    }

    /** Lets the collector and JNA's cleaner release what the loops dropped. */
    static void settle() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(20);
        }
    }

    private void cheapHandles(Db db) throws LakeException {
        try (Location location = Location.of("file:///nowhere/x", "video/mp4", 123, "ab".repeat(32))) {
            location.json();
        }
        try (CancelToken token = new CancelToken()) {
            token.cancel();
        }
        try (UploadOptions options = new UploadOptions().contentType("video/mp4").progress((d, t) -> { })) {
            options.isClosed();
        }
        try (Statement statement = db.prepare("SELECT name FROM media.clips WHERE name = ?")) {
            statement.bind(1, "x");
        }
    }

    public void L001_ten_thousand_cheap_handles_leak_nothing() throws Exception {
        Db db = clipsRoot();
        for (int i = 0; i < 1000; i++) {
            cheapHandles(db);
        }
        settle();
        long handles = Lake.openHandles();
        long resident = residentBytes();
        for (int i = 0; i < 10_000; i++) {
            cheapHandles(db);
        }
        settle();
        equal(handles, Lake.openHandles(), "open handles");
        long grown = residentBytes() - resident;
        System.out.println("  L-001: resident memory grew by " + grown / 1024 + " KiB over 10,000 loops");
        check(grown < 2 * MIB, "resident memory grew by " + grown + " bytes");
    }

    private void rootRound(int i) throws Exception {
        try (Db db = Db.open(dir.resolve("root"))) {
            db.createTable("media.t" + i, List.of("name:utf8"));
            try (QueryResult result = db.query("SELECT name FROM media.t" + i)) {
                for (Batch batch = result.next(); batch != null; batch = result.next()) {
                    batch.close();
                }
            }
        }
    }

    public void L002_a_hundred_roots_leak_nothing() throws Exception {
        for (int i = 0; i < 5; i++) {
            rootRound(i);
        }
        settle();
        long handles = Lake.openHandles();
        long resident = residentBytes();
        long fds = count("/proc/self/fd");
        long threads = count("/proc/self/task");
        for (int i = 5; i < 105; i++) {
            rootRound(i);
        }
        settle();
        equal(handles, Lake.openHandles(), "open handles");
        equal(fds, count("/proc/self/fd"), "open file descriptors");
        equal(threads, count("/proc/self/task"), "threads");
        long grown = residentBytes() - resident;
        System.out.println("  L-002: resident memory grew by " + grown / 1024 + " KiB over 100 roots");
        check(grown < 16 * MIB, "resident memory grew by " + grown + " bytes");
    }

    /** Drops an unclosed token in a frame of its own, so nothing refers to it afterwards. */
    private static void dropUnclosedToken() throws LakeException {
        new CancelToken().cancel();
    }

    public void test_the_cleaner_reports_a_handle_dropped_without_close_and_frees_nothing() throws Exception {
        long leaks = Handle.leakCount();
        long open = Lake.openHandles();
        dropUnclosedToken();
        for (int i = 0; i < 50 && Handle.leakCount() == leaks; i++) {
            System.gc();
            Thread.sleep(20);
        }
        equal(leaks + 1, Handle.leakCount(), "leaks reported");
        // Not freed: the binding still counts it open (only close() frees).
        equal(open + 1, Lake.openHandles(), "open handles");
    }
}
