//! Threads (CONFORMANCE.md, T-001 … T-003), as lake.h states per handle:
//! thread-safe handles are `Sync` (shared as `&T` between threads); a
//! one-thread-at-a-time handle (a reader) is `Send` but not `Sync`, so
//! sharing it needs a lock, and closing it needs the handle itself, which
//! no other thread can be borrowing then (src/misuse_tests.rs shows both
//! refused without a lock).
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::support::{location_of, names, Scratch, OBJECT_SIZE};
use lake::params;

// T-001
#[test]
fn t001_thread_safe_handles_are_used_from_four_threads_at_once() {
    let s = Scratch::new();
    let db = s.clips_root();
    let location = location_of(&db, "a");
    let (stage, db_ref, location_ref) = (db.stage(), &db, &location);
    let (reads, versions) = std::thread::scope(|scope| {
        let readers: Vec<_> =
            (0..4).map(|_| scope.spawn(move || stage.cat(location_ref).unwrap())).collect();
        let inserters: Vec<_> = (0..4)
            .map(|i| {
                scope.spawn(move || {
                    (0..2)
                        .map(|j| {
                            let name = format!("t{}{}", i, j);
                            db_ref
                                .insert(
                                    "INSERT INTO media.clips (name, video) VALUES (?, ?)",
                                    params![name.as_str(), lake::Param::Null],
                                )
                                .unwrap()
                        })
                        .collect::<Vec<u64>>()
                })
            })
            .collect();
        (
            readers.into_iter().map(|h| h.join().unwrap()).collect::<Vec<_>>(),
            inserters.into_iter().flat_map(|h| h.join().unwrap()).collect::<Vec<_>>(),
        )
    });
    assert!(reads.iter().all(|data| *data == s.data));
    let mut distinct = versions.clone();
    distinct.sort_unstable();
    distinct.dedup();
    assert_eq!(distinct.len(), 8, "{:?}", versions);
    assert_eq!(names(&db).len(), 9);
}

// T-002
#[test]
fn t002_a_reader_shared_by_two_threads_is_entered_by_one_at_a_time() {
    let s = Scratch::new();
    let db = s.clips_root();
    let location = location_of(&db, "a");
    let reader = Mutex::new(db.stage().open(&location).unwrap());
    let (inside, most_inside) = (AtomicUsize::new(0), AtomicUsize::new(0));
    let total = std::thread::scope(|scope| {
        let drain = || {
            let mut n = 0;
            let mut buffer = vec![0u8; 4096];
            loop {
                let mut reader = reader.lock().unwrap();
                let now = inside.fetch_add(1, Ordering::SeqCst) + 1;
                most_inside.fetch_max(now, Ordering::SeqCst);
                let got = reader.read_chunk(&mut buffer).unwrap();
                inside.fetch_sub(1, Ordering::SeqCst);
                if got == 0 {
                    return n;
                }
                n += got;
            }
        };
        let a = scope.spawn(drain);
        let b = scope.spawn(drain);
        a.join().unwrap() + b.join().unwrap()
    });
    assert_eq!(total, OBJECT_SIZE);
    assert_eq!(most_inside.load(Ordering::SeqCst), 1);
    assert!(reader.into_inner().unwrap().verified());
}

// T-003
#[test]
fn t003_closing_a_reader_another_thread_is_reading_waits_for_that_call() {
    let s = Scratch::new();
    let db = s.clips_root();
    let location = location_of(&db, "a");
    let reader = Mutex::new(Some(db.stage().open(&location).unwrap()));
    let read_returned = Mutex::new(None);
    let closed_at = std::thread::scope(|scope| {
        let (reader, read_returned) = (&reader, &read_returned);
        let (started_tx, started_rx) = std::sync::mpsc::channel();
        scope.spawn(move || {
            let mut guard = reader.lock().unwrap();
            started_tx.send(()).unwrap();
            let got = guard.as_mut().unwrap().read_chunk(&mut [0u8; 1000]).unwrap();
            std::thread::sleep(Duration::from_millis(200)); // still inside "the call"
            *read_returned.lock().unwrap() = Some((Instant::now(), got));
        });
        started_rx.recv().unwrap();
        // Closing needs the reader itself: the lock hands it over only
        // after the other thread's call returned.
        let taken = reader.lock().unwrap().take().unwrap();
        taken.close().unwrap();
        Instant::now()
    });
    let (returned_at, got) = read_returned.lock().unwrap().unwrap();
    assert_eq!(got, 1000);
    assert!(closed_at >= returned_at);
    assert!(reader.lock().unwrap().is_none());
}
