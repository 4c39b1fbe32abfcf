"""Handle lifetimes (CONFORMANCE.md, H-001 … H-007)."""
import gc
import io
import os
import time
import weakref

from support import CallTrap, Scratch, lake, run_python


class HandleTest(Scratch):
    def every_kind_of_handle(self):
        """One open handle of each kind, children of one root (and a standalone stage)."""
        db = self.clips_root()
        db.create_experiment("demo", "run-1")
        log = db.event_log("demo", "run-1", writable=True)
        writer = log.writer("p1", "w1")
        writer.set("f", 1)
        writer.commit()
        result = db.query("SELECT name, video FROM media.clips")
        batch = next(iter(result))
        location = batch.location("video", 0)
        handles = {
            "root": db, "stage": db.stage, "location": location,
            "cancel token": lake.CancelToken(), "upload options": lake.UploadOptions(),
            "statement": db.prepare("SELECT name FROM media.clips"),
            "query result": result, "batch": batch, "reader": db.stage.open(location),
            "writer": db.stage.writer(), "event log": log, "event writer": log.writer("p2", "w1"),
            "folded item": log.fold("p1"),
            "standalone stage": lake.Stage.open_local(self.dir / "stage"),
        }
        return handles

    def test_H001_closing_twice_is_a_no_op_for_every_handle(self):
        handles = self.every_kind_of_handle()
        for name, handle in reversed(list(handles.items())):
            with self.subTest(handle=name):
                handle.close()
                handle.close()
                self.assertTrue(handle.closed)

    def test_H002_use_after_close_raises_without_calling_lake(self):
        handles = self.every_kind_of_handle()
        for handle in handles.values():
            handle.close()
        uses = {
            "root": lambda h: h.tables(), "stage": lambda h: h.descriptor,
            "location": lambda h: h.uri, "cancel token": lambda h: h.cancel(),
            "upload options": lambda h: h._use().__enter__(),
            "statement": lambda h: h.query(), "query result": lambda h: list(h),
            "batch": lambda h: h.num_rows, "reader": lambda h: h.readinto(bytearray(10)),
            "writer": lambda h: h.write(b"x"), "event log": lambda h: h.roots(),
            "event writer": lambda h: h.commit(), "folded item": lambda h: h.status,
            "standalone stage": lambda h: h.list(),
        }
        with CallTrap() as trap:
            for name, use in uses.items():
                with self.subTest(handle=name), self.assertRaises(lake.ClosedHandleError):
                    use(handles[name])
        self.assertEqual(trap.calls, [])

    def test_H003_closing_a_root_closes_its_children_first(self):
        handles = self.every_kind_of_handle()
        handles["root"].close()
        for name, handle in handles.items():
            if name in ("location", "cancel token", "upload options", "standalone stage"):
                self.assertFalse(handle.closed, name)  # not the root's
                continue
            with self.subTest(handle=name):
                self.assertTrue(handle.closed)
        with self.assertRaises(lake.ClosedHandleError):
            handles["reader"].read()
        with self.assertRaises(lake.ClosedHandleError):
            handles["event writer"].set("f", 2)

    def test_H004_closing_an_event_log_closes_its_writers_items_and_blob_readers(self):
        db = self.open_root()
        db.create_experiment("demo", "run-1")
        log = db.event_log("demo", "run-1", writable=True)
        done = log.writer("p1", "w1")
        done.set("clip", os.urandom(70_000))
        done.commit()
        open_writer = log.writer("p2", "w1")
        item = log.fold("p1")
        blob = item.open_blob("clip")
        log.close()
        for handle in (done, open_writer, item, blob):
            self.assertTrue(handle.closed)
        with self.assertRaises(lake.ClosedHandleError):
            item.value("clip")
        self.assertFalse(db.closed)

    def test_H005_closing_a_statement_releases_its_streams_and_keeps_its_results(self):
        db = self.clips_root()
        statement = db.prepare("INSERT INTO media.clips (name, video) VALUES (?, ?)")
        class Stream(io.BytesIO):
            pass
        stream = Stream(b"never read")
        statement.bind(1, "s")
        statement.bind(2, stream)
        stream_alive = weakref.ref(stream)
        del stream
        query = db.prepare("SELECT name FROM media.clips")
        result = query.query()
        statement.close()
        query.close()
        gc.collect()
        self.assertIsNone(stream_alive())
        self.assertFalse(result.closed)
        self.assertEqual([row["name"] for row in result.rows()], ["a"])

    def test_H006_closing_a_root_releases_its_writer_lock_at_once(self):
        root = self.dir / "root"
        db = lake.Db.open(root)
        db.create_table("media.first", ["name:utf8"])
        lock = root / "writer.lock"
        self.assertIn(str(os.getpid()), lock.read_text())
        gc.disable()
        try:
            db.close()
            started = time.monotonic()
            child = run_python(
                "import os, sys, lake\n"
                f"db = lake.Db.open({str(root)!r})\n"
                "db.set_busy_timeout(0)\n"
                "db.create_table('media.second', ['name:utf8'])\n"
                f"print(os.getpid(), open({str(lock)!r}).read())\n"
                "db.close()\n")
        finally:
            gc.enable()
        self.assertEqual(child.returncode, 0, child.stderr)
        pid, lock_text = child.stdout.split(" ", 1)
        self.assertIn(pid, lock_text)
        self.assertLess(time.monotonic() - started, 10)

    def test_H007_closing_a_standalone_stage_closes_its_readers_and_writers(self):
        stage = lake.Stage.open_local(self.dir / "stage")
        location = stage.put(self.episode)
        reader = stage.open(location)
        writer = stage.writer()
        writer.write(b"abc")
        stage.close()
        self.assertTrue(reader.closed and writer.closed)
        self.assertFalse(location.closed)
        with self.assertRaises(lake.ClosedHandleError):
            stage.cat(location)

    def test_H008_closing_a_cancel_token_first_closes_what_borrows_it(self):
        db = self.open_root()
        token = lake.CancelToken()
        options = lake.UploadOptions(cancel=token)
        writer = db.stage.writer(options=options)
        writer.write(b"abc")
        token.close()
        self.assertTrue(options.closed and writer.closed)
        with self.assertRaises(lake.ClosedHandleError):
            db.stage.put(self.episode, options=options)
        self.assertEqual(db.stage.list(), [])
