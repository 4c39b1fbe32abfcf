"""The vertical slice (CONFORMANCE.md, S-001 … S-013)."""
import ctypes
import io
import os
import unittest

from support import OBJECT_SIZE, Scratch, lake, sha256


class SliceTest(Scratch):
    def test_S001_a_new_root_is_created_and_reopens_with_its_tables(self):
        with lake.Db.open(self.dir / "root") as db:
            db.create_table("media.clips", ["name:utf8", "video:file"])
        self.assertTrue((self.dir / "root").is_dir())
        with lake.Db.open(self.dir / "root") as db:
            self.assertEqual([t["name"] for t in db.tables()], ["media.clips"])

    def test_S002_create_table_with_a_file_column_and_again_is_a_conflict(self):
        db = self.open_root()
        db.create_table("media.clips", ["name:utf8", "video:file"])
        columns = db.describe_table("media.clips")["columns"]
        self.assertEqual([(c["name"], c["type"]) for c in columns],
                         [("name", "utf8"), ("video", "file")])
        with self.assertRaises(lake.ConflictError):
            db.create_table("media.clips", ["name:utf8", "video:file"])

    def test_S003_insert_binding_a_file_path(self):
        db = self.open_root()
        db.create_table("media.clips", ["name:utf8", "video:file"])
        version = db.insert("INSERT INTO media.clips (name, video) VALUES (?, ?)", "a",
                            self.episode)
        self.assertEqual(version, 1)
        self.assertEqual(db.describe_table("media.clips")["total_rows"], 1)

    def test_S004_insert_binding_a_stream(self):
        db = self.open_root()
        db.create_table("media.clips", ["name:utf8", "video:file"])
        reads = []

        class Counted(io.BytesIO):
            def readinto(self, buffer):
                n = super().readinto(buffer)
                reads.append(n)
                return n
        db.insert("INSERT INTO media.clips (name, video) VALUES (?, ?)", "s", Counted(self.data))
        self.assertGreater(len(reads), 1)
        with self.location_of(db, "s") as location:
            self.assertEqual(location.size_bytes, OBJECT_SIZE)
            self.assertEqual(location.sha256, sha256(self.data))

    def test_S005_select_gives_an_arrow_stream_of_batches(self):
        db = self.clips_root()
        db.insert("INSERT INTO media.clips (name, video) VALUES (?, ?)", "b", self.episode)
        with db.query("SELECT name, video FROM media.clips ORDER BY name") as result:
            self.assertEqual(result.column_names, ["name", "video"])
            rows = result.rows()
        self.assertEqual([row["name"] for row in rows], ["a", "b"])
        self.assertTrue(all(isinstance(row["video"], lake.Location) for row in rows))

    def test_S006_a_rows_data_location_and_a_null_file_cell(self):
        db = self.clips_root()
        db.insert("INSERT INTO media.clips (name, video) VALUES (?, ?)", "n", None)
        with self.location_of(db) as location:
            self.assertTrue(location.uri.startswith("file://"))
            self.assertEqual(location.content_type, "application/octet-stream")
            self.assertEqual(location.size_bytes, OBJECT_SIZE)
            self.assertEqual(location.sha256, sha256(self.data))
        with db.query("SELECT video FROM media.clips WHERE name = ?", "n") as result:
            batch = next(iter(result))
            with self.assertRaises(lake.NotFoundError):
                batch.location("video", 0)
            self.assertEqual(batch.column("video"), [None])

    def test_S007_a_verified_full_read_returns_the_bytes(self):
        db = self.clips_root()
        with self.location_of(db) as location, db.stage.open(location) as reader:
            self.assertIsInstance(reader, io.RawIOBase)
            self.assertEqual(reader.read(), self.data)
            self.assertTrue(reader.verified)

    def test_S008_a_range_read_and_refused_ranges(self):
        db = self.clips_root()
        with self.location_of(db) as location:
            with db.stage.open_range(location, 1000, 2000) as reader:
                self.assertEqual(reader.read(), self.data[1000:2000])
            for start, end in ((5, 5), (10, 5), (0, OBJECT_SIZE + 1)):
                with self.assertRaises(lake.InvalidArgumentError):
                    db.stage.open_range(location, start, end)

    def test_S009_batched_ranges_over_two_locations(self):
        db = self.clips_root()
        other = os.urandom(5000)
        stage = db.stage
        with self.location_of(db) as first, stage.put(io.BytesIO(other)) as second:
            got = stage.read_ranges([(first, 0, 10), (second, 100, 200), (first, 5000, 6000)])
            self.assertEqual(got, [self.data[:10], other[100:200], self.data[5000:6000]])
            with self.assertRaises(lake.InvalidArgumentError):
                stage.read_ranges([(first, 0, 10), (second, 0, 5001)])

    def test_S010_put_and_cat_on_the_stage(self):
        db = self.open_root()
        stage = db.stage
        with stage.put(self.episode, content_type="video/mp4") as put:
            self.assertEqual(put.content_type, "video/mp4")
            self.assertEqual(stage.cat(put), self.data)
        with stage.writer(content_type="text/plain") as writer:
            for part in (b"one ", b"two ", b"three"):
                writer.write(part)
        self.assertEqual(writer.location.content_type, "text/plain")
        self.assertEqual(stage.cat(writer.location), b"one two three")
        listed = stage.list()
        discarded = stage.writer()
        discarded.write(b"never published")
        discarded.close()
        self.assertEqual(stage.list(), listed)

    def test_S011_event_log_writer_commit_fold_tree_blob(self):
        db = self.open_root()
        db.create_experiment("demo", "run-1")
        blob = os.urandom(100_000)
        with db.event_log("demo", "run-1", writable=True) as log:
            with log.writer("p1", "w1") as writer:
                writer.set("prompt", "a robot folds a towel")
                writer.set("clip", blob)
                writer.terminal()
                writer.commit()
            with log.fold("p1") as item:
                self.assertEqual(item.status, "completed")
                self.assertEqual(item.value("prompt"), "a robot folds a towel")
                with item.open_blob("clip") as reader:
                    self.assertEqual(reader.read(), blob)
                    self.assertTrue(reader.verified)
            self.assertEqual(log.tree("p1")["root"]["item"]["item_id"], "p1")

    def test_S012_a_gc_dry_run_plans_and_deletes_nothing(self):
        db = self.open_root()
        with db.stage.put(self.episode) as unreferenced:
            plan = db.gc_plan(cutoff_seconds=0, allow_short_cutoff=True)
            self.assertGreaterEqual(plan["objects"], 1)
            self.assertGreaterEqual(plan["bytes"], OBJECT_SIZE)
            self.assertEqual(db.stage.cat(unreferenced), self.data)

    def test_S013_duckdb_scans_the_exported_arrow_stream(self):
        path = os.environ.get("LAKE_DUCKDB_LIB")
        if not path:
            if os.environ.get("LAKE_REQUIRE_DUCKDB") == "1":
                self.fail("LAKE_REQUIRE_DUCKDB=1 and LAKE_DUCKDB_LIB is not set")
            self.skipTest("LAKE_DUCKDB_LIB is not set (scripts/fetch-duckdb)")
        db = self.clips_root()
        db.insert("INSERT INTO media.clips (name, video) VALUES (?, ?)", "b", self.episode)
        with db.query("SELECT name, video FROM media.clips") as result:
            capsule = result.__arrow_c_stream__()
        self.assertTrue(result.closed)
        self.assertEqual(DuckDb.capsule_name(capsule), b"arrow_array_stream")
        with DuckDb(path) as duck:
            duck.scan(capsule, "clips_stream")  # a stream is read once: copy it
            duck.one("CREATE TABLE clips AS SELECT * FROM clips_stream")
            self.assertEqual(duck.one("SELECT count(*) FROM clips"), "2")
            self.assertEqual(duck.one("SELECT string_agg(name, ',' ORDER BY name) FROM clips"),
                             "a,b")
            self.assertEqual(duck.one("SELECT sum(video.size_bytes) FROM clips"),
                             str(2 * OBJECT_SIZE))


