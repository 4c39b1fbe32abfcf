package org.lake;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;

/** Callbacks (CONFORMANCE.md, C-001 … C-007). */
public class CallbackTest extends Scratch {
    /** A stream whose every read throws {@code failure}. */
    static final class Failing extends InputStream {
        private final RuntimeException unchecked;
        private final IOException checked;

        Failing(RuntimeException unchecked, IOException checked) {
            this.unchecked = unchecked;
            this.checked = checked;
        }

        @Override
        public int read() throws IOException {
            if (unchecked != null) {
                throw unchecked;
            }
            throw checked;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            return read();
        }
    }

    /** A host store in Java: objects in a map. */
    static final class MemoryStore implements HostStore {
        static final String ROOT = "s3://java-host/root";
        final Map<String, byte[]> objects = new ConcurrentHashMap<>();
        volatile boolean failOpen;
        volatile boolean destroyed;

        @Override
        public void upload(String uri, String contentType, InputStream in) throws IOException {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            byte[] chunk = new byte[64 * 1024];
            for (int n; (n = in.read(chunk)) >= 0; ) {
                System.gc();
                out.write(chunk, 0, n);
            }
            objects.put(uri, out.toByteArray());
        }

        @Override
        public InputStream openStream(String uri, long start) throws IOException {
            if (failOpen) {
                throw new SecurityException("the host refuses");
            }
            byte[] bytes = objects.get(uri);
            if (bytes == null) {
                throw new java.nio.file.NoSuchFileException(uri);
            }
            return new ByteArrayInputStream(bytes, (int) start, bytes.length - (int) start);
        }

        @Override
        public List<Stage.Entry> list(String prefix) {
            List<Stage.Entry> entries = new ArrayList<>();
            objects.forEach((uri, bytes) -> {
                if (uri.startsWith(prefix)) {
                    entries.add(new Stage.Entry(uri, bytes.length, System.currentTimeMillis() * 1000));
                }
            });
            return entries;
        }

        @Override
        public void remove(String uri) {
            objects.remove(uri);
        }

        @Override
        public void destroy() {
            destroyed = true;
        }
    }

    public void C001_a_read_source_survives_forced_collection() throws Exception {
        Db db = openRoot();
        db.createTable("media.clips", List.of("name:utf8", "video:file"));
        Chunks source = new Chunks(data, 32 * 1024, true);
        try (Statement statement = db.prepare("INSERT INTO media.clips (name, video) VALUES (?, ?)")) {
            statement.bind(1, "c").bind(2, source);
            System.gc();
            statement.insert();
        }
        check(source.reads > 2, "lake read the source " + source.reads + " times");
        equal(sha256(data), locationOf(db, "c").sha256(), "stored sha256");
    }

    public void C002_a_progress_callback_survives_collection_and_ends_at_the_size() throws Exception {
        Db db = openRoot();
        List<Long> seen = new ArrayList<>();
        try (UploadOptions options = new UploadOptions().progress((done, total) -> {
            System.gc();
            seen.add(done);
        })) {
            System.gc();
            Location location = later(db.stage().put(new Chunks(data, 32 * 1024, true), options));
            equal((long) OBJECT_SIZE, location.sizeBytes(), "size");
        }
        check(!seen.isEmpty(), "no progress");
        List<Long> sorted = new ArrayList<>(seen);
        sorted.sort(null);
        equal(sorted, seen, "progress order");
        equal((long) OBJECT_SIZE, seen.get(seen.size() - 1), "last progress");
    }

    public void C003_a_host_store_in_java_serves_a_stage() throws Exception {
        MemoryStore store = new MemoryStore();
        try (Stage stage = Stage.openHost(store, MemoryStore.ROOT, null)) {
            System.gc();
            Location location = later(stage.put(new Chunks(data, 32 * 1024, true), null));
            check(location.uri().startsWith(MemoryStore.ROOT + "/"), "uri " + location.uri());
            equal(data, stage.cat(location), "cat");
            try (Reader reader = stage.openRange(location, 10, 20)) {
                equal(Arrays.copyOfRange(data, 10, 20), reader.readAllBytes(), "range");
            }
            equal(List.of(location.uri()), stage.list().stream().map(Stage.Entry::uri).toList(), "listing");
            stage.delete(location);
            equal(List.of(), stage.list(), "listing after delete");
        }
        check(store.destroyed, "destroy was not called at close");
    }

