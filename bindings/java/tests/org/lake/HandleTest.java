package org.lake;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.lang.ref.WeakReference;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Handle lifetimes (CONFORMANCE.md, H-001 … H-008). */
public class HandleTest extends Scratch {
    /** One open handle of each kind, children of one root (and a standalone stage). */
    private Map<String, AutoCloseable> everyKindOfHandle() throws Exception {
        Db db = clipsRoot();
        db.createExperiment("demo", "run-1");
        EventLog log = db.eventLog("demo", "run-1", true);
        try (EventWriter writer = log.writer("p1", "w1", null)) {
            writer.fieldSet("f", 1L, null);
            writer.commit();
        }
        QueryResult result = db.query("SELECT name, video FROM media.clips");
        Batch batch = result.next();
        Location location = batch.location("video", 0);
        Map<String, AutoCloseable> handles = new LinkedHashMap<>();
        handles.put("root", db);
        handles.put("stage", db.stage());
        handles.put("location", location);
        handles.put("cancel token", new CancelToken());
        handles.put("upload options", new UploadOptions());
        handles.put("statement", db.prepare("SELECT name FROM media.clips"));
        handles.put("query result", result);
        handles.put("batch", batch);
        handles.put("reader", db.stage().open(location));
        handles.put("writer", db.stage().writer((UploadOptions) null));
        handles.put("event log", log);
        handles.put("event writer", log.writer("p2", "w1", null));
        handles.put("folded item", log.fold("p1"));
        handles.put("standalone stage", Stage.openLocal(dir.resolve("stage")));
        handles.values().forEach(this::later);
        return handles;
    }

    private static boolean closed(AutoCloseable handle) {
        if (handle instanceof Handle) {
            return ((Handle) handle).isClosed();
        }
        if (handle instanceof Reader) {
            return ((Reader) handle).isClosed();
        }
        return ((Writer) handle).isClosed();
    }

    public void H001_closing_twice_is_a_no_op_for_every_handle() throws Exception {
        List<Map.Entry<String, AutoCloseable>> handles = new ArrayList<>(everyKindOfHandle().entrySet());
        java.util.Collections.reverse(handles);
        for (Map.Entry<String, AutoCloseable> entry : handles) {
            entry.getValue().close();
            entry.getValue().close();
            check(closed(entry.getValue()), entry.getKey() + " is not closed");
        }
    }

    @FunctionalInterface
    interface Use {
        void on(AutoCloseable handle) throws Exception;
    }

    public void H002_use_after_close_throws_without_calling_lake() throws Exception {
        Map<String, AutoCloseable> handles = everyKindOfHandle();
        for (AutoCloseable handle : handles.values()) {
            handle.close();
        }
        Map<String, Use> uses = new LinkedHashMap<>();
        uses.put("root", h -> ((Db) h).tables());
        uses.put("stage", h -> ((Stage) h).descriptor());
        uses.put("location", h -> ((Location) h).uri());
        uses.put("cancel token", h -> ((CancelToken) h).cancel());
        uses.put("upload options", h -> ((UploadOptions) h).contentType("a/b"));
        uses.put("statement", h -> ((Statement) h).query());
        uses.put("query result", h -> ((QueryResult) h).next());
        uses.put("batch", h -> ((Batch) h).length());
        uses.put("reader", h -> ((Reader) h).read(new byte[10]));
        uses.put("writer", h -> ((Writer) h).write(new byte[] {1}));
        uses.put("event log", h -> ((EventLog) h).roots());
        uses.put("event writer", h -> ((EventWriter) h).commit());
        uses.put("folded item", h -> ((FoldedItem) h).status());
        uses.put("standalone stage", h -> ((Stage) h).list());
        List<String> calls = new ArrayList<>();
        LakeNative trap = (LakeNative) Proxy.newProxyInstance(LakeNative.class.getClassLoader(),
            new Class<?>[] {LakeNative.class}, (proxy, method, args) -> {
                calls.add(method.getName());
                throw new AssertionError(method.getName() + " was called");
            });
        LakeNative real = Lake.replaceForTests(trap);
        try {
            for (Map.Entry<String, Use> use : uses.entrySet()) {
                raises(ClosedHandleException.class, () -> use.getValue().on(handles.get(use.getKey())));
            }
        } finally {
            Lake.replaceForTests(real);
        }
        equal(List.of(), calls, "calls into lake");
    }

    public void H003_closing_a_root_closes_its_children_first() throws Exception {
        Map<String, AutoCloseable> handles = everyKindOfHandle();
        handles.get("root").close();
        for (Map.Entry<String, AutoCloseable> entry : handles.entrySet()) {
            boolean theRoots = !List.of("location", "cancel token", "upload options", "standalone stage")
                .contains(entry.getKey());
            equal(theRoots, closed(entry.getValue()), entry.getKey() + " closed");
        }
        raises(ClosedHandleException.class, () -> ((Reader) handles.get("reader")).read());
        raises(ClosedHandleException.class, () -> ((EventWriter) handles.get("event writer")).fieldSet("f", 2L, null));
    }

