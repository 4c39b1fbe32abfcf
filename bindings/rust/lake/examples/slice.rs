use std::io::{Cursor, Read};
use std::path::Path;

use lake::{params, Db, FieldValue, GcOptions, Param, UploadOptions};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let db = Db::open("lake-data")?; // a root, created if missing
    db.create_table("media.clips", &["name:utf8", "video:file"])?;
    let insert = "INSERT INTO media.clips (name, video) VALUES (?, ?)";
    db.insert(insert, params!["path", Path::new("episode.mp4")])?; // a path uploads the file
    let stream = std::fs::File::open("episode.mp4")?; // or any std::io::Read
    db.insert(insert, vec![Param::from("stream"), Param::reader(stream)])?;

    let mut result = db.query("SELECT name, video FROM media.clips ORDER BY name", params![])?;
    let batch = result.next_batch()?.expect("a batch"); // Arrow; or result.into_arrow_stream()
    let video = batch.location(1, 0)?; // the row's DataLocation
    println!("{} {} {}", video.uri(), video.size_bytes(), video.sha256());

    let (stage, mut bytes, mut head) = (db.stage(), Vec::new(), Vec::new());
    stage.open(&video)?.read_to_end(&mut bytes)?; // verified at the end of the read
    stage.open_range(&video, 0, 1024)?.read_to_end(&mut head)?;
    let ranges = stage.read_ranges(&[(&video, 0, 16), (&video, 1024, 1040)])?;

    let text = UploadOptions::new()?.content_type("text/plain")?;
    let note = stage.put_reader(Cursor::new(b"hello".to_vec()), Some(&text))?; // put / cat
    assert_eq!(stage.cat(&note)?, b"hello");

    db.create_experiment("demo", "run-1")?; // an event log
    let log = db.event_log("demo", "run-1", true)?;
    let mut item = log.writer("p1", "w1")?;
    item.set("prompt", FieldValue::Str("a robot folds a towel"))?;
    item.terminal(false)?;
    item.commit()?;
    println!("{} {}", log.fold("p1")?.expect("p1").status(), log.tree("p1")?);

    println!("{}", db.gc_plan(Some(&GcOptions::new()?))?); // a GC dry run: deletes nothing
    println!("{} {} {}", bytes.len(), head.len(), ranges.len());
    Ok(())
}
