"""What the binding's tests share: scratch roots, the test object, a trap
for calls into the library, and child processes running Python snippets.

The tests run against $LAKE_LIBRARY (scripts/lib/test-python-binding sets it
to the release build's liblake.so) and import `lake` from the source tree
unless $LAKE_PYTHON_PATH names an installed copy.
"""
import hashlib
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import unittest

BINDING = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, os.environ.get("LAKE_PYTHON_PATH") or str(BINDING))

import lake
from lake import _native

OBJECT_SIZE = 300_000


class Scratch(unittest.TestCase):
    """A test with a scratch directory holding episode.mp4 (OBJECT_SIZE random bytes)."""

    def setUp(self):
        self.dir = pathlib.Path(tempfile.mkdtemp(prefix="lake-py-",
                                                 dir=os.environ.get("LAKE_TEST_TMPDIR")))
        self.addCleanup(shutil.rmtree, self.dir, ignore_errors=True)
        self.data = os.urandom(OBJECT_SIZE)
        self.episode = self.dir / "episode.mp4"
        self.episode.write_bytes(self.data)

    def open_root(self, name="root"):
        db = lake.Db.open(self.dir / name)
        self.addCleanup(db.close)
        return db

    def clips_root(self):
        """A root with media.clips (name utf8, video file) holding one row "a"."""
        db = self.open_root()
        db.create_table("media.clips", ["name:utf8", "video:file"])
        db.insert("INSERT INTO media.clips (name, video) VALUES (?, ?)", "a", self.episode)
        return db

    def location_of(self, db, name="a"):
        with db.query("SELECT video FROM media.clips WHERE name = ?", name) as result:
            for batch in result:
                with batch:
                    return batch.location("video", 0)
        raise AssertionError(f"no row {name}")


def sha256(data):
    return hashlib.sha256(data).hexdigest()


class CallTrap:
    """Replaces every lake function of the loaded library with one that fails
    the test, for the `with` block: proves a code path calls into lake not at all."""

    def __enter__(self):
        self.library = _native.lib()
        self.saved = {name: getattr(self.library, name) for name, _, _ in _native.FUNCTIONS}
        self.calls = []
        for name in self.saved:
            setattr(self.library, name, self._trap(name))
        return self

    def _trap(self, name):
        def trapped(*_args):
            self.calls.append(name)
            raise AssertionError(f"{name} was called")
        return trapped

    def __exit__(self, *exc):
        for name, function in self.saved.items():
            setattr(self.library, name, function)


def run_python(code, env=None, timeout=60):
    """Runs `code` in a child Python with the binding importable; its CompletedProcess."""
    child_env = dict(os.environ)
    child_env["PYTHONPATH"] = os.environ.get("LAKE_PYTHON_PATH") or str(BINDING)
    child_env.update(env or {})
    return subprocess.run([sys.executable, "-c", code], env=child_env, capture_output=True,
                          text=True, timeout=timeout)
