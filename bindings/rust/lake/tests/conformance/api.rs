//! The rest of the safe API, beyond the conformance scenarios: one call
//! path per test, checked against what lake.h says it returns.
use std::io::Read;

use crate::support::{location_of, names, Scratch, OBJECT_SIZE};
use lake::{
    params, Db, FieldValue, GcOptions, Location, Param, Stage, StageOptions, Status, Step, Value,
};

const INSERT: &str = "INSERT INTO media.clips (name, video) VALUES (?, ?)";

#[test]
fn the_library_reports_its_version_and_takes_a_buffer_budget() {
    assert!(lake::version_string().split('.').count() >= 3, "{}", lake::version_string());
    lake::set_buffer_budget(64 << 20).unwrap();
    assert_eq!(lake::set_buffer_budget(1).unwrap_err().status(), Status::InvalidArgument);
    lake::set_buffer_budget(1 << 30).unwrap();
}

#[test]
fn a_location_round_trips_through_its_canonical_json() {
    let location = Location::new("file:///tmp/x", "video/mp4", 7, &"ab".repeat(32)).unwrap();
    let again = Location::from_json(&location.json()).unwrap();
    assert_eq!(again, location);
    assert_eq!(location.clone().uri(), "file:///tmp/x");
    assert_eq!((again.content_type(), again.size_bytes()), ("video/mp4".to_string(), 7));
}

#[test]
fn a_reader_view_lends_the_readers_own_bytes_until_the_verified_end() {
    let s = Scratch::new();
    let db = s.clips_root();
    let location = location_of(&db, "a");
    let mut reader = db.stage().open(&location).unwrap();
    let mut read = Vec::new();
    loop {
        let view = reader.read_view(1 << 16).unwrap();
        if view.is_empty() {
            break;
        }
        read.extend_from_slice(view);
    }
    assert!(read == s.data);
    assert!(reader.verified());
}