    public void C004_an_exception_in_a_read_source_becomes_the_calls_error() throws Exception {
        Db db = openRoot();
        db.createTable("media.clips", List.of("name:utf8", "video:file"));
        IllegalStateException broke = new IllegalStateException("the source broke");
        IllegalStateException raised = raises(IllegalStateException.class, () ->
            db.insert("INSERT INTO media.clips (name, video) VALUES (?, ?)", "f", new Failing(broke, null)));
        check(raised == broke, "not the original exception: " + raised);
        check(raised.getSuppressed().length == 1 && raised.getSuppressed()[0] instanceof LakeException,
              "lake's error is not attached");
        check(db.describeTable("media.clips").contains("\"total_rows\":0"), "rows were appended");
        raises(IllegalStateException.class, () -> db.stage().put(new Failing(broke, null), null));
        equal(List.of(), db.stage().list(), "listing");
    }

    public void test_a_checked_exception_in_a_read_source_is_the_cause_of_lakes_error() throws Exception {
        Db db = openRoot();
        IOException broke = new IOException("the disk broke");
        LakeException raised = raises(LakeException.class, () -> db.stage().put(new Failing(null, broke), null));
        check(raised.getCause() == broke, "the cause is " + raised.getCause());
        equal(List.of(), db.stage().list(), "listing");
    }

    public void C005_an_exception_in_a_progress_callback_becomes_the_calls_error() throws Exception {
        Db db = openRoot();
        try (UploadOptions options = new UploadOptions().progress((done, total) -> {
            throw new ArithmeticException("progress at " + done);
        })) {
            raises(ArithmeticException.class, () -> db.stage().put(episode, options));
        }
    }

    public void C006_an_exception_in_a_host_store_callback_becomes_the_calls_error() throws Exception {
        MemoryStore store = new MemoryStore();
        try (Stage stage = Stage.openHost(store, MemoryStore.ROOT, null)) {
            Location location = later(stage.put(new ByteArrayInputStream(data), null));
            store.failOpen = true;
            SecurityException raised = raises(SecurityException.class, () -> stage.cat(location));
            check(raised.getSuppressed().length == 1
                  && raised.getSuppressed()[0].getMessage().contains("the host refuses"),
                  "lake's error does not carry the host's message");
            store.failOpen = false;
            equal(data, stage.cat(location), "cat after the host recovers");
        }
    }

    public void C007_a_token_cancelled_from_progress_stops_the_upload() throws Exception {
        Db db = openRoot();
        byte[] large = new byte[8 << 20];
        new Random().nextBytes(large);
        try (CancelToken token = new CancelToken();
             UploadOptions options = new UploadOptions().cancelToken(token).progress((done, total) -> token.cancel())) {
            raises(CancelledException.class, () -> db.stage().put(new ByteArrayInputStream(large), options));
        }
        equal(List.of(), db.stage().list(), "listing");
    }

    public void test_a_root_opens_on_a_host_store_in_java() throws Exception {
        MemoryStore store = new MemoryStore();
        try (StageOptions options = new StageOptions().hostStore(store, MemoryStore.ROOT).hostId("java-memory")) {
            try (Db db = Db.open(dir.resolve("root"), options)) {
                db.createTable("media.clips", List.of("name:utf8", "video:file"));
                db.insert("INSERT INTO media.clips (name, video) VALUES (?, ?)", "h", new Chunks(data, 50_000, true));
                Location location = locationOf(db, "h");
                check(location.uri().startsWith(MemoryStore.ROOT + "/"), "uri " + location.uri());
                equal(data, db.stage().cat(location), "cat through the root's stage");
                equal("host", db.stage().ioBackend(), "io backend");
            }
        }
        check(store.destroyed, "destroy was not called when the root closed");
    }
}
