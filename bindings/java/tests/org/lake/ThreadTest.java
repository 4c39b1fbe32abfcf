package org.lake;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/** Threads, as lake.h states per handle (CONFORMANCE.md, T-001 … T-003). */
public class ThreadTest extends Scratch {
    public void T001_thread_safe_handles_from_four_threads() throws Exception {
        Db db = clipsRoot();
        Stage stage = db.stage();
        Location location = locationOf(db, "a");
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<byte[]>> reads = new ArrayList<>();
            List<Future<Long>> versions = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                reads.add(pool.submit(() -> stage.cat(location)));
                String name = "t" + i;
                versions.add(pool.submit(() -> db.insert("INSERT INTO media.clips (name, video) VALUES (?, ?)", name, null)));
            }
            for (Future<byte[]> read : reads) {
                equal(data, read.get(), "a concurrent read");
            }
            HashSet<Long> distinct = new HashSet<>();
            for (Future<Long> version : versions) {
                distinct.add(version.get());
            }
            equal(8, distinct.size(), "distinct versions");
        } finally {
            pool.shutdown();
        }
        check(db.describeTable("media.clips").contains("\"total_rows\":9"), db.describeTable("media.clips"));
    }

    public void T002_a_one_thread_handle_is_never_entered_twice() throws Exception {
        Db db = clipsRoot();
        Location location = locationOf(db, "a");
        Reader reader = later(db.stage().open(location));
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger mostInside = new AtomicInteger();
        LakeNative real = Lake.lib();
        // Counts the threads inside lake's reader functions at once.
        LakeNative watched = (LakeNative) Proxy.newProxyInstance(LakeNative.class.getClassLoader(),
            new Class<?>[] {LakeNative.class}, (proxy, method, args) -> {
                boolean readerCall = method.getName().startsWith("lake_reader_");
                if (readerCall) {
                    mostInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
                    Thread.sleep(0, 500_000);
                }
                try {
                    return method.invoke(real, args);
                } catch (InvocationTargetException e) {
                    throw e.getCause();
                } finally {
                    if (readerCall) {
                        inside.decrementAndGet();
                    }
                }
            });
        AtomicLong total = new AtomicLong();
        List<Throwable> failures = new ArrayList<>();
        Lake.replaceForTests(watched);
        try {
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                threads.add(new Thread(() -> {
                    byte[] buffer = new byte[4096];
                    try {
                        for (int n; (n = reader.read(buffer)) >= 0; ) {
                            total.addAndGet(n);
                        }
                    } catch (Throwable e) {
                        synchronized (failures) {
                            failures.add(e);
                        }
                    }
                }));
            }
            threads.forEach(Thread::start);
            for (Thread thread : threads) {
                thread.join();
            }
        } finally {
            Lake.replaceForTests(real);
        }
        equal(List.of(), failures, "failures");
        equal(1, mostInside.get(), "threads inside lake with the reader at once");
        equal((long) OBJECT_SIZE, total.get(), "bytes both threads read");
        check(reader.verified(), "not verified at the end");
    }

    public void T003_close_waits_for_a_call_in_flight() throws Exception {
        Db db = clipsRoot();
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        UploadOptions options = later(new UploadOptions().progress((done, total) -> {
            started.countDown();
            release.await(5, TimeUnit.SECONDS);
        }));
        List<Object> results = new ArrayList<>();
        Thread uploader = new Thread(() -> {
            try {
                Location location = db.stage().put(episode, options);
                results.add(location.sizeBytes());
                location.close();
            } catch (Throwable e) {
                results.add(e);
            }
        });
        uploader.start();
        check(started.await(5, TimeUnit.SECONDS), "the upload did not start");
        Thread closer = new Thread(() -> {
            try {
                db.close();
            } catch (LakeException e) {
                results.add(e);
            }
        });
        closer.start();
        Thread.sleep(200);
        check(closer.isAlive(), "close did not wait for the upload");
        release.countDown();
        uploader.join();
        closer.join();
        check(db.isClosed(), "the root is open");
        equal(List.of((long) OBJECT_SIZE), results, "the upload's outcome");
    }
}
