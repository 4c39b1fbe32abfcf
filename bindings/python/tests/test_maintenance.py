"""Maintenance from Python: garbage collection's show, apply and verify,
table compaction, tags and expiry, and the resumable uploads' checkpoints."""
import os
import unittest
import urllib.parse

from support import OBJECT_SIZE, Scratch, lake


def local_path(location):
    return urllib.parse.unquote(urllib.parse.urlparse(location.uri).path)


class GarbageCollectionTest(Scratch):
    def planned_root(self):
        """A root with one referenced row and one unreferenced object, and a
        plan of cutoff 0: (db, the unreferenced object's Location, plan)."""
        db = self.clips_root()
        unreferenced = db.stage.put(self.dir / "episode.mp4")
        self.addCleanup(unreferenced.close)
        plan = db.gc_plan(cutoff_seconds=0, allow_short_cutoff=True)
        return db, unreferenced, plan

    def test_show_lists_the_unreferenced_object_and_not_the_referenced_one(self):
        db, unreferenced, plan = self.planned_root()
        candidates, status = db.gc_show(plan["plan_id"])
        uris = [c.uri for c in candidates if c.kind == "object"]
        self.assertEqual(uris, [unreferenced.uri])
        self.assertEqual(candidates[0].size_bytes, OBJECT_SIZE)
        self.assertEqual(status["state"], "planned")

    def test_show_of_an_unknown_plan_is_not_found(self):
        db = self.open_root()
        with self.assertRaises(lake.NotFoundError):
            db.gc_show("01890a5d-ac96-774b-bcce-b302099a8057")

    def test_apply_deletes_the_plan_and_keeps_the_referenced_object(self):
        db, unreferenced, plan = self.planned_root()
        phases = []
        done = db.gc_apply(plan["plan_id"], progress=lambda phase, *_: phases.append(phase))
        self.assertEqual(done["state"], "done")
        self.assertEqual(done["objects_deleted"], 1)
        self.assertFalse(os.path.exists(local_path(unreferenced)))
        with self.location_of(db) as kept:
            self.assertEqual(db.stage.cat(kept), self.data)
        self.assertTrue(phases)

    def test_apply_raises_what_its_progress_callable_raised(self):
        db, _, plan = self.planned_root()

        def progress(*_):
            raise KeyError("from progress")

        with self.assertRaises(KeyError):
            db.gc_apply(plan["plan_id"], progress=progress)

    def test_apply_cancelled_before_it_starts_deletes_nothing(self):
        db, unreferenced, plan = self.planned_root()
        token = lake.CancelToken()
        self.addCleanup(token.close)
        token.cancel()
        with self.assertRaises(lake.CancelledError):
            db.gc_apply(plan["plan_id"], cancel=token)
        self.assertTrue(os.path.exists(local_path(unreferenced)))

    def test_verify_of_a_sound_root_finds_no_problem(self):
        db = self.clips_root()
        problems, summary = db.gc_verify(deep=True)
        self.assertEqual(problems, [])
        self.assertEqual(summary["problems"], 0)
        self.assertGreaterEqual(summary["bytes_verified"], OBJECT_SIZE)

    def test_verify_names_a_missing_object_and_who_references_it(self):
        db = self.clips_root()
        with self.location_of(db) as location:
            uri = location.uri
            os.remove(local_path(location))
        problems, summary = db.gc_verify()
        self.assertEqual(summary["problems"], 1)
        self.assertEqual((problems[0].uri, problems[0].problem), (uri, "missing"))
        self.assertTrue(any("media.clips" in r for r in problems[0].referrers),
                        problems[0].referrers)

    def test_verify_deep_names_a_tampered_object(self):
        db = self.clips_root()
        with self.location_of(db) as location:
            path = local_path(location)
            os.chmod(path, 0o644)
            with open(path, "r+b") as f:
                f.write(b"\xff" * 8)
        problems, _ = db.gc_verify(deep=True)
        self.assertEqual([p.problem for p in problems], ["digest-mismatch"])


class TableMaintenanceTest(Scratch):
    def test_compaction_makes_a_new_version_with_the_same_rows(self):
        db = self.clips_root()
        db.insert("INSERT INTO media.clips (name, video) VALUES (?, ?)", "b", self.episode)
        version = db.compact_table("media.clips")
        self.assertEqual(version, 3)
        with db.query("SELECT name FROM media.clips ORDER BY name") as result:
            self.assertEqual([row["name"] for row in result.rows()], ["a", "b"])

    def test_compaction_with_nothing_to_merge_keeps_the_version(self):
        db = self.clips_root()
        self.assertEqual(db.compact_table("media.clips"), 1)

    def test_a_tag_twice_is_a_conflict_and_an_absent_untag_not_found(self):
        db = self.clips_root()
        db.tag_table("media.clips", "golden", 1)
        with self.assertRaises(lake.ConflictError):
            db.tag_table("media.clips", "golden", 1)
        db.untag_table("media.clips", "golden")
        with self.assertRaises(lake.NotFoundError):
            db.untag_table("media.clips", "golden")

    def test_expiry_retires_old_versions_but_not_a_tagged_one(self):
        db = self.clips_root()
        for name in ("b", "c"):
            db.insert("INSERT INTO media.clips (name, video) VALUES (?, ?)", name, self.episode)
        db.tag_table("media.clips", "first", 1)
        expired = db.expire_table("media.clips", keep_last=1)
        self.assertEqual(expired, {"retired": [2], "current_version": 3})
        with db.query("SELECT count(*) FROM media.clips AS OF VERSION 1") as result:
            self.assertEqual([list(row.values()) for row in result.rows()], [[1]])
        with self.assertRaises(lake.NotFoundError):
            db.query("SELECT count(*) FROM media.clips AS OF VERSION 2")

    def test_expiry_without_a_bound_is_an_invalid_argument(self):
        db = self.clips_root()
        with self.assertRaises(lake.InvalidArgumentError):
            db.expire_table("media.clips")


class ResumableUploadsTest(Scratch):
    def test_a_local_root_has_no_upload_checkpoints(self):
        self.assertEqual(self.open_root().uploads(), [])

    def test_resuming_or_aborting_an_unknown_upload_is_not_found(self):
        db = self.open_root()
        with self.assertRaises(lake.NotFoundError):
            db.resume_upload("no-such-upload")
        with self.assertRaises(lake.NotFoundError):
            db.abort_upload("no-such-upload")


if __name__ == "__main__":
    unittest.main()
