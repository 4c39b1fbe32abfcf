//! Handle lifetimes (CONFORMANCE.md, H-001 … H-008), at run time. What the
//! compiler refuses (closing twice, use after close, closing a parent
//! before its children) is shown by the compile_fail examples of
//! src/misuse_tests.rs; these tests check what happens when handles are
//! closed in the only orders Rust allows: each lake handle is freed exactly
//! once (the binding's count of open handles), and owners release what they
//! lent lake.
mod support;

use std::io::{Cursor, Read, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use lake::{open_handles, CancelToken, Db, FieldValue, Param, Stage, UploadOptions};
use support::{child_lines, child_says, is_child, location_of, run_child, Scratch};

// H-001
#[test]
fn h001_closing_each_kind_of_handle_frees_it_exactly_once() {
    let s = Scratch::serial();
    let before = open_handles();
    {
        let db = s.clips_root();
        db.create_experiment("demo", "run-1").unwrap();
        let log = db.event_log("demo", "run-1", true).unwrap();
        let mut writer = log.writer("p1", "w1").unwrap();
        writer.set("f", FieldValue::Int(1)).unwrap();
        writer.commit().unwrap();
        writer.close();
        let location = location_of(&db, "a");
        let token = CancelToken::new().unwrap();
        let options = UploadOptions::new().unwrap().cancel_token(&token);
        let statement = db.prepare("SELECT name FROM media.clips").unwrap();
        let mut query = db.prepare("SELECT name, video FROM media.clips").unwrap();
        let mut result = query.query().unwrap();
        let reader = db.stage().open(&location).unwrap();
        let stage_writer = db.stage().writer(Some(&options)).unwrap();
        let event_writer = log.writer("p2", "w1").unwrap();
        let item = log.fold("p1").unwrap().unwrap();
        let standalone = Stage::open_local(s.dir.join("stage")).unwrap();
        let opened = open_handles();
        // root, location, token, options, 2 statements, reader, writer, log,
        // event writer, item, standalone stage (results are Arrow structs).
        assert_eq!(opened - before, 12);
        macro_rules! closed {
            ($close:expr, $name:expr) => {{
                let was = open_handles();
                $close;
                assert_eq!(open_handles(), was - 1, "closing the {} frees one handle", $name);
            }};
        }
        closed!(reader.close().unwrap(), "reader");
        closed!(stage_writer.discard(), "writer");
        closed!(options.close(), "upload options");
        closed!(token.close(), "cancel token");
        let batch = result.next_batch().unwrap().unwrap();
        assert_eq!(batch.num_rows(), 1);
        drop(batch); // batches and results are Arrow structs, released on drop, not lake handles
        drop(result);
        closed!(statement.close(), "statement");
        closed!(item.close(), "folded item");
        closed!(event_writer.close(), "event writer");
        closed!(log.close(), "event log");
        closed!(location.close(), "location");
        closed!(standalone.close(), "standalone stage");
        closed!(query.close(), "statement");
        closed!(db.close(), "root");
    }
    assert_eq!(open_handles(), before);
}

// H-002: use after close does not compile (src/misuse_tests.rs); what
// remains at run time is that a closed handle's count is gone for good:
// dropping the moved-out value after close() frees nothing again.
#[test]
fn h002_a_closed_handle_is_gone_and_is_not_freed_again() {
    let s = Scratch::serial();
    let before = open_handles();
    let db = s.open_root();
    let token = CancelToken::new().unwrap();
    token.close();
    db.close();
    assert_eq!(open_handles(), before);
}

// H-003
#[test]
fn h003_a_root_closes_after_its_children_in_the_order_rust_allows() {
    let s = Scratch::serial();
    let before = open_handles();
    let db = s.clips_root();
    db.create_experiment("demo", "run-1").unwrap();
    let location = location_of(&db, "a");
    {
        let mut statement = db.prepare("SELECT name FROM media.clips").unwrap();
        let _result = statement.query().unwrap();
        let _reader = db.stage().open(&location).unwrap();
        let _writer = db.stage().writer(None).unwrap();
        let log = db.event_log("demo", "run-1", true).unwrap();
        let _event_writer = log.writer("p1", "w1").unwrap();
    } // children dropped here, in reverse order: lake frees each before the root
    drop(location);
    db.close();
    assert_eq!(open_handles(), before);
    // The root reopens: nothing was left locked or half-freed.
    assert!(Db::open(s.root()).unwrap().tables().unwrap().contains("media.clips"));
}

// H-004
#[test]
fn h004_an_event_log_closes_after_its_writers_items_and_blob_readers() {
    let s = Scratch::serial();
    let db = s.open_root();
    db.create_experiment("demo", "run-1").unwrap();
    let blob = support::random_bytes(70_000);
    let before = open_handles();
    let log = db.event_log("demo", "run-1", true).unwrap();
    let mut done = log.writer("p1", "w1").unwrap();
    done.set("clip", FieldValue::Blob(&blob)).unwrap();
    done.commit().unwrap();
    let open_writer = log.writer("p2", "w1").unwrap();
    let item = log.fold("p1").unwrap().unwrap();
    let mut reader = item.open_blob("clip", 0).unwrap();
    let mut read = Vec::new();
    reader.read_to_end(&mut read).unwrap();
    assert!(read == blob);
    drop((reader, item, open_writer, done));
    log.close();
    assert_eq!(open_handles(), before);
    db.close();
}

struct Flagged(Cursor<Vec<u8>>, Arc<AtomicBool>);

impl Read for Flagged {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.0.read(buf)
    }
}

