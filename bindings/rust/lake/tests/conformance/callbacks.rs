//! Callbacks (CONFORMANCE.md, C-001 … C-007).
//!
//! Rust has no garbage collector: what C-001 … C-003 ask ("survives forced
//! collection while lake holds it") is ownership here. Whatever lake holds a
//! pointer to is boxed (a fixed heap address) and owned by the value that
//! lent it to lake for as long as lake may call it: a bound stream by its
//! statement, a progress closure by its upload options, a host store by an
//! Arc of which lake holds one count until its `destroy` callback. The tests
//! move those owners around (which moves every Rust value but not the boxes)
//! and drop every other reference, then let lake call back; they check that
//! each callback's owner frees it exactly when it goes, not before.
use std::collections::HashMap;
use std::io::{self, Cursor, Read};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use crate::support::{location_of, sha256, Scratch, OBJECT_SIZE};
use lake::{CancelToken, ListEntry, Param, Stage, StageOptions, Status, UploadOptions};

const INSERT: &str = "INSERT INTO media.clips (name, video) VALUES (?, ?)";

/// A source handing out 32 KiB a call, counting its calls and its drop.
struct Tracked {
    data: Cursor<Vec<u8>>,
    reads: Arc<AtomicUsize>,
    dropped: Arc<AtomicBool>,
}

impl Tracked {
    fn new(data: Vec<u8>) -> (Tracked, Arc<AtomicUsize>, Arc<AtomicBool>) {
        let (reads, dropped) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicBool::new(false)));
        (
            Tracked { data: Cursor::new(data), reads: reads.clone(), dropped: dropped.clone() },
            reads,
            dropped,
        )
    }
}

impl Read for Tracked {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.reads.fetch_add(1, Ordering::SeqCst);
        let n = buf.len().min(32 * 1024);
        self.data.read(&mut buf[..n])
    }
}

impl Drop for Tracked {
    fn drop(&mut self) {
        self.dropped.store(true, Ordering::SeqCst);
    }
}

struct Failing;

impl Read for Failing {
    fn read(&mut self, _buf: &mut [u8]) -> io::Result<usize> {
        panic!("the source broke")
    }
}

// C-001
#[test]
fn c001_a_bound_read_source_is_kept_by_its_statement_while_lake_reads_it() {
    let s = Scratch::new();
    let db = s.open_root();
    db.create_table("media.clips", &["name:utf8", "video:file"]).unwrap();
    let mut statement = db.prepare(INSERT).unwrap();
    statement.bind(1, "c").unwrap();
    let (source, reads, dropped) = Tracked::new(s.data.clone());
    statement.bind(2, Param::reader(source)).unwrap(); // moved: only the statement owns it now
    let mut moved = vec![statement]; // the statement moves; the boxed source does not
    let mut statement = moved.pop().unwrap();
    statement.insert().unwrap();
    assert!(reads.load(Ordering::SeqCst) > 2);
    assert!(!dropped.load(Ordering::SeqCst), "freed while its statement lives");
    statement.close();
    assert!(dropped.load(Ordering::SeqCst), "the statement frees what it kept");
    assert_eq!(location_of(&db, "c").sha256(), sha256(&s.data));
}

// C-002
#[test]
fn c002_a_progress_closure_is_kept_by_its_options_and_sees_done_grow_to_the_size() {
    let s = Scratch::new();
    let db = s.open_root();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let (marker, _, dropped) = Tracked::new(Vec::new());
    let record = seen.clone();
    let options = UploadOptions::new().unwrap().progress(move |done, _total| {
        let _keep = &marker; // dropped with the closure
        record.lock().unwrap().push(done);
    });
    let options = Box::new(options); // moved after lake got the closure's address
    let (source, _, _) = Tracked::new(s.data.clone());
    let location = db.stage().put_reader(source, Some(&options)).unwrap();
    assert_eq!(location.size_bytes(), OBJECT_SIZE as u64);
    let seen = seen.lock().unwrap().clone();
    assert!(!seen.is_empty());
    assert!(seen.windows(2).all(|w| w[0] <= w[1]), "{:?}", seen);
    assert_eq!(*seen.last().unwrap(), OBJECT_SIZE as u64);
    assert!(!dropped.load(Ordering::SeqCst));
    drop(options);
    assert!(dropped.load(Ordering::SeqCst));
}

/// A host store in Rust: objects in a map.
struct MemoryStore {
    objects: Mutex<HashMap<String, (Vec<u8>, i64)>>,
    panic_open: AtomicBool,
    uploads: AtomicUsize,
    dropped: Arc<AtomicBool>,
}

impl MemoryStore {
    fn dropping(dropped: Arc<AtomicBool>) -> MemoryStore {
        MemoryStore {
            objects: Mutex::default(),
            panic_open: AtomicBool::new(false),
            uploads: AtomicUsize::new(0),
            dropped,
        }
    }
}

impl lake::HostStore for MemoryStore {
    fn root_uri(&self) -> String {
        "s3://rust-host/root".to_string()
    }
    fn upload(&self, uri: &str, _content_type: &str, source: &mut dyn Read) -> io::Result<()> {
        self.uploads.fetch_add(1, Ordering::SeqCst);
        let mut data = Vec::new();
        source.read_to_end(&mut data)?;
        self.objects.lock().unwrap().insert(uri.to_string(), (data, 1_700_000_000_000_000));
        Ok(())
    }
    fn open(&self, uri: &str, start: u64) -> io::Result<Box<dyn Read + Send>> {
        if self.panic_open.load(Ordering::SeqCst) {
            panic!("the host refuses");
        }
        let objects = self.objects.lock().unwrap();
        let (data, _) = objects
            .get(uri)
            .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, uri.to_string()))?;
        Ok(Box::new(Cursor::new(data[start as usize..].to_vec())))
    }
    fn list(&self, prefix: &str) -> io::Result<Vec<ListEntry>> {
        Ok(self
            .objects
            .lock()
            .unwrap()
            .iter()
            .filter(|(uri, _)| uri.starts_with(prefix))
            .map(|(uri, (data, modified))| ListEntry {
                uri: uri.clone(),
                size_bytes: data.len() as u64,
                modified_unix_micros: *modified,
            })
            .collect())
    }
    fn remove(&self, uri: &str) -> io::Result<()> {
        self.objects.lock().unwrap().remove(uri);
        Ok(())
    }
}

