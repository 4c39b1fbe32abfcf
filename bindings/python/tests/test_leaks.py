"""Leaks (CONFORMANCE.md, L-001, L-002)."""
import gc
import os
import resource
import unittest

from support import Scratch, lake
from lake import _handle

MIB = 1 << 20


def resident_bytes():
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * resource.getpagesize()


def open_fds():
    return len(os.listdir("/proc/self/fd"))


def threads():
    return len(os.listdir("/proc/self/task"))


class LeakTest(Scratch):
    def cheap_handles(self, db):
        with lake.Location.new("file:///nowhere/x", "video/mp4", 123, "ab" * 32) as location:
            location.json
        with lake.CancelToken() as token:
            token.cancel()
        with lake.UploadOptions(content_type="video/mp4", progress=lambda d, t: None):
            pass
        with db.prepare("SELECT name FROM media.clips WHERE name = ?") as statement:
            statement.bind(1, "x")

    def test_L001_ten_thousand_cheap_handles_leak_nothing(self):
        db = self.clips_root()
        for _ in range(1000):
            self.cheap_handles(db)
        gc.collect()
        handles, resident = _handle.open_handles(), resident_bytes()
        for _ in range(10_000):
            self.cheap_handles(db)
        gc.collect()
        self.assertEqual(_handle.open_handles(), handles)
        self.assertLess(resident_bytes() - resident, 2 * MIB)

    def root_round(self, i):
        with lake.Db.open(self.dir / "root") as db:
            db.create_table(f"media.t{i}", ["name:utf8"])
            with db.query(f"SELECT name FROM media.t{i}") as result:
                result.rows()

    def test_L002_a_hundred_roots_leak_nothing(self):
        for i in range(5):
            self.root_round(i)
        gc.collect()
        handles, resident, fds, tasks = _handle.open_handles(), resident_bytes(), open_fds(), threads()
        for i in range(5, 105):
            self.root_round(i)
        gc.collect()
        self.assertEqual(_handle.open_handles(), handles)
        self.assertEqual(open_fds(), fds)
        self.assertEqual(threads(), tasks)
        self.assertLess(resident_bytes() - resident, 16 * MIB)


if __name__ == "__main__":
    unittest.main()
