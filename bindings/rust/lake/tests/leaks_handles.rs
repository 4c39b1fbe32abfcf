//! Leaks of cheap handles (CONFORMANCE.md, L-001). Alone in its test
//! binary: it measures the process's resident memory.
mod support;

use lake::{open_handles, CancelToken, Db, Location, UploadOptions};
use support::{resident_bytes, Scratch};

const MIB: i64 = 1 << 20;

fn cheap_handles(db: &Db) {
    let location = Location::new("file:///nowhere/x", "video/mp4", 123, &"ab".repeat(32)).unwrap();
    assert_eq!(location.size_bytes(), 123);
    let token = CancelToken::new().unwrap();
    token.cancel();
    let options =
        UploadOptions::new().unwrap().content_type("video/mp4").unwrap().progress(|_, _| {});
    let mut statement = db.prepare("SELECT name FROM media.clips WHERE name = ?").unwrap();
    statement.bind(1, "x").unwrap();
    drop((location, options, statement));
    token.close();
}

// L-001
#[test]
fn l001_ten_thousand_cheap_handles_leak_nothing() {
    let s = Scratch::new();
    let db = s.clips_root();
    for _ in 0..1000 {
        cheap_handles(&db);
    }
    let (handles, resident) = (open_handles(), resident_bytes());
    for _ in 0..10_000 {
        cheap_handles(&db);
    }
    assert_eq!(open_handles(), handles);
    let grown = resident_bytes() - resident;
    assert!(grown < 2 * MIB, "resident memory grew by {} bytes", grown);
}