impl Drop for MemoryStore {
    fn drop(&mut self) {
        self.dropped.store(true, Ordering::SeqCst);
    }
}

fn host_stage(store: MemoryStore) -> Stage {
    let options = StageOptions::new().unwrap().host_store(store).unwrap();
    let stage = Stage::open_with(&options).unwrap();
    drop(options); // lake's count keeps the store alive now
    stage
}

// C-003
#[test]
fn c003_a_host_store_in_rust_serves_a_stage_and_lives_until_the_stage_goes() {
    let s = Scratch::new();
    let dropped = Arc::new(AtomicBool::new(false));
    let stage = host_stage(MemoryStore::dropping(dropped.clone()));
    let (source, _, _) = Tracked::new(s.data.clone());
    let location = stage.put_reader(source, None).unwrap();
    assert!(location.uri().starts_with("s3://rust-host/root/"), "{}", location.uri());
    assert_eq!(stage.io_backend(), "host");
    assert!(stage.cat(&location).unwrap() == s.data);
    let mut range = Vec::new();
    stage.open_range(&location, 10, 20).unwrap().read_to_end(&mut range).unwrap();
    assert!(range == s.data[10..20]);
    let listed: Vec<String> = stage.list().unwrap().into_iter().map(|e| e.uri).collect();
    assert_eq!(listed, [location.uri()]);
    stage.delete(&location).unwrap();
    assert_eq!(stage.list().unwrap(), []);
    assert!(!dropped.load(Ordering::SeqCst));
    stage.close(); // lake calls destroy: the last count goes
    assert!(dropped.load(Ordering::SeqCst));
}

// C-004
#[test]
fn c004_a_panic_in_a_read_source_becomes_the_calls_error_and_publishes_nothing() {
    let s = Scratch::new();
    let db = s.open_root();
    db.create_table("media.clips", &["name:utf8", "video:file"]).unwrap();
    let error = db.insert(INSERT, vec![Param::from("f"), Param::reader(Failing)]).unwrap_err();
    assert_eq!(error.panic_message(), Some("the source broke"));
    assert_eq!(error.status(), Status::Io); // lake's own error of the call, attached
    assert!(db.describe_table("media.clips").unwrap().contains("\"total_rows\":0,"));
    let error = db.stage().put_reader(Failing, None).unwrap_err();
    assert_eq!(error.panic_message(), Some("the source broke"));
    assert_eq!(db.stage().list().unwrap(), []);
}

// C-005
#[test]
fn c005_a_panic_in_a_progress_callback_becomes_the_calls_error() {
    let s = Scratch::new();
    let db = s.open_root();
    let options = UploadOptions::new().unwrap().progress(|done, _| panic!("progress at {}", done));
    let error = db.stage().put_path(&s.episode, Some(&options)).unwrap_err();
    assert!(error.panic_message().unwrap().starts_with("progress at "), "{:?}", error);
}

// C-006
#[test]
fn c006_a_panic_in_a_host_store_callback_becomes_the_calls_error() {
    let s = Scratch::new();
    let store = Arc::new(MemoryStore::dropping(Arc::default()));
    struct Shared(Arc<MemoryStore>);
    impl lake::HostStore for Shared {
        fn root_uri(&self) -> String {
            "s3://rust-host/root".to_string()
        }
        fn upload(&self, uri: &str, t: &str, r: &mut dyn Read) -> io::Result<()> {
            self.0.upload(uri, t, r)
        }
        fn open(&self, uri: &str, start: u64) -> io::Result<Box<dyn Read + Send>> {
            self.0.open(uri, start)
        }
        fn list(&self, prefix: &str) -> io::Result<Vec<ListEntry>> {
            self.0.list(prefix)
        }
        fn remove(&self, uri: &str) -> io::Result<()> {
            self.0.remove(uri)
        }
    }
    let stage = {
        let options = StageOptions::new().unwrap().host_store(Shared(store.clone())).unwrap();
        Stage::open_with(&options).unwrap()
    };
    let location = stage.put_reader(Cursor::new(s.data.clone()), None).unwrap();
    store.panic_open.store(true, Ordering::SeqCst);
    let error = stage.cat(&location).unwrap_err();
    assert_eq!(error.panic_message(), Some("the host refuses"));
    store.panic_open.store(false, Ordering::SeqCst);
    assert!(stage.cat(&location).unwrap() == s.data);
}

// C-007
#[test]
fn c007_a_token_cancelled_from_the_progress_callback_stops_the_upload() {
    let s = Scratch::new();
    let db = s.open_root();
    let token = CancelToken::new().unwrap();
    let options =
        UploadOptions::new().unwrap().cancel_token(&token).progress(|_, _| token.cancel());
    let large = crate::support::random_bytes(8 << 20); // progress comes every MiB
    let error = db.stage().put_reader(Cursor::new(large), Some(&options)).unwrap_err();
    assert_eq!(error.status(), Status::Cancelled);
    assert_eq!(db.stage().list().unwrap(), []);
}