impl Drop for Flagged {
    fn drop(&mut self) {
        self.1.store(true, Ordering::SeqCst);
    }
}

// H-005
#[test]
fn h005_closing_a_statement_releases_its_streams_and_keeps_its_results() {
    let s = Scratch::serial();
    let db = s.clips_root();
    let mut insert = db.prepare("INSERT INTO media.clips (name, video) VALUES (?, ?)").unwrap();
    let released = Arc::new(AtomicBool::new(false));
    insert.bind(1, "s").unwrap();
    insert
        .bind(2, Param::reader(Flagged(Cursor::new(b"never read".to_vec()), released.clone())))
        .unwrap();
    let mut query = db.prepare("SELECT name FROM media.clips").unwrap();
    let mut result = query.query().unwrap();
    insert.close();
    query.close();
    assert!(released.load(Ordering::SeqCst), "the statement released its stream");
    let batch = result.next_batch().unwrap().unwrap();
    assert_eq!(batch.utf8(0).unwrap(), [Some("a".to_string())]);
}

#[test]
#[ignore = "run by h006 in a child process"]
fn child_takes_the_writer_lock() {
    if !is_child("child_takes_the_writer_lock") {
        return;
    }
    let root = std::path::PathBuf::from(std::env::var("LAKE_TEST_ROOT").unwrap());
    let db = Db::open(&root).unwrap();
    db.set_busy_timeout(0).unwrap();
    db.create_table("media.second", &["name:utf8"]).unwrap();
    child_says(&format!(
        "{} {}",
        std::process::id(),
        std::fs::read_to_string(root.join("writer.lock")).unwrap().trim()
    ));
}

// H-006
#[test]
fn h006_closing_a_root_releases_its_writer_lock_at_once() {
    // Rust frees at close (no collector to wait for): the lock goes then.
    let s = Scratch::serial();
    let db = s.open_root();
    db.create_table("media.first", &["name:utf8"]).unwrap();
    let lock = s.root().join("writer.lock");
    assert!(std::fs::read_to_string(&lock).unwrap().contains(&std::process::id().to_string()));
    db.close();
    let started = std::time::Instant::now();
    let root = s.root();
    let output =
        run_child("child_takes_the_writer_lock", &[("LAKE_TEST_ROOT", root.to_str().unwrap())]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let line = child_lines(&output).pop().expect("the child's report");
    let (pid, lock_text) = line.split_once(' ').unwrap();
    assert!(lock_text.contains(pid), "{}", line);
    assert!(started.elapsed().as_secs() < 10);
}

// H-007
#[test]
fn h007_a_standalone_stage_closes_after_its_readers_and_writers() {
    let s = Scratch::serial();
    let before = open_handles();
    let stage = Stage::open_local(s.dir.join("stage")).unwrap();
    let location = stage.put_path(&s.episode, None).unwrap();
    let reader = stage.open(&location).unwrap();
    let mut writer = stage.writer(None).unwrap();
    writer.write_all(b"abc").unwrap();
    drop((reader, writer)); // the unpublished writer publishes nothing
    assert_eq!(stage.list().unwrap().len(), 1);
    stage.close();
    assert_eq!(open_handles(), before + 1); // the location is not the stage's
    drop(location);
    assert_eq!(open_handles(), before);
}

// H-008
#[test]
fn h008_a_cancel_token_closes_after_the_options_and_writers_borrowing_it() {
    let s = Scratch::serial();
    let db = s.open_root();
    let before = open_handles();
    let token = CancelToken::new().unwrap();
    let options = UploadOptions::new().unwrap().cancel_token(&token);
    let mut writer = db.stage().writer(Some(&options)).unwrap();
    writer.write_all(b"abc").unwrap();
    drop(writer);
    drop(options);
    token.close();
    assert_eq!(open_handles(), before);
    assert_eq!(db.stage().list().unwrap(), []);
}
