package org.lake;

import java.io.ByteArrayInputStream;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** The vertical slice (CONFORMANCE.md, the S scenarios). */
public class SliceTest extends Scratch {
    public void S001_opening_a_root_creates_it_and_reopening_sees_its_tables() throws Exception {
        java.nio.file.Path root = dir.resolve("root");
        check(!Files.exists(root), "the root exists before the open");
        try (Db db = Db.open(root)) {
            db.createTable("media.clips", List.of("name:utf8", "video:file"));
        }
        check(Files.isDirectory(root), "the root was not created");
        try (Db db = Db.open(root)) {
            check(db.tables().contains("\"name\":\"media.clips\""), "the table is gone: " + db.tables());
        }
    }

    public void S002_creating_a_table_twice_is_a_conflict() throws Exception {
        Db db = openRoot();
        db.createTable("media.clips", List.of("name:utf8", "video:file"));
        raises(ConflictException.class, () -> db.createTable("media.clips", List.of("name:utf8", "video:file")));
    }

    public void S003_an_insert_binding_a_path_returns_version_1_and_holds_one_row() throws Exception {
        Db db = openRoot();
        db.createTable("media.clips", List.of("name:utf8", "video:file"));
        equal(1L, db.insert("INSERT INTO media.clips (name, video) VALUES (?, ?)", "a", episode), "version");
        try (QueryResult result = db.query("SELECT count(*) FROM media.clips");
             Batch batch = result.next()) {
            equal(List.of(1L), batch.longs("count"), "rows");
        }
    }

    public void S004_an_insert_binding_a_stream_stores_exactly_its_bytes() throws Exception {
        Db db = openRoot();
        db.createTable("media.clips", List.of("name:utf8", "video:file"));
        Chunks stream = new Chunks(data, 7000, false);
        db.insert("INSERT INTO media.clips (name, video) VALUES (?, ?)", "s", stream);
        check(stream.reads > 1, "lake read the stream in one call");
        Location location = locationOf(db, "s");
        equal((long) data.length, location.sizeBytes(), "size_bytes");
        equal(sha256(data), location.sha256(), "sha256");
    }

    public void S005_a_query_gives_names_in_order_and_one_file_cell_per_row() throws Exception {
        Db db = clipsRoot();
        db.insert("INSERT INTO media.clips (name, video) VALUES (?, ?)", "c", episode);
        db.insert("INSERT INTO media.clips (name, video) VALUES (?, ?)", "b", episode);
        List<String> names = new ArrayList<>();
        int files = 0;
        try (QueryResult result = db.query("SELECT name, video FROM media.clips ORDER BY name")) {
            equal(List.of("name", "video"), result.columnNames(), "columns");
            for (Batch batch = result.next(); batch != null; batch = result.next()) {
                try (Batch b = batch) {
                    names.addAll(b.strings("name"));
                    for (long row = 0; row < b.length(); row++) {
                        try (Location location = b.location("video", row)) {
                            files += location.sizeBytes() == data.length ? 1 : 0;
                        }
                    }
                }
            }
        }
        equal(List.of("a", "b", "c"), names, "names");
        equal(3, files, "file cells");
    }

    public void S006_a_rows_location_names_the_object_and_a_null_cell_is_not_found() throws Exception {
        Db db = clipsRoot();
        db.insert("INSERT INTO media.clips (name, video) VALUES (?, ?)", "n", null);
        Location location = locationOf(db, "a");
        check(location.uri().startsWith("file://"), "uri " + location.uri());
        equal("application/octet-stream", location.contentType(), "content type");
        equal((long) OBJECT_SIZE, location.sizeBytes(), "size");
        equal(sha256(data), location.sha256(), "sha256");
        try (QueryResult result = db.query("SELECT video FROM media.clips WHERE name = ?", "n");
             Batch batch = result.next()) {
            raises(NotFoundException.class, () -> batch.location("video", 0));
        }
    }

    public void S007_a_verified_full_read_returns_the_object_and_reports_verified() throws Exception {
        Db db = clipsRoot();
        Location location = locationOf(db, "a");
        try (Reader reader = db.stage().open(location)) {
            check(!reader.verified(), "verified before the end");
            equal(data, reader.readAllBytes(), "bytes");
            check(reader.verified(), "not verified at the end");
        }
    }

