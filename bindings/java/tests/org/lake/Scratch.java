package org.lake;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * What the binding's tests share: a scratch directory holding episode.mp4
 * (OBJECT_SIZE random bytes), handles closed after the case, assertions,
 * and child JVMs running {@link Child} for scenarios that need a process.
 */
public abstract class Scratch {
    static final int OBJECT_SIZE = 300_000;

    protected Path dir;
    protected Path episode;
    protected byte[] data;
    private final Deque<AutoCloseable> cleanups = new ArrayDeque<>();

    public void setUp() throws IOException {
        Path base = Path.of(System.getProperty("lake.test.tmpdir", System.getProperty("java.io.tmpdir")));
        dir = Files.createTempDirectory(base, "lake-java-");
        data = new byte[OBJECT_SIZE];
        new Random().nextBytes(data);
        episode = dir.resolve("episode.mp4");
        Files.write(episode, data);
    }

    public void tearDown() throws Exception {
        Exception first = null;
        while (!cleanups.isEmpty()) {
            try {
                cleanups.pop().close();
            } catch (Exception e) {
                if (first == null) {
                    first = e;
                }
            }
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted((a, b) -> b.compareTo(a)).forEach(p -> p.toFile().delete());
        }
        if (first != null) {
            throw first;
        }
    }

    /** Closes {@code handle} after the case. */
    protected <T extends AutoCloseable> T later(T handle) {
        cleanups.push(handle);
        return handle;
    }

    protected Db openRoot() throws LakeException {
        return later(Db.open(dir.resolve("root")));
    }

    /** A root with media.clips (name utf8, video file) holding one row "a". */
    protected Db clipsRoot() throws LakeException {
        Db db = openRoot();
        db.createTable("media.clips", List.of("name:utf8", "video:file"));
        db.insert("INSERT INTO media.clips (name, video) VALUES (?, ?)", "a", episode);
        return db;
    }

    /** The location of row {@code name}'s video. */
    protected Location locationOf(Db db, String name) throws LakeException {
        try (QueryResult result = db.query("SELECT video FROM media.clips WHERE name = ?", name)) {
            for (Batch batch = result.next(); batch != null; batch = result.next()) {
                try (Batch b = batch) {
                    if (b.length() > 0) {
                        return later(b.location("video", 0));
                    }
                }
            }
        }
        throw new AssertionError("no row " + name);
    }

    /**
     * A stream that hands out at most {@code chunk} bytes per read, so lake
     * pulls it in many calls; with {@code collect}, it forces the collector
     * before every chunk.
     */
    static final class Chunks extends java.io.InputStream {
        private final java.io.ByteArrayInputStream bytes;
        private final int chunk;
        private final boolean collect;
        int reads;

        Chunks(byte[] data, int chunk, boolean collect) {
            this.bytes = new java.io.ByteArrayInputStream(data);
            this.chunk = chunk;
            this.collect = collect;
        }

        @Override
        public int read() {
            return bytes.read();
        }

        @Override
        public int read(byte[] b, int off, int len) {
            if (collect) {
                System.gc();
            }
            reads++;
            return bytes.read(b, off, Math.min(len, chunk));
        }
    }

    static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    static Path stored(Location location) throws LakeException {
        return Path.of(location.uri().substring("file://".length()));
    }

    // ---- assertions ----

    static void check(boolean condition, String what) {
        if (!condition) {
            throw new AssertionError(what);
        }
    }

    static void equal(Object expected, Object actual, String what) {
        boolean same = expected instanceof byte[] && actual instanceof byte[]
            ? Arrays.equals((byte[]) expected, (byte[]) actual)
            : expected == null ? actual == null : expected.equals(actual);
        if (!same) {
            throw new AssertionError(what + ": expected " + show(expected) + ", got " + show(actual));
        }
    }

    private static String show(Object value) {
        return value instanceof byte[] ? ((byte[]) value).length + " bytes" : String.valueOf(value);
    }

    @FunctionalInterface
    interface Body {
        void run() throws Throwable;
    }

    /** Runs {@code body}, which must throw a {@code type}; returns it. */
    static <T extends Throwable> T raises(Class<T> type, Body body) {
        try {
            body.run();
        } catch (Throwable t) {
            if (type.isInstance(t)) {
                return type.cast(t);
            }
            throw new AssertionError("expected " + type.getSimpleName() + ", got " + t, t);
        }
        throw new AssertionError("expected " + type.getSimpleName() + ", nothing was thrown");
    }

    // ---- child processes ----

    private static List<String> childCommand(List<String> jvmOptions, String... args) {
        List<String> command = new java.util.ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add("-Djna.library.path=" + System.getProperty("jna.library.path", ""));
        command.add("-XX:ErrorFile=" + System.getProperty("java.io.tmpdir") + "/lake-java-hs_err_%p.log");
        command.add("-XX:TieredStopAtLevel=1");
        command.addAll(jvmOptions);
        command.add("org.lake.Child");
        command.addAll(Arrays.asList(args));
        return command;
    }

    /** What a child JVM printed and its exit code. */
    record ChildResult(int exitCode, String stdout, String stderr) {}

    /** Starts {@code Child.main(args)} in a new JVM (stderr inherited); the caller waits for it. */
    static Process startChild(List<String> jvmOptions, String... args) throws IOException {
        return new ProcessBuilder(childCommand(jvmOptions, args))
            .redirectError(ProcessBuilder.Redirect.INHERIT).start();
    }

    /** Runs {@code Child.main(args)} in a new JVM with the same class path and library. */
    static ChildResult runChild(java.util.Map<String, String> env, List<String> jvmOptions, String... args) {
        ProcessBuilder builder = new ProcessBuilder(childCommand(jvmOptions, args));
        builder.environment().putAll(env);
        try {
            Path errFile = Files.createTempFile("lake-java-child", ".err");
            builder.redirectError(errFile.toFile());
            Process process = builder.start();
            process.getOutputStream().close();
            byte[] out = process.getInputStream().readAllBytes();
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new AssertionError("the child JVM timed out");
            }
            byte[] err = Files.readAllBytes(errFile);
            Files.delete(errFile);
            return new ChildResult(process.exitValue(), new String(out), new String(err));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
