"""Callbacks (CONFORMANCE.md, C-001 … C-007)."""
import gc
import io
import os
import time

from support import OBJECT_SIZE, Scratch, lake, sha256


class Collecting(io.RawIOBase):
    """A stream that forces the collector before every chunk it hands lake."""

    def __init__(self, data, chunk=32 * 1024):
        self.source = io.BytesIO(data)
        self.chunk = chunk
        self.reads = 0

    def readable(self):
        return True

    def readinto(self, buffer):
        gc.collect()
        self.reads += 1
        data = self.source.read(min(len(buffer), self.chunk))
        buffer[:len(data)] = data
        return len(data)


class Failing(io.RawIOBase):
    def readable(self):
        return True

    def readinto(self, buffer):
        raise KeyError("the source broke")


class MemoryStore:
    """A host store in Python: objects in a dict."""

    root_uri = "s3://python-host/root"

    def __init__(self):
        self.objects = {}
        self.fail_open = False

    def upload(self, uri, content_type, read):
        chunks = []
        while True:
            gc.collect()
            chunk = read(64 * 1024)
            if not chunk:
                break
            chunks.append(chunk)
        self.objects[uri] = (b"".join(chunks), int(time.time() * 1e6))

    def open(self, uri, start):
        if self.fail_open:
            raise PermissionError("the host refuses")
        return io.BytesIO(self.objects[uri][0][start:])

    def list(self, prefix):
        return [(uri, len(data), modified) for uri, (data, modified) in self.objects.items()
                if uri.startswith(prefix)]

    def remove(self, uri):
        self.objects.pop(uri, None)


class CallbackTest(Scratch):
    def test_C001_a_read_source_survives_forced_collection(self):
        db = self.open_root()
        db.create_table("media.clips", ["name:utf8", "video:file"])
        statement = db.prepare("INSERT INTO media.clips (name, video) VALUES (?, ?)")
        statement.bind(1, "c")
        source = Collecting(self.data)
        statement.bind(2, source)
        del source  # only the statement keeps it now
        gc.collect()
        statement.insert()
        self.assertGreater(statement._sources[2][0].reads, 2)
        statement.close()
        with self.location_of(db, "c") as location:
            self.assertEqual(location.sha256, sha256(self.data))

    def test_C002_a_progress_callback_survives_collection_and_ends_at_the_size(self):
        db = self.open_root()
        seen = []

        def progress(done, total):
            gc.collect()
            seen.append(done)
        with db.stage.put(Collecting(self.data), progress=progress) as location:
            self.assertEqual(location.size_bytes, OBJECT_SIZE)
        self.assertTrue(seen)
        self.assertEqual(seen, sorted(seen))
        self.assertEqual(seen[-1], OBJECT_SIZE)

    def test_C003_a_host_store_in_python_serves_a_stage(self):
        store = MemoryStore()
        with lake.Stage.open_host(store) as stage:
            gc.collect()
            location = stage.put(Collecting(self.data))
            self.assertTrue(location.uri.startswith(store.root_uri + "/"))
            self.assertEqual(stage.cat(location), self.data)
            with stage.open_range(location, 10, 20) as reader:
                self.assertEqual(reader.read(), self.data[10:20])
            self.assertEqual([uri for uri, _, _ in stage.list()], [location.uri])
            stage.delete(location)
            self.assertEqual(stage.list(), [])

    def test_C004_an_exception_in_a_read_source_becomes_the_calls_error(self):
        db = self.open_root()
        db.create_table("media.clips", ["name:utf8", "video:file"])
        with self.assertRaises(KeyError) as raised:
            db.insert("INSERT INTO media.clips (name, video) VALUES (?, ?)", "f", Failing())
        self.assertIsInstance(raised.exception.__cause__, lake.LakeError)
        self.assertEqual(db.describe_table("media.clips")["total_rows"], 0)
        with self.assertRaises(KeyError):
            db.stage.put(Failing())
        self.assertEqual(db.stage.list(), [])

    def test_C005_an_exception_in_a_progress_callback_becomes_the_calls_error(self):
        db = self.open_root()

        def progress(done, total):
            raise ValueError(f"progress at {done}")
        with self.assertRaises(ValueError):
            db.stage.put(self.episode, progress=progress)

    def test_C006_an_exception_in_a_host_store_callback_becomes_the_calls_error(self):
        store = MemoryStore()
        with lake.Stage.open_host(store) as stage:
            location = stage.put(io.BytesIO(self.data))
            store.fail_open = True
            with self.assertRaises(PermissionError) as raised:
                stage.cat(location)
            self.assertIn("the host refuses", raised.exception.__cause__.message)
            store.fail_open = False
            self.assertEqual(stage.cat(location), self.data)

    def test_C007_a_token_cancelled_from_progress_stops_the_upload(self):
        db = self.open_root()
        token = lake.CancelToken()
        large = os.urandom(8 << 20)  # progress comes every MiB
        with self.assertRaises(lake.CancelledError):
            db.stage.put(io.BytesIO(large), cancel=token,
                         progress=lambda done, total: token.cancel())
        self.assertEqual(db.stage.list(), [])