    public void S008_a_range_read_returns_its_bytes_and_bad_ranges_are_invalid() throws Exception {
        Db db = clipsRoot();
        Location location = locationOf(db, "a");
        Stage stage = db.stage();
        try (Reader reader = stage.openRange(location, 1000, 2000)) {
            equal(Arrays.copyOfRange(data, 1000, 2000), reader.readAllBytes(), "range");
            check(!reader.verified(), "a range reader claims verification");
        }
        raises(InvalidArgumentException.class, () -> stage.openRange(location, 5, 5));
        raises(InvalidArgumentException.class, () -> stage.openRange(location, 10, 5));
        raises(InvalidArgumentException.class, () -> stage.openRange(location, 0, OBJECT_SIZE + 1));
    }

    public void S009_batched_ranges_return_each_range_and_a_bad_one_fails_alone() throws Exception {
        Db db = clipsRoot();
        Stage stage = db.stage();
        Location first = locationOf(db, "a");
        byte[] other = Arrays.copyOf(data, 5000);
        Location second = later(stage.put(new ByteArrayInputStream(other), null));
        List<byte[]> got = stage.readRanges(List.of(new Stage.ByteRange(first, 0, 10),
            new Stage.ByteRange(first, 299_990, 300_000), new Stage.ByteRange(second, 100, 4100)));
        equal(Arrays.copyOfRange(data, 0, 10), got.get(0), "range 0");
        equal(Arrays.copyOfRange(data, 299_990, 300_000), got.get(1), "range 1");
        equal(Arrays.copyOfRange(other, 100, 4100), got.get(2), "range 2");
        raises(InvalidArgumentException.class, () -> stage.readRanges(List.of(
            new Stage.ByteRange(first, 0, 10), new Stage.ByteRange(second, 0, 6000))));
    }

    public void S010_put_and_cat_on_the_stage_and_an_unpublished_writer_publishes_nothing() throws Exception {
        Stage stage = later(Stage.openLocal(dir.resolve("stage")));
        Location put = later(stage.put(episode, "video/mp4"));
        equal("video/mp4", put.contentType(), "content type");
        equal(data, stage.cat(put), "put bytes");
        Location written;
        try (Writer writer = stage.writer("video/mp4")) {
            writer.write(data, 0, 1000);
            writer.write(data, 1000, 200_000);
            writer.write(data, 201_000, OBJECT_SIZE - 201_000);
            written = later(writer.publish());
        }
        equal("video/mp4", written.contentType(), "writer content type");
        equal(data, stage.cat(written), "written bytes");
        List<Stage.Entry> before = stage.list();
        try (Writer writer = stage.writer("video/mp4")) {
            writer.write(new byte[] {1, 2, 3});
        }
        equal(before, stage.list(), "listing after an unpublished writer");
    }

    public void S011_an_event_log_writes_folds_trees_and_reads_its_blob() throws Exception {
        Db db = openRoot();
        db.createExperiment("demo", "run-1");
        byte[] blob = Arrays.copyOf(data, 100_000);
        try (EventLog log = db.eventLog("demo", "run-1", true)) {
            try (EventWriter writer = log.writer("p1", "w1", null)) {
                writer.fieldSet("caption", "a cat", null);
                writer.fieldSet("frame", blob, null);
                writer.terminal(false, null);
                writer.commit();
            }
            try (FoldedItem item = log.fold("p1")) {
                equal("completed", item.status(), "status");
                equal("a cat", item.value("caption", 0), "string field");
                try (Reader reader = item.openBlob("frame", 0)) {
                    equal(blob, reader.readAllBytes(), "blob");
                    check(reader.verified(), "the blob is not verified");
                }
            }
            String tree = log.tree("p1");
            check(tree.contains("\"root\":{\"item\":{") && tree.contains("\"item_id\":\"p1\""), "tree " + tree);
        }
    }

    public void S012_a_gc_dry_run_counts_an_unreferenced_object_and_deletes_nothing() throws Exception {
        Db db = clipsRoot();
        Location loose = later(db.stage().put(new ByteArrayInputStream(Arrays.copyOf(data, 1234)), null));
        String plan;
        try (GcOptions options = new GcOptions().cutoffSeconds(0).allowShortCutoff(true)) {
            plan = db.gcPlan(options);
        }
        check(plan.contains("\"objects\":1,"), "plan " + plan);
        String planId = plan.replaceAll(".*\"plan_id\":\"([^\"]+)\".*", "$1");
        check(db.gcShow(planId).stream().anyMatch(c -> {
            try {
                return c.uri().equals(loose.uri());
            } catch (LakeException e) {
                throw new IllegalStateException(e);
            }
        }), "the loose object is no candidate");
        equal(Arrays.copyOf(data, 1234), db.stage().cat(loose), "the object after the dry run");
    }
}
