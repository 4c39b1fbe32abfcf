"""Errors and integrity (CONFORMANCE.md, E-001 … E-005, I-001 … I-003)."""
import json
import unittest

from support import OBJECT_SIZE, Scratch, lake, run_python
from lake import errors


def stored_path(location):
    return location.uri[len("file://"):]


# The table log's layout (engine/table/table_log_format.h): a segment
# header of 32 bytes, then records, each a 32-byte header (magic "LKTR",
# kind at byte 4, payload bytes as u64 little-endian at byte 16) and its
# payload. Kind 2 is a fragment.
SEGMENT_HEADER_BYTES = 32
RECORD_HEADER_BYTES = 32
FRAGMENT_RECORD = 2


def fragment_bytes_at(table_dir):
    """Where the table's fragments lie: (file, payload offset, payload bytes)
    for every fragment record of its log, and every fragment file."""
    found = [(path, 0, path.stat().st_size) for path in (table_dir / "data").glob("*.frag")]
    for segment in sorted((table_dir / "_log").glob("*.seg")):
        data = segment.read_bytes()
        at = SEGMENT_HEADER_BYTES
        while data[at:at + 4] == b"LKTR":
            size = int.from_bytes(data[at + 16:at + 24], "little")
            if data[at + 4] == FRAGMENT_RECORD:
                found.append((segment, at + RECORD_HEADER_BYTES, size))
            at += RECORD_HEADER_BYTES + size
    return found


class ErrorTest(Scratch):
    def test_E001_one_error_class_per_status(self):
        classes = {status: errors.ERROR_CLASSES[status] for status in lake.Status
                   if status != lake.Status.OK}
        self.assertEqual(len(set(classes.values())), 8)
        for status, cls in classes.items():
            self.assertTrue(issubclass(cls, lake.LakeError))
            self.assertEqual(cls.status, status)
            self.assertEqual(errors.error_from_native(status, None).status, status)
        self.assertIsInstance(errors.error_from_native(99, None), lake.InternalError)

    def test_E002_an_error_carries_lakes_details(self):
        db = self.clips_root()
        with self.location_of(db) as location:
            with open(stored_path(location), "r+b") as f:
                f.truncate(1000)
            with self.assertRaises(lake.IntegrityError) as raised:
                db.stage.cat(location)
        error = raised.exception
        self.assertEqual(error.status, lake.Status.INTEGRITY)
        self.assertTrue(error.message)
        self.assertEqual(str(error), error.message)
        self.assertEqual(error.integrity_kind, lake.IntegrityKind.SIZE_SHORT)
        self.assertEqual((error.expected, error.observed), (OBJECT_SIZE, 1000))
        self.assertFalse(error.retryable)
        self.assertIsNone(error.pending_operation_id)

    def test_E003_real_calls_reach_python_as_their_classes(self):
        db = self.open_root()
        db.create_table("media.clips", ["name:utf8", "video:file"])
        with self.assertRaises(lake.InvalidArgumentError) as raised:
            lake.Location.from_json('{"uri":"file:///x"}')
        self.assertEqual(raised.exception.integrity_kind, lake.IntegrityKind.INVALID_LOCATION)
        with self.assertRaises(lake.ConflictError):
            db.create_table("media.clips", ["name:utf8"])
        with self.assertRaises(lake.NotFoundError):
            db.describe_table("media.nothing")
        listed = db.stage.list()
        token = lake.CancelToken()
        token.cancel()
        with self.assertRaises(lake.CancelledError):
            db.stage.put(self.episode, cancel=token)
        self.assertEqual(db.stage.list(), listed)
        with db.stage.put(self.episode) as location, self.assertRaises(lake.UnsupportedError):
            db.stage.presign(location, 60)

    INSERT_CHILD = """
import json, sys, lake
with lake.Db.open({root!r}) as db:
    try:
        db.insert("INSERT INTO media.clips (name, video) VALUES (?, ?)", "c", None)
        print(json.dumps(None))
    except lake.LakeError as e:
        print(json.dumps([type(e).__name__, e.retryable, e.pending_operation_id]))
"""

    def insert_under_failpoint(self, failpoint):
        db = self.clips_root()
        db.close()
        child = run_python(self.INSERT_CHILD.format(root=str(self.dir / "root")),
                           env={"LAKE_FAILPOINTS": failpoint})
        self.assertEqual(child.returncode, 0, child.stderr)
        return json.loads(child.stdout.strip().splitlines()[-1])

    def test_E004_a_transient_failure_is_retryable_without_pending_operation(self):
        self.assertEqual(self.insert_under_failpoint("table_append.fragment_written=error"),
                         ["LakeIOError", True, None])

    def test_E005_a_failure_after_the_commit_names_its_pending_operation(self):
        name, retryable, pending = self.insert_under_failpoint("table_append.committed=error")
        self.assertEqual((name, retryable), ("LakeIOError", False))
        self.assertEqual(len(pending), 36)
        with lake.Db.open(self.dir / "root") as db:
            self.assertIn(pending, [p["operation_id"] for p in db.pending_appends()])


class IntegrityTest(Scratch):
    def tampered(self):
        db = self.clips_root()
        location = self.location_of(db)
        with open(stored_path(location), "r+b") as f:
            f.seek(OBJECT_SIZE // 2)
            byte = f.read(1)
            f.seek(OBJECT_SIZE // 2)
            f.write(bytes([byte[0] ^ 0xFF]))
        return db, location

    def test_I001_a_tampered_object_fails_at_the_end_of_a_full_read(self):
        db, location = self.tampered()
        delivered = 0
        with db.stage.open(location) as reader:
            buffer = bytearray(65536)
            with self.assertRaises(lake.IntegrityError) as raised:
                while True:
                    n = reader.readinto(buffer)
                    if n == 0:
                        self.fail("a tampered object reached a successful end")
                    delivered += n
            self.assertFalse(reader.verified)
        self.assertEqual(raised.exception.integrity_kind, lake.IntegrityKind.DIGEST_MISMATCH)
        self.assertEqual(delivered, OBJECT_SIZE)

    def test_I002_a_truncated_object_is_size_short_with_expected_and_observed(self):
        db = self.clips_root()
        with self.location_of(db) as location:
            with open(stored_path(location), "r+b") as f:
                f.truncate(OBJECT_SIZE - 7)
            with db.stage.open(location) as reader, self.assertRaises(lake.IntegrityError) as r:
                reader.read()
        self.assertEqual(r.exception.integrity_kind, lake.IntegrityKind.SIZE_SHORT)
        self.assertEqual((r.exception.expected, r.exception.observed),
                         (OBJECT_SIZE, OBJECT_SIZE - 7))

    def test_I004_a_query_over_a_damaged_fragment_is_an_integrity_error(self):
        db = self.clips_root()
        fragments = fragment_bytes_at(self.dir / "root" / "tables" / "media" / "clips")
        self.assertEqual(len(fragments), 1)
        path, offset, size = fragments[0]
        data = bytearray(path.read_bytes())
        data[offset + size // 2] ^= 0xFF
        path.write_bytes(bytes(data))
        with db.query("SELECT name, video FROM media.clips") as result:
            with self.assertRaises(lake.IntegrityError):
                result.rows()

    def test_I003_an_early_close_claims_nothing(self):
        db, location = self.tampered()
        reader = db.stage.open(location)
        self.assertEqual(len(reader.read(1000)), 1000)
        self.assertFalse(reader.verified)
        reader.close()  # raises nothing
        self.assertTrue(reader.closed)


if __name__ == "__main__":
    unittest.main()
