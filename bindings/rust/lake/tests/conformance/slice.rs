//! The vertical slice (CONFORMANCE.md, S-001 … S-013).
use std::io::{Cursor, Read, Write};

use crate::support::{location_of, sha256, Scratch, OBJECT_SIZE};
use lake::{params, Db, Param, Status, UploadOptions};

const INSERT: &str = "INSERT INTO media.clips (name, video) VALUES (?, ?)";

// S-001
#[test]
fn s001_a_new_root_is_created_and_reopens_with_its_tables() {
    let s = Scratch::new();
    let db = Db::open(s.root()).unwrap();
    db.create_table("media.clips", &["name:utf8", "video:file"]).unwrap();
    db.close();
    assert!(s.root().is_dir());
    let db = Db::open(s.root()).unwrap();
    assert!(db.tables().unwrap().contains("\"name\":\"media.clips\""));
}

// S-002
#[test]
fn s002_create_table_with_a_file_column_and_again_is_a_conflict() {
    let s = Scratch::new();
    let db = s.open_root();
    db.create_table("media.clips", &["name:utf8", "video:file"]).unwrap();
    let described = db.describe_table("media.clips").unwrap();
    assert!(
        described.contains(r#"{"name":"name","type":"utf8"},{"name":"video","type":"file"}"#),
        "{}",
        described
    );
    let again = db.create_table("media.clips", &["name:utf8", "video:file"]).unwrap_err();
    assert_eq!(again.status(), Status::Conflict);
}

// S-003
#[test]
fn s003_insert_binding_a_file_path_returns_version_1() {
    let s = Scratch::new();
    let db = s.open_root();
    db.create_table("media.clips", &["name:utf8", "video:file"]).unwrap();
    let version = db.insert(INSERT, params!["a", &s.episode]).unwrap();
    assert_eq!(version, 1);
    assert!(db.describe_table("media.clips").unwrap().contains("\"total_rows\":1,"));
}

/// Hands out at most 40,000 bytes a call and counts the calls.
struct Chunked {
    data: Cursor<Vec<u8>>,
    calls: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

impl Read for Chunked {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.calls.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let n = buf.len().min(40_000);
        self.data.read(&mut buf[..n])
    }
}

// S-004
#[test]
fn s004_insert_binding_a_stream_stores_its_length_and_sha256() {
    let s = Scratch::new();
    let db = s.open_root();
    db.create_table("media.clips", &["name:utf8", "video:file"]).unwrap();
    let calls = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let stream = Chunked { data: Cursor::new(s.data.clone()), calls: calls.clone() };
    db.insert(INSERT, vec![Param::from("s"), Param::reader(stream)]).unwrap();
    assert!(calls.load(std::sync::atomic::Ordering::SeqCst) > 1);
    let location = location_of(&db, "s");
    assert_eq!(location.size_bytes(), OBJECT_SIZE as u64);
    assert_eq!(location.sha256(), sha256(&s.data));
}

// S-005
#[test]
fn s005_select_gives_an_arrow_stream_of_batches_in_order() {
    let s = Scratch::new();
    let db = s.clips_root();
    db.insert(INSERT, params!["b", &s.episode]).unwrap();
    let mut result =
        db.query("SELECT name, video FROM media.clips ORDER BY name", params![]).unwrap();
    assert_eq!(result.column_names(), ["name", "video"]);
    let (mut names, mut files) = (Vec::new(), 0);
    for batch in result.batches().unwrap() {
        names.extend(batch.utf8(0).unwrap().into_iter().map(Option::unwrap));
        for row in 0..batch.num_rows() {
            batch.location(1, row).unwrap();
            files += 1;
        }
    }
    assert_eq!(names, ["a", "b"]);
    assert_eq!(files, 2);
}

// S-006
#[test]
fn s006_a_rows_data_location_and_a_null_file_cell() {
    let s = Scratch::new();
    let db = s.clips_root();
    db.insert(INSERT, params!["n", Param::Null]).unwrap();
    let location = location_of(&db, "a");
    assert!(location.uri().starts_with("file://"));
    assert_eq!(location.content_type(), "application/octet-stream");
    assert_eq!(location.size_bytes(), OBJECT_SIZE as u64);
    assert_eq!(location.sha256(), sha256(&s.data));
    let mut result =
        db.query("SELECT video FROM media.clips WHERE name = ?", params!["n"]).unwrap();
    let batch = result.next_batch().unwrap().unwrap();
    assert_eq!(batch.location(0, 0).unwrap_err().status(), Status::NotFound);
}

// S-007
#[test]
fn s007_a_verified_full_read_returns_the_bytes() {
    let s = Scratch::new();
    let db = s.clips_root();
    let location = location_of(&db, "a");
    let mut reader = db.stage().open(&location).unwrap();
    let mut bytes = Vec::new();
    reader.read_to_end(&mut bytes).unwrap(); // std::io::Read
    assert!(bytes == s.data);
    assert!(reader.verified());
    reader.close().unwrap();
}

// S-008
#[test]
fn s008_a_range_read_and_refused_ranges() {
    let s = Scratch::new();
    let db = s.clips_root();
    let location = location_of(&db, "a");
    let mut bytes = Vec::new();
    db.stage().open_range(&location, 1000, 2000).unwrap().read_to_end(&mut bytes).unwrap();
    assert!(bytes == s.data[1000..2000]);
    for (start, end) in [(5, 5), (10, 5), (0, OBJECT_SIZE as u64 + 1)] {
        let refused = db.stage().open_range(&location, start, end).err().expect("refused");
        assert_eq!(refused.status(), Status::InvalidArgument, "[{}, {})", start, end);
    }
}

// S-009
#[test]
fn s009_batched_ranges_over_two_locations() {
    let s = Scratch::new();
    let db = s.clips_root();
    let other = crate::support::random_bytes(5000);
    let first = location_of(&db, "a");
    let second = db.stage().put_reader(Cursor::new(other.clone()), None).unwrap();
    let got = db
        .stage()
        .read_ranges(&[(&first, 0, 10), (&second, 100, 200), (&first, 5000, 6000)])
        .unwrap();
    assert!(got == [&s.data[..10], &other[100..200], &s.data[5000..6000]]);
    let refused = db.stage().read_ranges(&[(&first, 0, 10), (&second, 0, 5001)]).unwrap_err();
    assert_eq!(refused.status(), Status::InvalidArgument);
}

// S-010
#[test]
fn s010_put_and_cat_on_the_stage_and_an_unpublished_writer() {
    let s = Scratch::new();
    let db = s.open_root();
    let stage = db.stage();
    let video = UploadOptions::new().unwrap().content_type("video/mp4").unwrap();
    let put = stage.put_path(&s.episode, Some(&video)).unwrap();
    assert_eq!(put.content_type(), "video/mp4");
    assert!(stage.cat(&put).unwrap() == s.data);
    let text = UploadOptions::new().unwrap().content_type("text/plain").unwrap();
    let mut writer = stage.writer(Some(&text)).unwrap();
    for part in [&b"one "[..], b"two ", b"three"] {
        writer.write_all(part).unwrap(); // std::io::Write
    }
    let pushed = writer.close().unwrap();
    assert_eq!(pushed.content_type(), "text/plain");
    assert_eq!(stage.cat(&pushed).unwrap(), b"one two three");
    let listed = stage.list().unwrap();
    let mut discarded = stage.writer(None).unwrap();
    discarded.write_all(b"never published").unwrap();
    discarded.discard();
    assert_eq!(stage.list().unwrap(), listed);
}

// S-011
#[test]
fn s011_event_log_writer_commit_fold_tree_and_blob() {
    let s = Scratch::new();
    let db = s.open_root();
    db.create_experiment("demo", "run-1").unwrap();
    let blob = crate::support::random_bytes(100_000);
    let log = db.event_log("demo", "run-1", true).unwrap();
    let mut writer = log.writer("p1", "w1").unwrap();
    writer.set("prompt", lake::FieldValue::Str("a robot folds a towel")).unwrap();
    writer.set("clip", lake::FieldValue::Blob(&blob)).unwrap();
    writer.terminal(false).unwrap();
    writer.commit().unwrap();
    writer.close();
    let item = log.fold("p1").unwrap().expect("item p1");
    assert_eq!(item.status(), "completed");
    assert_eq!(item.value("prompt", 0).unwrap(), lake::Value::Str("a robot folds a towel".into()));
    let mut reader = item.open_blob("clip", 0).unwrap();
    let mut read = Vec::new();
    reader.read_to_end(&mut read).unwrap();
    assert!(read == blob);
    assert!(reader.verified());
    let tree = log.tree("p1").unwrap();
    assert!(
        tree.starts_with(r#"{"root":{"item":{"#) && tree.contains(r#""item_id":"p1""#),
        "{}",
        tree
    );
}

// S-012
#[test]
fn s012_a_gc_dry_run_counts_an_unreferenced_object_and_deletes_nothing() {
    let s = Scratch::new();
    let db = s.open_root();
    let unreferenced = db.stage().put_path(&s.episode, None).unwrap();
    let options = lake::GcOptions::new().unwrap().cutoff_seconds(0).allow_short_cutoff(true);
    let plan = db.gc_plan(Some(&options)).unwrap();
    assert!(!plan.contains("\"objects\":0,"), "{}", plan);
    assert!(plan.contains("\"objects\":"), "{}", plan);
    assert!(db.stage().cat(&unreferenced).unwrap() == s.data);
}

// S-013
#[test]
#[cfg_attr(not(lake_duckdb), ignore = "LAKE_DUCKDB_LIB is not set (scripts/fetch-duckdb)")]
fn s013_duckdb_scans_the_exported_arrow_stream() {
    // Built with LAKE_DUCKDB_LIB or LAKE_REQUIRE_DUCKDB=1 (build.rs): it must run.
    let path = std::env::var("LAKE_DUCKDB_LIB").expect("LAKE_DUCKDB_LIB names DuckDB's library");
    let s = Scratch::new();
    let db = s.clips_root();
    db.insert(INSERT, params!["b", &s.episode]).unwrap();
    let stream =
        db.query("SELECT name, video FROM media.clips", params![]).unwrap().into_arrow_stream();
    let duck = crate::support::duckdb::DuckDb::open(&path);
    duck.scan(stream, "clips_stream");
    duck.one("CREATE TABLE clips AS SELECT * FROM clips_stream");
    assert_eq!(duck.one("SELECT count(*) FROM clips").as_deref(), Some("2"));
    assert_eq!(
        duck.one("SELECT string_agg(name, ',' ORDER BY name) FROM clips").as_deref(),
        Some("a,b")
    );
    assert_eq!(
        duck.one("SELECT sum(video.size_bytes) FROM clips"),
        Some((2 * OBJECT_SIZE).to_string())
    );
}
