//! Misuse the compiler refuses: the handle scenarios Rust's ownership
//! settles at compile time (CONFORMANCE.md H-001 … H-004, H-007, H-008,
//! T-002, T-003). Each `compile_fail` example is paired with the same code
//! minus the misuse, which compiles, so each fails only for its misuse
//! (the error code names the expected error; stable rustdoc does not check
//! codes, so the twin is what proves it).
//! Compiled only for doctests (`cfg(doctest)`).
//!
//! H-001: a handle is closed at most once — `close(self)` consumes it, and
//! `Drop` does not run again for a closed handle.
//! ```compile_fail,E0382
//! # fn main() -> lake::Result<()> {
//! let token = lake::CancelToken::new()?;
//! token.close();
//! token.close();
//! # Ok(()) }
//! ```
//! ```no_run
//! # fn main() -> lake::Result<()> {
//! let token = lake::CancelToken::new()?;
//! token.close();
//! # Ok(()) }
//! ```
//!
//! H-002: a closed handle cannot be used (no call can reach lake).
//! ```compile_fail,E0382
//! # fn main() -> lake::Result<()> {
//! let db = lake::Db::open("lake-data")?;
//! db.close();
//! db.tables()?;
//! # Ok(()) }
//! ```
//! ```compile_fail,E0382
//! # fn main() -> lake::Result<()> {
//! # let db = lake::Db::open("lake-data")?;
//! # let location = lake::Location::from_json("{}")?;
//! let reader = db.stage().open(&location)?;
//! reader.close()?;
//! reader.verified();
//! # Ok(()) }
//! ```
//! ```no_run
//! # fn main() -> lake::Result<()> {
//! # let db = lake::Db::open("lake-data")?;
//! # let location = lake::Location::from_json("{}")?;
//! let reader = db.stage().open(&location)?;
//! reader.verified();
//! reader.close()?;
//! db.tables()?;
//! db.close();
//! # Ok(()) }
//! ```
//!
//! H-003: a root cannot be closed while its statements, results, readers
//! or event logs live.
//! ```compile_fail,E0505
//! # fn main() -> lake::Result<()> {
//! let db = lake::Db::open("lake-data")?;
//! let statement = db.prepare("SELECT name FROM media.clips")?;
//! db.close();
//! drop(statement);
//! # Ok(()) }
//! ```
//! ```compile_fail,E0505
//! # fn main() -> lake::Result<()> {
//! # let location = lake::Location::from_json("{}")?;
//! let db = lake::Db::open("lake-data")?;
//! let reader = db.stage().open(&location)?;
//! db.close();
//! reader.close()?;
//! # Ok(()) }
//! ```
//! ```compile_fail,E0505
//! # fn main() -> lake::Result<()> {
//! let db = lake::Db::open("lake-data")?;
//! let log = db.event_log("demo", "run-1", true)?;
//! db.close();
//! log.roots()?;
//! # Ok(()) }
//! ```
//! ```no_run
//! # fn main() -> lake::Result<()> {
//! # let location = lake::Location::from_json("{}")?;
//! let db = lake::Db::open("lake-data")?;
//! let statement = db.prepare("SELECT name FROM media.clips")?;
//! let reader = db.stage().open(&location)?;
//! let log = db.event_log("demo", "run-1", true)?;
//! drop(statement);
//! reader.close()?;
//! log.roots()?;
//! log.close();
//! db.close();
//! # Ok(()) }
//! ```
//!
//! H-004: an event log cannot be closed while its writers, folded items or
//! blob readers live.
//! ```compile_fail,E0505
//! # fn main() -> lake::Result<()> {
//! # let db = lake::Db::open("lake-data")?;
//! let log = db.event_log("demo", "run-1", true)?;
//! let mut writer = log.writer("p1", "w1")?;
//! log.close();
//! writer.commit()?;
//! # Ok(()) }
//! ```
//! ```compile_fail,E0505
//! # fn main() -> lake::Result<()> {
//! # let db = lake::Db::open("lake-data")?;
//! let log = db.event_log("demo", "run-1", true)?;
//! let item = log.fold("p1")?.unwrap();
//! let blob = item.open_blob("clip", 0)?;
//! drop(item);
//! log.close();
//! blob.close()?;
//! # Ok(()) }
//! ```
//! ```no_run
//! # fn main() -> lake::Result<()> {
//! # let db = lake::Db::open("lake-data")?;
//! let log = db.event_log("demo", "run-1", true)?;
//! let mut writer = log.writer("p1", "w1")?;
//! let item = log.fold("p1")?.unwrap();
//! let blob = item.open_blob("clip", 0)?;
//! writer.commit()?;
//! drop(item);
//! blob.close()?;
//! writer.close();
//! log.close();
//! # Ok(()) }
//! ```
//!
//! H-007: a standalone stage cannot be closed while its readers and
//! writers live.
//! ```compile_fail,E0505
//! # fn main() -> lake::Result<()> {
//! let stage = lake::Stage::open_local("stage")?;
//! let writer = stage.writer(None)?;
//! stage.close();
//! writer.close()?;
//! # Ok(()) }
//! ```
//! ```no_run
//! # fn main() -> lake::Result<()> {
//! let stage = lake::Stage::open_local("stage")?;
//! let writer = stage.writer(None)?;
//! writer.close()?;
//! stage.close();
//! # Ok(()) }
//! ```
//!
//! H-008: a cancel token cannot be closed while the upload options it was
//! given to, or a writer opened with them, live.
//! ```compile_fail,E0505
//! # fn main() -> lake::Result<()> {
//! # let stage = lake::Stage::open_local("stage")?;
//! let token = lake::CancelToken::new()?;
//! let options = lake::UploadOptions::new()?.cancel_token(&token);
//! let writer = stage.writer(Some(&options))?;
//! token.close();
//! writer.close()?;
//! # Ok(()) }
//! ```
//! ```no_run
//! # fn main() -> lake::Result<()> {
//! # let stage = lake::Stage::open_local("stage")?;
//! let token = lake::CancelToken::new()?;
//! let options = lake::UploadOptions::new()?.cancel_token(&token);
//! let writer = stage.writer(Some(&options))?;
//! writer.close()?;
//! drop(options);
//! token.close();
//! # Ok(()) }
//! ```
//!
//! T-002: a reader (one thread at a time) cannot be read from two threads
//! at once without a lock.
//! ```compile_fail,E0499
//! # fn main() -> lake::Result<()> {
//! # let db = lake::Db::open("lake-data")?;
//! # let location = lake::Location::from_json("{}")?;
//! use std::io::Read;
//! let mut reader = db.stage().open(&location)?;
//! std::thread::scope(|s| {
//!     s.spawn(|| reader.read(&mut [0u8; 10]));
//!     s.spawn(|| reader.read(&mut [0u8; 10]));
//! });
//! # Ok(()) }
//! ```
//! ```no_run
//! # fn main() -> lake::Result<()> {
//! # let db = lake::Db::open("lake-data")?;
//! # let location = lake::Location::from_json("{}")?;
//! use std::io::Read;
//! let reader = std::sync::Mutex::new(db.stage().open(&location)?);
//! std::thread::scope(|s| {
//!     s.spawn(|| reader.lock().unwrap().read(&mut [0u8; 10]));
//!     s.spawn(|| reader.lock().unwrap().read(&mut [0u8; 10]));
//! });
//! # Ok(()) }
//! ```
//!
//! T-003: a handle cannot be closed while another thread is inside a call
//! on it: closing needs the handle itself, which that thread borrows.
//! ```compile_fail,E0505
//! # fn main() -> lake::Result<()> {
//! # let db = lake::Db::open("lake-data")?;
//! # let location = lake::Location::from_json("{}")?;
//! use std::io::Read;
//! let mut reader = db.stage().open(&location)?;
//! std::thread::scope(|s| {
//!     s.spawn(|| reader.read(&mut [0u8; 10]));
//!     reader.close()
//! })?;
//! # Ok(()) }
//! ```
//! ```no_run
//! # fn main() -> lake::Result<()> {
//! # let db = lake::Db::open("lake-data")?;
//! # let location = lake::Location::from_json("{}")?;
//! use std::io::Read;
//! let mut reader = db.stage().open(&location)?;
//! std::thread::scope(|s| {
//!     s.spawn(|| reader.read(&mut [0u8; 10]));
//! });
//! reader.close()?;
//! # Ok(()) }
//! ```