class DuckDb:
    """The part of DuckDB's C API (duckdb.h, 1.x) the test calls, through ctypes."""

    class Result(ctypes.Structure):
        _fields_ = [("column_count", ctypes.c_uint64), ("row_count", ctypes.c_uint64),
                    ("rows_changed", ctypes.c_uint64), ("columns", ctypes.c_void_p),
                    ("error_message", ctypes.c_char_p), ("internal_data", ctypes.c_void_p)]

    def __init__(self, path):
        lib = self.lib = ctypes.CDLL(path)
        P = ctypes.POINTER
        for name, restype, argtypes in (
                ("duckdb_open", ctypes.c_int, [ctypes.c_char_p, P(ctypes.c_void_p)]),
                ("duckdb_close", None, [P(ctypes.c_void_p)]),
                ("duckdb_connect", ctypes.c_int, [ctypes.c_void_p, P(ctypes.c_void_p)]),
                ("duckdb_disconnect", None, [P(ctypes.c_void_p)]),
                ("duckdb_query", ctypes.c_int, [ctypes.c_void_p, ctypes.c_char_p, P(self.Result)]),
                ("duckdb_destroy_result", None, [P(self.Result)]),
                ("duckdb_result_error", ctypes.c_char_p, [P(self.Result)]),
                ("duckdb_row_count", ctypes.c_uint64, [P(self.Result)]),
                ("duckdb_value_varchar", ctypes.c_void_p, [P(self.Result), ctypes.c_uint64,
                                                          ctypes.c_uint64]),
                ("duckdb_free", None, [ctypes.c_void_p]),
                ("duckdb_arrow_scan", ctypes.c_int, [ctypes.c_void_p, ctypes.c_char_p,
                                                     ctypes.c_void_p])):
            function = getattr(lib, name)
            function.restype, function.argtypes = restype, argtypes
        self.db, self.connection = ctypes.c_void_p(), ctypes.c_void_p()
        assert lib.duckdb_open(None, ctypes.byref(self.db)) == 0
        assert lib.duckdb_connect(self.db, ctypes.byref(self.connection)) == 0
        self.streams = []

    @staticmethod
    def capsule_name(capsule):
        get_name = ctypes.pythonapi.PyCapsule_GetName
        get_name.restype, get_name.argtypes = ctypes.c_char_p, [ctypes.py_object]
        return get_name(capsule)

    def scan(self, capsule, name):
        """Moves the capsule's stream into memory DuckDB reads, as a view `name`."""
        from lake import _native, arrow
        source = arrow.stream_from_capsule(capsule)
        stream = _native.ArrowArrayStream()
        ctypes.memmove(ctypes.addressof(stream), ctypes.addressof(source), ctypes.sizeof(stream))
        source.release = type(source.release)()  # moved out: the capsule releases nothing
        self.streams.append(stream)
        assert self.lib.duckdb_arrow_scan(self.connection, name.encode(),
                                          ctypes.addressof(stream)) == 0

    def one(self, sql):
        result = self.Result()
        try:
            if self.lib.duckdb_query(self.connection, sql.encode(), ctypes.byref(result)) != 0:
                raise AssertionError(self.lib.duckdb_result_error(ctypes.byref(result)).decode())
            if self.lib.duckdb_row_count(ctypes.byref(result)) != 1:
                return None
            value = self.lib.duckdb_value_varchar(ctypes.byref(result), 0, 0)
            if not value:
                return None
            text = ctypes.string_at(value).decode()
            self.lib.duckdb_free(value)
            return text
        finally:
            self.lib.duckdb_destroy_result(ctypes.byref(result))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.lib.duckdb_disconnect(ctypes.byref(self.connection))
        self.lib.duckdb_close(ctypes.byref(self.db))
        for stream in self.streams:
            if stream.release:
                stream.release(ctypes.byref(stream))


if __name__ == "__main__":
    unittest.main()
