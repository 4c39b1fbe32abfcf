"""Threads (CONFORMANCE.md, T-001 … T-003)."""
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from support import OBJECT_SIZE, Scratch


class ThreadTest(Scratch):
    def test_T001_thread_safe_handles_from_four_threads(self):
        db = self.clips_root()
        stage = db.stage
        location = self.location_of(db)
        with ThreadPoolExecutor(4) as pool:
            reads = list(pool.map(lambda _: stage.cat(location), range(8)))
            versions = list(pool.map(
                lambda i: db.insert("INSERT INTO media.clips (name, video) VALUES (?, ?)",
                                    f"t{i}", None), range(8)))
        self.assertTrue(all(data == self.data for data in reads))
        self.assertEqual(len(set(versions)), 8)
        self.assertEqual(db.describe_table("media.clips")["total_rows"], 9)

    def test_T002_a_one_thread_handle_is_never_entered_twice(self):
        db = self.clips_root()
        location = self.location_of(db)
        reader = db.stage.open(location)
        inside, most_inside = [0], [0]
        lock = threading.Lock()
        original = reader._use

        def watched():
            # counts the threads inside lake with this reader at once
            context = original()

            class Watch:
                def __enter__(self):
                    ptr = context.__enter__()
                    with lock:
                        inside[0] += 1
                        most_inside[0] = max(most_inside[0], inside[0])
                    time.sleep(0.0005)
                    return ptr

                def __exit__(self, *exc):
                    with lock:
                        inside[0] -= 1
                    return context.__exit__(*exc)
            return Watch()
        reader._use = watched
        totals = []

        def drain():
            n = 0
            buffer = bytearray(4096)
            while True:
                got = reader.readinto(buffer)
                if got == 0:
                    totals.append(n)
                    return
                n += got
        threads = [threading.Thread(target=drain) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(most_inside[0], 1)
        self.assertEqual(sum(totals), OBJECT_SIZE)
        self.assertTrue(reader.verified)
        reader.close()

    def test_T003_close_waits_for_a_call_in_flight(self):
        db = self.clips_root()
        started, release = threading.Event(), threading.Event()

        def slow(done, total):
            started.set()
            release.wait(5)
        results = []
        uploader = threading.Thread(
            target=lambda: results.append(db.stage.put(self.episode, progress=slow)))
        uploader.start()
        started.wait(5)
        closer = threading.Thread(target=db.close)
        closer.start()
        time.sleep(0.2)
        self.assertTrue(closer.is_alive())  # waiting for the upload
        release.set()
        uploader.join()
        closer.join()
        self.assertTrue(db.closed)
        self.assertEqual(results[0].size_bytes, OBJECT_SIZE)
