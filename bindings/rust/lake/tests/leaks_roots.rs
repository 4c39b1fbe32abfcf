//! Leaks of roots (CONFORMANCE.md, L-002). Alone in its test binary: it
//! counts the process's threads and descriptors.
mod support;

use lake::{open_handles, params, Db};
use support::{resident_bytes, Scratch};

const MIB: i64 = 1 << 20;

fn count(dir: &str) -> usize {
    std::fs::read_dir(dir).unwrap().count()
}

fn root_round(s: &Scratch, i: usize) {
    let db = Db::open(s.root()).unwrap();
    let table = format!("media.t{}", i);
    db.create_table(&table, &["name:utf8"]).unwrap();
    let mut result = db.query(&format!("SELECT name FROM {}", table), params![]).unwrap();
    assert!(result.batches().unwrap().iter().all(|b| b.num_rows() == 0));
    drop(result);
    db.close();
}

// L-002
#[test]
fn l002_a_hundred_roots_leak_nothing() {
    let s = Scratch::new();
    for i in 0..5 {
        root_round(&s, i);
    }
    let (handles, resident) = (open_handles(), resident_bytes());
    let (fds, threads) = (count("/proc/self/fd"), count("/proc/self/task"));
    for i in 5..105 {
        root_round(&s, i);
    }
    assert_eq!(open_handles(), handles);
    assert_eq!(count("/proc/self/fd"), fds);
    assert_eq!(count("/proc/self/task"), threads);
    let grown = resident_bytes() - resident;
    assert!(grown < 16 * MIB, "resident memory grew by {} bytes", grown);
}