#[test]
fn a_standalone_stage_with_a_tenant_lists_cleans_and_deletes() {
    let s = Scratch::new();
    let options = StageOptions::new()
        .unwrap()
        .local_root(s.dir.join("stage"))
        .unwrap()
        .tenant("acme")
        .unwrap();
    let stage = Stage::open_with(&options).unwrap();
    assert_eq!(stage.descriptor(), r#"{"version":1,"kind":"local"}"#);
    assert!(["io_uring", "sync"].contains(&stage.io_backend().as_str()));
    let location = stage.put_path(&s.episode, None).unwrap();
    assert!(location.uri().contains("/acme/"), "{}", location.uri());
    assert_eq!(stage.list().unwrap().len(), 1);
    assert_eq!(stage.clean_staging().unwrap(), 0);
    stage.delete(&location).unwrap();
    stage.delete(&location).unwrap(); // absent: still Ok
    assert_eq!(stage.list().unwrap(), []);
}

#[test]
fn every_scalar_type_binds_and_reads_back() {
    let s = Scratch::new();
    let db = s.open_root();
    db.create_table(
        "t.all",
        &["i:int64", "f:float64", "b:bool", "s:utf8", "x:binary", "ts:timestamp"],
    )
    .unwrap();
    let mut insert = db
        .prepare(
            "INSERT INTO t.all (i, f, b, s, x, ts) VALUES (?, ?, ?, ?, ?, ?), (?, ?, ?, ?, ?, ?)",
        )
        .unwrap();
    assert_eq!(insert.parameter_count(), 12);
    insert.bind_all(params![7i64, 1.5f64, true, "seven", &b"\x00\x01"[..]]).unwrap();
    insert.bind(6, Param::TimestampMicros(1_700_000_000_000_000)).unwrap();
    for (i, text) in
        ["8", "2.5", "false", "eight", "AAE=", "2024-01-02T03:04:05Z"].iter().enumerate()
    {
        insert.bind(7 + i, Param::Text(text)).unwrap();
    }
    assert_eq!(insert.insert().unwrap(), 1);
    assert_eq!(insert.changes(), (0, 2));
    let mut result = db.query("SELECT i FROM t.all ORDER BY i", params![]).unwrap();
    let batch = result.next_batch().unwrap().unwrap();
    assert_eq!(batch.int64(0).unwrap(), [Some(7), Some(8)]);
}

#[test]
fn a_batch_refuses_a_column_of_another_type_or_out_of_range() {
    let s = Scratch::new();
    let db = s.clips_root();
    let mut result = db.query("SELECT name, video FROM media.clips", params![]).unwrap();
    let batch = result.next_batch().unwrap().unwrap();
    assert_eq!(batch.utf8(0).unwrap(), [Some("a".to_string())]);
    for refused in
        [batch.int64(0).unwrap_err(), batch.utf8(1).unwrap_err(), batch.utf8(2).unwrap_err()]
    {
        assert_eq!(refused.status(), Status::InvalidArgument);
    }
    assert_eq!(batch.location(0, 0).unwrap_err().status(), Status::InvalidArgument);
    assert_eq!(batch.location(1, 1).unwrap_err().status(), Status::InvalidArgument);
}

#[test]
fn a_delete_commits_a_version_and_counts_its_rows() {
    let s = Scratch::new();
    let db = s.clips_root();
    db.insert(INSERT, params!["b", Param::Null]).unwrap();
    let (version, rows) =
        db.execute("DELETE FROM media.clips WHERE name = ?", params!["a"]).unwrap();
    assert_eq!((version, rows), (3, 1));
    assert_eq!(names(&db), ["b"]);
    let mut as_of = db.query("SELECT name FROM media.clips AS OF VERSION 1", params![]).unwrap();
    assert_eq!(as_of.next_batch().unwrap().unwrap().utf8(0).unwrap(), [Some("a".to_string())]);
}

#[test]
fn table_versions_compact_tag_expire_and_drop() {
    let s = Scratch::new();
    let db = s.clips_root();
    db.insert(INSERT, params!["b", Param::Null]).unwrap();
    assert!(db.table_versions("media.clips").unwrap().contains("\"version\":2"));
    assert_eq!(db.compact_table("media.clips").unwrap(), 3);
    db.tag_table("media.clips", "first", 1).unwrap();
    assert_eq!(db.tag_table("media.clips", "first", 2).unwrap_err().status(), Status::Conflict);
    let expired = db.expire_table("media.clips", 1, None).unwrap();
    assert!(expired.contains("\"retired\":[2]"), "{}", expired);
    db.untag_table("media.clips", "first").unwrap();
    assert_eq!(db.untag_table("media.clips", "first").unwrap_err().status(), Status::NotFound);
    db.drop_table("media.clips").unwrap();
    assert_eq!(db.tables().unwrap(), "[]");
}

#[test]
fn a_follower_reads_what_the_writer_committed() {
    let s = Scratch::new();
    let db = s.clips_root();
    db.set_busy_timeout(100).unwrap();
    assert_eq!(db.view_age_micros(), 0);
    let follower = Db::open_follower(s.root(), 10).unwrap();
    assert_eq!(names(&follower), ["a"]);
    assert!(follower.view_age_micros() >= 0);
    assert_eq!(
        follower.create_table("media.other", &["n:utf8"]).unwrap_err().status(),
        Status::InvalidArgument
    );
}

#[test]
fn a_pin_is_kept_until_unpinned_and_recovery_settles_nothing_pending() {
    let s = Scratch::new();
    let db = s.open_root();
    let location = db.stage().put_path(&s.episode, None).unwrap();
    db.pin(&location).unwrap();
    db.unpin(&location).unwrap();
    assert_eq!(db.unpin(&location).unwrap_err().status(), Status::NotFound);
    assert_eq!(db.pending_appends().unwrap(), "[]");
    assert_eq!(db.recover().unwrap(), "[]");
    assert_eq!(db.discard_append("not-an-id").unwrap_err().status(), Status::InvalidArgument);
    assert_eq!(db.uploads().unwrap(), []);
}

#[test]
fn a_gc_plan_is_shown_applied_and_verified() {
    let s = Scratch::new();
    let db = s.clips_root();
    let garbage = db.stage().put_path(&s.episode, None).unwrap();
    let phases = std::sync::Mutex::new(Vec::new());
    let options = GcOptions::new()
        .unwrap()
        .cutoff_seconds(0)
        .allow_short_cutoff(true)
        .progress(|phase, _, _| phases.lock().unwrap().push(phase.to_string()));
    let plan = db.gc_plan(Some(&options)).unwrap();
    let id_at = plan.find("\"plan_id\":\"").unwrap() + 11;
    let plan_id = &plan[id_at..id_at + plan[id_at..].find('"').unwrap()];
    let (candidates, _) = db.gc_show(plan_id).unwrap();
    assert_eq!(
        candidates.iter().filter(|c| c.kind == "object").map(|c| c.uri.clone()).collect::<Vec<_>>(),
        [garbage.uri()]
    );
    assert!(db.gc_status(Some(plan_id)).unwrap().contains("\"state\":\"planned\""));
    db.gc_apply(plan_id, Some(&options)).unwrap();
    assert_eq!(db.stage().cat(&garbage).unwrap_err().status(), Status::NotFound);
    drop(options);
    assert!(!phases.into_inner().unwrap().is_empty());
    let (problems, summary) = db.gc_verify(true, None).unwrap();
    assert_eq!(problems, []);
    assert!(summary.contains(&format!("\"bytes_verified\":{}", OBJECT_SIZE)), "{}", summary);
}

#[test]
fn experiments_are_listed_described_compacted_and_deleted() {
    let s = Scratch::new();
    let db = s.open_root();
    db.create_experiment("demo", "run-1").unwrap();
    assert_eq!(db.create_experiment("demo", "run-1").unwrap_err().status(), Status::Conflict);
    assert!(db.experiments(Some("demo")).unwrap().contains("\"experiment\":\"run-1\""));
    assert!(db.describe_experiment("demo", "run-1").unwrap().contains("\"items\":0"));
    {
        let log = db.event_log("demo", "run-1", true).unwrap();
        let mut writer = log.writer("p1", "w1").unwrap();
        writer.terminal(false).unwrap();
        writer.commit().unwrap();
    }
    assert!(db.compact_experiment("demo", "run-1").unwrap().contains("\"compacted\":"));
    db.delete_experiment("demo", "run-1").unwrap();
    assert_eq!(db.delete_experiment("demo", "run-1").unwrap_err().status(), Status::NotFound);
}

#[test]
fn an_event_writer_records_steps_appends_and_a_failure_that_resume_retries() {
    let s = Scratch::new();
    let db = s.open_root();
    db.create_experiment("demo", "run-1").unwrap();
    let log = db.event_log("demo", "run-1", true).unwrap();
    let step = Step { name: "fan", index: Some(0), kind: Some("MapReduce"), ..Step::default() };
    let mut writer = log.writer("p1", "w1").unwrap();
    assert_eq!(writer.attempt(), 0);
    writer.step_started(&step).unwrap();
    writer.append("scores", FieldValue::Int(1), Some(&step)).unwrap();
    writer.append("scores", FieldValue::Float(2.5), None).unwrap();
    writer.set_at("meta", FieldValue::Json("{\"k\":1}"), None).unwrap();
    writer.set("ok", FieldValue::Bool(true)).unwrap();
    writer.step_completed(&step).unwrap();
    writer.failed("ValueError", "bad", "trace", None).unwrap();
    writer.commit().unwrap();
    writer.close();
    let item = log.fold("p1").unwrap().unwrap();
    assert_eq!((item.status().as_str(), item.last_attempt()), ("failed", 0));
    assert_eq!(item.value_count("scores"), 2);
    assert_eq!(item.value("scores", 1).unwrap(), Value::Float(2.5));
    assert_eq!(item.value("ok", 0).unwrap(), Value::Bool(true));
    assert_eq!(item.value("nothing", 0).unwrap_err().status(), Status::NotFound);
    assert!(item.next_item_seq() > 1 && item.json().contains("\"p1\""));
    assert!(log.failures().unwrap().contains("\"error_type\":\"ValueError\""));
    let mut again = log.resume("p1", "w2").unwrap();
    assert_eq!(again.attempt(), 1);
    again.terminal(false).unwrap();
    again.commit().unwrap();
    log.refresh().unwrap();
    assert!(log.roots().unwrap().contains("\"completed\""));
    assert!(log.events("p1").unwrap().lines().count() >= 8);
    assert!(log.fold("nobody").unwrap().is_none());
    let child = log.writer_created_by("p1.c1", "w2", Some(&step)).unwrap();
    drop(child);
    let (appended, duplicates) = log.append_jsonl(&log.events("p1").unwrap()).unwrap();
    assert_eq!((appended, duplicates > 0), (0, true));
    let mut blob = log.writer("p2", "w1").unwrap();
    blob.set("small", FieldValue::Blob(b"tiny")).unwrap();
    blob.commit().unwrap();
    let folded = log.fold("p2").unwrap().unwrap();
    assert_eq!(folded.value("small", 0).unwrap(), Value::Blob(b"tiny".to_vec()));
    let mut read = Vec::new();
    folded.open_blob("small", 0).unwrap().read_to_end(&mut read).unwrap();
    assert_eq!(read, b"tiny");
}