    public void H004_closing_an_event_log_closes_its_writers_items_and_blob_readers() throws Exception {
        Db db = openRoot();
        db.createExperiment("demo", "run-1");
        EventLog log = later(db.eventLog("demo", "run-1", true));
        EventWriter done = later(log.writer("p1", "w1", null));
        done.fieldSet("clip", java.util.Arrays.copyOf(data, 70_000), null);
        done.commit();
        EventWriter open = later(log.writer("p2", "w1", null));
        FoldedItem item = later(log.fold("p1"));
        Reader blob = later(item.openBlob("clip", 0));
        log.close();
        check(done.isClosed() && open.isClosed() && item.isClosed() && blob.isClosed(), "a child of the log is open");
        raises(ClosedHandleException.class, () -> item.value("clip", 0));
        check(!db.isClosed(), "the root closed with the log");
    }

    public void H005_closing_a_statement_releases_its_streams_and_keeps_its_results() throws Exception {
        Db db = clipsRoot();
        Statement statement = later(db.prepare("INSERT INTO media.clips (name, video) VALUES (?, ?)"));
        InputStream stream = new ByteArrayInputStream(new byte[] {1, 2, 3});
        statement.bind(1, "s").bind(2, stream);
        WeakReference<InputStream> alive = new WeakReference<>(stream);
        stream = null;
        equal(1, statement.keptSources(), "streams kept while bound");
        Statement query = later(db.prepare("SELECT name FROM media.clips"));
        QueryResult result = later(query.query());
        statement.close();
        query.close();
        for (int i = 0; i < 10 && alive.get() != null; i++) {
            System.gc();
            Thread.sleep(10);
        }
        equal(null, alive.get(), "the bound stream after close");
        check(!result.isClosed(), "the result closed with its statement");
        try (Batch batch = result.next()) {
            equal(List.of("a"), batch.strings("name"), "rows");
        }
    }

    public void H006_closing_a_root_releases_its_writer_lock_at_once() throws Exception {
        Path root = dir.resolve("root");
        // The holder is a JVM whose collector never runs (Epsilon): it opens the
        // root, creates a table, closes the root and stays alive; only close()
        // can have released the lock.
        Process holder = startChild(List.of("-XX:+UnlockExperimentalVMOptions", "-XX:+UseEpsilonGC",
                                            "-Xms128m", "-Xmx128m", "-Xlog:disable"),
                                    "close-and-wait", root.toString());
        try {
            java.io.BufferedReader out = new java.io.BufferedReader(
                new java.io.InputStreamReader(holder.getInputStream()));
            String line = out.readLine();
            check(line != null && line.startsWith("closed "), "the holder said " + line);
            long started = System.nanoTime();
            ChildResult child = runChild(Map.of(), List.of(), "writer", root.toString());
            equal(0, child.exitCode(), "child exit (" + child.stderr() + ")");
            String[] got = child.stdout().trim().split(" ", 2);
            check(got[1].contains(got[0]), "the child is not the writer: " + child.stdout());
            check(!got[1].contains(line.substring("closed ".length())), "the lock still names the holder");
            check(System.nanoTime() - started < 10_000_000_000L, "the child waited for the lock");
            check(holder.isAlive(), "the holder exited before the child opened the root");
        } finally {
            holder.getOutputStream().close();
            holder.waitFor(10, java.util.concurrent.TimeUnit.SECONDS);
            holder.destroy();
        }
    }

    public void H007_closing_a_standalone_stage_closes_its_readers_and_writers() throws Exception {
        Stage stage = later(Stage.openLocal(dir.resolve("stage")));
        Location location = later(stage.put(episode, (UploadOptions) null));
        Reader reader = later(stage.open(location));
        Writer writer = later(stage.writer((UploadOptions) null));
        writer.write(new byte[] {1, 2, 3});
        stage.close();
        check(reader.isClosed() && writer.isClosed(), "a reader or writer is open");
        check(!location.isClosed(), "the location closed with the stage");
        raises(ClosedHandleException.class, () -> stage.cat(location));
    }

    public void H008_closing_a_cancel_token_first_closes_what_borrows_it() throws Exception {
        Db db = openRoot();
        CancelToken token = later(new CancelToken());
        UploadOptions options = later(new UploadOptions().cancelToken(token));
        Writer writer = later(db.stage().writer(options));
        writer.write(new byte[] {1, 2, 3});
        token.close();
        check(options.isClosed() && writer.isClosed(), "options or writer open after the token closed");
        raises(ClosedHandleException.class, () -> db.stage().put(episode, options));
        equal(List.of(), db.stage().list(), "listing");
    }
}
